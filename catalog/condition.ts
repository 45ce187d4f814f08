import { createHash } from "node:crypto";

/** Binary markets: two outcome slots (index sets "0x1" = YES, "0x2" = NO). */
export const OUTCOME_SLOTS = 2;

/**
 * The market's condition id: "0x" + sha256("pmx:condition:<marketId>:2") in hex. Pure and
 * deterministic so the chain service derives the same id without asking the catalog.
 */
export function conditionIdFor(marketId: string): string {
  return "0x" + createHash("sha256").update(`pmx:condition:${marketId}:${OUTCOME_SLOTS}`).digest("hex");
}
