/**
 * The ledger service on a real ServiceBroker, the Moleculer way: its actions called through the
 * broker (with the production AuthGuard), the services it asks (catalog titles, the book's exit
 * quotes and cancels) faked as small services, what it broadcasts heard by a listener, its money
 * store the real embedded SQLite under a temp dir (stopped and started again on the same dir).
 * Book commands come from a MarketActor driven over the ledger's own actions, as the book does.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceBroker, type Context, type Service, type ServiceSchema } from "moleculer";
import { durableGroup } from "../../contract";
import { AuthGuard } from "../../mixins/guard.middleware";
import type { SessionUser } from "../../mixins/context";
import LedgerService from "../../services/ledger.service";
import { MarketActor } from "../../trading/market-actor";
import type { BookJournalDoc, OrderDoc, MoneyCheck, PostOutcome, VerifyReport } from "../../models/trading";
import type { Posting } from "../../engine/accounts";
import type { TradeRecord } from "../../engine/settlement";
import { SHARE } from "../support/trading";
import { until } from "../support/until";
import { marketPortsOverLedger } from "../support/ledger-ports";
import { serviceBroker } from "../support/service-broker";

const MKT = "mkt_ledger";
const A: SessionUser = { id: "usr_a", wallet: "0:" + "a".repeat(64), sid: "ses_a", exp: 2e9 };
const B: SessionUser = { id: "usr_b", wallet: "0:" + "b".repeat(64), sid: "ses_b", exp: 2e9 };
const as = (u: SessionUser) => ({ meta: { user: u } });

const deposit = (account: string, amount: number): Posting[] => [
  { kind: "cash", account, available: amount },
  { kind: "external", flow: "deposit", amount },
];

describe("ledger service", () => {
  let broker: ServiceBroker;
  let dir: string;
  const heard: Array<{ name: string; params: any }> = [];
  const exitQuotes: unknown[] = [];
  const cancels: unknown[] = [];

  // Hears a commit's gathered changes as the events they carry, and the watermark as an engine
  // waiting on it does (under this node's group).
  const listener: ServiceSchema = {
    name: "listener",
    merged(this: Service, schema: ServiceSchema) {
      (schema.events!["ledger.durable"] as { group?: string }).group = durableGroup(this.broker.nodeID);
    },
    events: {
      "ledger.durable": {
        handler(ctx: Context) {
          heard.push({ name: String(ctx.eventName), params: ctx.params });
        },
      },
      "ledger.committed"(ctx: Context<{ events: Array<{ name: string; payload: unknown }> }>) {
        for (const e of ctx.params.events) heard.push({ name: e.name, params: e.payload });
      },
    },
  };
  const fakeCatalog: ServiceSchema = {
    name: "catalog",
    actions: {
      marketTitles: (ctx: Context<{ marketIds: string[] }>) =>
        Object.fromEntries(ctx.params.marketIds.map((id) => [id, { title: `Title of ${id}`, status: "open" }])),
    },
  };
  const fakeBook: ServiceSchema = {
    name: "book",
    actions: {
      // Selling the position now would fetch 0.55 a share.
      exitQuote(ctx: Context<{ quantity: number }>) {
        exitQuotes.push(ctx.params);
        return { filled: ctx.params.quantity, proceeds: Math.round(ctx.params.quantity * 0.55) };
      },
      cancelMany(ctx: Context) {
        cancels.push(ctx.params);
        return { cancelled: [], releasedAmount: 0 };
      },
    },
  };

  const start = async () => {
    broker = serviceBroker({ DATA_DIR: dir }, [listener, fakeCatalog, fakeBook, LedgerService], { middlewares: [AuthGuard] });
    await broker.start();
  };
  const post = (p: object) => broker.call<PostOutcome, object>("ledger.post", p);
  const names = () => heard.map((h) => h.name);

  /** A market's writer, as the book service wires it: every port one of the ledger's actions. */
  const actor = (node: string) => MarketActor.load(MKT, marketPortsOverLedger(broker, node));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-ledger-svc-"));
    await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    heard.length = 0;
  });

  test("post: params validated before anything runs; an entry applied once and broadcast when durable; a repeated key answers applied: false", async () => {
    const refused = (p: object, field: string, type: string) =>
      expect(post(p)).rejects.toMatchObject({
        name: "ValidationError",
        code: 422,
        type: "VALIDATION_ERROR",
        data: [expect.objectContaining({ field, type })],
      });
    await refused({ key: "", postings: [] }, "key", "stringMin");
    await refused({ key: "k", postings: "cash" }, "postings", "array");
    await refused({ key: "k", postings: [], checkAfter: -1 }, "checkAfter", "numberMin");
    await refused({ key: "k", postings: [], part: { group: "g", index: 0, count: 1 } }, "part.count", "numberMin");
    await refused({ key: "k", postings: [], durable: "yes" }, "durable", "boolean");
    expect(await broker.call("ledger.account", { account: A.id })).toEqual({
      balance: { available: 0, locked: 0, total: 0 },
      positions: [],
    });

    const first = await post({ key: "dep:a:1", postings: deposit(A.id, 100 * SHARE) });
    expect(first).toEqual({ applied: true, seq: expect.any(Number), instance: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // Answered once durable: the user's balance was broadcast by then (the watermark goes only to
    // nodes that posted without waiting for durability: none here).
    await until("the broadcasts", () => heard.length >= 1);
    expect(heard).toEqual([
      {
        name: "ledger.balanceChanged",
        params: { userId: A.id, balance: { available: String(100 * SHARE), locked: "0", total: String(100 * SHARE) } },
      },
    ]);

    heard.length = 0;
    expect(await post({ key: "dep:a:1", postings: deposit(A.id, 100 * SHARE) })).toEqual({
      applied: false,
      seq: first.seq,
      instance: first.instance,
    });
    expect((await broker.call<{ balance: { available: number } }, object>("ledger.account", { account: A.id })).balance.available).toBe(
      100 * SHARE,
    );

    // durable: false answers at once; ledger.sync waits for the same durability.
    const quick = await post({ key: "dep:b:1", postings: deposit(B.id, 50 * SHARE), durable: false });
    expect(await broker.call("ledger.sync", { seq: quick.seq, instance: quick.instance })).toEqual({
      durableSeq: expect.any(Number),
      instance: quick.instance,
    });
    await until("B's balance broadcast", () => heard.find((h) => h.name === "ledger.balanceChanged" && h.params.userId === B.id));
    // Nothing was broadcast for the repeated key: only the watermark and B's balance of the new entry.
    expect(names()).toEqual(["ledger.durable", "ledger.balanceChanged"]);
    await expect(broker.call("ledger.sync", { seq: quick.seq, instance: "another-process" })).rejects.toMatchObject({
      code: 503,
      type: "LEDGER_RESTARTED",
    });
  });

  test("refused entries change nothing and are not journaled: overdraft 400 INSUFFICIENT_BALANCE, short shares 400 INSUFFICIENT_SHARES, junk 400 INVALID_POSTING", async () => {
    const before = await broker.call<{ seq: number }[], object>("ledger.entriesAfter", { seq: 0, limit: 1000 });
    await expect(
      post({
        key: "wd:a:too-much",
        postings: [
          { kind: "cash", account: A.id, available: -101 * SHARE },
          { kind: "external", flow: "withdrawal", amount: 101 * SHARE },
        ],
      }),
    ).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_BALANCE", message: "Insufficient balance" });
    await expect(
      post({ key: "sell:a", postings: [{ kind: "shares", account: A.id, marketId: MKT, outcome: "YES", quantity: -SHARE }] }),
    ).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_SHARES" });
    await expect(post({ key: "junk", postings: [{ kind: "cash", account: A.id, available: 0.5 }] })).rejects.toMatchObject({
      code: 400,
      type: "INVALID_POSTING",
    });
    await expect(post({ key: "part", postings: [], part: { group: "g1", index: 0, count: 2 } })).rejects.toMatchObject({
      code: 400,
      type: "INVALID_POSTING",
    });
    expect((await broker.call<{ balance: object }, object>("ledger.account", { account: A.id })).balance).toEqual({
      available: 100 * SHARE,
      locked: 0,
      total: 100 * SHARE,
    });
    expect(await broker.call("ledger.entriesAfter", { seq: 0, limit: 1000 })).toEqual(before);
    await expect(broker.call("ledger.entriesAfter", { seq: 0, limit: 1001 })).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "limit", type: "numberMax" })],
    });
    expect(heard).toEqual([]);
  });

  test("balance, positions and trades are the session user's: 401 without one; answers in the contract's shape; trades and positions broadcast", async () => {
    for (const action of ["ledger.balance", "ledger.positions", "ledger.listTrades", "ledger.heartbeat"]) {
      await expect(broker.call(action, { timeoutSeconds: 0 })).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    }
    // A mint: A buys 10 YES at 0.40, B 10 NO at 0.60, as one entry with both trades.
    const trade = (userId: string, outcome: "YES" | "NO", totalCost: number): TradeRecord => ({
      tradeId: `trd_${userId}`,
      userId,
      marketId: MKT,
      orderId: `ord_${userId}`,
      side: "BUY",
      outcome,
      venue: "CLOB",
      role: userId === A.id ? "taker" : "maker",
      filledQuantity: 10 * SHARE,
      totalCost,
      fee: 0,
      fillIds: ["fil_1"],
    });
    await post({
      key: "mint:1",
      postings: [
        { kind: "cash", account: A.id, available: -4 * SHARE },
        { kind: "cash", account: B.id, available: -6 * SHARE },
        { kind: "shares", account: A.id, marketId: MKT, outcome: "YES", quantity: 10 * SHARE, cost: 4 * SHARE },
        { kind: "shares", account: B.id, marketId: MKT, outcome: "NO", quantity: 10 * SHARE, cost: 6 * SHARE },
        { kind: "collateral", marketId: MKT, amount: 10 * SHARE },
      ],
      trades: [trade(A.id, "YES", 4 * SHARE), trade(B.id, "NO", 6 * SHARE)],
    });
    await until("the trade broadcasts", () => heard.filter((h) => h.name === "ledger.tradeCreated").length === 2);
    expect(heard.find((h) => h.name === "ledger.positionChanged" && h.params.userId === A.id)?.params.position).toEqual({
      marketId: MKT,
      outcome: "YES",
      quantity: String(10 * SHARE),
      avgEntryPrice: "0.40",
      totalCost: String(4 * SHARE),
      realizedPnl: "0",
    });
    expect(heard.find((h) => h.name === "ledger.tradeCreated" && h.params.userId === B.id)?.params.trade).toMatchObject({
      tradeId: "trd_usr_b",
      totalCostDecimal: "6",
    });

    expect(await broker.call("ledger.balance", { ignored: 1 }, as(A))).toEqual({
      available: String(96 * SHARE),
      locked: "0",
      total: String(96 * SHARE),
    });
    exitQuotes.length = 0;
    const positions = await broker.call<Array<Record<string, unknown>>, object>("ledger.positions", {}, as(A));
    expect(positions).toEqual([
      expect.objectContaining({
        id: `${MKT}:YES`,
        marketId: MKT,
        outcome: "YES",
        quantity: String(10 * SHARE),
        avgEntryPrice: "0.40",
        market: { id: MKT, title: `Title of ${MKT}` },
        markPrice: "0.55",
        unrealizedPnl: String(1.5 * SHARE),
        status: "open",
      }),
    ]);
    // The mark is asked of the book for the caller's whole position, the caller's own orders excluded.
    expect(exitQuotes).toEqual([{ marketId: MKT, outcome: "YES", quantity: 10 * SHARE, userId: A.id }]);

    const trades = await broker.call<{ items: Array<Record<string, unknown>>; pagination: object }, object>(
      "ledger.listTrades",
      { page: "1", pageSize: "5" },
      as(A),
    );
    expect(trades.items).toEqual([
      expect.objectContaining({
        id: "trd_usr_a",
        tradeId: "trd_usr_a",
        side: "BUY",
        outcome: "YES",
        filledQuantity: String(10 * SHARE),
        avgPrice: "0.40",
        totalCost: String(4 * SHARE),
        settlementStatus: "pending",
      }),
    ]);
    expect(trades.pagination).toMatchObject({ page: 1, pageSize: 5, total: 1 });
    await expect(broker.call("ledger.listTrades", { pageSize: "101" }, as(A))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "pageSize", type: "numberMax" })],
    });
    expect(await broker.call("ledger.getTrade", { id: "trd_usr_a" }, as(A))).toMatchObject({ id: "trd_usr_a", role: "taker" });
    // Another user's trade does not exist for the caller.
    await expect(broker.call("ledger.getTrade", { id: "trd_usr_b" }, as(A))).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
      message: "Trade not found",
    });
    await expect(broker.call("ledger.getTrade", { id: "" }, as(A))).rejects.toMatchObject({ name: "ValidationError" });
  });

  test("heartbeat: 0 or 5..300 seconds, refusals are 400 VALIDATION_ERROR naming the field; an armed switch is journaled", async () => {
    await expect(broker.call("ledger.heartbeat", { timeoutSeconds: 3 }, as(A))).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "timeoutSeconds", rule: "numberMin" }] },
    });
    await expect(broker.call("ledger.heartbeat", { timeoutSeconds: 301 }, as(A))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "timeoutSeconds", type: "numberMax" })],
    });
    await expect(broker.call("ledger.heartbeat", { timeoutSeconds: 1.5 }, as(A))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "timeoutSeconds", type: "numberInteger" })],
    });
    const armed = await broker.call<{ armed: boolean; expiresAt: string }, object>("ledger.heartbeat", { timeoutSeconds: 300 }, as(A));
    expect(armed).toEqual({ armed: true, expiresAt: expect.any(String) });
    expect(Date.parse(armed.expiresAt) - Date.now()).toBeGreaterThan(290_000);
    expect(await broker.call("ledger.heartbeat", { timeoutSeconds: 0 }, as(A))).toEqual({ armed: false, expiresAt: null });
    const entries = await broker.call<Array<{ heartbeat?: object }>, object>("ledger.entriesAfter", { seq: 0, limit: 1000 });
    expect(entries.filter((e) => e.heartbeat).map((e) => e.heartbeat)).toEqual([
      { userId: A.id, timeoutSeconds: 300, deadline: armed.expiresAt },
      { userId: A.id, timeoutSeconds: 0, deadline: null },
    ]);
    // Nothing lapsed: no cancel was asked of the book.
    expect(cancels).toEqual([]);
  });

  test("a market's writer: the lease fences, book commands land in the order read models, a stale position is 503 MARKET_MOVED", async () => {
    const engine = await actor("eng-1");
    expect(await broker.call("ledger.lease", { marketId: MKT })).toMatchObject({ marketId: MKT, epoch: 1, owner: "eng-1" });
    const placed = await engine.place({
      userId: A.id,
      side: "BUY",
      outcome: "YES",
      orderType: "GTC",
      price: 30,
      quantity: 5 * SHARE,
      clientOrderId: "cid-1",
    });
    expect(placed.status).toBe("open");

    const open = await broker.call<{ items: OrderDoc[]; total: number }, object>("ledger.orders", {
      userId: A.id,
      status: "open",
      page: 1,
      pageSize: 10,
    });
    expect(open.total).toBe(1);
    expect(open.items[0]).toMatchObject({
      _id: placed.orderId,
      marketId: MKT,
      price: 30,
      quantity: 5 * SHARE,
      remaining: 5 * SHARE,
      holds: 1.5 * SHARE,
      status: "open",
      clientOrderId: "cid-1",
    });
    expect(await broker.call("ledger.orders", { userId: A.id, status: "closed", page: 1, pageSize: 10 })).toEqual({ items: [], total: 0 });
    await expect(broker.call("ledger.orders", { userId: A.id, status: "gone", page: 1, pageSize: 10 })).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "status", type: "enumValue" })],
    });
    expect((await broker.call<OrderDoc[], object>("ledger.openOrders", { userId: A.id, marketId: MKT })).map((o) => o._id)).toEqual([
      placed.orderId,
    ]);
    expect(await broker.call("ledger.getOrder", { orderId: placed.orderId })).toMatchObject({ _id: placed.orderId, userId: A.id });
    expect(await broker.call("ledger.getOrder", { orderId: "ord_nope" })).toBeNull();
    expect(await broker.call("ledger.openMarketsOf", { userId: A.id })).toEqual([MKT]);
    expect(await broker.call("ledger.restingOrders", { marketId: MKT, afterPrio: 0, limit: 10 })).toEqual([
      expect.objectContaining({ orderId: placed.orderId, userId: A.id, price: 30, quantity: 5 * SHARE }),
    ]);
    await expect(broker.call("ledger.restingOrders", { marketId: MKT, afterPrio: 0, limit: 5001 })).rejects.toMatchObject({
      name: "ValidationError",
    });
    // The placement locked A's cash, which the balance shows.
    expect(await broker.call("ledger.balance", {}, as(A))).toEqual({
      available: String(94.5 * SHARE),
      locked: String(1.5 * SHARE),
      total: String(96 * SHARE),
    });

    // The same journal position written again by another command: nothing executes.
    const [last] = (await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId: MKT, afterSeq: 0 })).slice(-1);
    await expect(
      post({ key: `book:${MKT}:again`, postings: [], book: { ...last, command: { type: "cancel", orderId: placed.orderId } } }),
    ).rejects.toMatchObject({ code: 503, type: "MARKET_MOVED" });
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks }).toEqual({ ok: true, badOrders: [], badLocks: [] });
  });

  test("Idempotency-Key answers: claim, store, replay; another request under the key is 409; a release frees it; a second claim waits for the first's answer", async () => {
    const claim = (key: string, fingerprint: string) =>
      broker.call<{ answered: boolean; status?: number; response?: unknown }, object>("ledger.idemClaim", {
        scope: A.id,
        key,
        fingerprint,
      });
    expect(await claim("k1", "f1")).toEqual({ answered: false });
    expect(
      await broker.call("ledger.idemAnswer", {
        scope: A.id,
        key: "k1",
        fingerprint: "f1",
        status: 202,
        response: { status: "accepted", n: 1 },
      }),
    ).toEqual({ stored: true });
    expect(await claim("k1", "f1")).toEqual({ answered: true, status: 202, response: { status: "accepted", n: 1 } });
    await expect(claim("k1", "f2")).rejects.toMatchObject({ code: 409, type: "IDEMPOTENCY_KEY_REUSED" });
    // Keys are the caller's: another user's same key is free.
    expect(await broker.call("ledger.idemClaim", { scope: B.id, key: "k1", fingerprint: "f9" })).toEqual({ answered: false });

    expect(await claim("k2", "f1")).toEqual({ answered: false });
    expect(await broker.call("ledger.idemRelease", { scope: A.id, key: "k2" })).toEqual({ released: true });
    expect(await claim("k2", "f1")).toEqual({ answered: false });
    // While k2 executes, the same request again waits for its answer; another request is refused.
    const waiting = claim("k2", "f1");
    await expect(claim("k2", "f3")).rejects.toMatchObject({ code: 409, type: "IDEMPOTENCY_KEY_REUSED" });
    await broker.call("ledger.idemAnswer", { scope: A.id, key: "k2", fingerprint: "f1", status: 200, response: { ok: true } });
    expect(await waiting).toEqual({ answered: true, status: 200, response: { ok: true } });

    await expect(broker.call("ledger.idemClaim", { scope: A.id, key: "x".repeat(301), fingerprint: "f" })).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "key", type: "stringMax" })],
    });
    await expect(
      broker.call("ledger.idemAnswer", { scope: A.id, key: "k3", fingerprint: "f", status: "200", response: {} }),
    ).rejects.toMatchObject({ name: "ValidationError", data: [expect.objectContaining({ field: "status", type: "number" })] });
  });

  test("stop closes the store; a start on the same dir sees every balance, order, trade and stored answer, and the journal verifies", async () => {
    const beforeA = await broker.call("ledger.account", { account: A.id });
    const beforeB = await broker.call("ledger.account", { account: B.id });
    const head = (await broker.call<Array<{ seq: number }>, object>("ledger.entriesAfter", { seq: 0, limit: 1000 })).length;
    expect(existsSync(join(dir, "money.db-wal"))).toBe(true);
    await broker.stop();
    // The last connection closed: SQLite checkpointed and removed its write-ahead log.
    expect(existsSync(join(dir, "money.db-wal"))).toBe(false);

    await start();
    expect(await broker.call("ledger.account", { account: A.id })).toEqual(beforeA);
    expect(await broker.call("ledger.account", { account: B.id })).toEqual(beforeB);
    expect(await broker.call<unknown[], object>("ledger.entriesAfter", { seq: 0, limit: 1000 })).toHaveLength(head);
    expect(
      (await broker.call<{ total: number }, object>("ledger.orders", { userId: A.id, status: "open", page: 1, pageSize: 10 })).total,
    ).toBe(1);
    expect(await broker.call("ledger.getTrade", { id: "trd_usr_a" }, as(A))).toMatchObject({ id: "trd_usr_a" });
    expect(await broker.call("ledger.idemClaim", { scope: A.id, key: "k1", fingerprint: "f1" })).toEqual({
      answered: true,
      status: 202,
      response: { status: "accepted", n: 1 },
    });
    // A key seen before the stop answers applied: false, not a second deposit.
    expect(await post({ key: "dep:a:1", postings: deposit(A.id, 100 * SHARE) })).toMatchObject({ applied: false });
    // The lease survived: a new writer takes the next epoch.
    expect(await broker.call("ledger.acquireMarket", { marketId: MKT, node: "eng-2" })).toMatchObject({ epoch: 2, owner: "eng-2" });
    expect(await broker.call<VerifyReport>("ledger.verify")).toMatchObject({ ok: true, problems: [] });
  });
});
