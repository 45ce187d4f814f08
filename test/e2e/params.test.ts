/**
 * Numbers in one canonical form over real HTTP: digit strings without sign, spaces, leading zeros
 * or exponent where the contract takes digit strings; page numbers and sizes bounded integers in
 * plain digits. Each refusal is 400 VALIDATION_ERROR naming the field, and changes nothing.
 */
import { ServiceBroker } from "moleculer";
import { PAGE } from "../../lib/params";
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, fund } from "../support/trading";

describe("canonical numbers", () => {
  let srv: TestServer;
  let token: string;
  let userId: string;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_READ: "10000", RATE_LIMIT_TRADE: "10000" });
    ({ token, userId } = await srv.login());
    await fund(srv.broker, userId, 50_000_000);
  });
  afterAll(() => srv.stop());

  const refused = (res: { status: number; body: { error?: { code: string; fields?: unknown } } }, field: string, rule: string) => {
    expect([res.status, res.body.error?.code, res.body.error?.fields]).toEqual([400, "VALIDATION_ERROR", [{ field, rule }]]);
  };
  const LENIENT = ["00100", "1e2", " 100", "100 ", "+100", "-100", "100.0", "0x64", "", "١٠٠"];

  test("quantities of AMM trades, routed trades and quotes: digit strings in one form only", async () => {
    for (const q of LENIENT) {
      const body = { marketId: "mkt_x", side: "BUY", outcome: "YES", quantity: q };
      refused(await srv.http("POST", "/api/v1/trade/amm", { token, body }), "quantity", "stringPattern");
      refused(await srv.http("POST", "/api/v1/trade/market", { token, body }), "quantity", "stringPattern");
      refused(
        await srv.http("POST", "/api/v1/markets/mkt_x/quote", { token, body: { side: "BUY", outcome: "YES", quantity: q } }),
        "quantity",
        "stringPattern",
      );
    }
    // A JSON number is not a digit string either.
    refused(
      await srv.http("POST", "/api/v1/trade/amm", { token, body: { marketId: "mkt_x", side: "BUY", outcome: "YES", quantity: 100 } }),
      "quantity",
      "string",
    );
    // The canonical form passes validation (and then meets the unknown market).
    const ok = await srv.http("POST", "/api/v1/trade/amm", {
      token,
      body: { marketId: "mkt_x", side: "BUY", outcome: "YES", quantity: "100" },
    });
    expect(ok.body.error.code).not.toBe("VALIDATION_ERROR");
  });

  test("withdrawal, faucet and AMM liquidity amounts: refused in any other form, nothing debited", async () => {
    for (const a of ["01000000", "1e6", " 1000000", "+1000000"]) {
      refused(await srv.http("POST", "/api/v1/withdraw", { token, body: { amount: a } }), "amount", "stringPattern");
      refused(await srv.http("POST", "/api/v1/sandbox/faucet", { token, body: { amount: a } }), "amount", "stringPattern");
    }
    expect((await srv.http("GET", "/api/v1/balance", { token })).body.data.available).toBe("50000000");
    const ev = await srv.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Lenient?", category: "Tech", markets: [{ title: "Q?", ammLiquidity: "0100000000" }] },
    });
    refused(ev, "markets[0].ammLiquidity", "stringPattern");
  });

  test("page and pageSize: bounded integers in plain digits; the answer's pagination holds numbers", async () => {
    const cases: Array<[string, string, string]> = [
      ["page=1e308", "page", "number"],
      ["page=1e2", "page", "number"],
      ["page=+2", "page", "number"],
      ["page=02", "page", "number"],
      ["page=1.5", "page", "number"],
      ["page=0", "page", "numberMin"],
      ["page=1000001", "page", "numberMax"],
      ["page=99999999999999999999", "page", "number"],
      ["pageSize=101", "pageSize", "numberMax"],
      ["pageSize=1e1", "pageSize", "number"],
    ];
    for (const [qs, field, rule] of cases) {
      refused(await srv.http("GET", `/api/v1/events?${qs}`), field, rule);
      refused(await srv.http("GET", `/api/v1/events/search?q=x&${qs}`), field, rule);
      refused(await srv.http("GET", `/api/v1/notifications?${qs}`, { token }), field, rule);
      refused(await srv.http("GET", `/api/v1/trades?${qs}`, { token }), field, rule);
    }
    const page = await srv.http("GET", "/api/v1/events?page=1000000&pageSize=100");
    expect(page.status).toBe(200);
    expect(page.body.pagination).toMatchObject({ page: 1_000_000, pageSize: 100, hasNext: false });
    expect((await srv.http("GET", "/api/v1/notifications?page=2&pageSize=5", { token })).body.pagination).toMatchObject({
      page: 2,
      pageSize: 5,
    });
  });
});

test("a broker without the shared validator options refuses to take a page number as text", async () => {
  const broker = new ServiceBroker({ logger: false });
  broker.createService({ name: "paged", actions: { list: { params: { page: PAGE }, handler: (ctx) => ctx.params } } });
  await broker.start();
  try {
    await expect((async () => broker.call("paged.list", { page: "2" }))()).rejects.toThrow(/VALIDATOR_OPTIONS/);
  } finally {
    await broker.stop();
  }
});
