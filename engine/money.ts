/**
 * Money arithmetic of the exchange, exact in integers. Quantities are micro-shares, amounts are
 * micro-USDT, prices are integer ticks (cents). A pair of one YES and one NO micro-share is backed
 * by exactly one micro-USDT.
 *
 * Quantities move in lots of 100 micro-shares (0.0001 share), so the cost of any quantity at any
 * tick is a whole number of micro-USDT: no fill ever has to split a micro-unit between two traders.
 */
export type MicroUnits = number;
export type Tick = number;

export const MICRO = 1_000_000;
export const LOT = 100;
export const MIN_TICK = 1;
export const MAX_TICK = 99;

export interface FeeSchedule {
  /** Basis points of quantity x p x (1-p), charged to the taker of each execution. */
  takerBps: number;
  /** Same for the resting side; 0 by default. */
  makerBps: number;
}

export function isTick(t: unknown): t is Tick {
  return Number.isInteger(t) && (t as number) >= MIN_TICK && (t as number) <= MAX_TICK;
}

export function isLotQuantity(q: unknown): q is MicroUnits {
  return Number.isSafeInteger(q) && (q as number) > 0 && (q as number) % LOT === 0;
}

/** Cash value of `q` micro-shares at tick `t`: exact because q is a whole number of lots. */
export function cost(q: MicroUnits, t: Tick): MicroUnits {
  return (q / LOT) * t;
}

/** The fee "weight" of an execution: q x t x (100 - t); fees are bps x weight / 1e8, summed exactly. */
export function feeWeight(q: MicroUnits, t: Tick): bigint {
  return BigInt(q) * BigInt(t) * BigInt(100 - t);
}

/** A fee on an exact weight, rounded up once (rounding favours the platform, never the other way). */
export function feeOn(bps: number, weight: bigint): MicroUnits {
  if (bps <= 0 || weight === 0n) return 0;
  const num = BigInt(bps) * weight;
  const den = 100_000_000n;
  return Number((num + den - 1n) / den);
}

/** What a resting BUY of `q` at `t` holds: its price plus the maker fee it can still incur. */
export function restingBuyLock(q: MicroUnits, t: Tick, fees: FeeSchedule): MicroUnits {
  return cost(q, t) + feeOn(fees.makerBps, feeWeight(q, t));
}

/**
 * What a BUY holds while it is being placed: enough for the worst mix of immediate (taker) and
 * resting (maker) execution. Cost plus fee per share only grows with the price (fee rate < 100%),
 * so fills at better prices never need more; the extra micro-unit covers the two fees being
 * rounded separately. The unused part is released as soon as matching is done.
 */
export function placementBuyLock(q: MicroUnits, t: Tick, fees: FeeSchedule): MicroUnits {
  const bps = Math.max(fees.takerBps, fees.makerBps);
  return cost(q, t) + feeOn(bps, feeWeight(q, t)) + (bps > 0 ? 1 : 0);
}

/** Decimal string of micro-units: 1500000 -> "1.5", 1 -> "0.000001". */
export function formatMicro(v: MicroUnits | bigint | string): string {
  const b = BigInt(v);
  const neg = b < 0n;
  const abs = neg ? -b : b;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? "." + frac : ""}`;
}

/** Where the contract wants a JSON number of units (candle volumes): the exact decimal, parsed once. */
export function microToUnits(micro: MicroUnits | bigint): number {
  return Number(formatMicro(micro));
}

/** A digits-only amount string in canonical form ("0007" -> "7"); throws on anything else. */
export function canonicalMicroString(digits: string): string {
  if (!/^[0-9]+$/.test(digits)) throw new Error(`not a micro-unit amount: ${digits}`);
  return BigInt(digits).toString();
}

/** Tick as the contract's 2-decimal price string: 55 -> "0.55". */
export function formatTick(t: Tick): string {
  return (t / 100).toFixed(2);
}

/** A decimal price (0.01..0.99, on the cent grid) to its tick, or null. */
export function priceToTick(p: number): Tick | null {
  if (typeof p !== "number" || !Number.isFinite(p)) return null;
  const t = Math.round(p * 100);
  // Off-grid prices such as 0.555 are refused rather than rounded.
  if (Math.abs(t - p * 100) > 1e-9 || !isTick(t)) return null;
  return t;
}

/**
 * Average price of an execution (cash / quantity) as a decimal string, at most 6 places, at least
 * 2, rounded half up: 550000 / 1000000 -> "0.55". Display only, never used in a balance.
 */
export function formatAvgPrice(cash: MicroUnits, q: MicroUnits): string {
  if (q <= 0) return "0.00";
  const scaled = (BigInt(cash) * 2_000_000n + BigInt(q)) / (2n * BigInt(q)); // round half up of cash/q * 10^6
  const s = scaled.toString().padStart(7, "0");
  const frac = s.slice(-6).replace(/0+$/, "").padEnd(2, "0");
  return `${s.slice(0, -6)}.${frac}`;
}
