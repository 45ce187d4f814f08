/**
 * Redemption and refund as ledger postings (pure). The ledger keeps, in every market, YES
 * outstanding = NO outstanding = collateral; these entries keep it too:
 *
 * - Resolved market: losing shares are worth 0. They move, unchanged in number, from their holders
 *   (positions settled, realized PnL = -cost) into the market's resolution escrow account. A winner
 *   redeeming q shares gets q micro-USDT from the collateral, and q escrowed losing shares are
 *   burnt with them, so the pairs stay matched.
 *   The market's AMM pool (`amm:<marketId>`) is a holder like any other: its losing inventory goes
 *   to the escrow and its winning inventory is redeemed into the pool's cash at resolution.
 * - Cancelled market: paid out at the operator's price from its own collateral
 *   (engine/payout.ts): each YES share pays the price, each NO share the rest of 1.000000, every
 *   holder (the AMM pool too) rounded down once, the dust kept by the market's resolution
 *   account. Fees and house funds are never a source.
 */
import type { Posting, PositionState } from "../engine/accounts";
import { escrowAccount, marketPayout, type PayoutPlan } from "../engine/payout";
import { ammAccount } from "../engine/settlement";
import type { Outcome } from "../engine/types";

export { escrowAccount };

export const INDEX_SET: Record<string, Outcome> = { "1": "YES", "2": "NO" };

/** "0x1" → YES, "0x2" → NO (prefix "0x", hex digits in either case, leading zeros allowed); anything else is null. */
export function outcomeOfIndexSet(s: string): Outcome | null {
  if (typeof s !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(s)) return null;
  const v = BigInt(s);
  return v === 1n ? "YES" : v === 2n ? "NO" : null;
}

export const other = (o: Outcome): Outcome => (o === "YES" ? "NO" : "YES");

/** Losing shares of every holder (except the escrow) into the escrow, as far as they are not locked by orders. */
export function sweepLosers(marketId: string, loser: Outcome, holders: readonly PositionState[]): Posting[] {
  const escrow = escrowAccount(marketId);
  const out: Posting[] = [];
  let moved = 0;
  for (const h of holders) {
    if (h.outcome !== loser || h.account === escrow || h.marketId !== marketId) continue;
    const m = h.quantity - h.locked;
    if (m <= 0) continue;
    out.push({
      kind: "shares",
      account: h.account,
      marketId,
      outcome: loser,
      quantity: -m,
      proceeds: 0,
      ...(m === h.quantity ? { settle: true } : {}),
    });
    moved += m;
  }
  if (moved > 0) out.push({ kind: "shares", account: escrow, marketId, outcome: loser, quantity: moved });
  return out;
}

/**
 * What settles a resolved market whoever asks first: losers into the escrow, then the AMM pool's
 * winning inventory redeemed into the pool's cash (as far as it is not locked).
 */
export function resolutionPostings(marketId: string, winner: Outcome, holders: readonly PositionState[]): Posting[] {
  const out = sweepLosers(marketId, other(winner), holders);
  const pool = holders.find((h) => h.account === ammAccount(marketId) && h.outcome === winner && h.marketId === marketId);
  const q = pool ? pool.quantity - pool.locked : 0;
  if (q > 0) out.push(...redeemWinner(marketId, pool!.account, winner, q));
  return out;
}

/** A winner's redemption of `q` shares: pay 1 micro-USDT per micro-share from the collateral, burn q escrowed losers. */
export function redeemWinner(marketId: string, account: string, winner: Outcome, q: number): Posting[] {
  if (!Number.isSafeInteger(q) || q <= 0) throw new Error("nothing to redeem");
  return [
    { kind: "shares", account, marketId, outcome: winner, quantity: -q, proceeds: q, settle: true },
    { kind: "cash", account, available: q },
    { kind: "collateral", marketId, amount: -q },
    { kind: "shares", account: escrowAccount(marketId), marketId, outcome: other(winner), quantity: -q },
  ];
}

/**
 * A cancelled market paid out at `yesPayout` per YES share (NO: the rest of 1.000000) out of its
 * own collateral, as a resolution pays: every holder, the AMM pool included, rounded down per
 * holder; the dust stays in the market's resolution account. Throws a payout refusal
 * (engine/payout.ts, isPayoutRefusal) while orders still hold shares (the book releases them when
 * it halts; try again later).
 */
export function cancelledPayout(marketId: string, yesPayout: number, holders: readonly PositionState[]): PayoutPlan {
  const mine = holders.filter((h) => h.marketId === marketId && h.quantity > 0);
  // Pairs outstanding: the ledger holds the collateral to them, and refuses an entry where it does not.
  const collateral = mine.reduce((sum, h) => sum + (h.outcome === "YES" ? h.quantity : 0), 0);
  return marketPayout(marketId, yesPayout, mine, collateral);
}
