/**
 * One market maker across the outcomes of a mutually exclusive event: Hanson's logarithmic market
 * scoring rule (LMSR) in exact integer / fixed-point arithmetic. Pure functions over an immutable
 * pool state.
 *
 * State: per outcome i, q_i = the outcome's shares the pool has sold (micro-shares, net; may be
 * negative after traders sold back more than they bought), and the liquidity parameter b
 * (micro-units). The exact cost function is C(q) = b·ln Σ exp(q_i / b); the price of outcome i is
 * exp(q_i / b) / Σ exp(q_j / b), so the prices sum to 1.
 *
 * The pool's cost function is Ĉ(q) = ceil(U(q)), U a deterministic upper bound of C computed in
 * 2^-128 fixed point with every operation rounded up (exp by Taylor series ending on a positive
 * term, ln by the atanh series plus a bound of its tail), far below one micro-unit above C. So:
 * - a trade from q to q' costs Ĉ(q') - Ĉ(q): the cost of a path is the cost of its end points
 *   (path independence is exact, a round trip nets zero before fees);
 * - the pool values every state at or above the exact rule (Ĉ >= C): every rounding in its favour;
 * - since C(q) >= max q_i, a pool funded with F >= Ĉ(0) = ceil(b·ln N) always holds enough to pay
 *   the winning outcome's shares: its loss is at most b·ln N (rounded up), which `liquidityParameter`
 *   keeps within the funding.
 *
 * Buying NO of a binary market i is buying every other outcome by the same quantity (q_j += δ for
 * j != i); selling gives them back. Fees as the binary AMM (engine/amm.ts): a BUY pays cash + fee,
 * fee = ceil(cash·bps / (10000 - bps)); a SELL receives cash - fee, fee = ceil(cash·bps / 10000);
 * fees never enter the pool's state.
 */
import { formatAvgPrice, isLotQuantity, LOT, MICRO, type MicroUnits } from "./money";
import type { Side } from "./types";

/** The outcome every event pool of a non-exhaustive event carries: none of its markets wins. */
export const NONE_OUTCOME = "none";

export interface LmsrOutcome {
  /** A market id, or NONE_OUTCOME. */
  readonly id: string;
  /** Shares of this outcome sold by the pool, net (micro-shares). */
  readonly q: number;
}

export interface LmsrState {
  /** Liquidity parameter (micro-units), > 0. */
  readonly b: number;
  readonly outcomes: readonly LmsrOutcome[];
}

export type LmsrRejectReason = "INVALID_QUANTITY" | "INVALID_FEE" | "UNKNOWN_OUTCOME" | "NO_LIQUIDITY" | "OVERFLOW";

export interface LmsrQuote {
  ok: true;
  side: Side;
  /** The outcomes whose q moves by `quantity` (one for YES of a market; all others for its NO). */
  outcomeIds: string[];
  quantity: MicroUnits;
  /** Cash into (BUY) / out of (SELL) the pool, fee excluded. */
  cash: MicroUnits;
  fee: MicroUnits;
  /** What the trader pays (BUY) or receives (SELL). */
  net: MicroUnits;
  avgPrice: string;
  newState: LmsrState;
}

export type LmsrQuoteResult = LmsrQuote | { ok: false; reason: LmsrRejectReason };

// ---------------------------------------------------------------------------------------------
// Fixed point (value = n / 2^P), upper bounds

const P = 128n;
const ONE = 1n << P;
const BPS = 10_000n;
const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : -(-a / b));
/** Above this, exp(-y) < 2^-128: its upper bound is one unit of the last place. */
const EXP_CUTOFF = 90n;
const EXP_TERMS = 40;
const LN_TERMS = 48;

/** Upper bound of exp(-f), f = fn / 2^P in [0, 1]: alternating Taylor series ending on a positive term. */
function expNegFracUp(fn: bigint): bigint {
  let sum = ONE;
  let up = ONE; // |term| rounded up (added)
  let dn = ONE; // |term| rounded down (subtracted)
  for (let k = 1; k <= EXP_TERMS; k++) {
    up = ceilDiv(up * fn, BigInt(k) << P);
    dn = (dn * fn) / (BigInt(k) << P);
    sum += k % 2 === 0 ? up : -dn;
  }
  return sum; // EXP_TERMS is even: the last term added is positive, so the sum bounds exp(-f) from above
}

const E_INV_UP = expNegFracUp(ONE);
const E_INV_POW: bigint[] = [ONE];
for (let n = 1; n <= Number(EXP_CUTOFF); n++) E_INV_POW.push(ceilDiv(E_INV_POW[n - 1] * E_INV_UP, ONE));

/** Upper bound of exp(-d / b) in fixed point, d >= 0, b > 0. */
function expNegUp(d: bigint, b: bigint): bigint {
  const n = d / b;
  if (n >= EXP_CUTOFF) return 1n;
  const fracLo = ((d - n * b) << P) / b; // <= the true fraction, so exp(-fracLo) >= exp(-frac)
  return ceilDiv(E_INV_POW[Number(n)] * expNegFracUp(fracLo), ONE);
}

/** Upper bound of ln(z), z = zn / 2^P in [1, 2]: 2·atanh(t), t = (z-1)/(z+1) <= 1/3, plus its tail. */
function lnUnitUp(zn: bigint): bigint {
  const tn = ceilDiv((zn - ONE) << P, zn + ONE);
  const t2 = ceilDiv(tn * tn, ONE);
  let pow = tn;
  let sum = 0n;
  for (let k = 0; k < LN_TERMS; k++) {
    sum += ceilDiv(pow, BigInt(2 * k + 1));
    pow = ceilDiv(pow * t2, ONE);
  }
  // Tail: Σ_{k>=LN_TERMS} t^(2k+1)/(2k+1) <= pow·9/8 while t <= 1/3 (pow = t^(2·LN_TERMS+1) now).
  return 2n * (sum + ceilDiv(pow * 9n, 8n)) + 2n;
}

const LN2_UP = lnUnitUp(2n * ONE);

/** Upper bound of ln(s), s = sn / 2^P >= 1. */
function lnUp(sn: bigint): bigint {
  let j = 0n;
  while (sn >> j > 2n * ONE) j++;
  // s / 2^j in (1, 2], rounded up so the bound stays above.
  const z = ceilDiv(sn, 1n << j);
  return j * LN2_UP + lnUnitUp(z < ONE ? ONE : z);
}

function qs(state: LmsrState): bigint[] {
  return state.outcomes.map((o) => BigInt(o.q));
}

/**
 * Ĉ(q) - max q of the states last priced, keyed by b and q - max q. A pool's state after a trade
 * is the next trade's state before it (a fee only shifts every q alike), and solvency, the quote
 * and the ledger's re-pricing all start from it: remembered, each trade computes one new value.
 */
const RECENT_COSTS = 256;
const recentCosts = new Map<string, bigint>();

/** Ĉ(q): the pool's cost function, ceil of an upper bound of b·ln Σ exp(q_i / b) (micro-units). */
export function costOf(b: number, q: readonly bigint[]): bigint {
  if (!q.length) return 0n;
  const bb = BigInt(b);
  let max = q[0];
  for (const x of q) if (x > max) max = x;
  // Exactly shift invariant: Ĉ(q) = max + Ĉ(q - max).
  const key = `${b}:${q.map((x) => max - x).join(",")}`;
  const known = recentCosts.get(key);
  if (known !== undefined) return max + known;
  let s = 0n;
  for (const x of q) s += expNegUp(max - x, bb);
  const above = ceilDiv(bb * lnUp(s), ONE);
  if (recentCosts.size >= RECENT_COSTS) recentCosts.delete(recentCosts.keys().next().value as string);
  recentCosts.set(key, above);
  return max + above;
}

export function cost(state: LmsrState): MicroUnits {
  return Number(costOf(state.b, qs(state)));
}

/** Ĉ at a fresh pool of n outcomes: ceil(b·ln n), the most a pool with parameter b can lose. */
export function worstLoss(b: number, n: number): MicroUnits {
  return Number(costOf(b, new Array<bigint>(n).fill(0n)));
}

/**
 * The largest b whose worst loss over n outcomes stays within `funding` (micro-USDT); 0 when the
 * funding cannot carry a pool (n < 2 or too little).
 */
export function liquidityParameter(funding: MicroUnits, n: number): number {
  if (!Number.isSafeInteger(funding) || funding <= 0 || n < 2) return 0;
  let b = Math.floor(funding / Math.log(n));
  while (b > 0 && worstLoss(b, n) > funding) b -= Math.max(1, Math.floor(b / 1e9));
  while (worstLoss(b + 1, n) <= funding) b++;
  return b;
}

/** A fresh pool over the given outcomes (every q = 0, equal prices). */
export function createLmsr(b: number, outcomeIds: readonly string[]): LmsrState {
  if (!Number.isSafeInteger(b) || b <= 0) throw new RangeError(`invalid LMSR liquidity parameter ${b}`);
  if (new Set(outcomeIds).size !== outcomeIds.length || outcomeIds.length < 2)
    throw new RangeError("an LMSR pool needs 2 or more distinct outcomes");
  return { b, outcomes: outcomeIds.map((id) => ({ id, q: 0 })) };
}

export function isLmsrState(s: unknown): s is LmsrState {
  const p = s as LmsrState;
  return (
    typeof p === "object" &&
    p !== null &&
    Number.isSafeInteger(p.b) &&
    p.b > 0 &&
    Array.isArray(p.outcomes) &&
    p.outcomes.every((o) => typeof o?.id === "string" && Number.isSafeInteger(o.q))
  );
}

/**
 * Prices of every outcome in micro-units, summing to exactly MICRO: each floor(MICRO·w_i / Σw) of
 * the fixed-point weights, the remainder handed one micro-unit at a time to the largest remainders
 * (ties to the earlier outcome). Display and quotes; never a balance.
 */
export function prices(state: LmsrState): Map<string, MicroUnits> {
  const q = qs(state);
  const out = new Map<string, MicroUnits>();
  if (!q.length) return out;
  const bb = BigInt(state.b);
  let max = q[0];
  for (const x of q) if (x > max) max = x;
  const w = q.map((x) => expNegUp(max - x, bb));
  let s = 0n;
  for (const x of w) s += x;
  const m = BigInt(MICRO);
  const floors = w.map((x) => (x * m) / s);
  const rems = w.map((x, i) => ({ i, r: x * m - floors[i] * s }));
  let left = m - floors.reduce((a, x) => a + x, 0n);
  rems.sort((a, b) => (a.r > b.r ? -1 : a.r < b.r ? 1 : a.i - b.i));
  for (const { i } of rems) {
    if (left <= 0n) break;
    floors[i] += 1n;
    left -= 1n;
  }
  state.outcomes.forEach((o, i) => out.set(o.id, Number(floors[i])));
  return out;
}

/**
 * The YES price of a binary market in the pool (its outcome's price) and its NO price (the rest),
 * micro-units; null when the market is not an outcome of the pool.
 */
export function marketPrices(state: LmsrState, marketId: string): { yes: MicroUnits; no: MicroUnits } | null {
  const p = prices(state).get(marketId);
  return p === undefined ? null : { yes: p, no: MICRO - p };
}

/** The outcomes a binary market's YES (its own) or NO (every other) moves. */
export function outcomesOf(state: LmsrState, marketId: string, outcome: "YES" | "NO"): string[] | null {
  if (!state.outcomes.some((o) => o.id === marketId)) return null;
  return outcome === "YES" ? [marketId] : state.outcomes.filter((o) => o.id !== marketId).map((o) => o.id);
}

function moved(state: LmsrState, ids: ReadonlySet<string>, delta: bigint): bigint[] {
  return state.outcomes.map((o) => (ids.has(o.id) ? BigInt(o.q) + delta : BigInt(o.q)));
}

/**
 * A BUY or SELL of `quantity` of a binary market's YES or NO against the pool, with the LP fee in
 * bps. Rejected (nothing to apply) on a quantity that is not a positive lot multiple, an unknown
 * market, or amounts beyond safe integers.
 */
export function quote(
  state: LmsrState,
  side: Side,
  marketId: string,
  outcome: "YES" | "NO",
  quantity: MicroUnits,
  feeBps = 0,
): LmsrQuoteResult {
  if (!isLotQuantity(quantity)) return { ok: false, reason: "INVALID_QUANTITY" };
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= 10_000) return { ok: false, reason: "INVALID_FEE" };
  if (state.outcomes.length < 2) return { ok: false, reason: "NO_LIQUIDITY" };
  const outcomeIds = outcomesOf(state, marketId, outcome);
  if (!outcomeIds) return { ok: false, reason: "UNKNOWN_OUTCOME" };
  const ids = new Set(outcomeIds);
  const q0 = qs(state);
  const delta = side === "BUY" ? BigInt(quantity) : -BigInt(quantity);
  const q1 = moved(state, ids, delta);
  const c0 = costOf(state.b, q0);
  const c1 = costOf(state.b, q1);
  const cash = side === "BUY" ? c1 - c0 : c0 - c1;
  const bps = BigInt(feeBps);
  const fee = side === "BUY" ? ceilDiv(cash * bps, BPS - bps) : ceilDiv(cash * bps, BPS);
  const net = side === "BUY" ? cash + fee : cash - fee;
  const limit = BigInt(Number.MAX_SAFE_INTEGER);
  if (q1.some((x) => x > limit || x < -limit) || net > limit || c1 > limit) return { ok: false, reason: "OVERFLOW" };
  return {
    ok: true,
    side,
    outcomeIds,
    quantity,
    cash: Number(cash),
    fee: Number(fee),
    net: Number(net),
    avgPrice: formatAvgPrice(Number(cash), quantity),
    newState: { b: state.b, outcomes: state.outcomes.map((o, i) => ({ id: o.id, q: Number(q1[i]) })) },
  };
}

/**
 * The most (a multiple of LOT, at most `max`) of a market's YES or NO that can be bought (sold)
 * before the marginal price of that side passes `t` (rises above it, falls below it). Floating
 * point: a router's estimate of where to split, never a price anyone is charged (`quote` is exact).
 * With weights own (the side's outcomes) and opposite, the side's price after δ is
 * own·e^{±δ/b} / (own·e^{±δ/b} + opposite), so a BUY may go to δ = b·ln(t/(1-t) · opposite/own)
 * and a SELL to δ = b·ln((1-t)/t · own/opposite).
 */
export function maxTradeToPrice(
  state: LmsrState,
  marketId: string,
  side: Side,
  outcome: "YES" | "NO",
  t: number,
  max: MicroUnits,
): MicroUnits {
  const i = state.outcomes.findIndex((o) => o.id === marketId);
  if (i < 0 || state.outcomes.length < 2 || !(max > 0)) return 0;
  if (!(t > 0)) return side === "BUY" ? 0 : max;
  if (t >= 1) return side === "BUY" ? max : 0;
  const top = Math.max(...state.outcomes.map((o) => o.q));
  let others = 0;
  state.outcomes.forEach((o, j) => {
    if (j !== i) others += Math.exp((o.q - top) / state.b);
  });
  const lnYes = (state.outcomes[i].q - top) / state.b;
  const lnOthers = Math.log(others);
  const [own, opposite] = outcome === "YES" ? [lnYes, lnOthers] : [lnOthers, lnYes];
  const odds = Math.log(t) - Math.log1p(-t);
  const d = state.b * (side === "BUY" ? odds + opposite - own : own - opposite - odds);
  if (!(d > 0)) return 0;
  return Math.min(Math.floor(max / LOT) * LOT, Math.floor(d / LOT) * LOT);
}

/**
 * An outcome leaves the pool (its market resolved NO early): its shares pay nothing, so the pool
 * owes nothing on it, and the other outcomes' prices renormalise over what is left. The pool's
 * cost only falls (C over fewer terms), so its funding still covers the rest.
 */
export function removeOutcome(state: LmsrState, id: string): LmsrState {
  return { b: state.b, outcomes: state.outcomes.filter((o) => o.id !== id) };
}
