/**
 * Domain refusals without any transport: a kind (what sort of refusal, which is all the edge needs
 * to choose a status, see gateway/faults.ts) and a code (which rule, the contract's error code).
 * Cores throw these; service shells hand them to the broker as its errors.
 */

/** A field-level validation problem in the spec's shape (the contract's FieldError; contract/wire.ts holds the two equal). */
export interface FieldError {
  field: string;
  rule: string;
}

export const FAULT_KINDS = ["rejected", "not_found", "conflict", "moved", "unavailable", "restarted", "internal"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What every domain refusal carries (Fault and the ledger core's LedgerFault alike). */
export interface DomainFault {
  readonly kind: FaultKind;
  readonly code: string;
  readonly message: string;
  /** `retryAfter`: seconds a refused request should wait before it is sent again (a 503). */
  readonly data?: { fields?: FieldError[]; retryAfter?: number };
}

export class Fault extends Error implements DomainFault {
  constructor(
    readonly kind: FaultKind,
    readonly code: string,
    message: string,
    readonly data?: DomainFault["data"],
  ) {
    super(message);
    this.name = "Fault";
  }
}

/** Bad input: the contract's VALIDATION_ERROR with the fields named. */
export function invalid(message: string, fields?: FieldError[]): Fault {
  return new Fault("rejected", "VALIDATION_ERROR", message, fields ? { fields } : undefined);
}

/** A rule refused the request (400): `code` names the rule. */
export function refused(code: string, message: string): Fault {
  return new Fault("rejected", code, message);
}

/** The request conflicts with the current state (409). */
export function conflicting(code: string, message: string): Fault {
  return new Fault("conflict", code, message);
}

export function notFoundFault(what: string, code = "RESOURCE_NOT_FOUND"): Fault {
  return new Fault("not_found", code, `${what} not found`);
}

const KINDS: ReadonlySet<string> = new Set(FAULT_KINDS);

export function isFault(err: unknown): err is DomainFault & Error {
  const e = err as { kind?: unknown; code?: unknown } | null;
  return err instanceof Error && typeof e?.code === "string" && typeof e.kind === "string" && KINDS.has(e.kind);
}
