/**
 * Refusals on the broker, both ways, in one place: a core's Refusal (engine/refusal.ts: kind and
 * code, no status) leaves a service shell as a MoleculerClientError(message, status, CODE, data)
 * (`wireError`), the status from the one table below; a port over a broker call turns such an
 * error back into the Refusal it was (`refusalFromWire`, through mixins/port-call.ts), so no core
 * reads Moleculer's `type` or status.
 */
import { Errors } from "moleculer";
import { Refusal, isRefusal, invalid, type FieldError, type RefusalKind } from "../engine/refusal";

export type { FieldError } from "../engine/refusal";

/** Domain errors travel between nodes as MoleculerClientError(message, status, CODE, data). */
const DomainError = Errors.MoleculerClientError;

/** The HTTP status of each kind of refusal: the one place a refusal gets a status. */
export const REFUSAL_STATUS: Readonly<Record<RefusalKind, number>> = {
  rejected: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  moved: 503,
  unavailable: 503,
  restarted: 503,
  internal: 500,
};

/** A refusal as the broker's error (status from the table, code, fields and retry hint kept); anything else unchanged. */
export function wireError(err: Refusal): Errors.MoleculerClientError;
export function wireError(err: unknown): unknown;
export function wireError(err: unknown): unknown {
  if (!isRefusal(err)) return err;
  const { fields, retryAfter } = err.data ?? {};
  const data = fields || retryAfter ? { ...(fields ? { fields } : {}), ...(retryAfter ? { retryAfter } : {}) } : undefined;
  return new DomainError(err.message, REFUSAL_STATUS[err.kind], err.code, data);
}

/** For `.catch(throwWire)`: the refusal leaves as the broker's error. */
export function throwWire(err: unknown): never {
  throw wireError(err);
}

const KIND_OF_STATUS: Readonly<Record<number, RefusalKind>> = {
  400: "rejected",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  503: "unavailable",
};

/** The broker's errors that carry a refusal (Moleculer's own, such as ServiceNotFoundError, do not). */
const REFUSAL_CARRIERS: ReadonlySet<string> = new Set(["MoleculerClientError", "MoleculerError", "MoleculerRetryableError"]);

/**
 * The other way, for a core's port over a broker call: a refusal that came back as the broker's
 * error (a 4xx or 503 status, code in `type`) is the Refusal it was; anything else (a timeout, a
 * node that went away, a 500) unchanged.
 */
export function refusalFromWire(err: unknown): unknown {
  const e = err as { code?: unknown; type?: unknown; name?: unknown; data?: { fields?: FieldError[]; retryAfter?: number } } | null;
  const kind = typeof e?.code === "number" ? KIND_OF_STATUS[e.code] : undefined;
  if (!kind || typeof e?.type !== "string" || !(err instanceof Error) || !REFUSAL_CARRIERS.has(String(e.name))) return err;
  const { fields, retryAfter } = e.data ?? {};
  const data = fields || retryAfter ? { ...(fields ? { fields } : {}), ...(retryAfter ? { retryAfter } : {}) } : undefined;
  return new Refusal(kind === "unavailable" && e.type === "MARKET_MOVED" ? "moved" : kind, e.type, err.message, data);
}

/** For `.catch(throwRefusal)` in a port: see refusalFromWire. */
export function throwRefusal(err: unknown): never {
  throw refusalFromWire(err);
}

// Refusals of the shells themselves, as the broker's errors.

export function validationError(message: string, fields?: FieldError[]): Errors.MoleculerClientError {
  return wireError(invalid(message, fields));
}

export function unauthorized(message = "Authentication required"): Errors.MoleculerClientError {
  return wireError(new Refusal("unauthorized", "UNAUTHORIZED", message));
}

export function forbidden(message = "Not allowed"): Errors.MoleculerClientError {
  return wireError(new Refusal("forbidden", "FORBIDDEN", message));
}

export function notFound(what: string, code = "RESOURCE_NOT_FOUND"): Errors.MoleculerClientError {
  return wireError(new Refusal("not_found", code, `${what} not found`));
}

export function conflict(code: string, message: string): Errors.MoleculerClientError {
  return wireError(new Refusal("conflict", code, message));
}
