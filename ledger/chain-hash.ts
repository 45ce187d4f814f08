import { createHash } from "node:crypto";

/** The link before the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * Each journal entry's hash covers the previous entry's hash and its own stored body, so changing,
 * dropping or reordering any acknowledged entry breaks every link after it (tamper-evident history).
 */
export function chainHash(prev: string, body: string): string {
  return createHash("sha256").update(prev).update("\n").update(body).digest("hex");
}
