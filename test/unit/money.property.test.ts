/**
 * Money invariants of the whole trading path (lock -> match -> settle -> ledger), checked after every
 * step of random multi-market, multi-user command streams on the pure engine (no broker, no I/O).
 */
import fc from "fast-check";
import type { AccountsSnapshot, Posting } from "../../engine/accounts";
import { feeOn, feeWeight, LOT, placementBuyLock, restingBuyLock, type FeeSchedule } from "../../engine/money";
import type { TradeRecord } from "../../engine/settlement";
import type { BookEvent, FillEvent, OrderType, Outcome, Side } from "../../engine/types";
import { PureExchange } from "../support/pure-exchange";

const MARKETS = ["mA", "mB", "mC"];
const USDT = 1_000_000;
const SHARE_LOTS = 1_000_000 / LOT;

type Cmd =
  | {
      kind: "place";
      user: number;
      market: number;
      side: Side;
      outcome: Outcome;
      price: number;
      aggr: number;
      lots: number;
      rel: number | null;
      type: OrderType;
    }
  | { kind: "cancel"; target: number; as: "owner" | "other" }
  | { kind: "cancelUnknown"; user: number; market: number }
  | { kind: "deposit"; user: number; amount: number }
  | { kind: "withdraw"; user: number; fraction: number }
  | { kind: "roundTrip"; user: number; market: number; outcome: Outcome; lots: number }
  | { kind: "close"; market: number; roll: number };

interface Setup {
  fees: FeeSchedule;
  users: number;
  /** Initial deposit per user (0 = starts without cash). */
  funds: number[];
  /** Pairs minted before the stream, so SELLs have shares to sell. */
  seeds: Array<{ market: number; yes: number; no: number; price: number; lots: number }>;
  /** Users who then withdraw all free cash: they hold only shares obtained by trading. */
  drain: boolean[];
}

const bps = fc.oneof(fc.constantFrom(0, 0, 1, 25, 200, 1000, 5000, 10000), fc.integer({ min: 0, max: 10000 }));
/** Equal taker and maker rates often: that is when the two fee roundings of a placement can add up. */
const feesArb: fc.Arbitrary<FeeSchedule> = fc.oneof(
  fc.record({ takerBps: bps, makerBps: bps }),
  bps.map((b) => ({ takerBps: b, makerBps: b })),
);
/** Most prices near 50 in both outcomes, so YES and NO orders cross (transfer, mint and merge). */
const price = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 42, max: 58 }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 99 }) },
  { weight: 1, arbitrary: fc.constantFrom(1, 99) },
);
/** Lots: tiny (a few micro-units of cost, where rounding matters), ordinary shares, and large. */
const lots = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 20 }) },
  { weight: 8, arbitrary: fc.integer({ min: SHARE_LOTS, max: 50 * SHARE_LOTS }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000 * SHARE_LOTS, max: 100_000 * SHARE_LOTS }) },
);
const funds = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(10_000 * USDT, 1_000_000 * USDT) },
  { weight: 3, arbitrary: fc.constantFrom(0, 123_457, USDT / 2, 100 * USDT) },
);

const setupArb: fc.Arbitrary<Setup> = fc.integer({ min: 2, max: 7 }).chain((users) =>
  fc.record({
    fees: feesArb,
    users: fc.constant(users),
    funds: fc.array(funds, { minLength: users, maxLength: users }),
    seeds: fc.array(
      fc.record({
        market: fc.nat(MARKETS.length - 1),
        yes: fc.nat(users - 1),
        no: fc.nat(users - 1),
        price: fc.integer({ min: 5, max: 95 }),
        lots,
      }),
      { minLength: 1, maxLength: 8 },
    ),
    drain: fc.array(fc.boolean(), { minLength: users, maxLength: users }),
  }),
);

const user = fc.nat(6);
const market = fc.nat(MARKETS.length - 1);
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      user,
      market,
      side: fc.constantFrom<Side>("BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      price,
      // Shifts BUYs up and SELLs down: two aggressive orders cross (sum of BUY prices >= 100 mints).
      aggr: fc.integer({ min: -4, max: 8 }),
      lots,
      // Often sized from what the user holds, so orders are mostly affordable and really trade.
      // 1 = everything: the whole free balance (exactly what the placement lock allows) or all free shares.
      rel: fc.option(
        fc.oneof({ weight: 4, arbitrary: fc.double({ min: 0, max: 0.3, noNaN: true }) }, { weight: 1, arbitrary: fc.constant(1) }),
        { freq: 4 },
      ),
      type: fc.constantFrom<OrderType>("GTC", "GTC", "GTC", "FOK"),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      target: fc.nat(),
      as: fc.constantFrom("owner" as const, "owner" as const, "other" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelUnknown" as const), user, market }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deposit" as const), user, amount: fc.integer({ min: 1, max: 1000 * USDT }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("withdraw" as const), user, fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
  },
  // Rare (1 in 8 of these), so the market usually trades for a while first.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), market: fc.constant(MARKETS.length - 1), roll: fc.nat(7) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("roundTrip" as const),
      user,
      market,
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      lots: fc.oneof(fc.integer({ min: 1, max: 300 }), lots),
    }),
  },
);

/** Proof that the generators do what they claim: counted over the passing runs of a test, asserted after it. */
const newStats = () => ({
  runs: 0,
  steps: 0,
  accepted: 0,
  fills: 0,
  transfer: 0,
  mint: 0,
  merge: 0,
  fokFilled: 0,
  fokRejected: 0,
  insufficientCash: 0,
  insufficientShares: 0,
  selfTradeCancels: 0,
  rested: 0,
  cancels: 0,
  cancelRefused: 0,
  roundTrips: 0,
  closedOrders: 0,
  refusedClosed: 0,
  feeRuns: 0,
});
let stats = newStats();

const uid = (i: number) => `usr_${i}`;
const same = <T>(got: T, want: T) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
};
const fail = (msg: string, detail?: unknown): never => {
  throw new Error(`${msg}${detail === undefined ? "" : " " + JSON.stringify(detail)}`);
};

/** Everything a command may touch: accounts and every book's full depth and open orders. */
function fullState(ex: PureExchange) {
  return {
    accounts: ex.snapshot(),
    books: MARKETS.map((m) => ({ yes: ex.book(m).depth("YES", 99), no: ex.book(m).depth("NO", 99), open: ex.book(m).openOrders() })),
  };
}

function checkInvariants(ex: PureExchange): void {
  const c = ex.accounts.conservation();
  if (!c.ok) fail("conservation broken", c);
  const s: AccountsSnapshot = ex.snapshot();

  // Recomputed from raw state, independently of the Accounts' own incremental counters.
  let cash = 0;
  for (const [account, a] of s.cash) {
    if (!(a.available >= 0 && a.locked >= 0)) fail(`negative cash on ${account}`, a);
    cash += a.available + a.locked;
  }
  const collateral = new Map(s.collateral);
  let totalCollateral = 0;
  for (const v of collateral.values()) totalCollateral += v;
  if (cash + totalCollateral + s.fees !== s.external.deposit - s.external.withdrawal + s.external.house)
    fail("cash + collateral + fees != deposits", { cash, totalCollateral, fees: s.fees, ext: s.external });

  const outstanding = new Map<string, { YES: number; NO: number }>();
  for (const p of s.positions) {
    if (!(p.quantity >= 0 && p.locked >= 0 && p.locked <= p.quantity)) fail(`bad position ${p.account} ${p.marketId} ${p.outcome}`, p);
    const o = outstanding.get(p.marketId) ?? { YES: 0, NO: 0 };
    o[p.outcome] += p.quantity;
    outstanding.set(p.marketId, o);
  }
  for (const m of MARKETS) {
    const o = outstanding.get(m) ?? { YES: 0, NO: 0 };
    const coll = collateral.get(m) ?? 0;
    if (o.YES !== o.NO || o.YES !== coll) fail(`market ${m}: YES ${o.YES} NO ${o.NO} collateral ${coll}`);
  }

  // Locks are exactly what the open orders need: cash for BUYs, shares for SELLs.
  const needCash = new Map<string, number>();
  const needShares = new Map<string, number>();
  for (const m of MARKETS) {
    const book = ex.book(m);
    const problems = book.checkIntegrity();
    if (problems.length) fail(`book ${m} inconsistent`, problems);
    for (const o of book.openOrders()) {
      if (o.side === "BUY") needCash.set(o.userId, (needCash.get(o.userId) ?? 0) + restingBuyLock(o.remaining, o.price, ex.fees));
      else {
        const k = `${o.userId}|${m}|${o.outcome}`;
        needShares.set(k, (needShares.get(k) ?? 0) + o.remaining);
      }
    }
  }
  for (const [account, a] of s.cash)
    if (a.locked !== (needCash.get(account) ?? 0))
      fail(`locked cash of ${account} is ${a.locked}, open BUYs need ${needCash.get(account) ?? 0}`);
  for (const [account, need] of needCash) if (ex.accounts.balance(account).locked !== need) fail(`locked cash of ${account} missing`, need);
  for (const p of s.positions) {
    const k = `${p.account}|${p.marketId}|${p.outcome}`;
    if (p.locked !== (needShares.get(k) ?? 0)) fail(`locked shares ${k} are ${p.locked}, open SELLs need ${needShares.get(k) ?? 0}`);
  }
  for (const [k, need] of needShares) {
    const [a, m, o] = k.split("|");
    if (ex.accounts.position(a, m, o as Outcome)?.locked !== need) fail(`locked shares ${k} missing`, need);
  }
}

class Run {
  readonly ex: PureExchange;
  private readonly placed: Array<{ market: string; orderId: string; user: string }> = [];
  /** Maker phase of each resting order: quantity when it rested and maker fees charged since. */
  private readonly makers = new Map<string, { rested: number; filled: number; fee: number; price: number }>();

  constructor(
    readonly setup: Setup,
    tamper?: (p: Posting[]) => Posting[],
  ) {
    this.ex = new PureExchange(setup.fees, tamper);
  }

  init(): void {
    const { ex, setup } = this;
    setup.funds.forEach((f, i) => f > 0 && ex.deposit(uid(i), f));
    for (const seed of setup.seeds) {
      if (seed.yes === seed.no) continue;
      const m = MARKETS[seed.market];
      const q = seed.lots * LOT;
      this.place(m, { userId: uid(seed.yes), side: "BUY", outcome: "YES", price: seed.price, quantity: q, orderType: "GTC" });
      this.place(m, { userId: uid(seed.no), side: "BUY", outcome: "NO", price: 100 - seed.price, quantity: q, orderType: "GTC" });
    }
    setup.drain.forEach((d, i) => d && this.withdraw(uid(i), 1));
    checkInvariants(ex);
  }

  /** One order through the pure exchange, with the "rejection changes nothing" checks. */
  place(m: string, input: { userId: string; side: Side; outcome: Outcome; price: number; quantity: number; orderType: OrderType }) {
    const before = fullState(this.ex);
    const r = this.ex.place(m, input);
    stats.steps++;
    if (r.kind === "closed") {
      stats.refusedClosed++;
      same(fullState(this.ex), before);
    } else if (r.kind === "insufficient") {
      if (r.code === "INSUFFICIENT_SHARES") stats.insufficientShares++;
      else stats.insufficientCash++;
      same(fullState(this.ex), before);
    } else if (r.kind === "rejected") {
      if (r.reason !== "FOK_NOT_FILLED") fail("unexpected rejection", r);
      stats.fokRejected++;
      same(fullState(this.ex), before);
    } else {
      stats.accepted++;
      this.placed.push({ market: m, orderId: r.orderId, user: input.userId });
      let makerQty = 0;
      for (const e of r.events) {
        if (e.type === "fill") {
          stats.fills++;
          stats[e.kind]++;
          makerQty += e.quantity;
        } else if (e.type === "cancelled") stats.selfTradeCancels++;
        else if (e.type === "rested") stats.rested++;
      }
      if (input.orderType === "FOK") {
        stats.fokFilled++;
        if (makerQty !== input.quantity) fail("accepted FOK did not fill completely", r.events);
      }
      // Every fill appears once on each side: maker trades add up to the taker's trade.
      const taker = r.settlement.trades.filter((t) => t.role === "taker");
      const makers = r.settlement.trades.filter((t) => t.role === "maker");
      if ((taker[0]?.filledQuantity ?? 0) !== makerQty || makers.reduce((a, t) => a + t.filledQuantity, 0) !== makerQty)
        fail("trade quantities disagree with fills", r.settlement.trades);
      for (const t of r.settlement.trades) if (t.fee < 0 || t.totalCost < 0) fail("negative fee or cost", t);
      // Everything a settlement pays comes out of locks: nobody's free cash is ever charged after matching.
      for (const p of r.settlement.postings)
        if (p.kind === "cash" && (p.available ?? 0) < 0) fail("settlement charged free cash beyond the lock", p);
      this.checkFees(input.side, r.events, r.settlement.trades);
    }
    checkInvariants(this.ex);
    return r;
  }

  /** Lots of an order: absolute, or a fraction of the free shares (SELL) or of what free cash buys (BUY). */
  size(c: Extract<Cmd, { kind: "place" }>, m: string, userId: string): number {
    if (c.rel === null) return c.lots;
    let free: number;
    if (c.side === "SELL") {
      const p = this.ex.accounts.position(userId, m, c.outcome);
      free = p ? (p.quantity - p.locked) / LOT : 0;
    } else if (c.rel === 1) {
      // Largest quantity whose placement lock fits the free cash exactly (the lock grows with quantity).
      const cash = this.ex.accounts.balance(userId).available;
      let lo = 0;
      let hi = Math.ceil(cash / c.price) + 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (placementBuyLock(mid * LOT, c.price, this.ex.fees) <= cash) lo = mid;
        else hi = mid - 1;
      }
      return Math.max(1, lo);
    } else free = this.ex.accounts.balance(userId).available / 100;
    return Math.max(1, Math.floor(free * c.rel));
  }

  /**
   * Rounding favours the platform: the taker's fee is its exact fee rounded up once; a maker's fees
   * stay within one micro-unit of exact and, once the order is filled, total its whole fee rounded up.
   */
  checkFees(takerSide: Side, events: BookEvent[], trades: TradeRecord[]): void {
    const { takerBps, makerBps } = this.ex.fees;
    const fills = events.filter((e): e is FillEvent => e.type === "fill");
    const taker = trades.find((t) => t.role === "taker");
    if (taker) {
      let w = 0n;
      for (const f of fills) w += feeWeight(f.quantity, f.takerPrice);
      const want = takerSide === "SELL" ? Math.min(feeOn(takerBps, w), taker.totalCost) : feeOn(takerBps, w);
      if (taker.fee !== want) fail(`taker fee ${taker.fee}, exact fee rounded up is ${want}`);
    }
    const makerTrades = trades.filter((t) => t.role === "maker");
    fills.forEach((f, i) => {
      const m = this.makers.get(f.makerOrderId);
      if (!m) return fail(`fill of ${f.makerOrderId}, which never rested`);
      m.filled += f.quantity;
      m.fee += makerTrades[i].fee;
      const exact = BigInt(makerBps) * feeWeight(m.filled, m.price);
      const charged = BigInt(m.fee) * 100_000_000n;
      if (charged - exact >= 100_000_000n || exact - charged >= 100_000_000n)
        fail(`maker fees of ${f.makerOrderId} off by a micro-unit or more`, { ...m, makerBps });
      if (f.makerRemaining === 0) {
        if (m.fee !== feeOn(makerBps, feeWeight(m.rested, m.price)))
          fail(`filled maker ${f.makerOrderId} paid ${m.fee}, not its fee rounded up`, { ...m, makerBps });
        this.makers.delete(f.makerOrderId);
      }
    });
    for (const e of events) {
      if (e.type === "rested") this.makers.set(e.orderId, { rested: e.remaining, filled: 0, fee: 0, price: this.priceOf(e.orderId) });
      else if (e.type === "cancelled") this.makers.delete(e.orderId);
    }
  }

  private priceOf(orderId: string): number {
    for (const m of MARKETS) {
      const o = this.ex.book(m).getOrder(orderId);
      if (o) return o.price;
    }
    return fail(`rested order ${orderId} is not in any book`);
  }

  heldOutcome(m: string, userId: string, fallback: Outcome): Outcome {
    const free = (o: Outcome) => {
      const p = this.ex.accounts.position(userId, m, o);
      return p ? p.quantity - p.locked : 0;
    };
    const yes = free("YES");
    const no = free("NO");
    return yes === no ? fallback : yes > no ? "YES" : "NO";
  }

  withdraw(userId: string, fraction: number): void {
    const amount = Math.floor(this.ex.accounts.balance(userId).available * fraction);
    if (amount <= 0) return;
    this.ex.accounts.apply([
      { kind: "cash", account: userId, available: -amount },
      { kind: "external", flow: "withdrawal", amount },
    ]);
  }

  step(c: Cmd): void {
    const { ex } = this;
    const n = this.setup.users;
    switch (c.kind) {
      case "place": {
        const m = MARKETS[c.market];
        const userId = uid(c.user % n);
        const p = Math.min(99, Math.max(1, c.price + (c.side === "BUY" ? c.aggr : -c.aggr)));
        // A relative SELL sells what the user holds most of; an absolute one may sell what it lacks.
        const outcome = c.side === "SELL" && c.rel !== null ? this.heldOutcome(m, userId, c.outcome) : c.outcome;
        this.place(m, {
          userId,
          side: c.side,
          outcome,
          price: p,
          quantity: this.size({ ...c, outcome }, m, userId) * LOT,
          orderType: c.type,
        });
        return;
      }
      case "cancel": {
        if (this.placed.length === 0) return;
        const t = this.placed[c.target % this.placed.length];
        const as = c.as === "owner" ? t.user : uid((Number(t.user.slice(4)) + 1) % n);
        const before = fullState(ex);
        const r = ex.cancel(t.market, t.orderId, as);
        stats.steps++;
        if (r.kind === "cancelled") {
          if (as !== t.user) fail("cancelled someone else's order", t);
          this.makers.delete(t.orderId);
          stats.cancels++;
        } else {
          stats.cancelRefused++;
          same(fullState(ex), before);
        }
        break;
      }
      case "cancelUnknown": {
        const before = fullState(ex);
        if (ex.cancel(MARKETS[c.market], "ord_unknown", uid(c.user % n)).kind !== "not_found") fail("cancel of an unknown id succeeded");
        same(fullState(ex), before);
        break;
      }
      case "deposit":
        ex.deposit(uid(c.user % n), c.amount);
        break;
      case "close":
        // Only the last market ever closes, so the others keep trading.
        if (c.roll !== 0) return;
        stats.closedOrders += ex.halt(MARKETS[c.market]);
        if (ex.book(MARKETS[c.market]).size !== 0) fail("orders left in a closed market");
        break;
      case "withdraw":
        this.withdraw(uid(c.user % n), c.fraction);
        break;
      case "roundTrip":
        this.roundTrip(MARKETS[c.market], uid(c.user % n), c.outcome, c.lots * LOT);
        return;
    }
    checkInvariants(ex);
  }

  /** Buy `q` at any price, then sell `q` at any price, both all-or-nothing: never a gain. */
  roundTrip(m: string, userId: string, outcome: Outcome, q: number): void {
    const { ex } = this;
    const cashBefore = ex.accounts.balance(userId).total;
    const sharesBefore = ex.accounts.position(userId, m, outcome)?.quantity ?? 0;
    const buy = this.place(m, { userId, side: "BUY", outcome, price: 99, quantity: q, orderType: "FOK" });
    if (buy.kind !== "accepted") return;
    const sell = this.place(m, { userId, side: "SELL", outcome, price: 1, quantity: q, orderType: "FOK" });
    if (sell.kind !== "accepted") return;
    stats.roundTrips++;
    const cashAfter = ex.accounts.balance(userId).total;
    // Every ask the buy took is above every bid the sell hit, so a complete round trip strictly loses.
    if (!(cashAfter < cashBefore))
      fail(`round trip of ${q} in ${m} ${outcome} did not lose money`, { cashBefore, cashAfter, fees: ex.fees });
    if ((ex.accounts.position(userId, m, outcome)?.quantity ?? 0) !== sharesBefore) fail("round trip changed the position");
  }
}

function runScript(setup: Setup, cmds: Cmd[], tamper?: (p: Posting[]) => Posting[]): void {
  const run = new Run(setup, tamper);
  run.init();
  for (const c of cmds) run.step(c);
}

const script = fc.array(cmdArb, { minLength: 1, maxLength: 200, size: "max" });

describe("money invariants over random multi-market trading", () => {
  beforeEach(() => {
    stats = newStats();
  });
  afterEach(() => {
    if (process.env.MONEY_STATS) console.log(`${expect.getState().currentTestName}: ${JSON.stringify(stats)}`);
  });

  test("conservation, no negatives, YES = NO = collateral, locks = open orders, rejections change nothing; after every step", () => {
    fc.assert(
      fc.property(setupArb, script, (setup, cmds) => {
        runScript(setup, cmds);
        stats.runs++;
        if (setup.fees.takerBps || setup.fees.makerBps) stats.feeRuns++;
      }),
      { numRuns: 500 },
    );
    // The generators must really trade: plenty of fills of every kind, FOKs both ways, all rejections.
    expect(stats.fills).toBeGreaterThan(3000);
    for (const k of [
      "transfer",
      "mint",
      "merge",
      "fokFilled",
      "fokRejected",
      "insufficientCash",
      "insufficientShares",
      "selfTradeCancels",
      "cancels",
      "cancelRefused",
      "closedOrders",
      "refusedClosed",
    ] as const) {
      expect({ [k]: stats[k] > 100 }).toEqual({ [k]: true });
    }
    // Complete round trips need deep books; the next test is where they are many.
    expect(stats.roundTrips).toBeGreaterThan(5);
  });

  test("round trips on a deep book with tiny lots and extreme fees never gain", () => {
    // A dedicated market maker keeps both sides deep, so nearly every round trip completes.
    fc.assert(
      fc.property(
        feesArb,
        fc.array(
          fc.record({
            yes: fc.integer({ min: 1, max: 98 }),
            spread: fc.integer({ min: 1, max: 5 }),
            lots: fc.integer({ min: 1, max: 5000 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.array(
          fc.record({
            outcome: fc.constantFrom<Outcome>("YES", "NO"),
            lots: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 3000 })),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        (fees, quotes, trips) => {
          const setup: Setup = {
            fees,
            users: 3,
            funds: [1_000_000 * USDT, 1_000_000 * USDT, 1_000 * USDT],
            seeds: [],
            drain: [false, false, false],
          };
          const run = new Run(setup);
          run.init();
          // Mint inventory for the maker (usr_0) against usr_1, then quote both sides of YES.
          run.place("mA", { userId: uid(0), side: "BUY", outcome: "YES", price: 50, quantity: 1_000_000 * LOT, orderType: "GTC" });
          run.place("mA", { userId: uid(1), side: "BUY", outcome: "NO", price: 50, quantity: 1_000_000 * LOT, orderType: "GTC" });
          for (const q of quotes) {
            const bid = Math.max(1, q.yes - q.spread);
            run.place("mA", { userId: uid(0), side: "BUY", outcome: "YES", price: bid, quantity: q.lots * LOT, orderType: "GTC" });
            run.place("mA", {
              userId: uid(0),
              side: "SELL",
              outcome: "YES",
              price: Math.min(99, q.yes + 1),
              quantity: q.lots * LOT,
              orderType: "GTC",
            });
            run.place("mA", {
              userId: uid(1),
              side: "BUY",
              outcome: "NO",
              price: 100 - Math.min(99, q.yes + 2),
              quantity: q.lots * LOT,
              orderType: "GTC",
            });
          }
          for (const t of trips) run.roundTrip("mA", uid(2), t.outcome, t.lots * LOT);
          stats.runs++;
        },
      ),
      { numRuns: 300 },
    );
    expect(stats.roundTrips).toBeGreaterThan(1000);
  });

  test("the invariants have teeth: a settlement that keeps 1 micro-unit too much locked is caught", () => {
    // Conservation still holds under this corruption; only the locks = open orders check can see it.
    const tamper = (postings: Posting[]): Posting[] => {
      const i = postings.findIndex((p) => p.kind === "cash" && (p.locked ?? 0) < 0 && (p.available ?? 0) > 0);
      if (i < 0) return postings;
      const p = postings[i] as Extract<Posting, { kind: "cash" }>;
      return postings.map((x, j) => (j === i ? { ...p, locked: (p.locked ?? 0) + 1, available: (p.available ?? 0) - 1 } : x));
    };
    const r = fc.check(
      fc.property(setupArb, script, (setup, cmds) => runScript(setup, cmds, tamper)),
      { numRuns: 200, endOnFailure: true },
    );
    expect(r.failed).toBe(true);
    expect(String(r.errorInstance)).toMatch(/locked cash/);
  });
});
