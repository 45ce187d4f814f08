/**
 * The guarantee behind conversions (engine/conversion.ts): at most one market of a mutually
 * exclusive event wins, so of the NO shares the event's conversion account holds across it, all but
 * those of the winner pay 1 each: at least Σ NO - max NO whichever market wins (all of them, Σ NO,
 * once a market it holds NO of has lost, or when none wins). The account's cash may go below zero
 * by what this covers, never further: its cover, cash + guaranteed payout, is never below zero
 * (engine/accounts.ts refuses an entry that would leave it so, the money check reports one).
 */
import type { MicroUnits } from "./money";

/** What the guarantee reads of a position (engine/accounts.ts PositionState). */
export interface HeldPosition {
  outcome: "YES" | "NO";
  quantity: MicroUnits;
  totalCost: MicroUnits;
  realizedPnl: MicroUnits;
  settled: boolean;
}

export const CONVERSION_PREFIX = "conversion:";

/** The exchange's account that takes converted NO shares of an event. */
export const conversionAccount = (eventId: string) => `${CONVERSION_PREFIX}${eventId}`;

export const isConversionAccount = (account: string) => account.startsWith(CONVERSION_PREFIX);

/**
 * What the conversion account can count on: the least its NO positions pay whichever single market
 * of the event wins (or none). A NO position settled with nothing paid is a market that lost its NO
 * side, i.e. the winner: then every other NO it holds pays in full.
 */
export function guaranteedPayout(positions: readonly HeldPosition[]): MicroUnits {
  let sum = 0;
  let max = 0;
  let decided = false;
  for (const p of positions) {
    if (p.outcome !== "NO") continue;
    if (p.quantity > 0) {
      sum += p.quantity;
      if (p.quantity > max) max = p.quantity;
    } else if (p.settled && p.realizedPnl === 0 && p.totalCost === 0) decided = true;
  }
  return decided ? sum : sum - max;
}

/** cash + guaranteed payout: never below zero. */
export function conversionCover(cash: MicroUnits, positions: readonly HeldPosition[]): MicroUnits {
  return cash + guaranteedPayout(positions);
}
