/**
 * Mutually exclusive events (one winner among N), framework-free and pure: what a resolution or a
 * proposal of the whole event decides, what a single market's result means inside one, and
 * whether an outcome can still be added.
 *
 * - At most one market of such an event ever resolves YES. Naming the winner (event resolve, or a
 *   market's resolve YES) resolves it YES and every other market not yet resolved or cancelled NO,
 *   as one step; the event records its decision first, so a second winner is refused
 *   (EVENT_ALREADY_DECIDED) and a retry of the same decision completes it.
 * - null: none of them won (every undecided market NO); refused on an exhaustive event.
 * - A market's NO alone is an outcome that dropped out; the others trade on. SPLIT is refused:
 *   half a YES on one outcome is not one winner among N; a cancel pays 0.00 a YES share for the
 *   same reason.
 */
import type { EventDoc, MarketDoc, MarketResult } from "../models/catalog";
import { yesPayoutOfPrice } from "../engine/payout";

export const EVENT_ALREADY_DECIDED = "EVENT_ALREADY_DECIDED";
export const EVENT_NOT_OPEN = "EVENT_NOT_OPEN";
export const EVENT_NOT_MUTUALLY_EXCLUSIVE = "EVENT_NOT_MUTUALLY_EXCLUSIVE";
/** The codes a mutually exclusive event's rules refuse with (the catalog lists them among its own). */
export type ExclusiveCode =
  typeof EVENT_ALREADY_DECIDED | typeof EVENT_NOT_OPEN | typeof EVENT_NOT_MUTUALLY_EXCLUSIVE | "VALIDATION_ERROR" | "ILLEGAL_TRANSITION";

export type ExclusiveRefusal = {
  ok: false;
  kind: "conflict" | "rejected";
  code: ExclusiveCode;
  message: string;
  field?: string;
  rule?: string;
};

const conflict = (code: ExclusiveCode, message: string): ExclusiveRefusal => ({ ok: false, kind: "conflict", code, message });
const invalid = (message: string, field: string, rule: string, code: ExclusiveCode = "VALIDATION_ERROR"): ExclusiveRefusal => ({
  ok: false,
  kind: "rejected",
  code,
  message,
  field,
  rule,
});

export const isExclusive = (e: EventDoc): boolean => e.mutuallyExclusive === true;

/** A market that may still resolve: not resolved and not cancelled. */
export const undecided = (m: MarketDoc): boolean => m.status !== "resolved" && m.status !== "cancelled";

/** One market and the result the event's step gives it. */
export interface EventOutcomeResult {
  marketId: string;
  result: "YES" | "NO";
}

/**
 * The whole event resolved with `winner` (null: none won): the undecided markets with their
 * results, the winner last (when it shows resolved, every other one already is). `retry`: the
 * event already recorded this same decision (a step that stopped midway is completed).
 */
export function planEventResolution(
  e: EventDoc,
  markets: readonly MarketDoc[],
  winner: string | null,
): { ok: true; retry: boolean; steps: EventOutcomeResult[] } | ExclusiveRefusal {
  if (!isExclusive(e))
    return invalid("Only a mutually exclusive event resolves as one step", "id", "mutuallyExclusive", EVENT_NOT_MUTUALLY_EXCLUSIVE);
  if (winner === null && e.exhaustive)
    return invalid("An exhaustive event has a winner: winnerMarketId cannot be null", "winnerMarketId", "required");
  const decided = e.decision;
  const yes = markets.find((m) => m.status === "resolved" && m.result === "YES");
  if (decided && decided.winnerMarketId !== winner)
    return conflict(EVENT_ALREADY_DECIDED, `The event is already decided (${decided.winnerMarketId ?? "none won"})`);
  if (yes && yes._id !== winner) return conflict(EVENT_ALREADY_DECIDED, `Market ${yes._id} already won this event`);
  if (winner !== null) {
    const w = markets.find((m) => m._id === winner);
    if (!w) return invalid("winnerMarketId is not a market of this event", "winnerMarketId", "eventMarket");
    const won = w.status === "resolved" && w.result === "YES";
    if (!won && !undecided(w)) return conflict("ILLEGAL_TRANSITION", `Cannot name a market that is ${w.status} the winner`);
  }
  const steps: EventOutcomeResult[] = markets
    .filter((m) => undecided(m) && m._id !== winner)
    .map((m) => ({ marketId: m._id, result: "NO" as const }));
  const w = winner === null ? undefined : markets.find((m) => m._id === winner);
  if (w && undecided(w)) steps.push({ marketId: w._id, result: "YES" });
  return { ok: true, retry: !!decided, steps };
}

/**
 * What a market-level result means in a mutually exclusive event: YES names the winner (the
 * event's step), NO resolves that one alone, SPLIT is refused.
 */
export function marketResultInEvent(e: EventDoc, result: MarketResult): "event" | "alone" | ExclusiveRefusal {
  if (!isExclusive(e)) return "alone";
  if (result === "SPLIT") return invalid("A market of a mutually exclusive event resolves YES or NO, not SPLIT", "result", "enumValue");
  return result === "YES" ? "event" : "alone";
}

/**
 * The price a market of the event is cancelled at. In a mutually exclusive event a cancelled
 * outcome leaves the race as one that dropped out (Polymarket's negRisk): YES pays 0.00, NO 1.00,
 * the default there. Any other price would pay part of a YES on an outcome that did not win, on
 * top of the event's one winner: the NO shares the conversion account and the event's pool hold
 * across the event, paid out against one winner at most, would no longer cover what they advanced.
 */
export function cancelPriceInEvent(
  e: EventDoc | null,
  price: string | undefined,
): { ok: true; price: string | undefined } | ExclusiveRefusal {
  if (!e || !isExclusive(e)) return { ok: true, price };
  if (price === undefined) return { ok: true, price: "0.00" };
  if (yesPayoutOfPrice(price) !== null && yesPayoutOfPrice(price) !== 0)
    return invalid(
      `A market of a mutually exclusive event is cancelled at 0.00 only (its outcome leaves the race as one that dropped out), not ${price}`,
      "price",
      "exclusiveCancel",
    );
  return { ok: true, price };
}

/** A new outcome for the event: only while it is mutually exclusive, undecided and one of its markets is open. */
export function planAddOutcome(
  e: EventDoc,
  markets: readonly MarketDoc[],
  title: string,
  label: string,
  maxOutcomes: number,
): { ok: true; position: number } | ExclusiveRefusal {
  if (!isExclusive(e))
    return invalid("Outcomes are added to mutually exclusive events only", "id", "mutuallyExclusive", EVENT_NOT_MUTUALLY_EXCLUSIVE);
  if (e.decision || !markets.some((m) => m.status === "open")) return conflict(EVENT_NOT_OPEN, "No market of this event is open");
  if (markets.length >= maxOutcomes) return invalid(`A mutually exclusive event has at most ${maxOutcomes} markets`, "id", "arrayMax");
  if (markets.some((m) => m.title.toLowerCase() === title.toLowerCase())) return invalid("Market titles must differ", "title", "unique");
  if (markets.some((m) => (m.outcomeLabel ?? "").toLowerCase() === label.toLowerCase()))
    return invalid("Outcome labels must differ", "outcomeLabel", "unique");
  return { ok: true, position: markets.reduce((p, m) => Math.max(p, m.position + 1), 0) };
}

/** Whether the event's proposal (made at `proposedAt`) finalizes now: every market of it undisputed and its window over. */
export function eventFinalizationDue(markets: readonly MarketDoc[], proposedAt: string, nowMs: number): boolean {
  const of = markets.filter((m) => m.status === "closed" && m.resolution?.proposedAt === proposedAt && m.resolution.finalizedAt === null);
  return of.length > 0 && of.every((m) => !m.resolution!.disputed && Date.parse(m.resolution!.disputeEndsAt) <= nowMs);
}
