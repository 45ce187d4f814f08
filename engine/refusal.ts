/**
 * The one refusal type of every core: a kind (what sort of refusal, all the edge needs to choose
 * a status, see lib/errors.ts) and a code (which rule: the contract's error code), with the fields
 * at fault or a retry hint. No transport in it: cores throw these, service shells hand them to the
 * broker (`wireError`), and a port over a broker call gets them back as they were (`portCall`).
 * Each core lists the codes it can give (a `const` list beside the core).
 */

/** A field-level validation problem in the spec's shape (the contract's FieldError; contract/wire.ts holds the two equal). */
export interface FieldError {
  field: string;
  rule: string;
}

export const REFUSAL_KINDS = [
  "rejected",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "moved",
  "unavailable",
  "restarted",
  "internal",
] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

export interface RefusalData {
  fields?: FieldError[];
  /** Seconds a refused request should wait before it is sent again (a 503). */
  retryAfter?: number;
}

export class Refusal<C extends string = string> extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly code: C,
    message: string,
    readonly data?: RefusalData,
  ) {
    super(message);
    this.name = "Refusal";
  }

  /** The fields at fault (a validation refusal). */
  get fields(): FieldError[] | undefined {
    return this.data?.fields;
  }
}

const KINDS: ReadonlySet<string> = new Set(REFUSAL_KINDS);

/** A refusal (optionally: with this code). Structural, so a refusal of another copy of this module counts too. */
export function isRefusal(err: unknown, code?: string): err is Refusal {
  const e = err as { kind?: unknown; code?: unknown } | null;
  return (
    err instanceof Error &&
    typeof e?.code === "string" &&
    typeof e.kind === "string" &&
    KINDS.has(e.kind) &&
    (code === undefined || e.code === code)
  );
}

/** The code of a refusal; undefined for any other error. */
export function refusalCode(err: unknown): string | undefined {
  return isRefusal(err) ? err.code : undefined;
}

/** Bad input: the contract's VALIDATION_ERROR with the fields named. */
export function invalid(message: string, fields?: FieldError[]): Refusal<"VALIDATION_ERROR"> {
  return new Refusal("rejected", "VALIDATION_ERROR", message, fields ? { fields } : undefined);
}

/** A rule refused the request (400): `code` names the rule. */
export function refused<C extends string>(code: C, message: string): Refusal<C> {
  return new Refusal("rejected", code, message);
}

/** The request conflicts with the current state (409). */
export function conflicting<C extends string>(code: C, message: string): Refusal<C> {
  return new Refusal("conflict", code, message);
}

export function notFoundFault(what: string, code = "RESOURCE_NOT_FOUND"): Refusal {
  return new Refusal("not_found", code, `${what} not found`);
}
