import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";

describe("order-book trading over HTTP", () => {
  let srv: TestServer;
  let market: string;
  type U = { token: string; userId: string };
  let alice: U;
  let bob: U;
  let carol: U;

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "10000", TAKER_FEE_BPS: "200" });
    market = await createMarket(srv);
    alice = await srv.login();
    bob = await srv.login();
    carol = await srv.login();
    for (const u of [alice, bob, carol]) await fund(srv.broker, u.userId, 1000 * SHARE);
  });
  afterAll(() => srv.stop());
  afterEach(() => expectConserved(srv.broker));

  const order = (u: U, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId: market, orderType: "GTC", ...body } });
  const balance = async (u: U) => (await srv.http("GET", "/api/v1/balance", { token: u.token })).body.data;

  test("a resting BUY locks exactly price x quantity (maker fee 0) and shows in the book and GET /orders", async () => {
    const res = await order(alice, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      orderId: expect.any(String),
      status: "open",
      filledQuantity: "0",
      remainingQuantity: String(10 * SHARE),
    });
    expect(await balance(alice)).toEqual({ available: String(996 * SHARE), locked: String(4 * SHARE), total: String(1000 * SHARE) });
    const book = await srv.http("GET", `/api/v1/markets/${market}/orderbook`);
    expect(book.body.data.bids[0]).toEqual({ price: "0.40", quantity: String(10 * SHARE), numOrders: 1 });
    const noView = await srv.http("GET", `/api/v1/markets/${market}/orderbook?outcome=NO`);
    expect(noView.body.data.asks[0]).toEqual({ price: "0.60", quantity: String(10 * SHARE), numOrders: 1 });
    const list = await srv.http("GET", "/api/v1/orders", { token: alice.token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      id: res.body.data.orderId,
      marketId: market,
      side: "BUY",
      outcome: "YES",
      orderType: "GTC",
      price: "0.40",
      quantity: String(10 * SHARE),
      filledQuantity: "0",
      status: "open",
    });
    expect((await srv.http("GET", "/api/v1/orders", { token: bob.token })).body.data).toHaveLength(0);
  });

  test("BUY NO crossing a BUY YES mints pairs at the maker's price; taker pays the fee", async () => {
    // alice BUY YES 0.40 x10 rests; bob BUY NO 0.65 crosses (0.40 + 0.65 >= 1) at maker price: NO at 0.60
    const res = await order(bob, { side: "BUY", outcome: "NO", price: 0.65, quantity: 4 * SHARE });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.status).toBe("filled");
    expect(d.filledQuantity).toBe(String(4 * SHARE));
    expect(d.avgPrice).toBe("0.60");
    expect(d.totalCost).toBe(String(2.4 * SHARE));
    // fee = 2% x 4 x 0.6 x 0.4 = 0.0192
    expect(d.fee).toBe("19200");
    expect(await balance(bob)).toEqual({
      available: String(1000 * SHARE - 2.4 * SHARE - 19200),
      locked: "0",
      total: String(1000 * SHARE - 2.4 * SHARE - 19200),
    });
    expect(await balance(alice)).toMatchObject({ locked: String(2.4 * SHARE) });
    const pos = (await srv.http("GET", "/api/v1/positions", { token: bob.token })).body.data;
    expect(pos).toHaveLength(1);
    expect(pos[0]).toMatchObject({ marketId: market, outcome: "NO", quantity: String(4 * SHARE), status: "open" });
    const trades = await srv.http("GET", "/api/v1/trades", { token: bob.token });
    expect(trades.body.pagination).toEqual({ total: 1, page: 1, pageSize: 20, hasNext: false });
    expect(trades.body.data[0]).toMatchObject({
      id: d.tradeId,
      venue: "CLOB",
      filledQuantity: String(4 * SHARE),
      avgPrice: "0.60",
      totalCost: String(2.4 * SHARE),
      fee: "19200",
      settlementStatus: "pending",
    });
    const one = await srv.http("GET", `/api/v1/trades/${d.tradeId}`, { token: bob.token });
    expect(one.status).toBe(200);
    expect(one.body.data.id).toBe(d.tradeId);
    expect((await srv.http("GET", `/api/v1/trades/${d.tradeId}`, { token: alice.token })).status).toBe(404);
  });

  test("SELL YES against SELL NO merges pairs and releases collateral", async () => {
    // alice holds 4 YES (from the mint), bob holds 4 NO.
    const a = await order(alice, { side: "SELL", outcome: "YES", price: 0.55, quantity: 2 * SHARE });
    expect(a.body.data.status).toBe("open");
    const b = await order(bob, { side: "SELL", outcome: "NO", price: 0.45, quantity: 2 * SHARE });
    expect(b.body.data.status).toBe("filled");
    expect(b.body.data.avgPrice).toBe("0.45");
  });

  test("FOK that cannot fill completely is rejected and changes nothing", async () => {
    const before = await balance(carol);
    const bookBefore = (await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data;
    const res = await order(carol, { side: "BUY", outcome: "NO", price: 0.99, quantity: 1000 * SHARE, orderType: "FOK" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("FOK_NOT_FILLED");
    expect(await balance(carol)).toEqual(before);
    expect((await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data).toEqual(bookBefore);
    expect((await srv.http("GET", "/api/v1/orders", { token: carol.token })).body.data).toHaveLength(0);
  });

  test("cancel releases exactly the unfilled part; someone else's order is ORDER_NOT_FOUND", async () => {
    const res = await order(carol, { side: "BUY", outcome: "YES", price: 0.3, quantity: 5 * SHARE });
    const id = res.body.data.orderId;
    expect((await balance(carol)).locked).toBe(String(1.5 * SHARE));
    const other = await srv.http("DELETE", `/api/v1/orders/${id}`, { token: bob.token });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe("ORDER_NOT_FOUND");
    const unknown = await srv.http("DELETE", `/api/v1/orders/ord_nope`, { token: carol.token });
    expect(unknown.body.error.code).toBe("ORDER_NOT_FOUND");
    const ok = await srv.http("DELETE", `/api/v1/orders/${id}`, { token: carol.token });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ orderId: id, status: "cancelled" });
    expect(await balance(carol)).toEqual({ available: String(1000 * SHARE), locked: "0", total: String(1000 * SHARE) });
    expect((await srv.http("DELETE", `/api/v1/orders/${id}`, { token: carol.token })).status).toBe(404);
  });

  test("bad input is 400 with field errors and changes nothing", async () => {
    const before = await balance(carol);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ side: "BUY", outcome: "YES", price: 0, quantity: SHARE }, "price"],
      [{ side: "BUY", outcome: "YES", price: 1, quantity: SHARE }, "price"],
      [{ side: "BUY", outcome: "YES", price: 0.555, quantity: SHARE }, "price"],
      [{ side: "BUY", outcome: "YES", price: "0.5", quantity: SHARE }, "price"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: 0 }, "quantity"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: -5 }, "quantity"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: 1.5 }, "quantity"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: "100" }, "quantity"],
      [{ side: "HOLD", outcome: "YES", price: 0.5, quantity: SHARE }, "side"],
      [{ side: "BUY", outcome: "MAYBE", price: 0.5, quantity: SHARE }, "outcome"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: SHARE, orderType: "IOC" }, "orderType"],
      [{ side: "BUY", outcome: "YES", price: 0.5, quantity: SHARE, marketId: { $ne: 1 } }, "marketId"],
    ];
    for (const [body, field] of cases) {
      const res = await order(carol, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect(await balance(carol)).toEqual(before);
  });

  test("insufficient balance or shares is 400 and changes nothing", async () => {
    const poor = await srv.login();
    await fund(srv.broker, poor.userId, SHARE);
    const res = await order(poor, { side: "BUY", outcome: "YES", price: 0.5, quantity: 10 * SHARE });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INSUFFICIENT_BALANCE");
    const sell = await order(poor, { side: "SELL", outcome: "YES", price: 0.5, quantity: SHARE });
    expect(sell.status).toBe(400);
    expect(sell.body.error.code).toBe("INSUFFICIENT_SHARES");
    expect(await balance(poor)).toEqual({ available: String(SHARE), locked: "0", total: String(SHARE) });
  });

  test("unknown market is 404; a closed market refuses orders and released every resting order", async () => {
    expect(
      (
        await srv.http("POST", "/api/v1/orders", {
          token: carol.token,
          body: { marketId: "mkt_unknown", side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
        })
      ).status,
    ).toBe(404);
    const m2 = await createMarket(srv, "Closing soon?");
    const rest = await srv.http("POST", "/api/v1/orders", {
      token: carol.token,
      body: { marketId: m2, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: 2 * SHARE },
    });
    expect(rest.status).toBe(200);
    expect((await balance(carol)).locked).toBe(String(SHARE));
    const close = await srv.http("POST", `/api/v1/admin/markets/${m2}/close`, { headers: { "x-admin-key": ADMIN_KEY } });
    expect(close.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await balance(carol)).locked).toBe("0");
    const refused = await srv.http("POST", "/api/v1/orders", {
      token: carol.token,
      body: { marketId: m2, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("MARKET_NOT_OPEN");
  });

  test("positions: markPrice is the blended exit price through the bids, null when nothing can absorb them", async () => {
    const m = await createMarket(srv, "Mark price?");
    const place = (u: U, body: Record<string, unknown>) =>
      srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId: m, orderType: "GTC", ...body } });
    expect((await place(alice, { side: "BUY", outcome: "YES", price: 0.5, quantity: 2 * SHARE })).status).toBe(200);
    expect((await place(bob, { side: "BUY", outcome: "NO", price: 0.5, quantity: 2 * SHARE })).body.data.status).toBe("filled");
    const mine = async (u: U) =>
      (
        (await srv.http("GET", "/api/v1/positions", { token: u.token })).body.data as Array<{
          marketId: string;
          outcome: string;
          markPrice: string | null;
          unrealizedPnl: string | null;
          totalCost: string;
        }>
      ).find((p) => p.marketId === m);
    // Nobody bids for NO (no YES asks): the position cannot be exited now.
    expect(await mine(bob)).toMatchObject({ outcome: "NO", markPrice: null, unrealizedPnl: null });
    // Bids for NO appear (carol buys NO: 1 share at 0.45, 1 at 0.35); selling both shares blends to 0.40.
    expect((await place(carol, { side: "BUY", outcome: "NO", price: 0.45, quantity: SHARE })).status).toBe(200);
    expect((await place(carol, { side: "BUY", outcome: "NO", price: 0.35, quantity: SHARE })).status).toBe(200);
    const p = await mine(bob);
    expect(p?.markPrice).toBe("0.40");
    // mark x quantity - cost basis, exact in micro-units: 0.45 + 0.35 for the two shares
    expect(p?.unrealizedPnl).toBe(String(0.8 * SHARE - Number(p?.totalCost)));
  });

  test("orders need a token", async () => {
    const res = await srv.http("POST", "/api/v1/orders", {
      body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    expect(res.status).toBe(401);
    for (const path of ["/api/v1/orders", "/api/v1/balance", "/api/v1/positions", "/api/v1/trades"])
      expect((await srv.http("GET", path)).status).toBe(401);
  });
});
