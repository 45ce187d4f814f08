/**
 * Smart routing of a market order between the order book and the AMM: pure planning, no state.
 *
 * A plan fills the WHOLE quantity (no partial fills) at the best net price: BUY pays the least
 * cash including fees, SELL receives the most cash net of fees.
 *
 * Method. Both venues have increasing marginal cost (the book level by level, the AMM continuously),
 * so the cheapest split fills each next slice from whichever venue is cheaper at the margin:
 * before taking a book level the AMM fills until its fee-adjusted marginal price reaches the
 * level's fee-adjusted price (`ammThreshold`), then the level is taken, and so on; what the book
 * cannot fill goes to the AMM. Rounding (lots, fees rounded up once per venue, the AMM's integer
 * cash) can make that split a micro-unit or two worse than a neighbour, so the plan is the best of
 * {book only, AMM only, the split, the split ± 1 lot}, ties going to the simpler plan in that order.
 * The result is never worse than either single venue.
 *
 * Execution contract (quote == execution when nothing changed): the book leg is one taker order
 * (FOK, limit = the price of its last level, self-trade excluded as in the sweep), so its taker fee
 * is rounded once over the leg exactly as settlement does; the AMM leg is one AMM trade.
 */
import { LOT, cost, feeOn, feeWeight, formatAvgPrice, isLotQuantity, isTick, type MicroUnits, type Tick } from "./money";
import { isPoolState, maxBuyUpToPrice, maxSellDownToPrice, quoteCost, type Fraction, type PoolState } from "./amm";

export type { Fraction };
import type { Outcome, Side } from "./types";

export type Venue = "CLOB" | "AMM" | "HYBRID";

/** A price level as `book.sweep` returns it: price in the order's own outcome, best first. */
export interface BookLevel {
  price: Tick;
  quantity: MicroUnits;
}

export interface MarketOrder {
  side: Side;
  outcome: Outcome;
  /** Micro-shares, a positive multiple of LOT. */
  quantity: MicroUnits;
}

export interface RouteVenues {
  /** Book liquidity for this order: `book.sweep(side, outcome, quantity or Infinity, {excludeUserId}).levels`. */
  levels: ReadonlyArray<BookLevel>;
  /** Taker fee of book executions (bps of quantity x p x (1-p)). */
  takerBps: number;
  /** The market's AMM pool, or null when the market has none. */
  pool: PoolState | null;
  /** The AMM's LP fee (bps of cash). */
  ammFeeBps: number;
}

export interface AmmLeg<S = PoolState> {
  quantity: MicroUnits;
  /** Cash into / out of the pool, fee excluded. */
  cash: MicroUnits;
  fee: MicroUnits;
  /** The pool after this leg. */
  newState: S;
}

/**
 * An automated market maker as the router sees it, whatever its pricing rule: the market's own
 * pool (engine/amm.ts) or the LMSR pool of its race (engine/event-pool.ts `eventPoolVenue`).
 */
export interface AmmVenue<S> {
  /** `quantity` bought or sold now, its fee in the pool's own terms; not ok: the pool cannot take it. */
  quote(side: Side, outcome: Outcome, quantity: MicroUnits): { ok: true; cash: MicroUnits; fee: MicroUnits; newState: S } | { ok: false };
  /**
   * The most (a multiple of LOT, at most `max`) the pool fills before its marginal price, fee
   * included as `ammThreshold` counts it, passes `threshold`: BUY up to it, SELL down to it.
   */
  upTo(side: Side, outcome: Outcome, threshold: Fraction, max: MicroUnits): MicroUnits;
}

export interface RoutePlan<S = PoolState> {
  ok: true;
  side: Side;
  outcome: Outcome;
  venue: Venue;
  legs: { book: BookLevel[]; amm: AmmLeg<S> | null };
  filled: MicroUnits;
  /** Cash for the shares over both legs, fees excluded (a trade record's totalCost). */
  totalCost: MicroUnits;
  /** Book taker fee + AMM fee. */
  fee: MicroUnits;
  bookFee: MicroUnits;
  /** What the trader pays (BUY: totalCost + fee) or receives (SELL: totalCost - fee): the objective. */
  net: MicroUnits;
  /** totalCost / filled as a decimal string (fees excluded, like trade records). */
  avgPrice: string;
}

export type RouteRejectReason =
  | "INVALID_QUANTITY"
  | "INVALID_FEE"
  | "INVALID_LEVELS" // not ticks / lot quantities / strictly best-first
  | "INSUFFICIENT_LIQUIDITY"; // the venues together cannot fill the whole quantity

export interface RouteRejection {
  ok: false;
  reason: RouteRejectReason;
}

export type RouteResult<S = PoolState> = RoutePlan<S> | RouteRejection;

const reject = (reason: RouteRejectReason): RouteRejection => ({ ok: false, reason });

const validBps = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < 10_000;

function validLevels(side: Side, levels: ReadonlyArray<BookLevel>): boolean {
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i];
    if (!isTick(l.price) || !isLotQuantity(l.quantity)) return false;
    if (i > 0 && (side === "BUY" ? l.price <= levels[i - 1].price : l.price >= levels[i - 1].price)) return false;
  }
  return true;
}

/**
 * The AMM marginal price at which its next micro-share costs (BUY) / yields (SELL) the same, fees
 * included, as one at book tick t with the taker fee:
 *   book per micro-share: t/100 ± takerBps·t·(100-t)/1e8 = (t·1e6 ± takerBps·t·(100-t)) / 1e8
 *   AMM per micro-share:  BUY p / (1 - ammBps/1e4), SELL p · (1 - ammBps/1e4)
 */
export function ammThreshold(side: Side, t: Tick, takerBps: number, ammFeeBps: number): Fraction {
  const book = BigInt(t) * 1_000_000n + (side === "BUY" ? 1n : -1n) * BigInt(takerBps) * BigInt(t) * BigInt(100 - t);
  const keep = 10_000n - BigInt(ammFeeBps);
  return side === "BUY" ? { num: book * keep, den: 100_000_000n * 10_000n } : { num: book * 10_000n, den: 100_000_000n * keep };
}

/** The best `q` of the book, or null when it holds less. */
function takeBook(levels: ReadonlyArray<BookLevel>, q: MicroUnits): BookLevel[] | null {
  const out: BookLevel[] = [];
  let need = q;
  for (let i = 0; i < levels.length && need > 0; i++) {
    const take = Math.min(levels[i].quantity, need);
    out.push({ price: levels[i].price, quantity: take });
    need -= take;
  }
  return need === 0 ? out : null;
}

/** The market's own pool as a venue. */
export function cpmmVenue(pool: PoolState, ammFeeBps: number): AmmVenue<PoolState> {
  return {
    quote: (side, outcome, quantity) => {
      const q = quoteCost(pool, side, outcome, quantity, ammFeeBps);
      return q.ok ? { ok: true, cash: q.cash, fee: q.fee, newState: q.newState } : { ok: false };
    },
    upTo: (side, outcome, threshold, max) =>
      side === "BUY" ? maxBuyUpToPrice(pool, outcome, threshold, max) : maxSellDownToPrice(pool, outcome, threshold, max),
  };
}

/** The plan with exactly `ammQ` on the AMM and the rest on the best book levels, or null. */
function evaluate<S>(
  order: MarketOrder,
  levels: ReadonlyArray<BookLevel>,
  takerBps: number,
  venue: AmmVenue<S> | null,
  ammQ: MicroUnits,
): RoutePlan<S> | null {
  const { side, outcome, quantity } = order;
  if (ammQ < 0 || ammQ > quantity) return null;
  const book = takeBook(levels, quantity - ammQ);
  if (!book) return null;
  let amm: AmmLeg<S> | null = null;
  if (ammQ > 0) {
    if (!venue) return null;
    const q = venue.quote(side, outcome, ammQ);
    if (!q.ok) return null;
    amm = { quantity: ammQ, cash: q.cash, fee: q.fee, newState: q.newState };
  }
  let bookCash = 0;
  let weight = 0n;
  for (const l of book) {
    bookCash += cost(l.quantity, l.price);
    weight += feeWeight(l.quantity, l.price);
  }
  // As settlement: one taker fee over the leg, rounded up once; a SELL's fee never exceeds its cash.
  let bookFee = feeOn(takerBps, weight);
  if (side === "SELL") bookFee = Math.min(bookFee, bookCash);
  const totalCost = bookCash + (amm?.cash ?? 0);
  const fee = bookFee + (amm?.fee ?? 0);
  return {
    ok: true,
    side,
    outcome,
    venue: amm === null ? "CLOB" : book.length === 0 ? "AMM" : "HYBRID",
    legs: { book, amm },
    filled: quantity,
    totalCost,
    fee,
    bookFee,
    net: side === "BUY" ? totalCost + fee : totalCost - fee,
    avgPrice: "", // formatted for the chosen plan only
  };
}

const finish = <S>(p: RoutePlan<S> | null): RouteResult<S> =>
  p ? { ...p, avgPrice: formatAvgPrice(p.totalCost, p.filled) } : reject("INSUFFICIENT_LIQUIDITY");

function check(order: MarketOrder, v: Pick<RouteVenues, "levels" | "takerBps" | "ammFeeBps">): RouteRejection | null {
  if (!isLotQuantity(order.quantity)) return reject("INVALID_QUANTITY");
  if (!validBps(v.takerBps) || !validBps(v.ammFeeBps)) return reject("INVALID_FEE");
  if (!validLevels(order.side, v.levels)) return reject("INVALID_LEVELS");
  return null;
}

/** Strictly better for the trader. */
const better = <S>(side: Side, a: RoutePlan<S>, b: RoutePlan<S>): boolean => (side === "BUY" ? a.net < b.net : a.net > b.net);

/** The order on the book alone. */
export function planBookOnly(order: MarketOrder, levels: ReadonlyArray<BookLevel>, takerBps: number): RouteResult {
  const bad = check(order, { levels, takerBps, ammFeeBps: 0 });
  if (bad) return bad;
  return finish(evaluate<PoolState>(order, levels, takerBps, null, 0));
}

/** The order on the AMM alone. */
export function planAmmOnly(order: MarketOrder, pool: PoolState | null, ammFeeBps: number): RouteResult {
  const bad = check(order, { levels: [], takerBps: 0, ammFeeBps });
  if (bad) return bad;
  return finish(evaluate(order, [], 0, pool ? cpmmVenue(pool, ammFeeBps) : null, order.quantity));
}

/** The quantity the marginal-cost walk gives the AMM (a multiple of LOT). */
function greedyAmmQuantity<S>(
  order: MarketOrder,
  levels: ReadonlyArray<BookLevel>,
  takerBps: number,
  ammFeeBps: number,
  venue: AmmVenue<S>,
): MicroUnits {
  const { side, outcome, quantity } = order;
  let ammQ = 0;
  let bookQ = 0;
  for (const l of levels) {
    if (ammQ + bookQ === quantity) break;
    // AMM first while it is cheaper than this level. Levels get worse one by one, so each threshold
    // lets the AMM go further than the last: its total, from the initial pool, only grows.
    const a = venue.upTo(side, outcome, ammThreshold(side, l.price, takerBps, ammFeeBps), quantity - bookQ);
    if (a > ammQ) ammQ = a;
    bookQ += Math.min(l.quantity, quantity - ammQ - bookQ);
  }
  return quantity - bookQ; // whatever the book does not fill goes to the AMM
}

/** Best plan over the book and the AMM for the whole quantity. */
export function planRoute(order: MarketOrder, v: RouteVenues): RouteResult {
  const pool = v.pool !== null && isPoolState(v.pool) ? v.pool : null;
  return planRouteVia(order, v.levels, v.takerBps, pool ? cpmmVenue(pool, v.ammFeeBps) : null, v.ammFeeBps);
}

/** Best plan over the book and any AMM venue (`ammFeeBps`: its fee, for the price thresholds) for the whole quantity. */
export function planRouteVia<S>(
  order: MarketOrder,
  levels: ReadonlyArray<BookLevel>,
  takerBps: number,
  venue: AmmVenue<S> | null,
  ammFeeBps: number,
): RouteResult<S> {
  const bad = check(order, { levels, takerBps, ammFeeBps });
  if (bad) return bad;
  const candidates: MicroUnits[] = [0, order.quantity];
  if (venue) {
    const g = greedyAmmQuantity(order, levels, takerBps, ammFeeBps, venue);
    candidates.push(g, g - LOT, g + LOT);
  }
  let best: RoutePlan<S> | null = null;
  const seen = new Set<MicroUnits>();
  for (const a of candidates) {
    if (seen.has(a)) continue;
    seen.add(a);
    const p = evaluate(order, levels, takerBps, venue, a);
    if (p && (best === null || better(order.side, p, best))) best = p;
  }
  return finish(best);
}
