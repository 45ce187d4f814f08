import { randomFillSync } from "node:crypto";

// One kernel call per 512 draws instead of one per id (a placement mints several).
const pool = Buffer.alloc(4 * 512);
let poolOffset = pool.length;

function random32(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = pool.readUInt32BE(poolOffset);
  poolOffset += 4;
  return r;
}

const TWO_48 = 2 ** 48;
let lastMs = 0;
/** The 80-bit random part of the last id, as its high 32 and low 48 bits. */
let hi = 0;
let lo = 0;

/**
 * Opaque, unguessable ids with a readable prefix (`ord_…`, `usr_…`): the time in ms, then 80
 * random bits. Within a process they only ever grow (a second id in the same ms adds 1 + 32 random
 * bits to the previous one; a clock that steps back keeps the last time), so ids minted one after
 * another append to the indexes they key instead of landing anywhere in them. Unique across
 * processes and restarts by their randomness (each new ms draws 79 fresh bits).
 */
export function newId(prefix: string): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // The top bit clear leaves room for 2^31 increments before the high part overflows.
    hi = random32() >>> 1;
    lo = random32() * 0x10000 + (random32() >>> 16);
  } else {
    lo += 1 + random32();
    if (lo >= TWO_48) {
      lo -= TWO_48;
      hi += 1;
      if (hi >= 2 ** 32) {
        // 2^31 ids in one ms: move to the next ms.
        lastMs += 1;
        hi = random32() >>> 1;
      }
    }
  }
  return `${prefix}_${lastMs.toString(36)}${hi.toString(16).padStart(8, "0")}${lo.toString(16).padStart(12, "0")}`;
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
