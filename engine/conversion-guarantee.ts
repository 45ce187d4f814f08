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
  marketId: string;
  outcome: "YES" | "NO";
  quantity: MicroUnits;
  totalCost: MicroUnits;
  realizedPnl: MicroUnits;
  settled: boolean;
}

export const CONVERSION_PREFIX = "conversion:";

/** The exchange's account that takes converted NO shares of an event. */
export const conversionAccount = (eventId: string) => `${CONVERSION_PREFIX}${eventId}`;

/** The exchange's LMSR pool across an event's outcomes (engine/event-pool.ts). */
export const EVENT_POOL_PREFIX = "evpool:";
export const eventPoolAccount = (eventId: string) => `${EVENT_POOL_PREFIX}${eventId}`;

export const isConversionAccount = (account: string) => account.startsWith(CONVERSION_PREFIX);

/**
 * Accounts whose cash may go below zero by what the shares they hold across their event are
 * guaranteed to pay (their cover): an event's conversion account and its pool.
 */
export const isCoveredAccount = (account: string) => isConversionAccount(account) || account.startsWith(EVENT_POOL_PREFIX);

/**
 * What an account of the exchange that holds shares across one mutually exclusive event can count
 * on: the least its positions pay whichever single market wins, or none. If market w wins, its YES
 * pays and every other market's NO does: Σ NO - NO_w + YES_w; if none does (or a market it holds
 * nothing of), Σ NO. A NO position settled with nothing paid is a market that lost its NO side, the
 * winner: then every other NO it holds pays in full and no YES does. For the conversion account,
 * which holds only NO, this is Σ NO - max NO.
 */
export function guaranteedPayout(positions: readonly HeldPosition[]): MicroUnits {
  const open = new Map<string, { yes: number; no: number }>();
  let sumNo = 0;
  let decided = false;
  for (const p of positions) {
    if (p.quantity > 0) {
      const cur = open.get(p.marketId) ?? { yes: 0, no: 0 };
      if (p.outcome === "NO") {
        cur.no += p.quantity;
        sumNo += p.quantity;
      } else cur.yes += p.quantity;
      open.set(p.marketId, cur);
    } else if (p.outcome === "NO" && p.settled && p.realizedPnl === 0 && p.totalCost === 0) decided = true;
  }
  if (decided) return sumNo;
  let least = sumNo;
  for (const h of open.values()) least = Math.min(least, sumNo - h.no + h.yes);
  return least;
}

/** cash + guaranteed payout: never below zero. */
export function conversionCover(cash: MicroUnits, positions: readonly HeldPosition[]): MicroUnits {
  return cash + guaranteedPayout(positions);
}
