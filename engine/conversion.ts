/**
 * Conversion of NO positions across a mutually exclusive event (Polymarket's `convertPositions`),
 * as ledger postings, and the guarantee that backs it.
 *
 * A holder gives up q NO shares of each of k named markets of the event and receives (k - 1)·q
 * micro-USDT (less a fee, if any) plus q YES of every other market of the event still open (m of
 * them). The event's conversion account (`conversion:<eventId>`) takes the k·q NO shares, and for
 * the YES it hands out it mints q pairs in each of the m markets (q of collateral each) and keeps
 * their NO side. So it pays (k - 1)·q + m·q and holds q more NO in each of the k + m open markets.
 *
 * The guarantee: at most one market of the event wins, so of the NO shares it holds across the
 * event all but those of the winner pay 1 each: at least Σ NO - max NO whichever market wins (all of
 * them, Σ NO, once a market it holds NO of has lost, or when none of them wins). A conversion adds q
 * to every open market, so Σ grows by (k + m)·q and the max by at most q: exactly what it paid out.
 * The account's cash may go below zero by what the guarantee covers, never further: its cover, cash
 * + guaranteed payout, is never below zero (engine/accounts.ts refuses an entry that would leave it
 * so, the money check reports one), and when all of its markets have paid out, its cash is that
 * cover: zero or more, the exchange's surplus.
 */
import type { PositionState, Posting } from "./accounts";
import { conversionAccount } from "./conversion-guarantee";
import type { MicroUnits } from "./money";

export { conversionAccount, conversionCover, guaranteedPayout, isConversionAccount } from "./conversion-guarantee";

const BPS = 10_000n;

export interface ConversionRequest {
  eventId: string;
  account: string;
  /** The k named markets (distinct), each open, each with `quantity` unlocked NO held. */
  marketIds: readonly string[];
  /** The event's other open markets: the holder receives their YES. */
  otherOpen: readonly string[];
  quantity: MicroUnits;
  /** The holder's NO positions of the named markets (their cost basis moves with them). */
  positions: readonly PositionState[];
  feeBps?: number;
}

export interface ConversionPlan {
  postings: Posting[];
  /** (k - 1)·q - fee, into available balance. */
  cashCredited: MicroUnits;
  fee: MicroUnits;
  yesReceived: Array<{ marketId: string; quantity: MicroUnits }>;
}

export class ConversionRefusal extends Error {
  constructor(
    readonly code: "INSUFFICIENT_SHARES" | "VALIDATION_ERROR",
    message: string,
  ) {
    super(message);
  }
}

/** The fee on a conversion of `quantity` across k markets: bps of the (k - 1)·quantity it pays, rounded up. */
export function conversionFee(k: number, quantity: MicroUnits, feeBps: number): MicroUnits {
  const bps = BigInt(feeBps);
  return Number((BigInt(k - 1) * BigInt(quantity) * bps + BPS - 1n) / BPS);
}

/** The share of a position's basis that leaves with `sold` shares (as engine/accounts.ts removes it). */
function basisOut(p: PositionState, sold: MicroUnits): MicroUnits {
  return sold === p.quantity ? p.totalCost : Number((BigInt(p.totalCost) * BigInt(sold)) / BigInt(p.quantity));
}

/**
 * The postings of one conversion. The holder's basis leaves with the NO shares: it becomes the
 * basis of the YES received as far as the cash does not cover it (spread evenly, the remainder on
 * the first), and anything the cash brings beyond it is realized profit.
 */
export function planConversion(r: ConversionRequest): ConversionPlan {
  const q = r.quantity;
  const k = r.marketIds.length;
  const m = r.otherOpen.length;
  if (!Number.isSafeInteger(q) || q <= 0)
    throw new ConversionRefusal("VALIDATION_ERROR", "quantity must be a positive integer of micro-shares");
  if (k < 1 || new Set(r.marketIds).size !== k) throw new ConversionRefusal("VALIDATION_ERROR", "marketIds must name distinct markets");
  if (r.otherOpen.some((id) => r.marketIds.includes(id)))
    throw new ConversionRefusal("VALIDATION_ERROR", "a named market is not an other market");
  const bps = BigInt(r.feeBps ?? 0);
  if (bps < 0n || bps >= BPS) throw new ConversionRefusal("VALIDATION_ERROR", "conversion fee out of range");
  const fee = conversionFee(k, q, r.feeBps ?? 0);
  const cash = (k - 1) * q - fee;
  const paid = (k - 1 + m) * q;
  if (!Number.isSafeInteger(paid) || !Number.isSafeInteger(m * q)) throw new ConversionRefusal("VALIDATION_ERROR", "quantity too large");

  const held = r.marketIds.map((id) => {
    const p = r.positions.find((x) => x.account === r.account && x.marketId === id && x.outcome === "NO");
    if (!p || p.quantity - p.locked < q)
      throw new ConversionRefusal("INSUFFICIENT_SHARES", `not enough NO shares of ${id} free of resting sell orders: ${q} needed`);
    return p;
  });
  const removed = held.map((p) => basisOut(p, q));
  const basis = removed.reduce((a, x) => a + x, 0);
  const yesBasis = m > 0 ? Math.max(0, basis - cash) : 0;
  const profit = cash + yesBasis - basis;

  const conv = conversionAccount(r.eventId);
  const postings: Posting[] = [];
  held.forEach((p, i) => {
    const proceeds = removed[i] + (i === 0 ? profit : 0);
    postings.push({ kind: "shares", account: r.account, marketId: p.marketId, outcome: "NO", quantity: -q, proceeds });
    postings.push({ kind: "shares", account: conv, marketId: p.marketId, outcome: "NO", quantity: q });
  });
  const yesReceived: ConversionPlan["yesReceived"] = [];
  r.otherOpen.forEach((id, j) => {
    const cost = Math.floor(yesBasis / m) + (j === 0 ? yesBasis % m : 0);
    postings.push({ kind: "collateral", marketId: id, amount: q });
    postings.push({ kind: "shares", account: conv, marketId: id, outcome: "NO", quantity: q });
    postings.push({ kind: "shares", account: r.account, marketId: id, outcome: "YES", quantity: q, cost });
    yesReceived.push({ marketId: id, quantity: q });
  });
  postings.push({ kind: "cash", account: conv, available: -paid });
  if (cash > 0) postings.push({ kind: "cash", account: r.account, available: cash });
  if (fee > 0) postings.push({ kind: "fee", amount: fee });
  return { postings, cashCredited: cash, fee, yesReceived };
}
