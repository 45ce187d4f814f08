import { DomainError } from "../lib/errors";
import { Fault, isFault, type FaultKind, type FieldError } from "../lib/fault";

/**
 * The HTTP status of each kind of domain refusal: the one place a core's refusal gets a status.
 * Service shells use it as they hand a refusal to the broker (a Moleculer error carries its
 * status from node to node), and the envelope (gateway/envelope.ts) answers with that status.
 */
export const FAULT_STATUS: Readonly<Record<FaultKind, number>> = {
  rejected: 400,
  not_found: 404,
  conflict: 409,
  moved: 503,
  unavailable: 503,
  restarted: 503,
  internal: 500,
};

/** A domain refusal as the broker's error (status from the table, code, fields and retry hint kept); anything else unchanged. */
export function wireError(err: unknown): unknown {
  if (!isFault(err)) return err;
  const { fields, retryAfter } = err.data ?? {};
  const data = fields || retryAfter ? { ...(fields ? { fields } : {}), ...(retryAfter ? { retryAfter } : {}) } : undefined;
  return new DomainError(err.message, FAULT_STATUS[err.kind], err.code, data);
}

const KIND_OF_STATUS: Readonly<Record<number, FaultKind>> = { 400: "rejected", 404: "not_found", 409: "conflict" };

/**
 * The other way, for a core's port over a broker call: a refusal that came back as the broker's
 * error (4xx status, code in `type`) is the Fault it was; anything else unchanged.
 */
export function faultFromWire(err: unknown): unknown {
  const e = err as { code?: unknown; type?: unknown; data?: { fields?: FieldError[] } } | null;
  const kind = typeof e?.code === "number" ? KIND_OF_STATUS[e.code] : undefined;
  if (!kind || typeof e?.type !== "string" || !(err instanceof Error)) return err;
  return new Fault(kind, e.type, err.message, e.data?.fields ? { fields: e.data.fields } : undefined);
}

/** For `.catch(throwFault)` in a port: see faultFromWire. */
export function throwFault(err: unknown): never {
  throw faultFromWire(err);
}

/** For `.catch(throwWire)`: the refusal leaves as the broker's error. */
export function throwWire(err: unknown): never {
  throw wireError(err);
}
