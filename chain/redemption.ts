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
 * - Cancelled market: every position is refunded at its cost basis (fees included) and burnt, and
 *   the collateral released; the AMM pool, whose inventory carries no cost basis, merges the pairs
 *   it holds into its cash and its one-sided rest is burnt. Collateral minus what was paid out goes
 *   to the fee account when positive; a shortfall is paid from the fee account as far as it
 *   holds, the rest is house funding.
 */
import type { Posting, PositionState } from "../engine/accounts";
import { ammAccount } from "../engine/settlement";
import type { Outcome } from "../engine/types";

export const escrowAccount = (marketId: string) => `resolution:${marketId}`;

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

export interface RefundPlan {
  postings: Posting[];
  refunds: Array<{ account: string; amount: number }>;
  collateral: number;
  /** collateral - refunds: > 0 kept as fees; < 0 paid by fees then house. */
  difference: number;
}

/**
 * Refund every position of a cancelled market at cost. Throws when a position still has shares
 * locked by orders (the book releases them when it halts; try again later) or when the market's
 * pairs do not balance.
 */
export function refundCancelled(marketId: string, holders: readonly PositionState[], feeBalance: number): RefundPlan {
  const open = holders.filter((h) => h.marketId === marketId && h.quantity > 0);
  const locked = open.find((h) => h.locked > 0);
  if (locked) throw new Error(`shares of ${locked.account} are still locked by orders`);
  let yes = 0;
  let no = 0;
  for (const h of open) {
    if (h.outcome === "YES") yes += h.quantity;
    else no += h.quantity;
  }
  if (yes !== no) throw new Error(`market ${marketId} does not balance (YES ${yes}, NO ${no})`);
  const collateral = yes;
  const postings: Posting[] = [];
  const byAccount = new Map<string, number>();
  let refunded = 0;
  const pool = ammAccount(marketId);
  const poolYes = open.find((h) => h.account === pool && h.outcome === "YES")?.quantity ?? 0;
  const poolNo = open.find((h) => h.account === pool && h.outcome === "NO")?.quantity ?? 0;
  const pairs = Math.min(poolYes, poolNo);
  for (const h of open) {
    // Users get their cost basis back; the pool gets 1 per pair it holds (on its YES leg), its one-sided rest nothing.
    const amount = h.account === pool ? (h.outcome === "YES" ? pairs : 0) : Math.max(0, h.totalCost);
    postings.push({
      kind: "shares",
      account: h.account,
      marketId,
      outcome: h.outcome,
      quantity: -h.quantity,
      proceeds: amount,
      settle: true,
    });
    if (amount > 0) postings.push({ kind: "cash", account: h.account, available: amount });
    byAccount.set(h.account, (byAccount.get(h.account) ?? 0) + amount);
    refunded += amount;
  }
  if (collateral) postings.push({ kind: "collateral", marketId, amount: -collateral });
  const difference = collateral - refunded;
  if (difference > 0) postings.push({ kind: "fee", amount: difference });
  if (difference < 0) {
    const fromFees = Math.min(feeBalance, -difference);
    if (fromFees > 0) postings.push({ kind: "fee", amount: -fromFees });
    const fromHouse = -difference - fromFees;
    if (fromHouse > 0) postings.push({ kind: "external", flow: "house", amount: fromHouse });
  }
  return { postings, refunds: [...byAccount].map(([account, amount]) => ({ account, amount })), collateral, difference };
}
