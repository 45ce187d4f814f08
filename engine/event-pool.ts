/**
 * One LMSR pool across the outcomes of a mutually exclusive event (engine/lmsr.ts), traded in the
 * YES/NO shares of its binary markets, as ledger postings.
 *
 * The pool is an account (`evpool:<eventId>`): house cash funds it, it holds shares of the event's
 * markets. Its state is a function of those books, so it needs no store of its own: what the pool
 * is worth if outcome w wins is cash + YES_w + Σ_{j≠w} NO_j (none of them: cash + Σ NO_j), and the
 * LMSR state is q_w = -(that worth). The cost function is exactly shift invariant, so only the
 * differences matter: prices and trade costs are those of the pool that sold q.
 *
 * A trade hands out real shares: what the pool holds of the side bought first, the rest minted in
 * pairs (1 USDT of collateral per pair, the other side kept); shares sold to the pool are merged
 * with the other side it holds back into cash where it can. Minting and merging leave the pool's
 * worth per outcome unchanged, so they never move its prices. Its cash may go below zero by what
 * its shares are guaranteed to pay (engine/conversion-guarantee.ts, held by engine/accounts.ts).
 *
 * Solvency: a fresh pool funded with F has Ĉ(-worth) = ceil(b·ln N) - F <= 0; a trade leaves
 * Ĉ(-worth) unchanged (it pays exactly the cost difference), a fee or an outcome leaving lowers it.
 * Since Ĉ(q) >= max q, the worth of every outcome stays >= -Ĉ(-worth) >= 0: whichever wins, the
 * pool pays its holders from what it holds. A trade is refused (NO_LIQUIDITY) if that ever fails.
 */
import type { Posting } from "./accounts";
import { eventPoolAccount, type HeldPosition } from "./conversion-guarantee";
import { costOf, maxTradeToPrice, NONE_OUTCOME, quote, type LmsrQuote, type LmsrRejectReason, type LmsrState } from "./lmsr";
import type { AmmVenue } from "./router";
import type { MicroUnits } from "./money";
import type { Outcome, Side } from "./types";

export { eventPoolAccount };

export interface EventPoolBooks {
  /** The pool account's cash (available). */
  cash: MicroUnits;
  /** The pool account's positions. */
  positions: readonly HeldPosition[];
}

/** What the pool is worth if each outcome wins (the open markets, and "none" when listed). */
export function worth(books: EventPoolBooks, outcomeIds: readonly string[]): Map<string, bigint> {
  const held = new Map<string, { yes: bigint; no: bigint }>();
  let sumNo = 0n;
  for (const p of books.positions) {
    if (p.quantity <= 0) continue;
    const h = held.get(p.marketId) ?? { yes: 0n, no: 0n };
    if (p.outcome === "YES") h.yes += BigInt(p.quantity);
    else {
      h.no += BigInt(p.quantity);
      sumNo += BigInt(p.quantity);
    }
    held.set(p.marketId, h);
  }
  const cash = BigInt(books.cash);
  return new Map(
    outcomeIds.map((w) => {
      const h = held.get(w);
      return [w, w === NONE_OUTCOME || !h ? cash + sumNo : cash + sumNo - h.no + h.yes];
    }),
  );
}

/** The pool's LMSR state over `outcomeIds` (q_w = -worth_w), with liquidity parameter b. */
export function poolState(b: number, books: EventPoolBooks, outcomeIds: readonly string[]): LmsrState {
  const w = worth(books, outcomeIds);
  return { b, outcomes: outcomeIds.map((id) => ({ id, q: Number(-(w.get(id) as bigint)) })) };
}

/** Ĉ(-worth) <= 0: the pool can pay whichever outcome wins and stays within its bound. */
export function solvent(state: LmsrState): boolean {
  return (
    costOf(
      state.b,
      state.outcomes.map((o) => BigInt(o.q)),
    ) <= 0n
  );
}

/** The house funds an event's pool with F of cash (the shares come as traders buy). */
export function eventPoolFunding(eventId: string, funding: MicroUnits): Posting[] {
  return [
    { kind: "external", flow: "house", amount: funding },
    { kind: "cash", account: eventPoolAccount(eventId), available: funding },
  ];
}

/**
 * The pool as one venue of a market order on one of its markets (engine/router.ts): that market's
 * YES or NO at the pool's LMSR price, with the LP fee; null when the pool cannot trade it (the
 * market is not one of its outcomes, or the pool is not solvent).
 */
export function eventPoolVenue(state: LmsrState, marketId: string, feeBps: number): AmmVenue<LmsrState> | null {
  if (state.outcomes.length < 2 || !state.outcomes.some((o) => o.id === marketId) || !solvent(state)) return null;
  return {
    quote: (side, outcome, quantity) => {
      const r = quote(state, side, marketId, outcome, quantity, feeBps);
      return r.ok ? { ok: true, cash: r.cash, fee: r.fee, newState: r.newState } : { ok: false };
    },
    upTo: (side, outcome, threshold, max) =>
      maxTradeToPrice(state, marketId, side, outcome, Number(threshold.num) / Number(threshold.den), max),
  };
}

export interface EventPoolTrade {
  eventId: string;
  userId: string;
  side: Side;
  marketId: string;
  outcome: Outcome;
  quantity: MicroUnits;
  feeBps: number;
}

export type EventPoolPlan = { ok: true; quote: LmsrQuote; postings: Posting[] } | { ok: false; reason: LmsrRejectReason };

/**
 * A trade against the pool: the LMSR price of `quantity` of the market's YES or NO, and the
 * postings that move it (paid from the trader's available cash, or the trader's unlocked shares).
 */
export function planEventPoolTrade(state: LmsrState, books: EventPoolBooks, t: EventPoolTrade): EventPoolPlan {
  if (!solvent(state)) return { ok: false, reason: "NO_LIQUIDITY" };
  const r = quote(state, t.side, t.marketId, t.outcome, t.quantity, t.feeBps);
  if (!r.ok) return r;
  const pool = eventPoolAccount(t.eventId);
  const other: Outcome = t.outcome === "YES" ? "NO" : "YES";
  const held = (o: Outcome) =>
    books.positions.filter((p) => p.marketId === t.marketId && p.outcome === o).reduce((s, p) => s + Math.max(0, p.quantity), 0);
  const q = t.quantity;
  const postings: Posting[] = [];
  if (t.side === "BUY") {
    const given = Math.min(held(t.outcome), q);
    const minted = q - given;
    postings.push(
      { kind: "cash", account: t.userId, available: -r.net },
      { kind: "shares", account: t.userId, marketId: t.marketId, outcome: t.outcome, quantity: q, cost: r.net },
      { kind: "cash", account: pool, available: r.net - minted },
    );
    if (given) postings.push({ kind: "shares", account: pool, marketId: t.marketId, outcome: t.outcome, quantity: -given });
    if (minted)
      postings.push(
        { kind: "collateral", marketId: t.marketId, amount: minted },
        { kind: "shares", account: pool, marketId: t.marketId, outcome: other, quantity: minted },
      );
  } else {
    const merged = Math.min(held(other), q);
    postings.push(
      { kind: "shares", account: t.userId, marketId: t.marketId, outcome: t.outcome, quantity: -q, proceeds: r.net },
      { kind: "cash", account: t.userId, available: r.net },
      { kind: "cash", account: pool, available: merged - r.net },
    );
    if (q - merged) postings.push({ kind: "shares", account: pool, marketId: t.marketId, outcome: t.outcome, quantity: q - merged });
    if (merged)
      postings.push(
        { kind: "shares", account: pool, marketId: t.marketId, outcome: other, quantity: -merged },
        { kind: "collateral", marketId: t.marketId, amount: -merged },
      );
  }
  return { ok: true, quote: r, postings };
}
