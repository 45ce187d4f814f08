import { DomainError } from "../lib/errors";
import { isFault, type FaultKind } from "../lib/fault";

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

/** A domain refusal as the broker's error (status from the table, code and fields kept); anything else unchanged. */
export function wireError(err: unknown): unknown {
  if (!isFault(err)) return err;
  return new DomainError(err.message, FAULT_STATUS[err.kind], err.code, err.data?.fields ? { fields: err.data.fields } : undefined);
}

/** For `.catch(throwWire)`: the refusal leaves as the broker's error. */
export function throwWire(err: unknown): never {
  throw wireError(err);
}
