/**
 * The notifier's decisions (notifier/notifier.ts) with in-memory fakes of its ports: no broker,
 * no store. Time and timers are the test's: `clock.ms` moves only when a test moves it, and a
 * scheduled callback runs only when the test fires it.
 */
import type { PositionState } from "../../engine/accounts";
import type { TradeRecord } from "../../engine/settlement";
import type { NotificationDoc, NotificationItem, NotifierJobDoc } from "../../models/notification";
import type { LedgerEntryDoc } from "../../models/trading";
import type { UserDoc } from "../../models/user";
import { CURSOR_EVERY, HINT_COALESCE_MS, JOURNAL_BATCH, Notifier, type NotifierPorts } from "../../notifier/notifier";
import { PUSH_MAX_AGE_MS } from "../../notifier/policy";

/** Let every pending promise chain run (no time passes for the code under test). */
const settled = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

function trade(tradeId: string, userId: string, marketId = "mkt_1", over: Partial<TradeRecord> = {}): TradeRecord {
  return {
    tradeId,
    userId,
    marketId,
    orderId: `ord_${tradeId}`,
    side: "BUY",
    outcome: "YES",
    venue: "CLOB",
    role: "taker",
    filledQuantity: 2_000_000,
    totalCost: 1_000_000,
    fee: 0,
    fillIds: [],
    ...over,
  };
}

function fillEntry(seq: number, trades: TradeRecord[], at = iso(T0)): LedgerEntryDoc {
  return { _id: `e${seq}`, seq, postings: [], trades, at };
}

function depositEntry(seq: number, userId: string, amount: number, at = iso(T0)): LedgerEntryDoc {
  return {
    _id: `deposit:tx${seq}`,
    seq,
    postings: [
      { kind: "cash", account: userId, available: amount },
      { kind: "external", flow: "deposit", amount },
    ],
    at,
  };
}

/** An entry that notifies nobody (a system account's move). */
function quietEntry(seq: number): LedgerEntryDoc {
  return { _id: `q${seq}`, seq, postings: [{ kind: "cash", account: "fees", available: 1 }], at: iso(T0) };
}

function fakes(opts: { bot?: boolean } = {}) {
  const clock = { ms: T0 };
  const timers: Array<{ ms: number; fn: () => void; cancelled: boolean }> = [];
  const docs = new Map<string, NotificationDoc>();
  const journal: LedgerEntryDoc[] = [];
  const stored = { cursor: 0, saves: [] as number[] };
  const jobs = new Map<string, NotifierJobDoc>();
  const holders = new Map<string, PositionState[]>();
  const markets = new Map<string, { title?: string; status?: string }>();
  const users = new Map<string, UserDoc>();
  const created: Array<{ userId: string; notification: NotificationItem }> = [];
  const calls = { entriesAfter: [] as number[], insertMany: 0, user: [] as string[], market: [] as string[], deliver: 0 };
  const logs: string[] = [];
  const fail = {
    entriesAfter: null as Error | null,
    holders: null as Error | null,
    user: null as Error | null,
    market: false,
    insertMany: false,
  };
  let reachable = true;

  const ports: NotifierPorts = {
    notifications: {
      storedIds: async (ids) => ids.filter((id) => docs.has(id)),
      insertMany: async (list) => {
        calls.insertMany++;
        if (fail.insertMany || list.some((d) => docs.has(d._id))) throw new Error("duplicate key");
        for (const d of list) docs.set(d._id, d);
      },
      insertOnce: async (d) => {
        if (docs.has(d._id)) return false;
        docs.set(d._id, d);
        return true;
      },
    },
    cursor: {
      load: async () => stored.cursor,
      save: async (seq) => {
        stored.saves.push(seq);
        stored.cursor = Math.max(stored.cursor, seq);
      },
    },
    jobs: {
      insertOnce: async (job) => !jobs.has(job._id) && (jobs.set(job._id, job), true),
      oldest: async (limit) => [...jobs.values()].sort((a, b) => a.at.localeCompare(b.at)).slice(0, limit),
      remove: async (id) => void jobs.delete(id),
    },
    ledger: {
      reachable: () => reachable,
      entriesAfter: async (seq, limit) => {
        calls.entriesAfter.push(seq);
        if (fail.entriesAfter) throw fail.entriesAfter;
        return journal.filter((e) => e.seq > seq).slice(0, limit);
      },
      holders: async (marketId) => {
        if (fail.holders) throw fail.holders;
        return holders.get(marketId) ?? [];
      },
    },
    market: async (marketId) => {
      calls.market.push(marketId);
      if (fail.market) throw new Error("catalog away");
      return markets.get(marketId) ?? null;
    },
    user: async (userId) => {
      calls.user.push(userId);
      if (fail.user) throw fail.user;
      return users.get(userId) ?? null;
    },
    created: (userId, notification) => void created.push({ userId, notification }),
    delivery: opts.bot
      ? {
          deliver: async () => {
            calls.deliver++;
          },
        }
      : null,
    now: () => clock.ms,
    after: (ms, fn) => {
      const t = { ms, fn, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    },
    log: { info: (m) => void logs.push(`info: ${m}`), warn: (m) => void logs.push(`warn: ${m}`) },
  };
  const fire = () => {
    for (const t of timers.splice(0)) if (!t.cancelled) t.fn();
  };
  const setReachable = (v: boolean) => (reachable = v);
  return { ports, clock, timers, fire, docs, journal, stored, jobs, holders, markets, users, created, calls, logs, fail, setReachable };
}

const position = (account: string, outcome: "YES" | "NO", quantity: number, marketId = "mkt_1"): PositionState => ({
  account,
  marketId,
  outcome,
  quantity,
  locked: 0,
  totalCost: 0,
  realizedPnl: 0,
  settled: false,
});
const linked = (id: string, chat: number): UserDoc => ({
  _id: id,
  walletAddress: `0:${id}`,
  createdAt: iso(T0),
  telegram: { id: chat, verifiedAt: iso(T0) },
});

describe("journal pull", () => {
  test("fills and deposits become notifications once each; the cursor advances and is stored after them", async () => {
    const f = fakes();
    f.markets.set("mkt_1", { title: "Rain tomorrow?", status: "open" });
    f.journal.push(
      fillEntry(1, [trade("trd_1", "usr_a"), trade("trd_1", "amm:mkt_1", "mkt_1", { role: "maker" })]),
      depositEntry(2, "usr_b", 5_000_000),
    );
    const n = new Notifier(f.ports);
    await n.start();

    expect(await n.pull()).toBe(true);
    expect([...f.docs.keys()]).toEqual(["TRADE_FILLED:trd_1", "DEPOSIT_CREDITED:deposit:tx2:usr_b"]);
    expect(f.docs.get("TRADE_FILLED:trd_1")).toMatchObject({
      userId: "usr_a",
      title: "Bought YES",
      read: false,
      delivered: false,
      delivery: "none",
      attempts: 0,
      seq: 1,
    });
    expect(f.docs.get("TRADE_FILLED:trd_1")?.body).toContain("“Rain tomorrow?”");
    expect(f.created.map((c) => [c.userId, c.notification.id])).toEqual([
      ["usr_a", "TRADE_FILLED:trd_1"],
      ["usr_b", "DEPOSIT_CREDITED:deposit:tx2:usr_b"],
    ]);
    expect(n.cursor).toBe(2);
    expect(f.stored.cursor).toBe(2);

    // Read again from the start (a restart before the cursor was written): nothing twice.
    n.cursor = 0;
    expect(await n.pull()).toBe(true);
    expect(f.docs.size).toBe(2);
    expect(f.created).toHaveLength(2);
    expect(n.cursor).toBe(2);
  });

  test("a restart reads on from the stored cursor", async () => {
    const f = fakes();
    f.stored.cursor = 7;
    f.journal.push(fillEntry(7, [trade("trd_old", "usr_a")]), fillEntry(8, [trade("trd_new", "usr_a")]));
    const n = new Notifier(f.ports);
    await n.start();
    expect(n.cursor).toBe(7);
    await n.pull();
    expect(f.calls.entriesAfter[0]).toBe(7);
    expect([...f.docs.keys()]).toEqual(["TRADE_FILLED:trd_new"]);
  });

  test("entries that notify nobody move the stored cursor only every CURSOR_EVERY entries; stop stores the rest", async () => {
    const f = fakes();
    for (let seq = 1; seq <= CURSOR_EVERY + 10; seq++) f.journal.push(quietEntry(seq));
    const n = new Notifier(f.ports);
    await n.start();
    await n.pull();
    expect(n.cursor).toBe(CURSOR_EVERY + 10);
    // Reads are JOURNAL_BATCH entries at a time until a short batch.
    expect(f.calls.entriesAfter).toEqual(
      Array.from({ length: Math.ceil((CURSOR_EVERY + 10) / JOURNAL_BATCH) }, (_, i) => i * JOURNAL_BATCH),
    );
    expect(f.stored.saves).toEqual([CURSOR_EVERY]);
    await n.stop();
    expect(f.stored.cursor).toBe(CURSOR_EVERY + 10);
  });

  test("a pull that cannot finish leaves the cursor where it was: the batch is read again", async () => {
    const f = fakes({ bot: true });
    f.journal.push(fillEntry(1, [trade("trd_1", "usr_a")]));
    f.fail.user = new Error("auth away");
    const n = new Notifier(f.ports);
    await n.start();
    // The chat lookup fails (a push would be lost): the pull fails and nothing advances.
    expect(await n.pull()).toBe(false);
    expect(n.cursor).toBe(0);
    expect(f.stored.saves).toEqual([]);
    expect(f.docs.size).toBe(0);
    expect(f.logs).toEqual(["warn: journal pull failed; retrying on the next poll"]);
    f.fail.user = null;
    expect(await n.pull()).toBe(true);
    expect(n.cursor).toBe(1);
    expect(f.docs.size).toBe(1);
  });

  test("an unreachable ledger is not asked; its return is read at once and logged", async () => {
    const f = fakes();
    f.journal.push(fillEntry(1, [trade("trd_1", "usr_a")]));
    f.setReachable(false);
    const n = new Notifier(f.ports);
    await n.start();
    expect(await n.pull()).toBe(false);
    expect(f.calls.entriesAfter).toEqual([]);
    // Not yet seen at all: quiet.
    expect(f.logs).toEqual([]);
    n.servicesChanged();
    expect(f.calls.entriesAfter).toEqual([]);

    f.setReachable(true);
    n.servicesChanged();
    await n.pull();
    expect(f.docs.size).toBe(1);
    // Up: a services change asks nothing more.
    const asked = f.calls.entriesAfter.length;
    n.servicesChanged();
    expect(f.calls.entriesAfter).toHaveLength(asked);

    f.setReachable(false);
    expect(await n.pull()).toBe(false);
    expect(await n.pull()).toBe(false);
    f.setReachable(true);
    expect(await n.pull()).toBe(true);
    expect(f.logs).toEqual([
      "warn: the ledger is unreachable; journal pulls wait for it",
      "info: the ledger is reachable again; reading the journal",
    ]);
  });

  test("single flight: pulls asked while one runs share it, and it reads once more", async () => {
    const f = fakes();
    f.journal.push(fillEntry(1, [trade("trd_1", "usr_a")]));
    const n = new Notifier(f.ports);
    await n.start();
    const a = n.pull();
    const b = n.pull();
    const c = n.pull();
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(await a).toBe(true);
    // One read to the end, then one more because others asked meanwhile.
    expect(f.calls.entriesAfter).toEqual([0, 1]);
  });

  test("a burst of hints is one pull after HINT_COALESCE_MS", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    await n.start();
    for (let i = 1; i <= 5; i++) {
      f.journal.push(fillEntry(i, [trade(`trd_${i}`, "usr_a")]));
      n.pullSoon();
    }
    expect(f.timers.map((t) => t.ms)).toEqual([HINT_COALESCE_MS]);
    expect(f.calls.entriesAfter).toEqual([]);
    f.fire();
    await settled();
    expect(f.calls.entriesAfter).toEqual([0]);
    // The five fills are one notifications write.
    expect(f.calls.insertMany).toBe(1);
    expect(f.docs.size).toBe(5);
    // The next hint schedules a new pull.
    n.pullSoon();
    expect(f.timers).toHaveLength(1);
  });

  test("stop cancels a pending hint pull", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    await n.start();
    n.pullSoon();
    await n.stop();
    expect(f.timers[0].cancelled).toBe(true);
  });
});

describe("creation and the Telegram link", () => {
  test("without a bot nobody's chat is looked up and nothing is queued", async () => {
    const f = fakes();
    f.users.set("usr_a", linked("usr_a", 42));
    const n = new Notifier(f.ports);
    await n.settle({ batchId: "b1", status: "confirmed", trades: [{ tradeId: "t1", userId: "usr_a", marketId: "mkt_1" }] });
    expect(f.calls.user).toEqual([]);
    expect(f.docs.get("SETTLEMENT_CONFIRMED:b1:usr_a:mkt_1")).toMatchObject({ delivery: "none" });
    expect(f.docs.get("SETTLEMENT_CONFIRMED:b1:usr_a:mkt_1")?.chatId).toBeUndefined();
  });

  test("a linked user's fresh notification is queued for pushing now; an old fact or an unlinked user is not", async () => {
    const f = fakes({ bot: true });
    f.users.set("usr_a", linked("usr_a", 42));
    f.users.set("usr_b", { _id: "usr_b", walletAddress: "0:b", createdAt: iso(T0) });
    f.journal.push(
      fillEntry(1, [trade("trd_1", "usr_a"), trade("trd_2", "usr_b")]),
      fillEntry(2, [trade("trd_3", "usr_a")], iso(T0 - PUSH_MAX_AGE_MS - 1)),
    );
    const n = new Notifier(f.ports);
    await n.start();
    await n.pull();
    expect(f.docs.get("TRADE_FILLED:trd_1")).toMatchObject({ delivery: "pending", chatId: 42, deliverAt: T0 });
    expect(f.docs.get("TRADE_FILLED:trd_2")).toMatchObject({ delivery: "none" });
    expect(f.docs.get("TRADE_FILLED:trd_3")).toMatchObject({ delivery: "none" });
    expect(f.calls.deliver).toBe(1);
    // Chat ids are cached: usr_a was asked once for two fills.
    expect(f.calls.user).toEqual(["usr_a", "usr_b"]);
  });

  test("nothing to push: delivery is not woken", async () => {
    const f = fakes({ bot: true });
    const n = new Notifier(f.ports);
    await n.withdrawalSent({ userId: "usr_a", withdrawalId: "wd_1", amount: "5" });
    expect(f.calls.deliver).toBe(0);
  });

  test("a link told by auth is used without asking; the cache expires after a minute", async () => {
    const f = fakes({ bot: true });
    const n = new Notifier(f.ports);
    n.telegramLinked("usr_a", 77);
    await n.withdrawalSent({ userId: "usr_a", withdrawalId: "wd_1", amount: "5" });
    expect(f.calls.user).toEqual([]);
    expect(f.docs.get("WITHDRAWAL_SENT:wd_1")).toMatchObject({ chatId: 77, delivery: "pending" });

    f.clock.ms += 60_000;
    f.users.set("usr_a", linked("usr_a", 78));
    await n.withdrawalSent({ userId: "usr_a", withdrawalId: "wd_2", amount: "5" });
    expect(f.calls.user).toEqual(["usr_a"]);
    expect(f.docs.get("WITHDRAWAL_SENT:wd_2")).toMatchObject({ chatId: 78 });
  });

  test("another writer's copy wins: each draft is then stored on its own, at most once, and only new ones are told", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    f.docs.set("WITHDRAWAL_SENT:wd_1", { _id: "WITHDRAWAL_SENT:wd_1" } as NotificationDoc);
    // storedIds saw nothing (the other writer came after it): insertMany fails on the duplicate.
    const storedIds = f.ports.notifications.storedIds;
    f.ports.notifications.storedIds = async () => [];
    await n.withdrawalSent({ userId: "usr_a", withdrawalId: "wd_1", amount: "5" });
    expect(f.created).toEqual([]);
    f.ports.notifications.storedIds = storedIds;
    expect(await n.settle({ batchId: "b", status: "failed", trades: [{ tradeId: "t", userId: "usr_a", marketId: "m" }] })).toBe(1);
    expect(f.created.map((c) => c.notification.id)).toEqual(["SETTLEMENT_FAILED:b:usr_a:m"]);
  });

  test("market titles are asked once and cached; a catalog failure names the market by id", async () => {
    const f = fakes();
    f.markets.set("mkt_1", { title: "Snow?" });
    const n = new Notifier(f.ports);
    await n.settle({ batchId: "b1", status: "confirmed", trades: [{ tradeId: "t1", userId: "usr_a", marketId: "mkt_1" }] });
    await n.settle({ batchId: "b2", status: "confirmed", trades: [{ tradeId: "t2", userId: "usr_a", marketId: "mkt_1" }] });
    expect(f.calls.market).toEqual(["mkt_1"]);
    expect(f.docs.get("SETTLEMENT_CONFIRMED:b2:usr_a:mkt_1")?.body).toContain("“Snow?”");
    f.fail.market = true;
    await n.settle({ batchId: "b3", status: "confirmed", trades: [{ tradeId: "t3", userId: "usr_a", marketId: "mkt_2" }] });
    expect(f.docs.get("SETTLEMENT_CONFIRMED:b3:usr_a:mkt_2")?.body).toContain("market mkt_2");
  });
});

describe("notices from other services", () => {
  const cancel = (cancelReason: string | null | undefined, over: Partial<{ status: string; userId: string }> = {}) => ({
    orderId: "ord_1",
    userId: "usr_a",
    marketId: "mkt_1",
    status: "cancelled",
    cancelReason,
    ...over,
  });

  test.each([
    ["market_closed", "MARKET_CLOSED"],
    ["market_cancelled", "MARKET_CANCELLED"],
    ["market_resolved", "MARKET_RESOLVED"],
    ["expired", "EXPIRED"],
    ["heartbeat", "HEARTBEAT"],
  ])("a cancel for %s tells the user why (%s)", async (reason, notice) => {
    const f = fakes();
    const n = new Notifier(f.ports);
    await n.orderUpdated(cancel(reason, { status: reason === "expired" ? "expired" : "cancelled" }));
    expect(f.docs.get("ORDER_CANCELLED:ord_1")?.metadata).toEqual({ marketId: "mkt_1", orderId: "ord_1", reason: notice });
    expect(f.docs.get("ORDER_CANCELLED:ord_1")?.createdAt).toBe(iso(T0));
  });

  test("the user's own cancel, self-trade prevention, other statuses and system accounts notify nothing", async () => {
    const f = fakes();
    f.markets.set("mkt_1", { status: "closed" });
    const n = new Notifier(f.ports);
    await n.orderUpdated(cancel("user"));
    await n.orderUpdated(cancel("self_trade"));
    await n.orderUpdated(cancel("market_closed", { status: "filled" }));
    await n.orderUpdated(cancel("market_closed", { userId: "amm:mkt_1" }));
    expect(f.docs.size).toBe(0);
  });

  test("a cancel without a reason is a halt when the market no longer trades", async () => {
    const f = fakes();
    f.markets.set("mkt_1", { status: "open" });
    const n = new Notifier(f.ports);
    await n.orderUpdated(cancel(undefined));
    expect(f.docs.size).toBe(0);
    f.markets.set("mkt_1", { status: "cancelled" });
    await n.orderUpdated(cancel(null));
    expect(f.docs.get("ORDER_CANCELLED:ord_1")?.metadata).toMatchObject({ reason: "MARKET_CANCELLED" });
    // Told again: still one.
    await n.orderUpdated(cancel("market_cancelled"));
    expect(f.created).toHaveLength(1);
  });

  test("a failed write of a notice is logged, not thrown at the emitter", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    f.ports.notifications.storedIds = () => Promise.reject(new Error("disk"));
    await expect(n.orderUpdated(cancel("expired"))).resolves.toBeUndefined();
    await expect(n.withdrawalFailed({ userId: "usr_a", withdrawalId: "wd_1", amount: "1" })).resolves.toBeUndefined();
    expect(f.logs).toEqual(["warn: ORDER_CANCELLED notification failed", "warn: WITHDRAWAL_FAILED notification failed"]);
  });

  test("withdrawal outcomes: amounts as strings, a failure's reason bounded, a missing one named", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    await n.withdrawalSent({ userId: "usr_a", withdrawalId: "wd_1", amount: 1_500_000 as unknown as string, txHash: "ab" });
    await n.withdrawalFailed({ userId: "usr_a", withdrawalId: "wd_2", amount: "2000000", reason: "x".repeat(400) });
    await n.withdrawalFailed({ userId: "usr_a", withdrawalId: "wd_3", amount: "1" });
    expect(f.docs.get("WITHDRAWAL_SENT:wd_1")?.metadata).toEqual({ withdrawalId: "wd_1", amount: "1500000", txHash: "ab" });
    expect((f.docs.get("WITHDRAWAL_FAILED:wd_2")?.metadata as { reason: string }).reason).toHaveLength(300);
    expect(f.docs.get("WITHDRAWAL_FAILED:wd_3")?.metadata).toMatchObject({ reason: "unknown reason" });
  });

  test("settlement notices: created counts only new ones", async () => {
    const f = fakes();
    const n = new Notifier(f.ports);
    const told = {
      batchId: "stl_1",
      status: "confirmed" as const,
      txHash: null,
      trades: [
        { tradeId: "t1", userId: "usr_a", marketId: "m1" },
        { tradeId: "t2", userId: "usr_b", marketId: "m1" },
      ],
    };
    expect(await n.settle(told)).toBe(2);
    expect(await n.settle(told)).toBe(0);
  });
});

describe("fan-outs to a market's holders", () => {
  test("a resolution reads holders at once, stores the job with them, tells each user once and removes the job", async () => {
    const f = fakes();
    f.holders.set("mkt_1", [
      position("usr_a", "YES", 3),
      position("usr_a", "NO", 1),
      position("usr_b", "NO", 0),
      position("amm:mkt_1", "YES", 9),
      position("usr_c", "NO", 2),
    ]);
    const n = new Notifier(f.ports);
    const inserted: NotifierJobDoc[] = [];
    const insertOnce = f.ports.jobs.insertOnce;
    f.ports.jobs.insertOnce = (job) => (inserted.push(job), insertOnce(job));
    await n.marketResolved({ marketId: "mkt_1", result: "YES", conditionId: "0xc" });
    expect(inserted).toEqual([
      {
        _id: "resolved:mkt_1",
        kind: "marketResolved",
        marketId: "mkt_1",
        result: "YES",
        conditionId: "0xc",
        at: iso(T0),
        holders: [
          {
            userId: "usr_a",
            positions: [
              { outcome: "NO", quantity: "1" },
              { outcome: "YES", quantity: "3" },
            ],
          },
          { userId: "usr_c", positions: [{ outcome: "NO", quantity: "2" }] },
        ],
      },
    ]);
    expect([...f.docs.keys()]).toEqual(["MARKET_RESOLVED:mkt_1:usr_a", "MARKET_RESOLVED:mkt_1:usr_c"]);
    expect(f.docs.get("MARKET_RESOLVED:mkt_1:usr_a")?.metadata).toEqual({
      marketId: "mkt_1",
      result: "YES",
      conditionId: "0xc",
      positions: [
        { outcome: "NO", quantity: "1" },
        { outcome: "YES", quantity: "3" },
      ],
    });
    expect(f.jobs.size).toBe(0);

    // The event again: nobody twice.
    await n.marketResolved({ marketId: "mkt_1", result: "YES" });
    expect(f.created).toHaveLength(2);
  });

  test("holders unreadable at first: the job is kept and a later run completes it; a cancellation tells holders", async () => {
    const f = fakes();
    f.holders.set("mkt_2", [position("usr_a", "YES", 5, "mkt_2")]);
    f.fail.holders = new Error("ledger away");
    const n = new Notifier(f.ports);
    await n.marketCancelled({ marketId: "mkt_2", yesPayout: 200_000 });
    expect([...f.jobs.keys()]).toEqual(["cancelled:mkt_2"]);
    expect(f.jobs.get("cancelled:mkt_2")?.holders).toBeUndefined();
    expect(f.logs).toEqual(["warn: job cancelled:mkt_2 failed; retrying on the next poll"]);
    await n.runJobs();
    expect(f.jobs.size).toBe(1);

    f.fail.holders = null;
    await n.runJobs();
    expect(f.jobs.size).toBe(0);
    expect(f.docs.get("MARKET_CANCELLED:mkt_2:usr_a")?.metadata).toEqual({
      marketId: "mkt_2",
      price: "0.20",
      positions: [{ outcome: "YES", quantity: "5" }],
    });
    expect(f.docs.get("MARKET_CANCELLED:mkt_2:usr_a")?.createdAt).toBe(iso(T0));
  });

  test("a proposal and its first dispute each tell every holder once; a SPLIT resolution says what each share pays", async () => {
    const f = fakes();
    f.holders.set("mkt_3", [
      position("usr_a", "YES", 2_000_000, "mkt_3"),
      position("usr_b", "NO", 2_000_000, "mkt_3"),
      position("amm:mkt_3", "YES", 7, "mkt_3"),
    ]);
    const n = new Notifier(f.ports);
    const notice = { marketId: "mkt_3", proposedResult: "SPLIT", proposedAt: iso(T0), disputeEndsAt: iso(T0 + 7_200_000) };
    await n.resolutionNotice("resolutionProposed", notice);
    await n.resolutionNotice("resolutionProposed", notice);
    await n.resolutionNotice("resolutionDisputed", notice);
    const types = f.created.map((c) => `${c.notification.type}:${c.userId}`);
    expect(types).toEqual([
      "RESOLUTION_PROPOSED:usr_a",
      "RESOLUTION_PROPOSED:usr_b",
      "RESOLUTION_DISPUTED:usr_a",
      "RESOLUTION_DISPUTED:usr_b",
    ]);
    const proposed = f.created[0].notification;
    expect(proposed.metadata).toEqual({
      marketId: "mkt_3",
      proposedResult: "SPLIT",
      disputeEndsAt: iso(T0 + 7_200_000),
      positions: [{ outcome: "YES", quantity: "2000000" }],
    });
    expect(proposed.body).toContain(`dispute it until ${iso(T0 + 7_200_000)}`);
    expect(f.created[2].notification.title).toBe("Proposed result disputed");
    await n.marketResolved({ marketId: "mkt_3", result: "SPLIT" });
    const resolved = f.created.filter((c) => c.notification.type === "MARKET_RESOLVED");
    expect(resolved.map((c) => c.userId)).toEqual(["usr_a", "usr_b"]);
    expect(resolved[0].notification.body).toContain("resolved SPLIT: each YES and each NO share pays 50¢");
  });
});
