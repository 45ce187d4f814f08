import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";

describe("GET /orders/:id/queue-position over HTTP", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "1000" });
  });
  afterAll(() => srv.stop());

  test("the position falls as orders ahead fill or cancel; another user's or an unknown order is 404 ORDER_NOT_FOUND", async () => {
    const market = await createMarket(srv);
    const [a, b, c, taker] = [await srv.login(), await srv.login(), await srv.login(), await srv.login()];
    for (const u of [a, b, c, taker]) await fund(srv.broker, u.userId, 1000 * SHARE);
    const bid = async (u: { token: string }, price: number, quantity: number) => {
      const r = await srv.http("POST", "/api/v1/orders", {
        token: u.token,
        body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price, quantity },
      });
      expect(r.status).toBe(200);
      return r.body.data.orderId as string;
    };
    const first = await bid(a, 0.4, 10 * SHARE);
    await bid(c, 0.41, 50 * SHARE); // a better price: never in the queue at 0.40
    const second = await bid(b, 0.4, 5 * SHARE);
    const mine = await bid(c, 0.4, 20 * SHARE);
    const position = async (id: string, token = c.token) => srv.http("GET", `/api/v1/orders/${id}/queue-position`, { token });

    const start = await position(mine);
    expect([start.status, start.body.data]).toEqual([200, { price: "0.40", quantityAhead: String(15 * SHARE), ordersAhead: 2 }]);
    expect((await position(first, a.token)).body.data).toEqual({ price: "0.40", quantityAhead: "0", ordersAhead: 0 });

    // A NO buyer at 0.60 (a YES ask at 0.40) takes 0.41 in full and 4 shares of the first order at 0.40.
    const sold = await srv.http("POST", "/api/v1/orders", {
      token: taker.token,
      body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: 54 * SHARE },
    });
    expect(sold.status).toBe(200);
    expect((await position(mine)).body.data).toEqual({ price: "0.40", quantityAhead: String(11 * SHARE), ordersAhead: 2 });
    expect((await srv.http("DELETE", `/api/v1/orders/${second}`, { token: b.token })).status).toBe(200);
    expect((await position(mine)).body.data).toEqual({ price: "0.40", quantityAhead: String(6 * SHARE), ordersAhead: 1 });

    for (const [id, token] of [
      [mine, a.token],
      ["ord_unknown", c.token],
      [second, b.token],
    ]) {
      const r = await position(id, token);
      expect([r.status, r.body.error.code]).toEqual([404, "ORDER_NOT_FOUND"]);
    }
    await expectConserved(srv.broker);
  });
});
