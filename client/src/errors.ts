/**
 * Errors the SDK throws. Every answer of the server that is not a success becomes an ApiError
 * subclass chosen by HTTP status, carrying the envelope's `code`, `message`, `fields` and
 * `requestId` (quote the requestId when reporting a problem).
 */

import type { FieldError } from "./generated/models";

export type { FieldError };

export class PmxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  fields?: FieldError[];
  requestId?: string;
  /** Seconds, from the Retry-After header (429). */
  retryAfter?: number;
  method?: string;
  path?: string;
}

export class ApiError extends PmxError {
  readonly status: number;
  /** The envelope's `error.code`: VALIDATION_ERROR, UNAUTHORIZED, INSUFFICIENT_BALANCE, ORDER_NOT_FOUND, ... */
  readonly code: string;
  /** Per-field validation failures ({field, rule}); empty when the error is not about fields. */
  readonly fields: FieldError[];
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.fields = init.fields ?? [];
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
  }

  /** One line for people: code, message, fields and the request id to quote. */
  describe(): string {
    const fields = this.fields.length ? ` [${this.fields.map((f) => `${f.field}: ${f.rule}`).join(", ")}]` : "";
    const id = this.requestId ? ` (request ${this.requestId})` : "";
    return `${this.code}: ${this.message}${fields}${id}`;
  }
}

/** 400: VALIDATION_ERROR (see `fields`) or a business refusal (INSUFFICIENT_BALANCE, FOK_NOT_FILLED, POST_ONLY_WOULD_CROSS, ...). */
export class BadRequestError extends ApiError {}
/** 401: missing, invalid or expired token; a refused login or refresh. */
export class UnauthorizedError extends ApiError {}
/** 403: authenticated but not allowed (e.g. a wrong operator key). */
export class ForbiddenError extends ApiError {}
/** 404: RESOURCE_NOT_FOUND, ORDER_NOT_FOUND, or a route the server does not have. */
export class NotFoundError extends ApiError {}
/** 409: the resource is in a state that forbids the request (ILLEGAL_TRANSITION, SHARES_LOCKED, DUPLICATE_CLIENT_ORDER_ID, ...), or IDEMPOTENCY_KEY_REUSED. */
export class ConflictError extends ApiError {}
/** 413: request body over the server's limit. */
export class PayloadTooLargeError extends ApiError {}
/** 429: RATE_LIMIT_EXCEEDED; `retryAfter` is the server's Retry-After in seconds. */
export class RateLimitError extends ApiError {
  readonly retryAfter: number;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = init.retryAfter ?? 1;
  }
}
/** 500: INTERNAL_ERROR. */
export class InternalServerError extends ApiError {}
/** 503: SERVICE_UNAVAILABLE (a service behind the gateway is down) or MARKET_MOVED (nothing executed); retry after `retryAfter` seconds. */
export class ServiceUnavailableError extends ApiError {
  /** The server's Retry-After in seconds, when it sent one. */
  readonly retryAfter: number | undefined;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}
/** 504: the request timed out inside the exchange. */
export class GatewayTimeoutError extends ApiError {}

/** The server could not be reached, or the request was aborted by the client's timeout. */
export class NetworkError extends PmxError {}
/** The server answered something that is not the API's envelope. */
export class ProtocolError extends PmxError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
/** A call needs a session (or the operator key) and the client has none. */
export class NotLoggedInError extends PmxError {}

const BY_STATUS: Record<number, new (init: ApiErrorInit) => ApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
  504: GatewayTimeoutError,
};

export function apiErrorFor(init: ApiErrorInit): ApiError {
  const Cls = BY_STATUS[init.status] ?? ApiError;
  return new Cls(init);
}
