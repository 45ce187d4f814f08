/**
 * Liquidity rewards and maker rebates as pure arithmetic (Polymarket's order scoring with c = 3):
 * each minute every resting order within `maxSpread` of the book's midpoint and at least `minSize`
 * scores ((maxSpread - s) / maxSpread)^2 x size; a user quoting one side only gets a third. A day's
 * pool is then split pro rata to the scores, and a share of the day's taker fees pro rata to the
 * makers' filled quantity. Integers throughout: distances in half ticks (a midpoint may fall
 * between two ticks), scores as bigint numerators over the market's fixed denominator
 * (2 x maxSpread)^2 x 3, shares of money rounded down (the rest stays where it was).
 */
import type { MicroUnits } from "./money";
import type { Outcome, RestingOrder, Side, Tick } from "./types";

/** The exchange's rewards account: the operator funds it (house money), the daily run pays rewards out of it. */
export const REWARDS_ACCOUNT = "rewards";

/** A market's reward terms: the day's pool (micro-USDT), the widest distance from the midpoint that scores (ticks), the smallest order. */
export interface RewardTerms {
  dailyPool: MicroUnits;
  maxSpreadTicks: number;
  minSize: MicroUnits;
}

/** Why an order scores or not (GET /orders/:id/scoring). */
export type ScoringReason = "scoring" | "no_rewards" | "no_midpoint" | "too_far" | "too_small";

/** The order's side of the YES view: a bid (BUY YES, SELL NO) or an ask, at a YES tick. */
export function yesView(o: { side: Side; outcome: Outcome; price: Tick }): { bid: boolean; tick: number } {
  const bid = (o.side === "BUY") === (o.outcome === "YES");
  return { bid, tick: o.outcome === "YES" ? o.price : 100 - o.price };
}

/** Twice the midpoint in ticks (an integer), or null when a side of the book is empty. */
export function doubledMidpoint(best: { bid: number | null; ask: number | null }): number | null {
  return best.bid === null || best.ask === null ? null : best.bid + best.ask;
}

/** Whether an order scores now and why not, and its weight ((2v - d)^2 in half ticks) when it does. */
export function orderScoring(
  o: { side: Side; outcome: Outcome; price: Tick; remaining: MicroUnits },
  mid2: number | null,
  terms: RewardTerms | null,
): { reason: ScoringReason; weight: bigint } {
  if (!terms) return { reason: "no_rewards", weight: 0n };
  if (mid2 === null) return { reason: "no_midpoint", weight: 0n };
  if (o.remaining < terms.minSize) return { reason: "too_small", weight: 0n };
  const d2 = Math.abs(2 * yesView(o).tick - mid2);
  const v2 = 2 * terms.maxSpreadTicks;
  // At exactly maxSpread the weight is 0: it does not score.
  if (d2 >= v2) return { reason: "too_far", weight: 0n };
  return { reason: "scoring", weight: BigInt((v2 - d2) * (v2 - d2)) };
}

/**
 * One minute's scores of a book, per user, as numerators over (2 x maxSpread)^2 x 3: a user with
 * scoring orders on both sides gets 3 x the sum, one side only 1 x (a third of a two-sided quoter).
 */
export function scoreMinute(orders: readonly RestingOrder[], mid2: number | null, terms: RewardTerms): Map<string, bigint> {
  const sides = new Map<string, { bid: bigint; ask: bigint }>();
  for (const o of orders) {
    const { reason, weight } = orderScoring(o, mid2, terms);
    if (reason !== "scoring") continue;
    const s = sides.get(o.userId) ?? { bid: 0n, ask: 0n };
    if (yesView(o).bid) s.bid += weight * BigInt(o.remaining);
    else s.ask += weight * BigInt(o.remaining);
    sides.set(o.userId, s);
  }
  const out = new Map<string, bigint>();
  for (const [user, s] of sides) out.set(user, (s.bid > 0n && s.ask > 0n ? 3n : 1n) * (s.bid + s.ask));
  return out;
}

/** `amount` split pro rata to `weights`, each share rounded down; users with no weight get nothing. The sum never exceeds `amount`. */
export function proRata(amount: MicroUnits, weights: ReadonlyMap<string, bigint>): Map<string, MicroUnits> {
  let total = 0n;
  for (const w of weights.values()) if (w > 0n) total += w;
  const out = new Map<string, MicroUnits>();
  if (total === 0n || amount <= 0) return out;
  for (const [user, w] of [...weights].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (w <= 0n) continue;
    const share = Number((BigInt(amount) * w) / total);
    if (share > 0) out.set(user, share);
  }
  return out;
}

/** The day's rebate pool of a market: MAKER_REBATE_BPS of its taker fees, rounded down. */
export function rebatePool(takerFees: MicroUnits, rebateBps: number): MicroUnits {
  return Number((BigInt(takerFees) * BigInt(rebateBps)) / 10_000n);
}
