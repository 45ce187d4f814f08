/**
 * Numeric parameters, one rule each, for every action's fastest-validator schema. A number is
 * accepted in one canonical form only: digit strings without sign, spaces, leading zeros or
 * exponent ("100", not "00100", "1e2", " 100" or "+100"); JSON numbers only when they are safe
 * integers where an integer is meant; page numbers and sizes bounded.
 *
 * The converting rules (`integerParam`, PAGE, ...) use fastest-validator's custom checker, which
 * needs VALIDATOR_OPTIONS on the broker (moleculer.config.ts).
 */

/** Options of the broker's fastest-validator: custom checkers that may convert the value. */
export const VALIDATOR_OPTIONS = { useNewCustomCheckerFunction: true } as const;

/** One problem as fastest-validator's custom checkers report it (`type` becomes the field's `rule`). */
interface CheckError {
  type: string;
  actual?: unknown;
  expected?: unknown;
}

/** A canonical digit string of at most `maxDigits` digits ("0" or no leading zero). */
export function digitsParam(maxDigits: number, unit: string) {
  return {
    type: "string",
    pattern: new RegExp(`^(?:0|[1-9][0-9]{0,${maxDigits - 1}})$`),
    messages: {
      stringPattern: `The '{field}' field must be a string of at most ${maxDigits} digits, without sign, spaces, leading zeros or exponent (${unit}).`,
    },
  } as const;
}

/** Micro-USDT amounts as digit strings (withdrawals, the faucet, AMM liquidity). */
export const AMOUNT = digitsParam(20, "micro-units");
/** Quantities of micro-shares as digit strings (AMM trades, routed trades, quotes). */
export const QUANTITY = digitsParam(16, "micro-shares");

/** A JSON number that must be a safe positive integer (POST /orders `quantity`): 1e308 is not one. */
export const POSITIVE_SAFE_INTEGER = { type: "number", integer: true, positive: true, max: Number.MAX_SAFE_INTEGER } as const;

const CANONICAL_INT = /^(?:0|[1-9][0-9]{0,15})$/;

/**
 * An integer in [min, max] from a query string (canonical digits) or a JSON number (a safe
 * integer); the action gets a number. Refusals name the field with fastest-validator's rules
 * (`number`, `numberInteger`, `numberMin`, `numberMax`).
 */
export function integerParam(min: number, max: number, opts: { default?: number } = {}) {
  const check = (value: unknown, errors: CheckError[]): unknown => {
    // Without the broker's VALIDATOR_OPTIONS fastest-validator would call this the old way and
    // never see the converted number: fail loudly instead of accepting text.
    if (!Array.isArray(errors)) throw new Error("integerParam needs the broker's validator with VALIDATOR_OPTIONS (lib/params.ts)");
    let n: number;
    if (typeof value === "number") n = value;
    else if (typeof value === "string" && CANONICAL_INT.test(value)) n = Number(value);
    else {
      errors.push({ type: "number", actual: value });
      return value;
    }
    if (!Number.isSafeInteger(n)) {
      errors.push({ type: "numberInteger", actual: value });
      return value;
    }
    if (n < min) errors.push({ type: "numberMin", expected: min, actual: n });
    if (n > max) errors.push({ type: "numberMax", expected: max, actual: n });
    return n;
  };
  return {
    type: "any",
    ...(opts.default !== undefined ? { optional: true, default: opts.default } : {}),
    custom: check,
    messages: { number: "The '{field}' field must be a whole number in plain digits (no sign, spaces, leading zeros or exponent)." },
  } as const;
}

/** The last page anyone may ask for: beyond every real list, far below what could overflow a skip. */
export const MAX_PAGE = 1_000_000;

/** `page` of every paged list: 1..MAX_PAGE, default 1. */
export const PAGE = integerParam(1, MAX_PAGE, { default: 1 });

/** `pageSize` of a paged list: 1..max, default `def`. */
export function pageSizeParam(def: number, max: number) {
  return integerParam(1, max, { default: def });
}
