/**
 * The daily rewards run on fakes of its ports: a fake clock across UTC day boundaries, a ledger of
 * engine Accounts that applies the entry rules and answers a repeated key with its first entry,
 * in-memory stores. Random quotes, fills and funding over several days keep the money conserved
 * and never pay a market's day twice, however often the run repeats or restarts.
 */
import fc from "fast-check";
import { Accounts, type Posting } from "../../engine/accounts";
import { REWARDS_ACCOUNT } from "../../engine/rewards";
import type { Outcome, RestingOrder, Side } from "../../engine/types";
import { entryRuleProblems } from "../../ledger/entry-rules";
import { RewardsDesk, type RewardCollections, type RewardPorts } from "../../ledger/rewards";
import type { Doc, Query, Store } from "../../lib/store";
import type { TradeRecord } from "../../engine/settlement";
import type { LedgerEntryDoc, PostInput } from "../../models/trading";

const SHARE = 1_000_000;
const T0 = Date.parse("2026-03-01T23:58:00.000Z");

/** The Store calls the desk makes, in memory (equality and $gt queries). */
function memoryStore<T extends Doc>(): Store<T> {
  const docs = new Map<string, T>();
  const match = (d: T, q: Query) =>
    Object.entries(q).every(([k, v]) => {
      const x = (d as unknown as Record<string, unknown>)[k];
      if (v && typeof v === "object" && "$gt" in (v as object)) return (x as number) > ((v as { $gt: number }).$gt as number);
      return x === v;
    });
  const copy = (d: T) => JSON.parse(JSON.stringify(d)) as T;
  return {
    insert: async (d) => (docs.set(d._id, copy(d)), d),
    insertMany: async (ds) => ds.forEach((d) => docs.set(d._id, copy(d))),
    insertOnce: async (d) => (docs.has(d._id) ? false : (docs.set(d._id, copy(d)), true)),
    findOne: async (q) => [...docs.values()].find((d) => match(d, q)) ?? null,
    find: async (q) =>
      [...docs.values()]
        .filter((d) => match(d, q))
        .sort((a, b) => (a._id < b._id ? -1 : 1))
        .map(copy),
    count: async (q) => [...docs.values()].filter((d) => match(d, q)).length,
    update: async () => 0,
    remove: async () => 0,
    put: async (d) => void docs.set(d._id, copy(d)),
  };
}

function world(opts: { rebateBps?: number } = {}) {
  const clock = { ms: T0 };
  const books = new Accounts();
  const journal: LedgerEntryDoc[] = [];
  const keys = new Map<string, LedgerEntryDoc>();
  const resting = new Map<string, RestingOrder[]>();
  const stores = {
    rewardTerms: memoryStore(),
    rewardScores: memoryStore(),
    rewardFills: memoryStore(),
    rewardEarnings: memoryStore(),
    rewardMeta: memoryStore(),
  } as { [K in keyof RewardCollections]: Store<RewardCollections[K]> };
  let n = 0;
  const post = async (e: PostInput) => {
    const first = keys.get(e.key);
    if (first) return { applied: false, seq: first.seq, instance: "i" };
    const problems = entryRuleProblems(e, books);
    if (problems.length) throw new Error(problems.join("; "));
    books.commit(books.prepare(e.postings, 0));
    const doc: LedgerEntryDoc = { _id: e.key, seq: journal.length + 1, postings: e.postings, at: new Date(clock.ms).toISOString() };
    if (e.trades) doc.trades = e.trades;
    if (e.reward) doc.reward = e.reward;
    if (e.book) doc.book = e.book;
    journal.push(doc);
    keys.set(e.key, doc);
    return { applied: true, seq: doc.seq, instance: "i" };
  };
  const ports: RewardPorts = {
    stores: () => stores,
    resting: async (m) => resting.get(m) ?? [],
    entriesAfter: async (seq, limit) => journal.filter((d) => d.seq > seq).slice(0, limit),
    entryByKey: async (key) => keys.get(key) ?? null,
    post,
    available: (a) => books.balance(a).available,
    feeBalance: () => books.feeBalance(),
    order: async () => null,
    marketExists: async (m) => m.startsWith("mkt_"),
    rebateBps: opts.rebateBps ?? 0,
    newId: (p) => `${p}_${++n}`,
    now: () => clock.ms,
    dayOfEntry: (at) => at.slice(0, 10),
    warn: () => undefined,
  };
  const deposit = (user: string, amount: number) =>
    post({
      key: `dep:${++n}`,
      postings: [
        { kind: "cash", account: user, available: amount },
        { kind: "external", flow: "deposit", amount },
      ],
    });
  /** A trade that took `fee` from the taker into the fee account and `filled` from the maker (cash only: enough for the rules). */
  const fill = (marketId: string, maker: string, taker: string, filled: number, fee: number) => {
    const t = (userId: string, role: "taker" | "maker"): TradeRecord => ({
      tradeId: `trd_${++n}`,
      userId,
      marketId,
      orderId: `ord_${n}`,
      side: "BUY",
      outcome: "YES",
      venue: "CLOB",
      role,
      filledQuantity: filled,
      totalCost: 0,
      fee: role === "taker" ? fee : 0,
      fillIds: [],
    });
    const postings: Posting[] = fee
      ? [
          { kind: "cash", account: taker, available: -fee },
          { kind: "fee", amount: fee },
        ]
      : [];
    return post({ key: `fill:${++n}`, postings, trades: [t(maker, "maker"), t(taker, "taker")], book: {} as never });
  };
  const quote = (marketId: string, userId: string, side: Side, outcome: Outcome, price: number, remaining: number) => {
    const list = resting.get(marketId) ?? [];
    list.push({ orderId: `ord_${++n}`, userId, side, outcome, price, quantity: remaining, remaining, seq: n });
    resting.set(marketId, list);
  };
  return { clock, books, journal, resting, stores, desk: new RewardsDesk(ports), ports, deposit, fill, quote };
}

describe("the daily rewards run (fake clock)", () => {
  test("a day's pool goes to its scorers pro rata at 00:00 UTC, once; a two-sided quoter earns 3x a one-sided one", async () => {
    const w = world();
    await w.desk.fund(1_000 * SHARE);
    await w.desk.setTerms("mkt_1", { dailyPool: String(90 * SHARE), maxSpread: "0.03", minSize: String(10 * SHARE) });
    w.quote("mkt_1", "usr_two", "BUY", "YES", 49, 10 * SHARE);
    w.quote("mkt_1", "usr_two", "SELL", "YES", 51, 10 * SHARE);
    w.quote("mkt_1", "usr_one", "BUY", "YES", 49, 20 * SHARE);
    expect(await w.desk.tick()).toEqual([]);
    w.clock.ms += 60_000;
    expect(await w.desk.tick()).toEqual([]);
    // Two minutes scored on 2026-03-01; the next day pays them.
    w.clock.ms += 60_000;
    const [paid] = await w.desk.tick();
    expect(paid).toMatchObject({ key: "reward:2026-03-01:mkt_1", applied: true });
    expect(paid.record?.rewards.map((r) => [r.userId, r.amount])).toEqual([
      ["usr_one", 22_500_000],
      ["usr_two", 67_500_000],
    ]);
    expect(w.books.balance(REWARDS_ACCOUNT).available).toBe(910 * SHARE);
    expect(await w.desk.earnings("usr_two", "2026-03-01")).toEqual([
      { marketId: "mkt_1", score: paid.record?.rewards[1].score, reward: "67500000", rebate: "0" },
    ]);
    // Another run, or a second runner: nothing more.
    expect(await w.desk.tick()).toEqual([]);
    expect(await w.desk.payDay("2026-03-01", "mkt_1")).toMatchObject({ applied: false, record: paid.record });
    expect(w.journal.filter((d) => d.reward?.kind === "payout")).toHaveLength(1);
    expect(w.books.conservation().ok).toBe(true);
  });

  test("maker rebates: MAKER_REBATE_BPS of the day's taker fees, pro rata to filled maker quantity, from the fee account", async () => {
    const w = world({ rebateBps: 5000 });
    await w.deposit("usr_t", 100 * SHARE);
    await w.desk.tick();
    await w.fill("mkt_1", "usr_m1", "usr_t", 30 * SHARE, 1_000_000);
    await w.fill("mkt_1", "usr_m2", "usr_t", 10 * SHARE, 1_000_001);
    w.clock.ms += 2 * 60_000;
    const [paid] = await w.desk.tick();
    expect(paid.record).toMatchObject({ takerFees: 2_000_001, rebateBps: 5000, rewards: [] });
    expect(paid.record?.rebates).toEqual([
      { userId: "usr_m1", amount: 750_000, filled: 30 * SHARE },
      { userId: "usr_m2", amount: 250_000, filled: 10 * SHARE },
    ]);
    expect(w.books.feeBalance()).toBe(1_000_001);
    expect(w.books.conservation().ok).toBe(true);
  });

  test("what a user was paid, as transfers: one reward and one rebate per market and day, at the payout entry's time", async () => {
    const w = world({ rebateBps: 5000 });
    await w.desk.fund(100 * SHARE);
    await w.deposit("usr_t", 100 * SHARE);
    await w.desk.setTerms("mkt_1", { dailyPool: String(10 * SHARE), maxSpread: "0.03", minSize: "0" });
    w.quote("mkt_1", "usr_m", "BUY", "YES", 49, 10 * SHARE);
    w.quote("mkt_1", "usr_o", "SELL", "YES", 51, 10 * SHARE);
    await w.desk.tick();
    await w.fill("mkt_1", "usr_m", "usr_t", 10 * SHARE, 1_000_000);
    w.clock.ms += 2 * 60_000;
    const [paid] = await w.desk.tick();
    const at = w.journal.find((d) => d._id === paid.key)?.at;
    expect(at).toBe("2026-03-02T00:00:00.000Z");
    expect(await w.desk.payouts("usr_m")).toEqual([
      { kind: "reward", marketId: "mkt_1", day: "2026-03-01", amount: 5 * SHARE, at },
      { kind: "rebate", marketId: "mkt_1", day: "2026-03-01", amount: 500_000, at },
    ]);
    // A taker earned nothing: no transfer, not even of 0.
    expect(await w.desk.payouts("usr_t")).toEqual([]);
    // Earnings an earlier version stored carry no time: dated at the run after their day.
    await w.stores.rewardEarnings.put({
      _id: "x",
      day: "2026-02-10",
      marketId: "mkt_2",
      userId: "usr_t",
      score: "1",
      reward: 3,
      rebate: 0,
    });
    expect(await w.desk.payouts("usr_t")).toEqual([
      { kind: "reward", marketId: "mkt_2", day: "2026-02-10", amount: 3, at: "2026-02-11T00:00:00.000Z" },
    ]);
  });

  test("an unfunded rewards account pays what it holds; bad terms are refused", async () => {
    const w = world();
    await w.desk.fund(5 * SHARE);
    await w.desk.setTerms("mkt_1", { dailyPool: String(90 * SHARE), maxSpread: "0.03", minSize: "0" });
    await expect(w.desk.setTerms("mkt_1", { dailyPool: "1", maxSpread: "0.00", minSize: "0" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await expect(w.desk.setTerms("other", { dailyPool: "1", maxSpread: "0.03", minSize: "0" })).rejects.toMatchObject({
      code: "RESOURCE_NOT_FOUND",
    });
    await expect(w.desk.fund(0)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    w.quote("mkt_1", "usr_a", "BUY", "YES", 49, SHARE);
    w.quote("mkt_1", "usr_b", "SELL", "YES", 51, SHARE);
    await w.desk.tick();
    w.clock.ms += 2 * 60_000;
    const [paid] = await w.desk.tick();
    expect(paid.record?.pool).toBe(5 * SHARE);
    expect(w.books.balance(REWARDS_ACCOUNT).available).toBe(0);
    expect(w.books.conservation().ok).toBe(true);
  });

  test("property: random quotes, fills, funding and runs over days keep conservation and pay each day once", async () => {
    const step = fc.oneof(
      fc.record({
        t: fc.constant("quote" as const),
        m: fc.constantFrom("mkt_1", "mkt_2"),
        u: fc.integer({ min: 1, max: 4 }),
        bid: fc.boolean(),
        price: fc.integer({ min: 44, max: 56 }),
        q: fc.integer({ min: 1, max: 50 }),
      }),
      fc.record({
        t: fc.constant("fill" as const),
        m: fc.constantFrom("mkt_1", "mkt_2"),
        u: fc.integer({ min: 1, max: 4 }),
        q: fc.integer({ min: 1, max: 50 }),
        fee: fc.integer({ min: 0, max: 200_000 }),
      }),
      fc.record({ t: fc.constant("fund" as const), amount: fc.integer({ min: 1, max: 50 * SHARE }) }),
      fc.record({ t: fc.constant("cancel" as const), m: fc.constantFrom("mkt_1", "mkt_2") }),
      fc.record({ t: fc.constant("run" as const), advanceMin: fc.integer({ min: 0, max: 900 }), twice: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), fc.integer({ min: 0, max: 9_999 }), async (steps, bps) => {
        const w = world({ rebateBps: bps });
        for (const u of [1, 2, 3, 4]) await w.deposit(`usr_${u}`, 1_000 * SHARE);
        await w.desk.setTerms("mkt_1", { dailyPool: String(7 * SHARE), maxSpread: "0.04", minSize: String(5 * SHARE) });
        await w.desk.setTerms("mkt_2", { dailyPool: String(3 * SHARE + 1), maxSpread: "0.02", minSize: "0" });
        for (const s of steps) {
          if (s.t === "quote") w.quote(s.m, `usr_${s.u}`, s.bid ? "BUY" : "SELL", "YES", s.price, s.q * SHARE);
          else if (s.t === "fill") await w.fill(s.m, `usr_${s.u}`, `usr_${(s.u % 4) + 1}`, s.q * SHARE, s.fee);
          else if (s.t === "fund") await w.desk.fund(s.amount);
          else if (s.t === "cancel") w.resting.set(s.m, (w.resting.get(s.m) ?? []).slice(1));
          else {
            w.clock.ms += s.advanceMin * 60_000;
            await w.desk.tick();
            // A restart or a second runner repeats the run: nothing is paid twice.
            if (s.twice) await new RewardsDesk(w.ports).tick();
          }
        }
        w.clock.ms += 2 * 86_400_000;
        await w.desk.tick();
        const payouts = w.journal.filter((d) => d.reward?.kind === "payout");
        const days = payouts.map((d) => d._id);
        expect(new Set(days).size).toBe(days.length);
        for (const d of payouts) {
          const r = d.reward as Extract<LedgerEntryDoc["reward"], { kind: "payout" }>;
          expect(r.rewards.reduce((x, y) => x + y.amount, 0)).toBeLessThanOrEqual(r.pool);
        }
        expect(w.books.balance(REWARDS_ACCOUNT).available).toBeGreaterThanOrEqual(0);
        expect(w.books.feeBalance()).toBeGreaterThanOrEqual(0);
        expect(w.books.conservation().ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
