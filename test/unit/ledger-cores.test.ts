import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { LedgerDesk } from "../../ledger/desk";
import { LedgerCores, deadlinePorts, type LedgerEdges } from "../../ledger/ledger-cores";
import { notifyCommitted, noteDeadlines, type ChangeSink, type LedgerEvents } from "../../ledger/changes";
import { positionsView, type PositionMarkPorts } from "../../ledger/positions";
import { StoreDamaged } from "../../ledger/store";
import type { PositionState } from "../../engine/accounts";
import type { LedgerEntryDoc } from "../../models/trading";
import { isRefusal } from "../../engine/refusal";

/** The ledger's cores without a broker: the real ledger core on an in-memory SQLite store, fakes for the rest. */
const S = 1_000_000;
const NOW = Date.parse("2030-01-01T00:00:00.000Z");

async function openDesk() {
  const store = SqliteMoneyStore.open(":memory:", { fsync: false });
  const ledger = await Ledger.open(store);
  let n = 0;
  const desk = new LedgerDesk(ledger, store, { now: () => NOW, newId: (p) => `${p}_${++n}` });
  const deposit = (userId: string, amount: number) =>
    ledger.post({
      key: `dep:${userId}:${++n}`,
      postings: [
        { kind: "cash", account: userId, available: amount },
        { kind: "external", flow: "deposit", amount },
      ],
    });
  return { store, ledger, desk, deposit };
}

function recorder() {
  const events: Array<{ event: keyof LedgerEvents; payload: unknown }> = [];
  const sink: ChangeSink = { broadcast: (event, payload) => void events.push({ event, payload }) };
  return { events, sink };
}

describe("LedgerDesk", () => {
  test("an entry is answered once durable, or at once when the caller waits itself; a repeated key changes nothing", async () => {
    const { desk, ledger } = await openDesk();
    const entry = {
      key: "dep:usr_a",
      postings: [
        { kind: "cash" as const, account: "usr_a", available: 5 * S },
        { kind: "external" as const, flow: "deposit" as const, amount: 5 * S },
      ],
    };
    const first = await desk.post(entry);
    expect(first).toMatchObject({ applied: true, seq: 1, instance: ledger.instance });
    expect(ledger.durableSeq).toBe(1);
    const quick = desk.post({ ...entry, key: "dep:usr_a:2" }, false);
    expect(quick).toMatchObject({ applied: true, seq: 2 });
    expect(await desk.post(entry)).toMatchObject({ applied: false, seq: 1 });
    expect(desk.balance("usr_a")).toEqual({ available: String(10 * S), locked: "0", total: String(10 * S) });
  });

  test("refusals are the ledger core's faults, by kind and code; nothing changes", async () => {
    const { desk } = await openDesk();
    const err = await Promise.resolve()
      .then(() =>
        desk.post({
          key: "w",
          postings: [
            { kind: "cash", account: "usr_a", available: -1 },
            { kind: "external", flow: "withdrawal", amount: 1 },
          ],
        }),
      )
      .catch((e: unknown) => e);
    expect(isRefusal(err) && { kind: err.kind, code: err.code }).toEqual({ kind: "rejected", code: "INSUFFICIENT_BALANCE" });
    expect(desk.balance("usr_a")).toEqual({ available: "0", locked: "0", total: "0" });
  });

  test("settlement marks are journaled under one key per outcome (ids sorted), so a repeat is applied once", async () => {
    const { desk, store } = await openDesk();
    expect(await desk.markSettlement([], "confirmed")).toEqual({ updated: 0 });
    expect(await desk.markSettlement(["trd_b", "trd_a"], "confirmed", "0xabc")).toEqual({ updated: 2 });
    expect(await desk.markSettlement(["trd_a", "trd_b"], "confirmed", "0xabc")).toEqual({ updated: 2 });
    const entries = await store.entriesAfter(0, 10);
    expect(entries.map((e) => [e._id, e.settlement?.tradeIds])).toEqual([["settlement:confirmed:0xabc:trd_a:2", ["trd_a", "trd_b"]]]);
  });

  test("a stored answer is what a later claim of the key finds", async () => {
    const { desk, ledger } = await openDesk();
    expect(await ledger.idemClaim("usr_a", "k1", "fp")).toEqual({ answered: false });
    expect(await desk.storeAnswer({ scope: "usr_a", key: "k1", fingerprint: "fp", status: 202, response: { id: "wd_1" } })).toEqual({
      stored: true,
    });
    expect(await ledger.idemClaim("usr_a", "k1", "fp")).toEqual({ answered: true, status: 202, response: { id: "wd_1" } });
    await expect(ledger.idemClaim("usr_a", "k1", "other")).rejects.toMatchObject({ kind: "conflict", code: "IDEMPOTENCY_KEY_REUSED" });
  });

  test("a heartbeat arms the switch until now + timeout (0 disarms); an out-of-range timeout is refused", async () => {
    const { desk, store } = await openDesk();
    expect(await desk.heartbeat("usr_a", 30)).toEqual({ armed: true, expiresAt: "2030-01-01T00:00:30.000Z" });
    expect(await store.heartbeats()).toEqual([{ userId: "usr_a", timeoutSeconds: 30, deadline: "2030-01-01T00:00:30.000Z" }]);
    expect(await desk.heartbeat("usr_a", 0)).toEqual({ armed: false, expiresAt: null });
    expect(await store.heartbeats()).toEqual([]);
    await expect(desk.heartbeat("usr_a", 3)).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      data: { fields: [{ field: "timeoutSeconds", rule: "numberMin" }] },
    });
  });

  test("a market's lease fences its earlier writers and is answered once durable", async () => {
    const { desk, ledger } = await openDesk();
    const a = await desk.acquire("mkt_1", "eng-a");
    const b = await desk.acquire("mkt_1", "eng-b");
    expect([a.epoch, b.epoch]).toEqual([1, 2]);
    expect(b.instance).toBe(ledger.instance);
    expect(ledger.durableSeq).toBeGreaterThanOrEqual(2);
    expect(await desk.sync(ledger.lastSeq)).toEqual({ durableSeq: ledger.durableSeq, instance: ledger.instance });
    await expect(desk.sync(1, "another-process")).rejects.toMatchObject({ kind: "restarted", code: "LEDGER_RESTARTED" });
  });

  test("only the user's own trade exists for the user", async () => {
    const { desk } = await openDesk();
    await expect(desk.trade("usr_a", "trd_none")).rejects.toMatchObject({
      kind: "not_found",
      code: "RESOURCE_NOT_FOUND",
      message: "Trade not found",
    });
    expect(await desk.trades("usr_a", 1, 20)).toEqual({ items: [], pagination: { total: 0, page: 1, pageSize: 20, hasNext: false } });
  });
});

describe("notifyCommitted", () => {
  const accounts = {
    balance: (a: string) => ({ available: a === "usr_a" ? 7 : 1, locked: 2, total: a === "usr_a" ? 9 : 3 }),
    positionsOf: (a: string): PositionState[] => [
      { account: a, marketId: "mkt_1", outcome: "YES", quantity: 300, locked: 0, totalCost: 120, realizedPnl: 5, settled: false },
    ],
  };
  const doc = (seq: number, over: Partial<LedgerEntryDoc>): LedgerEntryDoc => ({
    _id: `e${seq}`,
    seq,
    postings: [],
    at: "2030-01-01T00:00:00.000Z",
    ...over,
  });

  test("the watermark first, then one balance and one position per user per batch, then the users' trades", () => {
    const { events, sink } = recorder();
    const trade = {
      tradeId: "trd_1",
      userId: "usr_a",
      marketId: "mkt_1",
      orderId: "o",
      side: "BUY" as const,
      outcome: "YES" as const,
      venue: "CLOB" as const,
      role: "taker" as const,
      filledQuantity: 300,
      totalCost: 1_500_000,
      fee: 0,
      fillIds: [],
    };
    notifyCommitted(
      [
        doc(4, {
          postings: [
            { kind: "cash", account: "usr_a", available: -1 },
            { kind: "cash", account: "house", available: 1 },
            { kind: "shares", account: "usr_a", marketId: "mkt_1", outcome: "YES", quantity: 300 },
          ],
        }),
        doc(5, {
          postings: [
            { kind: "cash", account: "usr_a", available: -1 },
            { kind: "cash", account: "usr_b", available: 1 },
            { kind: "shares", account: "amm:mkt_1", marketId: "mkt_1", outcome: "YES", quantity: 1 },
          ],
          trades: [trade, { ...trade, userId: "amm:mkt_1" }],
        }),
      ],
      "inst-1",
      accounts,
      sink,
    );
    expect(events).toEqual([
      { event: "ledger.durable", payload: { instance: "inst-1", seq: 5 } },
      { event: "ledger.balanceChanged", payload: { userId: "usr_a", balance: { available: "7", locked: "2", total: "9" } } },
      { event: "ledger.balanceChanged", payload: { userId: "usr_b", balance: { available: "1", locked: "2", total: "3" } } },
      {
        event: "ledger.positionChanged",
        payload: {
          userId: "usr_a",
          position: { marketId: "mkt_1", outcome: "YES", quantity: "300", avgEntryPrice: "0.40", totalCost: "120", realizedPnl: "5" },
        },
      },
      // With the entry's time (the public tape's time of the execution).
      {
        event: "ledger.tradeCreated",
        payload: { userId: "usr_a", trade: { ...trade, totalCostDecimal: "1.5", at: "2030-01-01T00:00:00.000Z" } },
      },
    ]);
  });

  test("GTD placements are noted as deadlines, heartbeats arm or disarm switches", () => {
    const seen: unknown[] = [];
    const order = {
      orderId: "o",
      userId: "usr_a",
      side: "BUY" as const,
      outcome: "YES" as const,
      price: 40,
      quantity: 100,
      orderType: "GTD" as const,
      createdAt: "x",
      prio: 1,
    };
    const book = { marketId: "m", seq: 1, epoch: 1, bookSeq: 1, node: "n", fills: [], orders: [], at: "x" };
    noteDeadlines(
      [
        doc(1, { book: { ...book, command: { type: "place", order: { ...order, expiresAt: "2030-01-02T00:00:00.000Z" } } } }),
        doc(2, { book: { ...book, command: { type: "place", order: { ...order, orderType: "GTC" } } } }),
        doc(3, { heartbeat: { userId: "usr_a", timeoutSeconds: 0, deadline: null } }),
      ],
      {
        noteExpiry: (iso) => void seen.push(["expiry", iso]),
        heartbeat: (userId, deadline) => void seen.push(["heartbeat", userId, deadline]),
      },
    );
    expect(seen).toEqual([
      ["expiry", "2030-01-02T00:00:00.000Z"],
      ["heartbeat", "usr_a", null],
    ]);
  });
});

describe("positionsView", () => {
  const pos = (marketId: string, over: Partial<PositionState> = {}): PositionState => ({
    account: "usr_a",
    marketId,
    outcome: "YES",
    quantity: 2 * S,
    locked: 0,
    totalCost: 800_000,
    realizedPnl: 0,
    settled: false,
    ...over,
  });

  test("open positions only, marked at what selling them would fetch, or at the payout once resolved", async () => {
    const asked: unknown[] = [];
    const ports: PositionMarkPorts = {
      titles: async (ids) => {
        asked.push(ids);
        return {
          mkt_live: { title: "Live?", status: "open" },
          mkt_won: { title: "Won?", status: "resolved", result: "YES" },
          mkt_lost: { title: "Lost?", status: "resolved", result: "NO" },
        };
      },
      exitQuote: async (p) => (p.marketId === "mkt_live" ? { filled: S, proceeds: 500_000 } : { filled: 0, proceeds: 0 }),
    };
    const views = await positionsView(
      "usr_a",
      [
        pos("mkt_live"),
        pos("mkt_won"),
        pos("mkt_lost"),
        pos("mkt_dry"),
        pos("mkt_zero", { quantity: 0 }),
        pos("mkt_done", { settled: true }),
      ],
      ports,
    );
    expect(asked).toEqual([["mkt_live", "mkt_won", "mkt_lost", "mkt_dry"]]);
    expect(views.map((v) => [v.id, v.markPrice, v.unrealizedPnl, v.market.title])).toEqual([
      // Half of the position fetches 0.50 a share: 2 shares at 0.50 = 1.00 against 0.80 paid.
      ["mkt_live:YES", "0.50", "200000", "Live?"],
      ["mkt_won:YES", "1.00", "1200000", "Won?"],
      ["mkt_lost:YES", "0.00", "-800000", "Lost?"],
      ["mkt_dry:YES", null, null, null],
    ]);
    expect(views[0]).toMatchObject({ quantity: "2000000", avgEntryPrice: "0.40", totalCost: "800000", status: "open" });
  });
});

describe("deadline ports", () => {
  test("a lapsed switch cancels the user's orders in every market, then disarms unless re-armed meanwhile", async () => {
    const cancels: unknown[] = [];
    const disarmed: string[] = [];
    let armedAt = 1000;
    const store = {
      openMarketsOf: async () => ["mkt_1", "mkt_2"],
      dueExpiries: async () => [],
      nextExpiry: async () => null,
      heartbeats: async () => [],
    } as unknown as Parameters<typeof deadlinePorts>[0];
    const edges: Pick<LedgerEdges, "cancelMany" | "log"> = {
      cancelMany: async (marketId, which, reason) => void cancels.push({ marketId, ...which, reason }),
      log: { info: () => undefined, warn: () => undefined },
    };
    const ports = deadlinePorts(
      store,
      { disarm: async (u) => void disarmed.push(u) },
      edges,
      () => NOW,
      () => ({ armed: () => armedAt }),
    );
    await ports.lapse("usr_a", 1000);
    expect(cancels).toEqual([
      { marketId: "mkt_1", userId: "usr_a", reason: "heartbeat" },
      { marketId: "mkt_2", userId: "usr_a", reason: "heartbeat" },
    ]);
    expect(disarmed).toEqual(["usr_a"]);
    armedAt = 2000;
    await ports.lapse("usr_a", 1000);
    expect(disarmed).toEqual(["usr_a"]);
    await ports.expire("mkt_1", ["o1", "o2"]);
    expect(cancels[cancels.length - 1]).toEqual({ marketId: "mkt_1", orderIds: ["o1", "o2"], reason: "expired" });
  });
});

describe("LedgerCores", () => {
  const edges = (logs: string[] = []): LedgerEdges => ({
    out: { broadcast: () => undefined },
    cancelMany: async () => undefined,
    log: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m) },
  });

  test("opens a store whose journal holds, telling each commit to the world", async () => {
    const logs: string[] = [];
    const { events, sink } = recorder();
    const cores = await LedgerCores.open(SqliteMoneyStore.open(":memory:", { fsync: false }), { ...edges(logs), out: sink });
    await cores.desk.post({
      key: "dep",
      postings: [
        { kind: "cash", account: "usr_a", available: S },
        { kind: "external", flow: "deposit", amount: S },
      ],
    });
    expect(events.map((e) => e.event)).toEqual(["ledger.durable", "ledger.balanceChanged"]);
    expect(logs[0]).toMatch(/^ledger: 0 journal entries verified in \d+ ms/);
    await cores.close();
  });

  test("a journal changed on disk stops the start, naming the entry; the store is closed again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-cores-"));
    try {
      const first = await LedgerCores.open(SqliteMoneyStore.open(dir, { fsync: false }), edges());
      await first.desk.post({
        key: "dep",
        postings: [
          { kind: "cash", account: "usr_a", available: S },
          { kind: "external", flow: "deposit", amount: S },
        ],
      });
      await first.close();
      const db = new Database(join(dir, "money.db"));
      const row = db.prepare("SELECT seq, body FROM journal ORDER BY seq LIMIT 1").get() as { seq: number; body: string };
      db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(row.body.replace(String(S), String(2 * S)), row.seq);
      db.close();
      const err = await LedgerCores.open(SqliteMoneyStore.open(dir, { fsync: false }), edges()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreDamaged);
      expect((err as Error).message).toBe(
        "ledger journal: ledger journal entry 1 (dep) does not match its hash: its content was changed or the entry before it was",
      );
      // Closed: the data dir can be opened again at once.
      SqliteMoneyStore.open(dir, { fsync: false }).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
