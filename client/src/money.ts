/**
 * Exact conversions between the API's integer units and human decimals. Everything goes through
 * strings and bigint: a float never decides an amount (0.1 + 0.2 is not 0.3).
 *
 * - Quantities and money are micro-units: 1 share or 1 USDT = 1,000,000.
 * - Prices are cents on a 0.01 grid: tick 1..99 = 0.01..0.99.
 */

export const MICRO_PER_UNIT = 1_000_000n;
export const MICRO_DECIMALS = 6;
export const MIN_TICK = 1;
export const MAX_TICK = 99;
/** Quantities are whole lots of 100 micro-shares (0.0001 share). */
export const LOT = 100n;

export type Decimalish = string | number | bigint;

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d*))?$/;
const DIGITS_RE = /^-?\d+$/;

/** A number is only taken when its shortest decimal form is plain digits (no 1e-7, no NaN). */
function decimalText(value: Decimalish, what: string): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`${what} must be a finite number`);
    const s = String(value);
    if (!DECIMAL_RE.test(s)) throw new RangeError(`${what} ${s} is not a plain decimal; pass it as a string`);
    return s;
  }
  const s = value.trim().replace(/_/g, "");
  if (s.startsWith(".")) return "0" + s;
  return s;
}

/**
 * "12.5" -> 12500000n. More than six decimals is refused, never rounded: rounding would silently
 * change what the user asked for.
 */
export function toMicroBigInt(value: Decimalish, what = "amount"): bigint {
  if (typeof value === "bigint") return value * MICRO_PER_UNIT;
  const m = DECIMAL_RE.exec(decimalText(value, what));
  if (!m) throw new RangeError(`${what} "${String(value)}" is not a decimal number`);
  const [, sign, whole, frac = ""] = m;
  if (frac.length > MICRO_DECIMALS) throw new RangeError(`${what} "${String(value)}" has more than ${MICRO_DECIMALS} decimal places`);
  const micro = BigInt(whole) * MICRO_PER_UNIT + BigInt(frac.padEnd(MICRO_DECIMALS, "0") || "0");
  return sign ? -micro : micro;
}

/** "12.5" -> "12500000", the digit strings the API takes. */
export function toMicro(value: Decimalish, what = "amount"): string {
  return toMicroBigInt(value, what).toString();
}

export interface FromMicroOptions {
  /** Keep all six decimals ("12.500000") instead of trimming ("12.5"). */
  fixed?: boolean;
  /** At least this many decimals when trimming (e.g. 2 for money: "12.50"). */
  minDecimals?: number;
}

/** 12500000 -> "12.5" (or "12.500000" with fixed). */
export function fromMicro(micro: string | number | bigint, opts: FromMicroOptions = {}): string {
  let v: bigint;
  if (typeof micro === "bigint") v = micro;
  else if (typeof micro === "number") {
    if (!Number.isSafeInteger(micro)) throw new RangeError(`micro-units must be a safe integer, got ${micro}`);
    v = BigInt(micro);
  } else {
    if (!DIGITS_RE.test(micro.trim())) throw new RangeError(`micro-units must be a string of digits, got "${micro}"`);
    v = BigInt(micro.trim());
  }
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = (abs / MICRO_PER_UNIT).toString();
  let frac = (abs % MICRO_PER_UNIT).toString().padStart(MICRO_DECIMALS, "0");
  if (!opts.fixed) {
    frac = frac.replace(/0+$/, "");
    const min = Math.min(opts.minDecimals ?? 0, MICRO_DECIMALS);
    if (frac.length < min) frac = frac.padEnd(min, "0");
  }
  return `${neg ? "-" : ""}${whole}${frac ? "." + frac : ""}`;
}

/** "0.55" -> 55. Off-grid prices ("0.555") and prices outside 0.01..0.99 are refused. */
export function priceToTick(price: string | number): number {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(decimalText(price, "price"));
  if (!m) throw new RangeError(`price "${String(price)}" must be a decimal between 0.01 and 0.99`);
  const significant = (m[2] ?? "").replace(/0+$/, "");
  if (significant.length > 2) throw new RangeError(`price "${String(price)}" is not on the 0.01 grid`);
  const tick = BigInt(m[1]) === 0n ? Number(significant.padEnd(2, "0") || "0") : 100;
  if (tick < MIN_TICK || tick > MAX_TICK) throw new RangeError(`price "${String(price)}" must be between 0.01 and 0.99`);
  return tick;
}

/** 55 -> "0.55", the 2-decimal form the API answers with. */
export function tickToPrice(tick: number): string {
  if (!Number.isInteger(tick) || tick < MIN_TICK || tick > MAX_TICK)
    throw new RangeError(`tick must be an integer between ${MIN_TICK} and ${MAX_TICK}, got ${tick}`);
  return `0.${String(tick).padStart(2, "0")}`;
}

/**
 * The JSON number POST /orders takes for a price. tick / 100 is the double nearest to the decimal,
 * which is exactly what JSON.parse("0.55") gives the server.
 */
export function tickToPriceNumber(tick: number): number {
  return Number(tickToPrice(tick));
}

/** The price of the other outcome at the same point of the one book: YES at 0.40 is NO at 0.60. */
export function complementTick(tick: number): number {
  tickToPrice(tick);
  return 100 - tick;
}

/** Cost in micro-USDT of `quantity` micro-shares at `tick` cents (exact: the API keeps lots of 100). */
export function notional(quantityMicro: string | bigint, tick: number): bigint {
  tickToPrice(tick);
  const q = typeof quantityMicro === "bigint" ? quantityMicro : BigInt(quantityMicro);
  return (q * BigInt(tick)) / 100n;
}

/** Whole lots only: the server refuses quantities that are not multiples of 100 micro-shares. */
export function isLotQuantity(quantityMicro: string | bigint): boolean {
  const q = typeof quantityMicro === "bigint" ? quantityMicro : BigInt(quantityMicro);
  return q > 0n && q % LOT === 0n;
}

/** A decimal price string ("0.50125") as an exact fraction of 10^6 (501250), for comparisons. */
export function priceToMicro(price: string): bigint {
  return toMicroBigInt(price, "price");
}

/** Any fixed-point amount: parseUnits("1.5", 9) = 1500000000n (nanoTON). Extra decimals are refused. */
export function parseUnits(value: Decimalish, decimals: number, what = "amount"): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 30) throw new RangeError("decimals must be an integer 0..30");
  if (typeof value === "bigint") return value * 10n ** BigInt(decimals);
  const m = DECIMAL_RE.exec(decimalText(value, what));
  if (!m) throw new RangeError(`${what} "${String(value)}" is not a decimal number`);
  const [, sign, whole, frac = ""] = m;
  if (frac.length > decimals) throw new RangeError(`${what} "${String(value)}" has more than ${decimals} decimal places`);
  const v = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
  return sign ? -v : v;
}

/** formatUnits(1500000000n, 9) = "1.5". */
export function formatUnits(value: string | bigint, decimals: number): string {
  const v = typeof value === "bigint" ? value : BigInt(value);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const base = 10n ** BigInt(decimals);
  const frac = decimals ? (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "") : "";
  return `${neg ? "-" : ""}${abs / base}${frac ? "." + frac : ""}`;
}
