import { randomBytes } from "node:crypto";

/** Opaque, unguessable, sortable-enough ids with a readable prefix (`ord_…`, `usr_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(10).toString("hex")}`;
}
