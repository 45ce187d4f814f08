/**
 * The resolution process, framework-free and pure: a proposed result, a dispute window, and its
 * end (finalized by itself when nobody disputed, by the operator otherwise), plus the deadlines a
 * market's clock sets (its close time, its window's end).
 *
 *   open --(propose: closes first)--> closed + pending proposal
 *   closed + pending --dispute (holder, before disputeEndsAt, once per user)--> disputed
 *   closed + pending, undisputed, window over --(by itself)--> resolved (the proposed result)
 *   closed + pending --finalize {result} (operator; may amend)--> resolved
 *   resolve stays the immediate override from open / closed / resolution_failed.
 *
 * Every ending goes through the one resolution step (catalog.ts `resolveMany`), which stores the
 * market's YES payout per share: YES 1_000_000, NO 0, SPLIT 500_000.
 */
import { FULL_PAYOUT } from "../engine/payout";
import type { MarketDoc, MarketResult, ResolutionDoc } from "../models/catalog";

export const NO_PROPOSAL = "NO_PROPOSAL";
export const PROPOSAL_PENDING = "PROPOSAL_PENDING";
export const DISPUTE_WINDOW_CLOSED = "DISPUTE_WINDOW_CLOSED";
export const ALREADY_DISPUTED = "ALREADY_DISPUTED";

/** Micro-USDT one YES share pays at a result; a NO share pays the rest of 1.000000. */
export function yesPayoutOfResult(result: MarketResult): number {
  return result === "YES" ? FULL_PAYOUT : result === "NO" ? 0 : FULL_PAYOUT / 2;
}

/** A holder of a market, who may dispute its proposal: YES or NO shares of it among the user's positions. */
export function holdsShares(positions: ReadonlyArray<{ marketId: string; quantity: number }>, marketId: string): boolean {
  return positions.some((p) => p.marketId === marketId && p.quantity > 0);
}

/** A proposal made and not yet ended (the market is closed meanwhile). */
export function pendingProposal(m: MarketDoc): ResolutionDoc | null {
  const r = m.resolution;
  return m.status === "closed" && r && r.finalizedAt === null ? r : null;
}

export type Refusal = { ok: false; kind: "conflict" | "forbidden"; code: string; message: string };
const conflict = (code: string, message: string): Refusal => ({ ok: false, kind: "conflict", code, message });

/** A proposal on `m` at `nowMs` (an open market is closed first by the caller). */
export function planProposal(
  m: MarketDoc,
  result: MarketResult,
  note: string | null,
  nowMs: number,
  windowMs: number,
): { ok: true; closeFirst: boolean; resolution: ResolutionDoc } | Refusal {
  if (pendingProposal(m)) return conflict(PROPOSAL_PENDING, "A proposal is pending; finalize it instead");
  if (m.status !== "open" && m.status !== "closed")
    return conflict("ILLEGAL_TRANSITION", `Cannot propose a result for a market that is ${m.status}`);
  return {
    ok: true,
    closeFirst: m.status === "open",
    resolution: {
      proposedResult: result,
      note,
      proposedAt: new Date(nowMs).toISOString(),
      disputeEndsAt: new Date(nowMs + windowMs).toISOString(),
      disputed: false,
      disputes: 0,
      finalizedAt: null,
    },
  };
}

/** A dispute by a user (`holds`: whether they hold a position in the market). Checks in the spec's order. */
export function planDispute(m: MarketDoc, holds: boolean, nowMs: number): { ok: true; proposal: ResolutionDoc } | Refusal {
  const proposal = pendingProposal(m);
  if (!proposal) {
    if (m.resolution?.finalizedAt) return conflict(DISPUTE_WINDOW_CLOSED, "The proposal was finalized; disputes are closed");
    return conflict(NO_PROPOSAL, "No result is proposed for this market");
  }
  if (!holds) return { ok: false, kind: "forbidden", code: "FORBIDDEN", message: "Only a holder of a position in this market can dispute" };
  if (nowMs >= Date.parse(proposal.disputeEndsAt)) return conflict(DISPUTE_WINDOW_CLOSED, "The dispute window has ended");
  return { ok: true, proposal };
}

/** The operator ends a pending proposal with `result` (which may differ from the proposed one). */
export function planFinalize(m: MarketDoc): { ok: true; proposal: ResolutionDoc } | Refusal {
  const proposal = pendingProposal(m);
  if (!proposal) return conflict(NO_PROPOSAL, `No pending proposal to finalize (the market is ${m.status})`);
  return { ok: true, proposal };
}

/** An undisputed proposal whose window is over finalizes by itself. */
export function finalizationDue(m: MarketDoc, nowMs: number): boolean {
  const p = pendingProposal(m);
  return !!p && !p.disputed && Date.parse(p.disputeEndsAt) <= nowMs;
}

/** An open market past its close time closes by itself. */
export function closeDue(m: MarketDoc, nowMs: number): boolean {
  return m.status === "open" && typeof m.closeTime === "string" && Date.parse(m.closeTime) <= nowMs;
}
