import type { FieldError } from "../lib/errors";
import { isPage } from "../lib/paging";
import { PROTOTYPE_KEY_REFUSAL } from "./json-body";

/** A successful answer in the envelope: `data` (a page's items, its pagination beside them) and the request id; nothing for a 204. */
export function successBody(data: unknown, requestId: string | null, statusCode?: number): object | null {
  if (statusCode === 204) return null;
  if (isPage(data)) return { data: data.items, pagination: data.pagination, requestId };
  return { data, requestId };
}

export interface ErrorBody {
  error: { code: string; message: string; fields?: FieldError[] };
  requestId: string;
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: unknown;
  type?: unknown;
  status?: unknown;
  data?: unknown;
}

/** fastest-validator's items: {type, field, message}; our own: {fields: [{field, rule}]}. */
function fieldsOf(data: unknown): FieldError[] | undefined {
  if (Array.isArray(data)) {
    const out = data
      .filter((d): d is { field: string; type: string } => !!d && typeof d.field === "string")
      .map((d) => ({ field: d.field, rule: String(d.type) }));
    return out.length ? out : undefined;
  }
  const f = (data as { fields?: FieldError[] } | null)?.fields;
  return Array.isArray(f) && f.length ? f : undefined;
}

/**
 * Every failure becomes the spec's envelope here, and only here. Client errors keep their code;
 * anything unexpected is a plain 500 without internals.
 */
/** A write that found no room (a read model's file, the chain's state on a full disk): nothing to blame the client for. */
const NO_SPACE = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);

/** Retry-After of a request refused for a full disk (seconds): long enough not to hammer it. */
export const DISK_FULL_RETRY_S = 5;

export function toErrorResponse(
  err: unknown,
  requestId: string,
): { status: number; body: ErrorBody; retryAfter?: number; diskFull?: boolean } {
  const e = (err ?? {}) as ErrorLike;
  const status = typeof e.code === "number" ? e.code : typeof e.status === "number" ? e.status : 500;
  const type = typeof e.type === "string" ? e.type : "";
  const body = (code: string, message: string, fields?: FieldError[]): ErrorBody => ({
    error: fields ? { code, message, fields } : { code, message },
    requestId,
  });

  // body-parser errors (plain http-errors objects)
  if (type === "entity.parse.failed")
    return {
      status: 400,
      body: body("VALIDATION_ERROR", e.message?.startsWith(PROTOTYPE_KEY_REFUSAL) ? e.message : "Malformed JSON body"),
    };
  if (type === "entity.too.large") return { status: 413, body: body("PAYLOAD_TOO_LARGE", "Request body too large") };
  if (type === "encoding.unsupported" || type === "charset.unsupported" || type === "request.aborted" || type === "request.size.invalid")
    return { status: 400, body: body("VALIDATION_ERROR", "Unreadable request body") };

  if (e.name === "ValidationError" || type === "VALIDATION_ERROR") {
    return {
      status: 400,
      body: body("VALIDATION_ERROR", status === 422 || !e.message ? "Parameters validation error" : e.message, fieldsOf(e.data)),
    };
  }
  // A service that is not there (yet, or any more) is a moment's outage, never "no such resource".
  if (
    e.name === "ServiceNotFoundError" ||
    e.name === "ServiceNotAvailableError" ||
    e.name === "ServiceUnavailableError" ||
    e.name === "RequestRejectedError" ||
    type === "SERVICE_NOT_FOUND" ||
    type === "SERVICE_NOT_AVAILABLE" ||
    type === "REQUEST_REJECTED"
  )
    return {
      status: 503,
      body: body("SERVICE_UNAVAILABLE", "Service temporarily unavailable; retry shortly"),
      retryAfter: retryAfterOf(e.data, 2),
    };
  if (e.name === "NotFoundError" || type === "NOT_FOUND") return { status: 404, body: body("RESOURCE_NOT_FOUND", "Resource not found") };
  if (e.name === "RateLimitExceeded" || type === "RATE_LIMIT_EXCEEDED")
    return { status: 429, body: body("RATE_LIMIT_EXCEEDED", "Too many requests, please try again later") };
  if (e.name === "UnAuthorizedError" || status === 401) return { status: 401, body: body("UNAUTHORIZED", e.message || "Unauthorized") };
  if (e.name === "RequestTimeoutError") return { status: 504, body: body("TIMEOUT", "The request timed out") };

  // Structured errors from downstream services pass through unchanged: client errors, and the
  // honest 503s (MARKET_MOVED, SERVICE_UNAVAILABLE, LEDGER_UNAVAILABLE) with a retry hint.
  if (typeof e.code === "string" && NO_SPACE.has(e.code))
    return {
      status: 503,
      body: body("SERVICE_UNAVAILABLE", "The exchange cannot store requests right now (its disk is full); retry later"),
      retryAfter: DISK_FULL_RETRY_S,
      diskFull: true,
    };
  if (status >= 400 && status < 500 && type) return { status, body: body(type, e.message || type, fieldsOf(e.data)) };
  if (status === 503 && type) return { status, body: body(type, e.message || type), retryAfter: retryAfterOf(e.data, 1) };
  return { status: 500, body: body("INTERNAL_ERROR", "Internal server error") };
}

/** Seconds a 503 asks the client to wait: the error's own hint, else a default. */
function retryAfterOf(data: unknown, fallback: number): number {
  const r = (data as { retryAfter?: unknown } | null)?.retryAfter;
  return typeof r === "number" && r > 0 ? Math.ceil(r) : fallback;
}
