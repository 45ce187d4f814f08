/**
 * The public tape over real HTTP and Socket.IO: a crossing order gives one `trade` message per
 * execution to the market's subscribers (none to a socket following another market), a pool trade
 * too, and GET /markets/:id/trades lists the same executions newest first.
 */
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { connectSocket, type Msg, type TestSocket } from "../support/socket";
import { until } from "../support/until";

type TradeMsg = Extract<Msg, { type: "trade" }>;
type U = { token: string; userId: string };

describe("public trades: the market channel's trade messages and GET /markets/:id/trades", () => {
  let srv: TestServer;
  const open: TestSocket[] = [];

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "10000" });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await srv.stop();
  });

  const funded = async (): Promise<U> => {
    const u = await srv.login();
    await fund(srv.broker, u.userId, 1000 * SHARE);
    return u;
  };
  const post = async (u: U, path: string, body: Record<string, unknown>) => {
    const res = await srv.http("POST", `/api/v1${path}`, { token: u.token, body });
    if (res.status !== 200) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const trades = (s: TestSocket) => s.messages.filter((m): m is TradeMsg => m.type === "trade");

  test("a crossing order and a pool trade: one message each to the market's subscribers, none elsewhere; the REST list agrees", async () => {
    const market = await createMarket(srv, "Will the tape print?", String(1000 * SHARE));
    const other = await createMarket(srv, "Another market");
    const follower = await connectSocket(srv.url, { autoPingMs: 3000 });
    const stranger = await connectSocket(srv.url, { autoPingMs: 3000 });
    open.push(follower, stranger);
    follower.subscribe({ channel: "market", marketIds: [market] });
    stranger.subscribe({ channel: "market", marketIds: [other] });
    await follower.waitFor((m) => m.type === "subscribed");
    await stranger.waitFor((m) => m.type === "subscribed");

    const maker = await funded();
    const taker = await funded();
    const order = { marketId: market, orderType: "GTC", quantity: 2 * SHARE };
    await post(maker, "/orders", { ...order, side: "BUY", outcome: "YES", price: 0.4 });
    // BUY NO at 0.60 meets the YES bid at 0.40: one execution, told on the taker's side.
    await post(taker, "/orders", { ...order, side: "BUY", outcome: "NO", price: 0.6 });
    await follower.waitFor((m) => m.type === "trade");
    await post(taker, "/trade/amm", { marketId: market, side: "BUY", outcome: "YES", quantity: String(3 * SHARE) });
    await until("two trade messages", () => trades(follower).length >= 2);

    const [book, pool] = trades(follower).map((m) => m.data);
    expect(trades(follower)).toHaveLength(2);
    expect(trades(follower)[0]).toMatchObject({ type: "trade", channel: "market" });
    expect(book).toMatchObject({
      marketId: market,
      outcome: "NO",
      side: "BUY",
      price: "0.60",
      quantity: String(2 * SHARE),
      yesPrice: "0.40",
    });
    expect(pool).toMatchObject({ marketId: market, outcome: "YES", side: "BUY", quantity: String(3 * SHARE) });
    expect(Number(pool.price)).toBeGreaterThan(0.5); // the pool's price rose from 0.50
    expect(JSON.stringify(book)).not.toContain("usr_");

    await stranger.sync();
    expect(trades(stranger)).toEqual([]);

    // The REST list: the same rows, newest first (prints are recorded in batches behind the trade).
    const listed = await until("both trades listed", async () => {
      const res = await srv.http("GET", `/api/v1/markets/${market}/trades`);
      return res.status === 200 && res.body.data.items.length === 2 && res.body.data.items;
    });
    expect(listed).toEqual([pool, book]);
    const one = await srv.http("GET", `/api/v1/markets/${market}/trades?limit=1`);
    expect(one.body.data.items).toEqual([pool]);
    await expectConserved(srv.broker);
  });

  test("an unknown market is 404, a limit outside 1..100 is 400", async () => {
    const market = await createMarket(srv, "Quiet market");
    expect((await srv.http("GET", `/api/v1/markets/${market}/trades`)).body.data).toEqual({ items: [] });
    const missing = await srv.http("GET", "/api/v1/markets/mkt_nosuchmarket/trades");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("RESOURCE_NOT_FOUND");
    for (const limit of ["0", "101", "x"])
      expect((await srv.http("GET", `/api/v1/markets/${market}/trades?limit=${limit}`)).status).toBe(400);
  });
});
