/**
 * The AMM of one binary market: a fixed-product market maker (FPMM, as Gnosis conditional-tokens
 * markets) in exact integer arithmetic. Pure functions over an immutable pool state.
 *
 * State: the pool's YES and NO inventory in micro-shares. Funding with L micro-USDT mints L pairs
 * (yes = no = L, p = 0.5). Write x for the inventory of the traded outcome, o for the other one.
 *
 * - Marginal price of an outcome: o / (x + o) (YES: no / (yes + no)).
 * - BUY q of x: the trader's cash c mints c pairs into the pool, the pool hands out q:
 *   (x + c - q)(o + c) >= x·o, c the SMALLEST integer  <=>  c² + (x + o - q)c - q·o >= 0.
 * - SELL q of x: the trader's q go in, the pool merges c pairs and pays c out:
 *   (x + q - c)(o - c) >= x·o, c the LARGEST integer below o  <=>  c² - (x + o + q)c + q·o >= 0.
 *   Both roots are taken with an integer square root and then moved by 1 to the exact bound, so
 *   every rounding favours the pool and x·o never decreases.
 *
 * Fee (feeBps of the cash the trader hands over / would receive, rounded up):
 * - BUY pays cash + fee with fee = ceil(cash·bps / (10000 - bps)) (a gross-up: fee >= bps of the total).
 * - SELL receives cash - fee with fee = ceil(cash·bps / 10000).
 * The fee never enters the pool: it is LP revenue the ledger books to the AMM's cash account, so
 * the price path depends only on quantities (fees cannot move the price, and the router can plan
 * the AMM's share from prices alone). The pool only ever holds the c of each trade.
 *
 * Price bounds: a trade is refused (PRICE_BOUNDS) when it would leave the marginal price of the
 * outcome it pushes outside [0.01, 0.99] (BUY: price of the bought outcome above 0.99; SELL: below
 * 0.01). A trade moving the price back toward 0.5 is always allowed. The bound keeps the pool from
 * being drained of one side and matches the book's tick range.
 */
import { LOT, MAX_TICK, MIN_TICK, formatAvgPrice, isLotQuantity, type MicroUnits, type Tick } from "./money";
import type { Outcome, Side } from "./types";
import { Refusal } from "./refusal";

/** Pool inventory in micro-shares; immutable. */
export interface PoolState {
  readonly yes: MicroUnits;
  readonly no: MicroUnits;
}

/** An exact non-negative rational (a price): num / den, den > 0. */
export interface Fraction {
  readonly num: bigint;
  readonly den: bigint;
}

export type AmmRejectReason =
  | "INVALID_QUANTITY" // not a positive safe multiple of LOT
  | "INVALID_FEE" // feeBps not an integer in 0..9999
  | "NO_LIQUIDITY" // empty pool
  | "PRICE_BOUNDS" // the trade would push the price outside [0.01, 0.99]
  | "OVERFLOW"; // the new inventory or the amount paid would not be a safe integer

export interface AmmQuote {
  ok: true;
  side: Side;
  outcome: Outcome;
  quantity: MicroUnits;
  /** Cash into (BUY) / out of (SELL) the pool, fee excluded: the trade's totalCost. */
  cash: MicroUnits;
  /** LP fee, rounded up; booked outside the pool. */
  fee: MicroUnits;
  /** What the trader pays (BUY: cash + fee) or receives (SELL: cash - fee). */
  net: MicroUnits;
  /** cash / quantity, display string like trade records ("0.512345"). */
  avgPrice: string;
  newState: PoolState;
  priceBefore: Fraction;
  priceAfter: Fraction;
}

export interface AmmRejection {
  ok: false;
  reason: AmmRejectReason;
}

export type AmmQuoteResult = AmmQuote | AmmRejection;

const BPS = 10_000n;
const BOUND_LO: Fraction = { num: BigInt(MIN_TICK), den: 100n };
const BOUND_HI: Fraction = { num: BigInt(MAX_TICK), den: 100n };

// ---------------------------------------------------------------------------------------------
// Integer helpers

/** floor(sqrt(n)) for n >= 0, exact. */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError("isqrt of a negative number");
  if (n < 2n) return n;
  if (n < 1n << 104n) {
    // Below 2^104 the float root is within ~1 of the exact one: settle it with two exact checks.
    let r = BigInt(Math.floor(Math.sqrt(Number(n))));
    while (r * r > n) r -= 1n;
    while ((r + 1n) * (r + 1n) <= n) r += 1n;
    return r;
  }
  // Float guess (good to ~15 digits while n < 2^1000), one Newton step to land above the root
  // (AM-GM), then Newton descends to the exact floor.
  let x = n < 1n << 1000n ? BigInt(Math.floor(Math.sqrt(Number(n)))) : 1n << (BigInt(n.toString(2).length) / 2n + 1n);
  if (x === 0n) x = 1n;
  x = ((x + n / x) >> 1n) + 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x -= 1n;
  return x;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Sign of a - b. */
export function compareFractions(a: Fraction, b: Fraction): -1 | 0 | 1 {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** A tick as a price fraction: 55 -> 55/100. */
export function tickFraction(t: Tick): Fraction {
  return { num: BigInt(t), den: 100n };
}

/** Sign of price - tick/100. */
export function compareToTick(price: Fraction, t: Tick): -1 | 0 | 1 {
  return compareFractions(price, tickFraction(t));
}

// ---------------------------------------------------------------------------------------------
// Pool

/**
 * The least funding that seeds a pool: one lot of pairs. A market's AMM liquidity is used in whole
 * lots (`poolLiquidityOf`), so anything from 1 to MIN_POOL_LIQUIDITY - 1 would fund nothing.
 */
export const MIN_POOL_LIQUIDITY = LOT;

/** What a market's AMM liquidity (micro-USDT) funds its pool with: whole lots, 0 = no pool. */
export function poolLiquidityOf(liquidity: number): MicroUnits {
  return Number.isSafeInteger(liquidity) && liquidity >= MIN_POOL_LIQUIDITY ? liquidity - (liquidity % LOT) : 0;
}

/** A pool funded with `liquidity` micro-USDT: mints that many pairs, price 0.5. */
export function createPool(liquidity: MicroUnits): PoolState {
  if (!Number.isSafeInteger(liquidity) || liquidity <= 0) throw new RangeError(`invalid AMM liquidity ${liquidity}`);
  return { yes: liquidity, no: liquidity };
}

export function isPoolState(s: unknown): s is PoolState {
  const p = s as PoolState;
  return typeof p === "object" && p !== null && Number.isSafeInteger(p.yes) && Number.isSafeInteger(p.no) && p.yes > 0 && p.no > 0;
}

/** The invariant k = yes · no. */
export function invariant(s: PoolState): bigint {
  return BigInt(s.yes) * BigInt(s.no);
}

/** Marginal price of `outcome`: the other side's inventory over the total. */
export function marginalPrice(s: PoolState, outcome: Outcome): Fraction {
  const other = outcome === "YES" ? s.no : s.yes;
  return { num: BigInt(other), den: BigInt(s.yes) + BigInt(s.no) };
}

/** What the pool holds of the winning outcome: the shares it redeems at resolution (1 µUSDT each). */
export function winningInventory(s: PoolState, result: Outcome): MicroUnits {
  return result === "YES" ? s.yes : s.no;
}

/**
 * Unwind for a cancelled market: the pool merges every pair it holds (`pairs` micro-USDT back to
 * the AMM's cash) and keeps the one-sided rest, refunded like any holder's position.
 */
export function unwind(s: PoolState): { pairs: MicroUnits; yes: MicroUnits; no: MicroUnits } {
  const pairs = Math.min(s.yes, s.no);
  return { pairs, yes: s.yes - pairs, no: s.no - pairs };
}

// ---------------------------------------------------------------------------------------------
// Core solvers (bigint, no fee, no validation)

/** x = inventory of the traded outcome, o = the other one. */
const split = (s: PoolState, outcome: Outcome): [bigint, bigint] =>
  outcome === "YES" ? [BigInt(s.yes), BigInt(s.no)] : [BigInt(s.no), BigInt(s.yes)];
const join = (outcome: Outcome, x: bigint, o: bigint): PoolState =>
  outcome === "YES" ? { yes: Number(x), no: Number(o) } : { yes: Number(o), no: Number(x) };

/** Smallest c >= 0 with (x + c - q)(o + c) >= x·o. */
function buyCash(x: bigint, o: bigint, q: bigint): bigint {
  const b = x + o - q;
  // f(c) = c² + b·c - q·o, increasing past its positive root.
  const f = (c: bigint) => c * c + b * c - q * o;
  let c = (isqrt(b * b + 4n * q * o) - b) / 2n; // s >= |b| so this is >= 0
  while (f(c) < 0n) c += 1n;
  while (c > 0n && f(c - 1n) >= 0n) c -= 1n;
  return c;
}

/** Largest c in [0, o) with (x + q - c)(o - c) >= x·o. */
function sellCash(x: bigint, o: bigint, q: bigint): bigint {
  const b = x + o + q;
  // f(c) = c² - b·c + q·o: >= 0 up to its smaller root, which lies in [0, o).
  const f = (c: bigint) => c * c - b * c + q * o;
  let c = (b - isqrt(b * b - 4n * q * o)) / 2n;
  if (c >= o) c = o - 1n;
  while (c > 0n && f(c) < 0n) c -= 1n;
  while (c + 1n < o && f(c + 1n) >= 0n) c += 1n;
  return c;
}

/** Post-trade inventory (x', o') of a trade of q of the x-outcome, and the pool cash c. */
function solve(side: Side, x: bigint, o: bigint, q: bigint): { c: bigint; x: bigint; o: bigint } {
  if (side === "BUY") {
    const c = buyCash(x, o, q);
    return { c, x: x + c - q, o: o + c };
  }
  const c = sellCash(x, o, q);
  return { c, x: x + q - c, o: o - c };
}

/** Is the traded outcome's price o/(x+o) still inside the bound on the side the trade pushes it? */
function withinBounds(side: Side, x: bigint, o: bigint): boolean {
  // BUY: o/(x+o) <= 99/100 <=> o <= 99x.  SELL: o/(x+o) >= 1/100 <=> 99o >= x.
  return side === "BUY" ? 100n * o <= BigInt(MAX_TICK) * (x + o) : 100n * o >= BigInt(MIN_TICK) * (x + o);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function validFee(feeBps: number): boolean {
  return Number.isInteger(feeBps) && feeBps >= 0 && feeBps < 10_000;
}

/** LP fee of a trade whose pool cash is c. */
export function ammFee(side: Side, cash: MicroUnits, feeBps: number): MicroUnits {
  if (feeBps <= 0 || cash <= 0) return 0;
  const c = BigInt(cash);
  const bps = BigInt(feeBps);
  return Number(side === "BUY" ? ceilDiv(c * bps, BPS - bps) : ceilDiv(c * bps, BPS));
}

// ---------------------------------------------------------------------------------------------
// Quotes

/** The money of a trade without the display fields (the router's inner loop). */
export interface AmmCost {
  ok: true;
  cash: MicroUnits;
  fee: MicroUnits;
  net: MicroUnits;
  newState: PoolState;
}

/** Same checks and numbers as `quote`, without avgPrice and prices. Pure. */
export function quoteCost(s: PoolState, side: Side, outcome: Outcome, quantity: MicroUnits, feeBps: number): AmmCost | AmmRejection {
  if (!isLotQuantity(quantity)) return { ok: false, reason: "INVALID_QUANTITY" };
  if (!validFee(feeBps)) return { ok: false, reason: "INVALID_FEE" };
  if (!isPoolState(s)) return { ok: false, reason: "NO_LIQUIDITY" };
  const [x, o] = split(s, outcome);
  const r = solve(side, x, o, BigInt(quantity));
  if (r.x <= 0n || r.o <= 0n || !withinBounds(side, r.x, r.o)) return { ok: false, reason: "PRICE_BOUNDS" };
  if (r.x > MAX_SAFE || r.o > MAX_SAFE) return { ok: false, reason: "OVERFLOW" };
  const cash = Number(r.c);
  const fee = ammFee(side, cash, feeBps); // SELL: ceil(c·bps/10000) <= c since bps < 10000
  if (!Number.isSafeInteger(cash + fee)) return { ok: false, reason: "OVERFLOW" };
  return { ok: true, cash, fee, net: side === "BUY" ? cash + fee : cash - fee, newState: join(outcome, r.x, r.o) };
}

/** Prices a trade of `quantity` micro-shares of `outcome` against the pool. Pure. */
export function quote(s: PoolState, side: Side, outcome: Outcome, quantity: MicroUnits, feeBps: number): AmmQuoteResult {
  const c = quoteCost(s, side, outcome, quantity, feeBps);
  if (!c.ok) return c;
  return {
    ok: true,
    side,
    outcome,
    quantity,
    cash: c.cash,
    fee: c.fee,
    net: c.net,
    avgPrice: formatAvgPrice(c.cash, quantity),
    newState: c.newState,
    priceBefore: marginalPrice(s, outcome),
    priceAfter: marginalPrice(c.newState, outcome),
  };
}

export function quoteBuy(s: PoolState, outcome: Outcome, quantity: MicroUnits, feeBps: number): AmmQuoteResult {
  return quote(s, "BUY", outcome, quantity, feeBps);
}

export function quoteSell(s: PoolState, outcome: Outcome, quantity: MicroUnits, feeBps: number): AmmQuoteResult {
  return quote(s, "SELL", outcome, quantity, feeBps);
}

/** The state after a trade (the fee does not touch the pool). Throws a Refusal (code: the AmmRejectReason) when refused. */
export function applyTrade(s: PoolState, side: Side, outcome: Outcome, quantity: MicroUnits): PoolState {
  const q = quoteCost(s, side, outcome, quantity, 0);
  if (!q.ok) throw new Refusal<AmmRejectReason>("rejected", q.reason, `AMM trade refused: ${q.reason}`);
  return q.newState;
}

// ---------------------------------------------------------------------------------------------
// Depth up to a price (router)

const asFraction = (p: Tick | Fraction): Fraction => (typeof p === "number" ? tickFraction(p) : p);

/**
 * Largest quantity (a multiple of LOT, possibly 0) that can be bought so that the marginal price of
 * `outcome` afterwards is <= `price` (a tick or an exact fraction) and within the bounds; at most
 * `cap` when given. 0 when the price is already above `price`.
 */
export function maxBuyUpToPrice(s: PoolState, outcome: Outcome, price: Tick | Fraction, cap?: MicroUnits): MicroUnits {
  return maxUpTo("BUY", s, outcome, asFraction(price), cap);
}

/** Largest quantity (multiple of LOT) that can be sold so that the marginal price stays >= `price`. */
export function maxSellDownToPrice(s: PoolState, outcome: Outcome, price: Tick | Fraction, cap?: MicroUnits): MicroUnits {
  return maxUpTo("SELL", s, outcome, asFraction(price), cap);
}

function maxUpTo(side: Side, s: PoolState, outcome: Outcome, limit: Fraction, cap?: MicroUnits): MicroUnits {
  if (!isPoolState(s)) return 0;
  const buy = side === "BUY";
  // The effective target: the tighter of the caller's price and the bound.
  const bound = buy ? BOUND_HI : BOUND_LO;
  const target = buy ? (compareFractions(limit, bound) < 0 ? limit : bound) : compareFractions(limit, bound) > 0 ? limit : bound;
  const [x, o] = split(s, outcome);
  // Can `lots` lots be traded with the price ending on the right side of the target? Monotone in lots.
  const ok = (lots: number): boolean => {
    if (lots === 0) return true;
    const r = solve(side, x, o, BigInt(lots * LOT));
    if (r.x <= 0n || r.o <= 0n || r.x > MAX_SAFE || r.o > MAX_SAFE) return false;
    const cmp = r.o * target.den - target.num * (r.x + r.o); // sign of price - target
    return buy ? cmp <= 0n : cmp >= 0n;
  };
  // Already past the target?
  const now = o * target.den - target.num * (x + o);
  if (buy ? now > 0n : now < 0n) return 0;

  const maxLots = Math.floor(Math.min(cap ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) / LOT);
  if (maxLots <= 0) return 0;
  if (cap !== undefined && ok(maxLots)) return maxLots * LOT;

  // Continuous estimate: on x·o = k at price P of the x-outcome, o' = sqrt(k·P/(1-P)), x' = k/o'.
  const P = Number(target.num) / Number(target.den);
  const xf = Number(x);
  const of = Number(o);
  const o2 = Math.sqrt((xf * of * P) / (1 - P));
  const x2 = (xf * of) / o2;
  const qEst = buy ? xf + (o2 - of) - x2 : x2 - xf + (of - o2);
  let est = Math.min(maxLots, Math.max(0, Math.floor(qEst / LOT)));
  if (!Number.isFinite(est)) est = 0; // only a guess: the exact search below decides

  // Gallop from the estimate to a bracket ok(lo) && !ok(hi), then bisect.
  let lo: number;
  let hi: number;
  if (ok(est)) {
    lo = est;
    let step = 1;
    for (;;) {
      const next = Math.min(maxLots, lo + step);
      if (next === lo) return lo * LOT;
      if (!ok(next)) {
        hi = next;
        break;
      }
      lo = next;
      step *= 2;
    }
  } else {
    hi = est;
    let step = 1;
    for (;;) {
      const next = Math.max(0, hi - step);
      if (ok(next)) {
        lo = next;
        break;
      }
      hi = next;
      step *= 2;
    }
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo * LOT;
}
