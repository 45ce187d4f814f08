import { randomFillSync } from "node:crypto";

const ID_BYTES = 10;
// One kernel call per 409 ids instead of one per id (a placement mints several).
const pool = Buffer.alloc(ID_BYTES * 409);
let poolOffset = pool.length;

/** Opaque, unguessable, sortable-enough ids with a readable prefix (`ord_…`, `usr_…`). */
export function newId(prefix: string): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const rand = pool.toString("hex", poolOffset, poolOffset + ID_BYTES);
  poolOffset += ID_BYTES;
  return `${prefix}_${Date.now().toString(36)}${rand}`;
}

/**
 * Request and context ids for the broker: unique per node incarnation (node id, start time, a
 * counter) without a UUID per call; they only tell calls apart, so they need not be unguessable.
 */
export function brokerUidGenerator(): (this: { nodeID: string }) => string {
  let base: string | null = null;
  let n = 0;
  // Moleculer calls it with the broker as `this`.
  return function (this: { nodeID: string }) {
    return (base ??= `${this.nodeID}-${Date.now().toString(36)}-`) + (++n).toString(36);
  };
}
