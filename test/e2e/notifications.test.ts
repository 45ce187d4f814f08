import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { connectSocket } from "../support/socket";
import { TestWallet } from "../support/wallet";
import { classifyFailure, nextRetryDelay, retryPolicy, DEFAULT_RETRY } from "../../notifier/policy";
import { draftsFromEntry } from "../../notifier/derive";
import { render } from "../../notifier/texts";

type U = { token: string; userId: string; wallet: TestWallet };
interface Item {
  id: string;
  type: string;
  title: string;
  body: string;
  metadata: Record<string, unknown>;
  delivered: boolean;
  read: boolean;
  createdAt: string;
}

const ENV = { ADMIN_KEY, RATE_LIMIT_TRADE: "10000", RATE_LIMIT_READ: "10000" };

async function list(srv: TestServer, u: { token: string }, query = ""): Promise<Item[]> {
  const res = await srv.http("GET", `/api/v1/notifications${query}`, { token: u.token });
  if (res.status !== 200) throw new Error(`GET /notifications ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Polls GET /notifications until `pred` holds (notifications are created asynchronously). */
async function eventually(srv: TestServer, u: { token: string }, pred: (items: Item[]) => boolean, timeoutMs = 30_000): Promise<Item[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const items = await list(srv, u, "?pageSize=100");
    if (pred(items)) return items;
    if (Date.now() > until) throw new Error(`notifications condition not met: ${JSON.stringify(items)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ofType = (items: Item[], type: string) => items.filter((i) => i.type === type);

describe("notifications", () => {
  let srv: TestServer;
  let alice: U;
  let bob: U;
  let carol: U;

  beforeAll(async () => {
    srv = await startServer(ENV);
    alice = await srv.login();
    bob = await srv.login();
    carol = await srv.login();
    for (const u of [alice, bob, carol]) await fund(srv.broker, u.userId, 1000 * SHARE);
  });
  afterAll(() => srv.stop());

  const order = (u: U, marketId: string, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });

  test("a credited deposit is notified from the ledger journal", async () => {
    const items = await eventually(srv, carol, (i) => ofType(i, "DEPOSIT_CREDITED").length === 1);
    expect(items).toEqual([
      {
        id: expect.stringMatching(/^DEPOSIT_CREDITED:/),
        type: "DEPOSIT_CREDITED",
        title: "Deposit credited",
        body: "$1,000.00 is now available in your account.",
        metadata: { amount: String(1000 * SHARE), reference: expect.any(String), txHash: null },
        delivered: false,
        read: false,
        createdAt: expect.any(String),
      },
    ]);
  });

  test("a fill notifies taker and maker (TRADE_FILLED, id from the trade id), nobody else", async () => {
    const market = await createMarket(srv, "Will the fill be notified?");
    const rest = await order(alice, market, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE });
    const take = await order(bob, market, { side: "BUY", outcome: "NO", price: 0.65, quantity: 4 * SHARE });
    expect(take.body.data.status).toBe("filled");
    const tradeId = take.body.data.tradeId as string;

    const bobs = await eventually(srv, bob, (i) => ofType(i, "TRADE_FILLED").length === 1);
    expect(ofType(bobs, "TRADE_FILLED")[0]).toEqual({
      id: `TRADE_FILLED:${tradeId}`,
      type: "TRADE_FILLED",
      title: "Bought NO",
      body: "Bought 4 NO at 60¢ ($2.40) in “Will the fill be notified?”, fee $0.0192.",
      metadata: {
        marketId: market,
        tradeId,
        orderId: take.body.data.orderId,
        side: "BUY",
        outcome: "NO",
        venue: "CLOB",
        role: "taker",
        filledQuantity: String(4 * SHARE),
        avgPrice: "0.60",
        totalCost: String(2.4 * SHARE),
        fee: "19200",
      },
      delivered: false,
      read: false,
      createdAt: expect.any(String),
    });
    const alices = await eventually(srv, alice, (i) => ofType(i, "TRADE_FILLED").length === 1);
    expect(ofType(alices, "TRADE_FILLED")[0].metadata).toMatchObject({
      marketId: market,
      orderId: rest.body.data.orderId,
      side: "BUY",
      outcome: "YES",
      role: "maker",
      filledQuantity: String(4 * SHARE),
      avgPrice: "0.40",
    });
    // Newest first: the fill came after the deposit.
    expect(alices.map((i) => i.type)).toEqual(["TRADE_FILLED", "DEPOSIT_CREDITED"]);
    expect(ofType(await list(srv, carol), "TRADE_FILLED")).toEqual([]);

    // Replaying the whole journal again creates nothing twice.
    await srv.broker.call("notifier.catchUp");
    const notifier = srv.broker.getLocalService("notifier") as unknown as { cursor: number };
    const seen = notifier.cursor;
    notifier.cursor = 0;
    await srv.broker.call("notifier.catchUp");
    expect(notifier.cursor).toBe(seen);
    expect(ofType(await list(srv, bob), "TRADE_FILLED")).toHaveLength(1);
  });

  test("the user channel of the socket carries new notifications", async () => {
    const market = await createMarket(srv, "Socket notification market");
    const s = await connectSocket(srv.url, { autoPingMs: 3000 });
    try {
      s.subscribe({ channel: "user", token: carol.token });
      await s.waitFor((m) => m.type === "subscribed");
      await order(alice, market, { side: "BUY", outcome: "YES", price: 0.5, quantity: SHARE });
      const take = await order(carol, market, { side: "BUY", outcome: "NO", price: 0.5, quantity: SHARE });
      const msg = await s.waitFor((m) => m.type === "update" && m.channel === "user" && "notification" in m.data);
      expect(msg).toMatchObject({
        type: "update",
        channel: "user",
        data: { notification: { id: `TRADE_FILLED:${take.body.data.tradeId}`, type: "TRADE_FILLED", read: false, delivered: false } },
      });
    } finally {
      s.close();
    }
  });

  test("GET /notifications is paginated (default 20, max 100), newest first, and scoped to the caller", async () => {
    const dave = await srv.login();
    for (let i = 1; i <= 25; i++) await fund(srv.broker, dave.userId, i * SHARE);
    await eventually(srv, dave, (i) => i.length === 25);

    const p1 = await srv.http("GET", "/api/v1/notifications", { token: dave.token });
    expect(p1.status).toBe(200);
    expect(p1.body.pagination).toEqual({ total: 25, page: 1, pageSize: 20, hasNext: true });
    expect(p1.body.data).toHaveLength(20);
    expect(p1.body.data[0].metadata.amount).toBe(String(25 * SHARE));
    const p2 = await srv.http("GET", "/api/v1/notifications?page=2", { token: dave.token });
    expect(p2.body.pagination).toEqual({ total: 25, page: 2, pageSize: 20, hasNext: false });
    expect(p2.body.data.map((i: Item) => i.metadata.amount)).toEqual([5, 4, 3, 2, 1].map((n) => String(n * SHARE)));
    const p3 = await srv.http("GET", "/api/v1/notifications?page=3&pageSize=10", { token: dave.token });
    expect(p3.body.pagination).toEqual({ total: 25, page: 3, pageSize: 10, hasNext: false });
    expect(p3.body.data).toHaveLength(5);
    const all = [...p1.body.data, ...p2.body.data].map((i: Item) => i.createdAt);
    expect([...all].sort().reverse()).toEqual(all);

    expect((await srv.http("GET", "/api/v1/notifications?pageSize=101", { token: dave.token })).status).toBe(400);
    expect((await srv.http("GET", "/api/v1/notifications?page=0", { token: dave.token })).status).toBe(400);
    expect((await srv.http("GET", "/api/v1/notifications")).status).toBe(401);
    // Nobody else's notifications leak in.
    expect((await list(srv, carol, "?pageSize=100")).every((i) => !p1.body.data.some((d: Item) => d.id === i.id))).toBe(true);
  });

  test("POST /notifications/read marks the caller's own by id, or all", async () => {
    const mine = await list(srv, alice);
    const theirs = await list(srv, bob);
    const res = await srv.http("POST", "/api/v1/notifications/read", { token: alice.token, body: { ids: [mine[0].id, theirs[0].id] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ updated: 1, unread: mine.length - 1 });
    expect((await list(srv, bob)).find((i) => i.id === theirs[0].id)?.read).toBe(false);
    expect((await list(srv, alice)).find((i) => i.id === mine[0].id)?.read).toBe(true);
    const allRes = await srv.http("POST", "/api/v1/notifications/read", { token: alice.token, body: { all: true } });
    expect(allRes.body.data).toEqual({ updated: mine.length - 1, unread: 0 });
    expect((await list(srv, alice)).every((i) => i.read)).toBe(true);
    const bad = await srv.http("POST", "/api/v1/notifications/read", { token: alice.token, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect((await srv.http("POST", "/api/v1/notifications/read", { body: { all: true } })).status).toBe(401);
  });

  test("resolution notifies each holder once (MARKET_RESOLVED), with what the position is worth", async () => {
    const market = await createMarket(srv, "Resolution market");
    await order(alice, market, { side: "BUY", outcome: "YES", price: 0.3, quantity: 5 * SHARE });
    await order(bob, market, { side: "BUY", outcome: "NO", price: 0.7, quantity: 5 * SHARE });
    const resolved = await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { result: "YES" },
    });
    expect(resolved.status).toBe(200);

    const a = ofType(await eventually(srv, alice, (i) => ofType(i, "MARKET_RESOLVED").length === 1), "MARKET_RESOLVED")[0];
    expect(a).toMatchObject({
      id: `MARKET_RESOLVED:${market}:${alice.userId}`,
      title: "Market resolved: YES",
      body: "“Resolution market” resolved YES; your 5 YES shares pay $5.00: redeem them from your portfolio.",
      metadata: {
        marketId: market,
        result: "YES",
        conditionId: expect.stringMatching(/^(0x)?[0-9a-f]+$/),
        positions: [{ outcome: "YES", quantity: String(5 * SHARE) }],
      },
    });
    const b = ofType(await eventually(srv, bob, (i) => ofType(i, "MARKET_RESOLVED").length === 1), "MARKET_RESOLVED")[0];
    expect(b.metadata).toMatchObject({ result: "YES", positions: [{ outcome: "NO", quantity: String(5 * SHARE) }] });
    expect(b.body).toContain("did not win");
    expect(ofType(await list(srv, carol, "?pageSize=100"), "MARKET_RESOLVED").filter((i) => i.metadata.marketId === market)).toEqual([]);

    // The event again (redelivery, second gateway): still one each.
    srv.broker.emit("market.resolved", { marketId: market, result: "YES", conditionId: a.metadata.conditionId });
    await new Promise((r) => setTimeout(r, 200));
    expect(ofType(await list(srv, alice, "?pageSize=100"), "MARKET_RESOLVED").filter((i) => i.metadata.marketId === market)).toHaveLength(
      1,
    );
  });

  test("closing a market notifies ORDER_CANCELLED for its resting orders; a user's own cancel does not", async () => {
    const market = await createMarket(srv, "Closing market");
    const keep = await order(carol, market, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE });
    const mine = await order(carol, market, { side: "BUY", outcome: "YES", price: 0.21, quantity: SHARE });
    expect((await srv.http("DELETE", `/api/v1/orders/${mine.body.data.orderId}`, { token: carol.token })).status).toBe(200);
    expect((await srv.http("POST", `/api/v1/admin/markets/${market}/close`, { headers: { "x-admin-key": ADMIN_KEY } })).status).toBe(200);
    const items = await eventually(srv, carol, (i) => ofType(i, "ORDER_CANCELLED").length === 1);
    expect(ofType(items, "ORDER_CANCELLED")[0]).toMatchObject({
      id: `ORDER_CANCELLED:${keep.body.data.orderId}`,
      title: "Order cancelled",
      metadata: { marketId: market, orderId: keep.body.data.orderId, reason: "MARKET_CLOSED" },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(ofType(await list(srv, carol, "?pageSize=100"), "ORDER_CANCELLED")).toHaveLength(1);
  });

  test("withdrawal outcomes from the chain's events; market cancellation notifies holders (MARKET_CANCELLED)", async () => {
    srv.broker.emit("chain.withdrawalSent", {
      userId: carol.userId,
      withdrawalId: "wd_1",
      amount: String(3 * SHARE),
      txHash: "cd".repeat(32),
    });
    srv.broker.emit("chain.withdrawalSent", {
      userId: carol.userId,
      withdrawalId: "wd_1",
      amount: String(3 * SHARE),
      txHash: "cd".repeat(32),
    });
    srv.broker.emit("chain.withdrawalFailed", {
      userId: carol.userId,
      withdrawalId: "wd_2",
      amount: String(2 * SHARE),
      reason: "the transfer could not be submitted",
    });
    const items = await eventually(
      srv,
      carol,
      (i) => ofType(i, "WITHDRAWAL_SENT").length === 1 && ofType(i, "WITHDRAWAL_FAILED").length === 1,
    );
    expect(ofType(items, "WITHDRAWAL_SENT")[0]).toMatchObject({
      id: "WITHDRAWAL_SENT:wd_1",
      body: "$3.00 was sent to your wallet (tx cdcdcdcd…cdcdcd).",
      metadata: { withdrawalId: "wd_1", amount: String(3 * SHARE), txHash: "cd".repeat(32) },
    });
    expect(ofType(items, "WITHDRAWAL_FAILED")[0]).toMatchObject({
      id: "WITHDRAWAL_FAILED:wd_2",
      title: "Withdrawal failed",
      metadata: { withdrawalId: "wd_2", amount: String(2 * SHARE), reason: "the transfer could not be submitted" },
    });

    const market = await createMarket(srv, "Cancelled market");
    await order(alice, market, { side: "BUY", outcome: "YES", price: 0.35, quantity: 3 * SHARE });
    await order(bob, market, { side: "BUY", outcome: "NO", price: 0.65, quantity: 3 * SHARE });
    expect((await srv.http("POST", `/api/v1/admin/markets/${market}/cancel`, { headers: { "x-admin-key": ADMIN_KEY } })).status).toBe(200);
    for (const [u, outcome] of [
      [alice, "YES"],
      [bob, "NO"],
    ] as const) {
      const n = ofType(await eventually(srv, u, (i) => ofType(i, "MARKET_CANCELLED").length === 1), "MARKET_CANCELLED")[0];
      expect(n).toMatchObject({
        id: `MARKET_CANCELLED:${market}:${u.userId}`,
        title: "Market cancelled",
        metadata: { marketId: market, positions: [{ outcome, quantity: String(3 * SHARE) }] },
      });
    }
  });

  test("settlement: one notification per owner and market of a batch, naming how many trades; told again, nothing more", async () => {
    const market = await createMarket(srv, "Settlement market");
    const other = await createMarket(srv, "Other settlement market");
    const batchId = "stl_test_confirmed";
    const txHash = "ab".repeat(32);
    // Alice's maker order filled by three takers: three trades, one transaction.
    const trades = [
      { tradeId: "trd_t1", userId: alice.userId, marketId: market },
      { tradeId: "trd_t2", userId: alice.userId, marketId: market },
      { tradeId: "trd_t3", userId: alice.userId, marketId: market },
      { tradeId: "trd_t4", userId: bob.userId, marketId: market },
      { tradeId: "trd_t5", userId: bob.userId, marketId: other },
      // The AMM pool and other system accounts are nobody to notify.
      { tradeId: "trd_t6", userId: `amm:${market}`, marketId: market },
    ];
    const told = { batchId, status: "confirmed", txHash, trades };
    expect(await srv.broker.call("notifier.tradeSettled", told)).toEqual({ created: 3 });
    expect(await srv.broker.call("notifier.tradeSettled", told)).toEqual({ created: 0 });
    expect(await srv.broker.call("notifier.tradeSettled", { ...told, trades: [...trades].reverse() })).toEqual({ created: 0 });
    const mine = (items: Item[]) => items.filter((n) => n.id.startsWith(`SETTLEMENT_CONFIRMED:${batchId}:`));
    expect(mine(await list(srv, alice, "?pageSize=100"))).toEqual([
      expect.objectContaining({
        id: `SETTLEMENT_CONFIRMED:${batchId}:${alice.userId}:${market}`,
        title: "Trades settled",
        body: "Your 3 trades in “Settlement market” are confirmed on-chain (tx abababab…ababab).",
        metadata: { marketId: market, tradeIds: ["trd_t1", "trd_t2", "trd_t3"], txHash },
      }),
    ]);
    const bobs = mine(await list(srv, bob, "?pageSize=100"));
    expect(bobs.map((n) => n.body).sort()).toEqual([
      "Your trade in “Other settlement market” is confirmed on-chain (tx abababab…ababab).",
      "Your trade in “Settlement market” is confirmed on-chain (tx abababab…ababab).",
    ]);
    expect(bobs.every((n) => n.title === "Trade settled")).toBe(true);

    expect(
      await srv.broker.call("notifier.tradeSettled", {
        batchId: "stl_test_failed",
        status: "failed",
        txHash: null,
        trades: [{ tradeId: "trd_t7", userId: alice.userId, marketId: market }],
      }),
    ).toEqual({ created: 1 });
    expect((await list(srv, alice, "?pageSize=100")).filter((n) => n.id.startsWith("SETTLEMENT_FAILED:stl_test_failed:"))).toEqual([
      expect.objectContaining({ title: "Trade settlement failed", metadata: { marketId: market, tradeIds: ["trd_t7"], txHash: null } }),
    ]);
    // Malformed outcomes are refused, nothing is stored.
    await expect(srv.broker.call("notifier.tradeSettled", { batchId, status: "confirmed", trades: [] })).rejects.toMatchObject({
      type: "VALIDATION_ERROR",
    });
  });
});

describe("the notifier's journal cursor survives restarts", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "pmx-notifier-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const WITHOUT_NOTIFIER = { SERVICES: "api,auth,catalog,book,router,ledger" };
  // The data dir is first written by a node without the chain: the chain's secret comes from the
  // environment (a data dir with data never gets a new one, lib/secrets.ts).
  const KEPT = { ...ENV, MASTER_SECRET: "5a".repeat(32) };

  test("fills made while the notifier was down are notified when it starts, each once", async () => {
    const wa = TestWallet.random();
    const wb = TestWallet.random();
    // 1) No notifier at all: trade.
    let srv = await startServer({ ...KEPT, ...WITHOUT_NOTIFIER }, { dataDir });
    let a = await srv.login(wa);
    let b = await srv.login(wb);
    await fund(srv.broker, a.userId, 100 * SHARE);
    await fund(srv.broker, b.userId, 100 * SHARE);
    const market = await createMarket(srv, "Restart market");
    const place = (u: { token: string }, body: Record<string, unknown>) =>
      srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId: market, orderType: "GTC", ...body } });
    await place(a, { side: "BUY", outcome: "YES", price: 0.5, quantity: SHARE });
    const t1 = (await place(b, { side: "BUY", outcome: "NO", price: 0.5, quantity: SHARE })).body.data.tradeId;
    await srv.stop();

    // 2) With the notifier: it catches up from the start of the journal.
    srv = await startServer(KEPT, { dataDir });
    a = await srv.login(wa);
    b = await srv.login(wb);
    let items = await eventually(srv, b, (i) => ofType(i, "TRADE_FILLED").length === 1);
    expect(ofType(items, "TRADE_FILLED")[0].id).toBe(`TRADE_FILLED:${t1}`);
    await eventually(srv, a, (i) => ofType(i, "TRADE_FILLED").length === 1 && ofType(i, "DEPOSIT_CREDITED").length === 1);
    await srv.broker.call("notifier.catchUp");
    await srv.stop();

    // 3) Down again while more trades happen; 4) back up: only the new ones are added.
    srv = await startServer({ ...KEPT, ...WITHOUT_NOTIFIER }, { dataDir });
    a = await srv.login(wa);
    b = await srv.login(wb);
    await place(a, { side: "BUY", outcome: "YES", price: 0.55, quantity: 2 * SHARE });
    const t2 = (await place(b, { side: "BUY", outcome: "NO", price: 0.45, quantity: 2 * SHARE })).body.data.tradeId;
    await srv.stop();

    srv = await startServer(KEPT, { dataDir });
    b = await srv.login(wb);
    items = await eventually(srv, b, (i) => ofType(i, "TRADE_FILLED").length === 2);
    expect(ofType(items, "TRADE_FILLED").map((i) => i.id)).toEqual([`TRADE_FILLED:${t2}`, `TRADE_FILLED:${t1}`]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await list(srv, b, "?pageSize=100")).toHaveLength(3);
    await srv.stop();
  }, 120_000);
});

describe("notifier pure parts", () => {
  test("retry policy: exponential, capped, bounded attempts; permanent errors never retried; retry_after honoured", () => {
    const p = { ...DEFAULT_RETRY, jitter: 0 };
    const transient = classifyFailure({ error_code: 502, description: "Bad Gateway" });
    expect([1, 2, 3, 4].map((n) => nextRetryDelay(p, n, transient))).toEqual([2000, 4000, 8000, 16000]);
    expect(nextRetryDelay(p, 20, transient)).toBeNull();
    expect(nextRetryDelay({ ...p, maxAttempts: 100 }, 30, transient)).toBe(300_000);
    expect(nextRetryDelay(p, 1, classifyFailure({ error_code: 403, description: "Forbidden: bot was blocked by the user" }))).toBeNull();
    expect(
      nextRetryDelay(p, 1, classifyFailure({ error_code: 429, description: "Too Many Requests", parameters: { retry_after: 7 } })),
    ).toBe(7000);
    expect(classifyFailure(new Error("socket hang up"))).toEqual({ permanent: false, reason: "socket hang up" });
    const jittered = nextRetryDelay(DEFAULT_RETRY, 1, transient, () => 0.999) as number;
    expect(jittered).toBeGreaterThan(2000);
    expect(jittered).toBeLessThanOrEqual(2400);
    expect(retryPolicy({ baseMs: 100, maxAttempts: 3 })).toMatchObject({ baseMs: 100, maxAttempts: 3, maxDelayMs: 300_000 });
  });

  test("journal entries map to notifications deterministically", () => {
    const at = "2024-01-01T00:00:00.000Z";
    const deposit = draftsFromEntry({
      _id: "deposit:abc",
      seq: 1,
      at,
      postings: [
        { kind: "cash", account: "usr_a", available: 5 * SHARE },
        { kind: "external", flow: "deposit", amount: 5 * SHARE },
      ],
    });
    expect(deposit).toEqual([
      {
        id: "DEPOSIT_CREDITED:deposit:abc:usr_a",
        userId: "usr_a",
        type: "DEPOSIT_CREDITED",
        createdAt: at,
        seq: 1,
        metadata: { amount: String(5 * SHARE), reference: "deposit:abc", txHash: "abc" },
      },
    ]);
    // A withdrawal is debited before it is sent: the chain's events, not the debit, notify it.
    expect(
      draftsFromEntry({
        _id: "withdraw:wd1",
        seq: 2,
        at,
        postings: [
          { kind: "cash", account: "usr_a", available: -2 * SHARE },
          { kind: "external", flow: "withdrawal", amount: 2 * SHARE },
        ],
      }),
    ).toEqual([]);
    expect(
      render(
        {
          id: "x",
          userId: "usr_a",
          type: "WITHDRAWAL_SENT",
          createdAt: at,
          metadata: { withdrawalId: "wd1", amount: String(2 * SHARE), txHash: null },
        },
        null,
      ),
    ).toEqual({ title: "Withdrawal sent", body: "$2.00 was sent to your wallet." });
    // Lock entries and system accounts notify nobody.
    expect(
      draftsFromEntry({ _id: "lock:o1", seq: 3, at, postings: [{ kind: "cash", account: "usr_a", available: -1, locked: 1 }] }),
    ).toEqual([]);
    expect(
      draftsFromEntry({
        _id: "house",
        seq: 4,
        at,
        postings: [
          { kind: "cash", account: "amm:m1", available: 9 },
          { kind: "external", flow: "house", amount: 9 },
        ],
      }),
    ).toEqual([]);
  });
});
