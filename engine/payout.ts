/**
 * How a market that has ended pays its shares, from its own collateral and nothing else. A market
 * ends with a YES payout per share in micro-USDT (`yesPayout`: resolved YES = 1_000_000, NO = 0,
 * SPLIT = 500_000, cancelled at price p = p); each NO share pays 1_000_000 minus it. Every pair
 * outstanding is backed by 1_000_000 of collateral, so the payouts never exceed it: each holder's
 * payout is rounded down once, and the remainder (dust) stays with the market, as cash of its
 * resolution account. The ledger's money check proves every payout entry against this rule.
 */
import type { Posting, PositionState } from "./accounts";
import { MICRO, type MicroUnits } from "./money";
import type { Outcome } from "./types";
import { Refusal, isRefusal } from "./refusal";

/** What one share of the outcome that wins in full pays (micro-USDT). */
export const FULL_PAYOUT = MICRO;
/** The price a cancellation pays YES at when the operator names none. */
export const DEFAULT_CANCEL_YES_PAYOUT = MICRO / 2;

/**
 * The ledger keys of a market's end: its resolution alone, its event's one-step resolution, its
 * payout at a price (cancelled or SPLIT). Once one is journaled the ledger takes the market as
 * decided and refuses entries that would still create its shares (ledger/ledger.ts).
 */
export const resolutionKey = (marketId: string) => `resolve:${marketId}`;
export const eventResolutionKey = (eventId: string) => `resolve-event:${eventId}`;
export const payoutKey = (marketId: string) => `refund:${marketId}`;

/** The market's own account: shares escrowed at resolution, and the dust of its payouts. */
export const escrowAccount = (marketId: string) => `resolution:${marketId}`;

export function isYesPayout(v: unknown): v is MicroUnits {
  return Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= FULL_PAYOUT;
}

/** Micro-USDT per share of `outcome`. */
export function payoutPerShare(yesPayout: MicroUnits, outcome: Outcome): MicroUnits {
  return outcome === "YES" ? yesPayout : FULL_PAYOUT - yesPayout;
}

/** A holder's payout for `yes` YES and `no` NO shares, rounded down once (exact, in bigint). */
export function holderPayout(yes: MicroUnits, no: MicroUnits, yesPayout: MicroUnits): MicroUnits {
  const v = (BigInt(yes) * BigInt(yesPayout) + BigInt(no) * BigInt(FULL_PAYOUT - yesPayout)) / BigInt(FULL_PAYOUT);
  return Number(v);
}

/**
 * A decimal price "0.00".."1.00" (at most 2 decimals, as the book's ticks) as a YES payout in
 * micro-USDT; null for anything else.
 */
export function yesPayoutOfPrice(price: string): MicroUnits | null {
  if (typeof price !== "string") return null;
  const m = /^(0|1)(?:\.([0-9]{1,2}))?$/.exec(price);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  return cents <= 100 ? cents * (FULL_PAYOUT / 100) : null;
}

/** "0.50" for 500_000 (the price a payout stands for, 2 to 6 decimals). */
export function priceOfYesPayout(yesPayout: MicroUnits): string {
  const whole = Math.floor(yesPayout / FULL_PAYOUT);
  const frac = String(yesPayout % FULL_PAYOUT)
    .padStart(6, "0")
    .replace(/0+$/, "")
    .padEnd(2, "0");
  return `${whole}.${frac}`;
}

export interface PayoutPlan {
  postings: Posting[];
  /** Per holding account, what it is paid (micro-USDT), in the order of the holders given. */
  payouts: Array<{ account: string; amount: MicroUnits; yes: MicroUnits; no: MicroUnits }>;
  /** The market's collateral, all of it released. */
  collateral: MicroUnits;
  /** collateral - payouts: kept by the market's resolution account. */
  dust: MicroUnits;
}

/** Why a market cannot be paid out now (the caller tries again once orders released their shares). */
export const PAYOUT_CODES = ["INVALID_PAYOUT", "SHARES_LOCKED", "MARKET_UNBALANCED"] as const;
export type PayoutCode = (typeof PAYOUT_CODES)[number];

export function isPayoutRefusal(err: unknown): err is Refusal<PayoutCode> {
  return isRefusal(err) && (PAYOUT_CODES as readonly string[]).includes(err.code);
}

/**
 * Pay every holder of a market at `yesPayout` and close it: each position is burnt (settled, its
 * realized PnL booked), each holder credited its payout, the collateral released, the dust kept by
 * the market's resolution account. The market's AMM pool is a holder like any other. Refused while
 * orders hold shares, or when the market's pairs do not balance its collateral.
 */
export function marketPayout(
  marketId: string,
  yesPayout: MicroUnits,
  holders: readonly PositionState[],
  collateral: MicroUnits,
): PayoutPlan {
  if (!isYesPayout(yesPayout))
    throw new Refusal<PayoutCode>("rejected", "INVALID_PAYOUT", `a YES payout is 0..${FULL_PAYOUT} micro-USDT per share, not ${yesPayout}`);
  const open = holders.filter((h) => h.marketId === marketId && h.quantity > 0);
  const locked = open.find((h) => h.locked > 0);
  if (locked) throw new Refusal<PayoutCode>("conflict", "SHARES_LOCKED", `shares of ${locked.account} are still locked by orders`);
  const byAccount = new Map<string, { YES?: PositionState; NO?: PositionState }>();
  let yes = 0;
  let no = 0;
  for (const h of open) {
    const cur = byAccount.get(h.account) ?? {};
    cur[h.outcome] = h;
    byAccount.set(h.account, cur);
    if (h.outcome === "YES") yes += h.quantity;
    else no += h.quantity;
  }
  if (yes !== no || yes !== collateral)
    throw new Refusal<PayoutCode>(
      "conflict",
      "MARKET_UNBALANCED",
      `market ${marketId} does not balance (YES ${yes}, NO ${no}, collateral ${collateral})`,
    );

  const postings: Posting[] = [];
  const payouts: PayoutPlan["payouts"] = [];
  let paid = 0;
  for (const [account, held] of byAccount) {
    const y = held.YES?.quantity ?? 0;
    const n = held.NO?.quantity ?? 0;
    const amount = holderPayout(y, n, yesPayout);
    // Realized PnL per position: YES takes its own rounded-down share, NO the rest of the holder's payout.
    const yesPart = held.YES ? holderPayout(y, 0, yesPayout) : 0;
    for (const [p, proceeds] of [
      [held.YES, yesPart],
      [held.NO, amount - yesPart],
    ] as const) {
      if (!p) continue;
      postings.push({ kind: "shares", account, marketId, outcome: p.outcome, quantity: -p.quantity, proceeds, settle: true });
    }
    if (amount > 0) postings.push({ kind: "cash", account, available: amount });
    payouts.push({ account, amount, yes: y, no: n });
    paid += amount;
  }
  const dust = collateral - paid;
  if (collateral) postings.push({ kind: "collateral", marketId, amount: -collateral });
  if (dust > 0) postings.push({ kind: "cash", account: escrowAccount(marketId), available: dust });
  return { postings, payouts, collateral, dust };
}
