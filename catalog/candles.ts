/**
 * Price history from trade prints, framework-free.
 *
 * Buckets (UTC, aligned to multiples of the bucket size since the epoch):
 *   1H: 1-minute candles over the last hour     1D: 15-minute over 24 h
 *   1W: 1-hour over 7 days                      1M: 4-hour over 30 days
 *   MAX: 1-day candles from the first print's day
 * The window starts at the bucket containing (now - span), so the first and the current bucket
 * may be partial. A bucket without trades repeats the previous close (volume 0) once a price is
 * known, which includes the last print before the window; buckets before any known price are
 * left out rather than invented.
 *
 * Prices are integer ticks (1..99 = cents, YES terms) until the output; the NO view mirrors each
 * print (100 - tick) before aggregating, so its high and low are the YES low and high mirrored.
 */

import type { Model } from "../contract";
import { microToUnits } from "../engine/money";
import type { Interval } from "../models/catalog";

export type Outcome = "YES" | "NO";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const INTERVAL_SPEC: Record<Interval, { spanMs: number | null; bucketMs: number }> = {
  "1H": { spanMs: HOUR, bucketMs: MINUTE },
  "1D": { spanMs: DAY, bucketMs: 15 * MINUTE },
  "1W": { spanMs: 7 * DAY, bucketMs: HOUR },
  "1M": { spanMs: 30 * DAY, bucketMs: 4 * HOUR },
  MAX: { spanMs: null, bucketMs: DAY },
};

/** Price shown when a market has never traded: a fresh, balanced AMM pool prices YES at 0.50. */
export const NO_TRADE_PRICE_TICKS = 50;

export interface Print {
  atMs: number;
  /** Execution price in YES terms, integer ticks 1..99. */
  yesPrice: number;
  /** Micro-shares. */
  quantity: number;
  /** Micro-USDT. */
  notional: number;
}

export type Candle = Model<"Candle">;
/** GET /markets/:id/price-history's data less what the request names (market, outcome, interval). */
export type PriceHistory = Omit<Model<"PriceHistory">, "marketId" | "outcome" | "interval">;

function alignDown(ms: number, size: number): number {
  return Math.floor(ms / size) * size;
}

/** Start of the candle window, or null for MAX (it starts at the first print). */
export function windowStart(interval: Interval, nowMs: number): number | null {
  const { spanMs, bucketMs } = INTERVAL_SPEC[interval];
  return spanMs === null ? null : alignDown(nowMs - spanMs, bucketMs);
}

/** Prints the builder needs: everything since this instant (the window and the last 24 h). */
export function printsSince(interval: Interval, nowMs: number): number {
  const start = windowStart(interval, nowMs);
  return start === null ? 0 : Math.min(start, nowMs - DAY);
}

export interface HistoryInput {
  interval: Interval;
  outcome: Outcome;
  nowMs: number;
  /** Prints at or after `printsSince(interval, nowMs)`, any order. */
  prints: Print[];
  /** The last print before that instant, if any (seeds the first candle's open). */
  prior: Print | null;
}

const ticksToPrice = (ticks: number): number => ticks / 100;

/** Micro-units summed exactly, then shown as a number of units. */
function unitsOf(micros: number[]): number {
  return microToUnits(micros.reduce((a, m) => a + BigInt(m), 0n));
}

export function buildPriceHistory(input: HistoryInput): PriceHistory {
  const { interval, outcome, nowMs } = input;
  const { bucketMs } = INTERVAL_SPEC[interval];
  const tick = (p: Print): number => (outcome === "YES" ? p.yesPrice : 100 - p.yesPrice);
  // A print stamped ahead of this node's clock counts as now: it lands in the current bucket and
  // cannot stretch the grid into the future.
  const prints = input.prints.map((p) => (p.atMs > nowMs ? { ...p, atMs: nowMs } : p)).sort((a, b) => a.atMs - b.atMs);
  const all = input.prior ? [input.prior, ...prints] : prints;
  const last = all.length ? all[all.length - 1] : null;

  const dayAgo = nowMs - DAY;
  const volume24h = unitsOf(prints.filter((p) => p.atMs >= dayAgo && p.atMs <= nowMs).map((p) => p.notional));

  let start = windowStart(interval, nowMs);
  if (start === null) start = all.length ? alignDown(all[0].atMs, bucketMs) : nowMs;

  let carry: number | null = null;
  for (const p of all) if (p.atMs < start) carry = tick(p);
  const inWindow = all.filter((p) => p.atMs >= start!);

  const candles: Candle[] = [];
  let firstTicks: number | null = null;
  let i = 0;
  for (let b = start; b <= nowMs && all.length; b += bucketMs) {
    let o: number | null = null;
    let h = 0;
    let l = 100;
    let c = 0;
    const qty: number[] = [];
    while (i < inWindow.length && inWindow[i].atMs < b + bucketMs) {
      const t = tick(inWindow[i]);
      if (o === null) o = t;
      h = Math.max(h, t);
      l = Math.min(l, t);
      c = t;
      qty.push(inWindow[i].quantity);
      i++;
    }
    if (o === null) {
      if (carry === null) continue;
      o = h = l = c = carry;
    }
    if (firstTicks === null) firstTicks = o;
    carry = c;
    candles.push({
      timestamp: new Date(b).toISOString(),
      open: ticksToPrice(o),
      high: ticksToPrice(h),
      low: ticksToPrice(l),
      close: ticksToPrice(c),
      volume: unitsOf(qty),
    });
  }

  const currentTicks = last ? tick(last) : NO_TRADE_PRICE_TICKS;
  const base = firstTicks ?? currentTicks;
  const diff = currentTicks - base;
  return {
    candles,
    currentPrice: ticksToPrice(currentTicks),
    priceChange: ticksToPrice(diff),
    // Percent of the first price, rounded to 2 decimals from integers.
    priceChangePercent: Math.round((diff * 10_000) / base) / 100,
    volume24h,
  };
}
