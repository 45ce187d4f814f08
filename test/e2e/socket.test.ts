import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { connectSocket, type Msg, type TestSocket } from "../support/socket";

type U = { token: string; userId: string };

describe("Socket.IO at /ws", () => {
  let srv: TestServer;
  let alice: U;
  let bob: U;
  let carol: U;
  const open: TestSocket[] = [];

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "10000", RATE_LIMIT_READ: "10000" });
    alice = await srv.login();
    bob = await srv.login();
    carol = await srv.login();
    for (const u of [alice, bob, carol]) await fund(srv.broker, u.userId, 1000 * SHARE);
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => srv.stop());

  const connect = async (opts: Parameters<typeof connectSocket>[1] = {}) => {
    const s = await connectSocket(srv.url, { autoPingMs: 3000, ...opts });
    open.push(s);
    return s;
  };
  const order = (u: U, marketId: string, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
  const isUpdate = (channel: string) => (m: Msg) => m.type === "update" && "channel" in m && m.channel === channel;
  const userData = (s: TestSocket, from = 0) =>
    s.since(from, isUpdate("user")).map((m) => (m as Extract<Msg, { channel: "user"; type: "update" }>).data);

  test("ping answers a pong message, over websocket and over long-polling", async () => {
    for (const transports of [["websocket"], ["polling"]] as const) {
      const s = await connect({ transports: [...transports] });
      s.emit("ping");
      expect(await s.waitFor((m) => m.type === "pong")).toEqual({ type: "pong" });
    }
  });

  test("the transport allows any origin (CORS is open at transport level)", async () => {
    const res = await fetch(`${srv.url}/ws/?EIO=4&transport=polling`, { headers: { origin: "https://elsewhere.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("market subscription is confirmed with the (deduplicated) market ids", async () => {
    const s = await connect();
    s.subscribe({ channel: "market", marketIds: ["mkt_a", "mkt_b", "mkt_a"] });
    expect(await s.waitFor((m) => m.type === "subscribed")).toEqual({
      type: "subscribed",
      channel: "market",
      marketIds: ["mkt_a", "mkt_b"],
    });
  });

  test("book subscription sends the full snapshot first, then the confirmation; NO mirrors YES", async () => {
    const market = await createMarket(srv, "Book snapshot market");
    expect((await order(carol, market, { side: "BUY", outcome: "YES", price: 0.42, quantity: 3 * SHARE })).status).toBe(200);
    expect((await order(carol, market, { side: "BUY", outcome: "YES", price: 0.41, quantity: 1 * SHARE })).status).toBe(200);
    const s = await connect();
    s.subscribe({ channel: "book", marketId: market });
    await s.waitFor((m) => m.type === "subscribed");
    const [snap, confirmed] = s.messages;
    expect(snap).toEqual({
      type: "snapshot",
      channel: "book",
      marketId: market,
      outcome: "YES",
      seq: expect.any(Number),
      data: {
        bids: [
          { price: "0.42", quantity: String(3 * SHARE), numOrders: 1 },
          { price: "0.41", quantity: String(1 * SHARE), numOrders: 1 },
        ],
        asks: [],
      },
    });
    expect(confirmed).toEqual({ type: "subscribed", channel: "book", marketId: market, outcome: "YES" });
    const rest = (await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data;
    expect((snap as { data: unknown }).data).toEqual(rest);

    const n = await connect();
    n.subscribe({ channel: "book", marketId: market, outcome: "NO" });
    await n.waitFor((m) => m.type === "subscribed");
    const restNo = (await srv.http("GET", `/api/v1/markets/${market}/orderbook?outcome=NO`)).body.data;
    expect(n.messages[0]).toMatchObject({ type: "snapshot", outcome: "NO", data: restNo });
    expect(restNo.asks[0]).toEqual({ price: "0.58", quantity: String(3 * SHARE), numOrders: 1 });
  });

  test("book subscription to an unknown market is an error message", async () => {
    const s = await connect();
    s.subscribe({ channel: "book", marketId: "mkt_does_not_exist" });
    expect(await s.waitFor((m) => m.type === "error")).toEqual({
      type: "error",
      code: "NOT_FOUND",
      channel: "book",
      message: "Market not found",
    });
  });

  test("user subscription with a valid token is confirmed with the user id; an invalid one gets an error", async () => {
    const s = await connect();
    s.subscribe({ channel: "user", token: alice.token });
    expect(await s.waitFor((m) => m.type === "subscribed")).toEqual({ type: "subscribed", channel: "user", userId: alice.userId });

    const bad = await connect();
    bad.subscribe({ channel: "user", token: alice.token.slice(0, -3) + "abc" });
    expect(await bad.waitFor((m) => m.type === "error")).toEqual({
      type: "error",
      code: "UNAUTHORIZED",
      channel: "user",
      message: "Invalid or expired token",
    });
    bad.subscribe({ channel: "user" });
    expect(await bad.waitFor((m) => m.type === "error", { from: 1 })).toMatchObject({
      type: "error",
      code: "UNAUTHORIZED",
      channel: "user",
    });
  });

  test("an order pushes market and book updates to subscribers, and user updates only to its owners", async () => {
    const market = await createMarket(srv, "Live updates market");
    const watcher = await connect();
    watcher.subscribe({ channel: "market", marketIds: [market] });
    watcher.subscribe({ channel: "book", marketId: market });
    watcher.subscribe({ channel: "book", marketId: market, outcome: "NO" });
    await watcher.waitFor((m) => m.type === "subscribed" && m.channel === "book" && m.outcome === "NO");
    const snapSeq = (watcher.messages.find((m) => m.type === "snapshot") as { seq: number }).seq;
    const subs = await Promise.all(
      [alice, bob, carol].map(async (u) => {
        const s = await connect();
        s.subscribe({ channel: "user", token: u.token });
        await s.waitFor((m) => m.type === "subscribed");
        return s;
      }),
    );
    const [sa, sb, sc] = subs;

    // alice rests BUY YES 0.30 x5
    const placed = await order(alice, market, { side: "BUY", outcome: "YES", price: 0.3, quantity: 5 * SHARE });
    expect(placed.status).toBe(200);
    const orderId = placed.body.data.orderId as string;

    expect(await watcher.waitFor(isUpdate("market"))).toEqual({
      type: "update",
      channel: "market",
      data: { marketId: market, buyYesPrice: null, buyNoPrice: "0.70", sellYesPrice: "0.30", sellNoPrice: null },
    });
    const yesUpdate = await watcher.waitFor((m) => m.type === "update" && m.channel === "book" && m.outcome === "YES");
    expect(yesUpdate).toEqual({
      type: "update",
      channel: "book",
      marketId: market,
      outcome: "YES",
      seq: expect.any(Number),
      data: { marketId: market, bids: [{ price: "0.30", quantity: String(5 * SHARE), numOrders: 1 }], asks: [] },
    });
    expect((yesUpdate as { seq: number }).seq).toBeGreaterThan(snapSeq);
    expect(await watcher.waitFor((m) => m.type === "update" && m.channel === "book" && m.outcome === "NO")).toMatchObject({
      data: { marketId: market, bids: [], asks: [{ price: "0.70", quantity: String(5 * SHARE), numOrders: 1 }] },
    });

    await sa.waitFor((m) => m.type === "update" && "order" in m.data);
    // The placement lock holds fee headroom until matching is done; the coalesced latest state follows.
    await sa.waitFor((m) => m.type === "update" && "balance" in m.data && m.data.balance.locked === String(1.5 * SHARE));
    expect(userData(sa)).toEqual(
      expect.arrayContaining([
        {
          order: {
            orderId,
            marketId: market,
            status: "open",
            remainingQuantity: String(5 * SHARE),
            filledDelta: "0",
            clientOrderId: null,
            cancelReason: null,
          },
        },
        { balance: { available: String(1000 * SHARE - 1.5 * SHARE), locked: String(1.5 * SHARE), total: String(1000 * SHARE) } },
      ]),
    );

    // bob crosses with BUY NO 0.70 x2: a mint at alice's price; both owners hear about it.
    const bobMark = sb.messages.length;
    const aliceMark = sa.messages.length;
    const crossed = await order(bob, market, { side: "BUY", outcome: "NO", price: 0.7, quantity: 2 * SHARE });
    expect(crossed.body.data.status).toBe("filled");
    await sb.waitFor((m) => m.type === "update" && "trade" in m.data, { from: bobMark });
    await sb.waitFor((m) => m.type === "update" && "position" in m.data, { from: bobMark });
    await sa.waitFor((m) => m.type === "update" && "trade" in m.data, { from: aliceMark });
    await sa.waitFor((m) => m.type === "update" && "order" in m.data && m.data.order.status === "partially_filled", { from: aliceMark });
    expect(userData(sb, bobMark)).toEqual(
      expect.arrayContaining([
        {
          trade: {
            tradeId: crossed.body.data.tradeId,
            marketId: market,
            orderId: crossed.body.data.orderId,
            side: "BUY",
            outcome: "NO",
            venue: "CLOB",
            role: "taker",
            filledQuantity: String(2 * SHARE),
            avgPrice: "0.70",
            totalCost: String(1.4 * SHARE),
            fee: crossed.body.data.fee,
          },
        },
        {
          position: {
            marketId: market,
            outcome: "NO",
            quantity: String(2 * SHARE),
            avgEntryPrice: expect.any(String),
            totalCost: expect.any(String),
            realizedPnl: "0",
          },
        },
      ]),
    );
    const aliceTrade = userData(sa, aliceMark).find((d) => "trade" in d) as { trade: { role: string; outcome: string; side: string } };
    expect(aliceTrade.trade).toMatchObject({ role: "maker", side: "BUY", outcome: "YES" });
    expect(userData(sa, aliceMark)).toContainEqual({
      order: {
        orderId,
        marketId: market,
        status: "partially_filled",
        remainingQuantity: String(3 * SHARE),
        filledDelta: String(2 * SHARE),
        clientOrderId: null,
        cancelReason: null,
      },
    });

    // Nobody else's data reached carol, and no user data reached the public watcher.
    await sc.sync();
    // (Her own deposit notice may come at any time: the notifier sends in batches.)
    const ownDeposit = (d: object) =>
      "notification" in d &&
      (d.notification as { type: string; id: string }).type === "DEPOSIT_CREDITED" &&
      (d.notification as { id: string }).id.endsWith(carol.userId);
    expect(userData(sc).filter((d) => !ownDeposit(d))).toEqual([]);
    expect(userData(sb).some((d) => "order" in d && d.order.orderId === orderId)).toBe(false);
    expect(watcher.since(0, isUpdate("user"))).toEqual([]);
  });

  test("market updates carry the same live prices as GET /markets/:id (book and AMM pool)", async () => {
    const market = await createMarket(srv, "Hybrid prices market", String(100 * SHARE));
    const s = await connect();
    s.subscribe({ channel: "market", marketIds: [market] });
    await s.waitFor((m) => m.type === "subscribed");
    expect((await order(carol, market, { side: "BUY", outcome: "YES", price: 0.48, quantity: SHARE })).status).toBe(200);
    const update = (await s.waitFor(isUpdate("market"))) as Extract<Msg, { channel: "market"; type: "update" }>;
    const rest = (await srv.http("GET", `/api/v1/markets/${market}`)).body.data;
    expect(update.data).toEqual({
      marketId: market,
      buyYesPrice: rest.buyYesPrice,
      buyNoPrice: rest.buyNoPrice,
      sellYesPrice: rest.sellYesPrice,
      sellNoPrice: rest.sellNoPrice,
    });
    expect(update.data.sellYesPrice).toBe("0.50");
  });

  test("unsubscribe is confirmed for each channel and stops the pushes", async () => {
    const market = await createMarket(srv, "Unsubscribe market");
    const s = await connect();
    s.subscribe({ channel: "market", marketIds: [market, "mkt_other"] });
    s.subscribe({ channel: "book", marketId: market });
    s.subscribe({ channel: "user", token: carol.token });
    await s.waitFor((m) => m.type === "subscribed" && m.channel === "book");
    await s.waitFor((m) => m.type === "subscribed" && m.channel === "user");

    s.unsubscribe({ channel: "market", marketIds: [market] });
    expect(await s.waitFor((m) => m.type === "unsubscribed")).toEqual({ type: "unsubscribed", channel: "market", marketIds: [market] });
    s.unsubscribe({ channel: "book", marketId: market });
    expect(await s.waitFor((m) => m.type === "unsubscribed" && m.channel === "book")).toEqual({
      type: "unsubscribed",
      channel: "book",
      marketId: market,
      outcome: "YES",
    });
    s.unsubscribe({ channel: "user" });
    expect(await s.waitFor((m) => m.type === "unsubscribed" && m.channel === "user")).toEqual({
      type: "unsubscribed",
      channel: "user",
      userId: carol.userId,
    });
    s.unsubscribe({ channel: "market" });
    expect(
      await s.waitFor(
        (m) => m.type === "unsubscribed" && m.channel === "market" && m.marketIds.length === 1 && m.marketIds[0] === "mkt_other",
      ),
    ).toBeTruthy();

    const mark = s.messages.length;
    expect((await order(carol, market, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    await s.sync();
    expect(s.since(mark, (m) => m.type === "update")).toEqual([]);
  });

  test("logout ends the user subscription with an error message and stops private pushes", async () => {
    const dave = await srv.login();
    await fund(srv.broker, dave.userId, 10 * SHARE);
    const s = await connect();
    s.subscribe({ channel: "user", token: dave.token });
    await s.waitFor((m) => m.type === "subscribed");
    expect((await srv.http("POST", "/api/v1/auth/logout", { token: dave.token })).status).toBe(204);
    expect(await s.waitFor((m) => m.type === "error")).toEqual({
      type: "error",
      code: "SESSION_ENDED",
      channel: "user",
      message: "Session ended; subscribe again with a valid token",
    });
    const mark = s.messages.length;
    await fund(srv.broker, dave.userId, 1 * SHARE);
    await new Promise((r) => setTimeout(r, 150));
    await s.sync();
    expect(s.since(mark, isUpdate("user"))).toEqual([]);
    s.subscribe({ channel: "user", token: dave.token });
    expect(await s.waitFor((m) => m.type === "error", { from: mark })).toMatchObject({ code: "UNAUTHORIZED", channel: "user" });
  });

  test("sockets reach only ping/subscribe/unsubscribe: a generic action `call` is refused and changes nothing", async () => {
    const s = await connect();
    const ack = (event: string, ...args: unknown[]) => new Promise<unknown>((resolve) => s.socket.emit(event, ...args, resolve));
    const before = await srv.http("GET", "/api/v1/balance", { token: carol.token });
    const r1 = await ack("call", "ledger.post", {
      key: "socket-theft",
      postings: [
        { kind: "cash", account: carol.userId, available: 1e12 },
        { kind: "external", flow: "deposit", amount: 1e12 },
      ],
    });
    const r2 = await ack("call", "auth.checkSession", { sid: "x", userId: "y" });
    const r3 = await ack("call", "api.broadcast", { event: "message", args: [{ type: "pwned" }] });
    for (const r of [r1, r2, r3]) expect(r).toEqual({ type: "error", code: "UNSUPPORTED", message: 'Unsupported event "call"' });
    expect(await ack("book.place", { marketId: "x" })).toEqual({
      type: "error",
      code: "UNSUPPORTED",
      message: 'Unsupported event "book.place"',
    });
    await s.sync();
    expect(s.messages.some((m) => (m as { type: string }).type === "pwned")).toBe(false);
    expect((await srv.http("GET", "/api/v1/balance", { token: carol.token })).body.data).toEqual(before.body.data);
    // moleculer-io's broadcast/getClients actions are not registered at all.
    const actions = srv.broker.registry.getActionList({ onlyLocal: true }).map((a: { name: string }) => a.name);
    for (const name of ["api.call", "api.broadcast", "api.getClients"]) expect(actions).not.toContain(name);
  });

  test("bad payloads and the per-connection limits answer error messages", async () => {
    const s = await connect();
    s.emit("subscribe", "market");
    expect(await s.waitFor((m) => m.type === "error")).toMatchObject({ type: "error", code: "VALIDATION_ERROR" });
    s.subscribe({ channel: "market", marketIds: [] });
    s.subscribe({ channel: "book", marketId: "x", outcome: "MAYBE" });
    s.subscribe({ channel: "chat" });
    await s.sync();
    expect(s.messages.filter((m) => m.type === "error")).toHaveLength(4);

    const mark = s.messages.length;
    s.subscribe({ channel: "market", marketIds: Array.from({ length: 150 }, (_, i) => `mkt_${i}`) });
    s.subscribe({ channel: "market", marketIds: Array.from({ length: 60 }, (_, i) => `mkt_x${i}`) });
    await s.sync();
    expect(s.since(mark, (m) => m.type !== "pong").map((m) => m.type)).toEqual(["subscribed", "error"]);
    expect(s.since(mark)).toContainEqual({
      type: "error",
      code: "LIMIT_EXCEEDED",
      channel: "market",
      message: "At most 200 markets per connection",
    });
    s.subscribe({ channel: "market", marketIds: Array.from({ length: 201 }, (_, i) => `mkt_y${i}`) });
    expect(await s.waitFor((m) => m.type === "error" && m.code === "LIMIT_EXCEEDED", { from: mark })).toBeTruthy();
    // 150 + 50 more fit exactly.
    s.subscribe({ channel: "market", marketIds: Array.from({ length: 50 }, (_, i) => `mkt_z${i}`) });
    expect(await s.waitFor((m) => m.type === "subscribed" && m.channel === "market" && m.marketIds.length === 50)).toBeTruthy();

    const markets = await Promise.all(Array.from({ length: 21 }, (_, i) => createMarket(srv, `Limit market ${i}`)));
    const b = await connect();
    for (const id of markets.slice(0, 20)) b.subscribe({ channel: "book", marketId: id });
    await b.waitFor(() => b.messages.filter((m) => m.type === "subscribed").length === 20, { timeoutMs: 20_000 });
    b.subscribe({ channel: "book", marketId: markets[20] });
    expect(await b.waitFor((m) => m.type === "error")).toEqual({
      type: "error",
      code: "LIMIT_EXCEEDED",
      channel: "book",
      message: "At most 20 order books per connection",
    });
  });

  test("a burst of orders is coalesced: fewer book pushes than changes, the last one carrying the final book", async () => {
    const market = await createMarket(srv, "Burst market");
    const s = await connect();
    s.subscribe({ channel: "book", marketId: market });
    s.subscribe({ channel: "market", marketIds: [market] });
    await s.waitFor((m) => m.type === "subscribed" && m.channel === "book");
    const n = 30;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        order(alice, market, { side: "BUY", outcome: "YES", price: 0.1 + (i % 10) / 100, quantity: SHARE }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const rest = (await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data;
    const finalSeqWait = await s.waitFor(
      (m) => m.type === "update" && m.channel === "book" && JSON.stringify(m.data.bids) === JSON.stringify(rest.bids),
      { timeoutMs: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 150));
    const updates = s.since(0, (m) => m.type === "update" && m.channel === "book") as Array<{ seq: number; data: { bids: unknown } }>;
    expect(updates.length).toBeLessThan(n);
    expect(updates[updates.length - 1]).toBe(finalSeqWait);
    const seqs = updates.map((u) => u.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    // Market prices only move when the best bid does: far fewer pushes still.
    expect(s.since(0, isUpdate("market")).length).toBeLessThanOrEqual(updates.length);
  });

  test("a book subscribed while an update is still being coalesced gets the snapshot, then only newer updates", async () => {
    const market = await createMarket(srv, "Snapshot floor market");
    const watcher = await connect();
    watcher.subscribe({ channel: "book", marketId: market });
    await watcher.waitFor((m) => m.type === "subscribed" && m.channel === "book");
    const late: TestSocket[] = [];
    for (let i = 0; i < 4; i++) late.push(await connect());
    for (let round = 0; round < 5; round++) {
      const from = late.map((s) => s.messages.length);
      // Acknowledged, so its update is in the 50 ms coalescing window when the subscriptions land.
      expect((await order(alice, market, { side: "BUY", outcome: "YES", price: 0.1 + round / 100, quantity: SHARE })).status).toBe(200);
      for (const s of late) s.subscribe({ channel: "book", marketId: market });
      const rest = (await srv.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data;
      await watcher.waitFor(
        (m) => m.type === "update" && m.channel === "book" && JSON.stringify(m.data.bids) === JSON.stringify(rest.bids),
      );
      await Promise.all(late.map((s) => s.sync()));
      for (const [k, s] of late.entries()) {
        const snap = (await s.waitFor((m) => m.type === "snapshot", { from: from[k] })) as { seq: number };
        const seqs = (s.since(from[k], (m) => m.type === "update" && m.channel === "book") as Array<{ seq: number }>).map((u) => u.seq);
        for (const seq of seqs) expect(seq).toBeGreaterThan(snap.seq);
        expect([...new Set(seqs)]).toEqual(seqs);
      }
      for (const s of late) s.unsubscribe({ channel: "book", marketId: market });
      await Promise.all(
        late.map((s) => s.waitFor((m) => m.type === "unsubscribed", { from: s.messages.length - 1 }).catch(() => undefined)),
      );
    }
    // Subscribed on a quiet book, each gets the next change.
    const from = late.map((s) => s.messages.length);
    for (const s of late) s.subscribe({ channel: "book", marketId: market });
    await Promise.all(late.map((s, k) => s.waitFor((m) => m.type === "subscribed" && m.channel === "book", { from: from[k] })));
    expect((await order(alice, market, { side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE })).status).toBe(200);
    for (const [k, s] of late.entries()) {
      const snap = (await s.waitFor((m) => m.type === "snapshot", { from: from[k] })) as { seq: number };
      expect(
        ((await s.waitFor((m) => m.type === "update" && m.channel === "book", { from: from[k] })) as { seq: number }).seq,
      ).toBeGreaterThan(snap.seq);
    }
  });
});
