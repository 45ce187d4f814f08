/**
 * Market lifecycle, framework-free:
 *
 *   open --close--> closed --resolve--> resolved
 *                   closed --failResolution--> resolution_failed --resolve (retry)--> resolved
 *   open|closed --cancel--> cancelled
 *   open --resolve--> resolved, passing through closed (trading stops first, as on a real
 *   exchange; both `market.closed` and `market.resolved` are emitted, in that order).
 *
 * resolved and cancelled are terminal. Anything else is refused (HTTP 409 ILLEGAL_TRANSITION).
 */

import { MARKET_STATUSES, type MarketStatus } from "../models/catalog";

export type MarketCommand = "close" | "cancel" | "resolve" | "failResolution";

export const ILLEGAL_TRANSITION = "ILLEGAL_TRANSITION";

export type TransitionPlan =
  | {
      ok: true;
      from: MarketStatus;
      to: MarketStatus;
      /** Every status entered, in order (more than one when resolve passes through closed). */
      entered: MarketStatus[];
    }
  | { ok: false; from: MarketStatus; message: string };

const TABLE: Record<MarketCommand, Partial<Record<MarketStatus, MarketStatus[]>>> = {
  close: { open: ["closed"] },
  cancel: { open: ["cancelled"], closed: ["cancelled"] },
  resolve: { open: ["closed", "resolved"], closed: ["resolved"], resolution_failed: ["resolved"] },
  failResolution: { closed: ["resolution_failed"] },
};

const VERB: Record<MarketCommand, string> = {
  close: "close",
  cancel: "cancel",
  resolve: "resolve",
  failResolution: "mark resolution failed on",
};

export function planTransition(from: MarketStatus, command: MarketCommand): TransitionPlan {
  const entered = TABLE[command][from];
  if (!entered) return { ok: false, from, message: `Cannot ${VERB[command]} a market that is ${from}` };
  return { ok: true, from, to: entered[entered.length - 1], entered: [...entered] };
}

/** Statuses from which `command` is allowed (for messages and tests). */
export function allowedFrom(command: MarketCommand): MarketStatus[] {
  return MARKET_STATUSES.filter((s) => TABLE[command][s]);
}

export function isTerminal(status: MarketStatus): boolean {
  return status === "resolved" || status === "cancelled";
}
