/**
 * JSON bodies with prototype keys over real HTTP: a `"__proto__"` object copied into the request's
 * params would become their prototype and its fields would read as the request's own. Such a body
 * is refused whole with 400 VALIDATION_ERROR and nothing happens.
 */
import { refusePrototypeKeys } from "../../gateway/json-body";
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";

describe("prototype keys in JSON bodies", () => {
  let srv: TestServer;
  let token: string;
  let marketId: string;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_READ: "10000", RATE_LIMIT_TRADE: "10000" });
    let userId: string;
    ({ token, userId } = await srv.login());
    await fund(srv.broker, userId, 50 * SHARE);
    marketId = await createMarket(srv, "Prototype keys?");
  });
  afterAll(() => srv.stop());

  const raw = (method: string, path: string, body: string) =>
    srv.http(method, path, { token, raw: body, headers: { "content-type": "application/json" } });
  const refused = (res: { status: number; body: { error?: { code: string; message: string } } }, key: string) => {
    expect([res.status, res.body.error?.code, res.body.error?.message]).toEqual([
      400,
      "VALIDATION_ERROR",
      `A JSON body must not contain the key "${key}"`,
    ]);
  };

  test("an order's fields under __proto__ (top level or nested): 400, no order placed, nothing locked", async () => {
    const order = JSON.stringify({ marketId, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.4, quantity: SHARE });
    refused(await raw("POST", "/api/v1/orders", `{"__proto__": ${order}}`), "__proto__");
    refused(await raw("POST", "/api/v1/orders", `{"marketId": "${marketId}", "x": {"__proto__": ${order}}}`), "__proto__");
    refused(await raw("POST", "/api/v1/orders", `{"constructor": {"prototype": ${order}}}`), "constructor.prototype");
    refused(await raw("POST", "/api/v1/orders/batch", `{"orders": [{"__proto__": ${order}}]}`), "__proto__");
    expect((await srv.http("GET", "/api/v1/orders", { token })).body.data).toEqual([]);
    expect((await srv.http("GET", "/api/v1/balance", { token })).body.data).toEqual({
      available: String(50 * SHARE),
      locked: "0",
      total: String(50 * SHARE),
    });
    // The same order as plain fields is placed: the refusal is about the key, not the order.
    const placed = await raw("POST", "/api/v1/orders", order);
    expect([placed.status, placed.body.data?.status]).toEqual([200, "open"]);
  });

  test("a withdrawal's amount under __proto__: 400, nothing debited", async () => {
    const before = (await srv.http("GET", "/api/v1/balance", { token })).body.data;
    refused(await raw("POST", "/api/v1/withdraw", `{"__proto__": {"amount": "1000000"}}`), "__proto__");
    expect((await srv.http("GET", "/api/v1/balance", { token })).body.data).toEqual(before);
    expect(
      (await srv.http("GET", "/api/v1/transfers", { token })).body.data.filter((t: { type: string }) => t.type === "withdrawal"),
    ).toEqual([]);
  });

  test("the reviver: prototype keys at any depth throw, other keys (a plain constructor field too) pass", () => {
    expect(() => JSON.parse('{"a": [{"b": {"__proto__": 1}}]}', refusePrototypeKeys)).toThrow(/__proto__/);
    expect(() => JSON.parse('{"constructor": {"prototype": {}}}', refusePrototypeKeys)).toThrow(/constructor\.prototype/);
    expect(JSON.parse('{"constructor": "x", "prototype": 1, "a": {"proto": 2}}', refusePrototypeKeys)).toEqual({
      constructor: "x",
      prototype: 1,
      a: { proto: 2 },
    });
  });
});
