import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { waitFor } from "../support/chain";

describe("AMM, smart router and quotes over HTTP", () => {
  let srv: TestServer;
  let market: string;
  type U = { token: string; userId: string };
  let maker: U;
  let taker: U;

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "10000", TAKER_FEE_BPS: "200", AMM_FEE_BPS: "100" });
    market = await createMarket(srv, "Will the AMM work?", String(1000 * SHARE));
    maker = await srv.login();
    taker = await srv.login();
    await fund(srv.broker, maker.userId, 1000 * SHARE);
    await fund(srv.broker, taker.userId, 1000 * SHARE);
  });
  afterAll(() => srv.stop());
  afterEach(() => expectConserved(srv.broker));

  const post = (u: U | null, path: string, body: Record<string, unknown>) => srv.http("POST", `/api/v1${path}`, { token: u?.token, body });
  const balance = async (u: U) => (await srv.http("GET", "/api/v1/balance", { token: u.token })).body.data;
  const quote = (u: U, body: Record<string, unknown>) => post(u, `/markets/${market}/quote`, body);

  test("the pool is funded from the house when the market opens and shows live prices", async () => {
    const pool = await srv.broker.call("amm.pool", { marketId: market });
    expect(pool).toEqual({ yes: String(1000 * SHARE), no: String(1000 * SHARE), liquidity: "1000" });
    const m = (await srv.http("GET", `/api/v1/events/${(await srv.http("GET", `/api/v1/markets/${market}`)).body.data.eventId}`)).body.data
      .markets[0];
    expect(m).toMatchObject({ buyYesPrice: "0.50", sellYesPrice: "0.50", buyNoPrice: "0.50", sellNoPrice: "0.50" });
  });

  test("POST /trade/amm buys from the pool; the quote before it gives the same numbers", async () => {
    const body = { side: "BUY", outcome: "YES", quantity: String(10 * SHARE) };
    const q = await quote(taker, body);
    expect(q.status).toBe(200);
    expect(q.body.data.source).toBe("AMM");
    const before = await balance(taker);
    const t = await post(taker, "/trade/amm", { marketId: market, ...body });
    expect(t.status).toBe(200);
    expect(t.body.data).toEqual({
      tradeId: expect.any(String),
      venue: "AMM",
      filledQuantity: String(10 * SHARE),
      avgPrice: q.body.data.estimatedPrice,
      totalCost: q.body.data.estimatedCost,
      fee: q.body.data.fee,
    });
    const spent = Number(t.body.data.totalCost) + Number(t.body.data.fee);
    expect(Number((await balance(taker)).available)).toBe(Number(before.available) - spent);
    // cost of 10 YES from a 1000/1000 pool: a little over 0.50 each
    expect(Number(t.body.data.avgPrice)).toBeGreaterThan(0.5);
    expect(Number(t.body.data.avgPrice)).toBeLessThan(0.51);
    const trade = await srv.http("GET", `/api/v1/trades/${t.body.data.tradeId}`, { token: taker.token });
    expect(trade.body.data).toMatchObject({ venue: "AMM", filledQuantity: String(10 * SHARE), settlementStatus: "pending" });
  });

  test("selling back to the pool never returns more than was paid", async () => {
    const before = Number((await balance(taker)).available);
    const buy = await post(taker, "/trade/amm", { marketId: market, side: "BUY", outcome: "NO", quantity: String(5 * SHARE) });
    const sell = await post(taker, "/trade/amm", { marketId: market, side: "SELL", outcome: "NO", quantity: String(5 * SHARE) });
    expect(buy.status).toBe(200);
    expect(sell.status).toBe(200);
    expect(Number((await balance(taker)).available)).toBeLessThan(before);
  });

  test("POST /trade/market: AMM when the book is empty, CLOB when the book is better, HYBRID when splitting is cheaper", async () => {
    const amm = await post(taker, "/trade/market", { marketId: market, side: "BUY", outcome: "NO", quantity: String(SHARE) });
    expect(amm.body.data.venue).toBe("AMM");
    // the maker gets YES shares from the pool, then offers a few far below the pool's price
    expect((await post(maker, "/trade/amm", { marketId: market, side: "BUY", outcome: "YES", quantity: String(20 * SHARE) })).status).toBe(
      200,
    );
    const ask = await post(maker, "/orders", {
      marketId: market,
      side: "SELL",
      outcome: "YES",
      orderType: "GTC",
      price: 0.3,
      quantity: 2 * SHARE,
    });
    expect(ask.status).toBe(200);
    const clob = await post(taker, "/trade/market", { marketId: market, side: "BUY", outcome: "YES", quantity: String(SHARE) });
    expect(clob.body.data.venue).toBe("CLOB");
    expect(clob.body.data.avgPrice).toBe("0.30");
    const hybridBody = { side: "BUY", outcome: "YES", quantity: String(30 * SHARE) };
    const q = await quote(taker, hybridBody);
    expect(q.body.data.source).toBe("HYBRID");
    const hybrid = await post(taker, "/trade/market", { marketId: market, ...hybridBody });
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.data).toMatchObject({
      venue: "HYBRID",
      filledQuantity: String(30 * SHARE),
      totalCost: q.body.data.estimatedCost,
      fee: q.body.data.fee,
      avgPrice: q.body.data.estimatedPrice,
    });
    // the maker's ask is gone (1 share filled by the CLOB trade, 1 by the hybrid one)
    expect((await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data.asks).toEqual([]);
  });

  test("refusals: bad quantity, insufficient funds or shares, no token, market not open; nothing changes", async () => {
    const poor = await srv.login();
    await fund(srv.broker, poor.userId, SHARE);
    const before = await balance(poor);
    for (const quantity of ["0", "150", "abc", "-100", ""]) {
      const r = await post(poor, "/trade/amm", { marketId: market, side: "BUY", outcome: "YES", quantity });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(
      (await post(poor, "/trade/amm", { marketId: market, side: "BUY", outcome: "YES", quantity: String(100 * SHARE) })).body.error.code,
    ).toBe("INSUFFICIENT_BALANCE");
    expect(
      (await post(poor, "/trade/market", { marketId: market, side: "SELL", outcome: "YES", quantity: String(SHARE) })).body.error.code,
    ).toBe("INSUFFICIENT_SHARES");
    expect(await balance(poor)).toEqual(before);
    expect((await post(null, `/markets/${market}/quote`, { side: "BUY", outcome: "YES", quantity: String(SHARE) })).status).toBe(401);
    expect((await post(null, "/trade/amm", { marketId: market, side: "BUY", outcome: "YES", quantity: String(SHARE) })).status).toBe(401);
    const m2 = await createMarket(srv, "Closed already?", String(100 * SHARE));
    await srv.http("POST", `/api/v1/admin/markets/${m2}/close`, { headers: { "x-admin-key": ADMIN_KEY } });
    const closed = await post(poor, "/trade/market", { marketId: m2, side: "BUY", outcome: "YES", quantity: String(SHARE) });
    expect(closed.status).toBe(400);
    expect(closed.body.error.code).toBe("MARKET_NOT_OPEN");
    const noAmm = await createMarket(srv, "No pool here?");
    const r = await post(poor, "/trade/amm", { marketId: noAmm, side: "BUY", outcome: "YES", quantity: String(SHARE) });
    expect(r.status).toBe(400);
    expect(await balance(poor)).toEqual(before);
  });

  test("AMM-only trades are trade prints like any other: a candle, the current price and the 24 h volume move", async () => {
    const m = await createMarket(srv, "Only the AMM trades here?", String(1000 * SHARE));
    const before = (await srv.http("GET", `/api/v1/markets/${m}/price-history?interval=1D`)).body.data;
    expect(before).toMatchObject({ candles: [], currentPrice: 0.5, volume24h: 0 });
    const t = await post(taker, "/trade/amm", { marketId: m, side: "BUY", outcome: "YES", quantity: String(100 * SHARE) });
    expect(t.status).toBe(200);
    const h = await waitFor("the AMM trade's print", async () => {
      const r = (await srv.http("GET", `/api/v1/markets/${m}/price-history?interval=1D`)).body.data;
      return r.candles.length ? r : null;
    });
    // 100 YES from a 1000/1000 pool cost about 0.55 each: the print is that average, to the cent.
    expect(h.currentPrice).toBe(Math.round(Number(t.body.data.avgPrice) * 100) / 100);
    expect(h.volume24h).toBeGreaterThan(0);
    expect(h.candles[h.candles.length - 1].volume).toBe(100);
    const market = (await srv.http("GET", `/api/v1/markets/${m}`)).body.data;
    expect(Number(market.volume)).toBeGreaterThan(0);
  });

  test("positions are marked through the router when the book alone is too thin", async () => {
    const pos = (await srv.http("GET", "/api/v1/positions", { token: taker.token })).body.data;
    const yes = pos.find((p: { outcome: string }) => p.outcome === "YES");
    expect(yes.markPrice).not.toBeNull();
    expect(Number(yes.markPrice)).toBeGreaterThan(0.3);
    expect(yes.unrealizedPnl).not.toBeNull();
  });
});
