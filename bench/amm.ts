/**
 * AMM and router benchmark: AMM quotes/s (buy and sell, both outcomes, random sizes), depth-to-price
 * searches/s, and router plans/s against a realistic book (20 levels a side around the pool's
 * 0.50, 2k resting orders; 2k-USDT pools at various prices) with and without the book sweep. Inputs are generated up front.
 * Plain TS: compile with tsc and run with node (no loader needed), e.g.
 *   npx tsc --outDir /tmp/bench --module commonjs --target es2022 --strict --skipLibCheck bench/amm.ts && node /tmp/bench/bench/amm.js
 */
import { rng } from "./lib/util";
import { createPool, maxBuyUpToPrice, maxSellDownToPrice, quote, type PoolState } from "../engine/amm";
import { OrderBook } from "../engine/book";
import { LOT } from "../engine/money";
import { planRoute, type BookLevel } from "../engine/router";
import type { Outcome, Side } from "../engine/types";

const SHARE = 1_000_000;

interface Req {
  side: Side;
  outcome: Outcome;
  quantity: number;
  pool: PoolState;
  tick: number;
}

function requests(seed: number, n: number): Req[] {
  const r = rng(seed);
  // Pools after a random walk from 2k USDT of liquidity (small next to the book, so orders split),
  // prices spread over ~0.35..0.65.
  const pools: PoolState[] = [];
  let p = createPool(2_000 * SHARE);
  for (let i = 0; i < 64; i++) {
    const q = quote(p, r() < 0.5 ? "BUY" : "SELL", r() < 0.5 ? "YES" : "NO", (1 + Math.floor(r() * 300)) * SHARE, 0);
    if (q.ok) p = q.newState;
    pools.push(p);
  }
  const out: Req[] = [];
  for (let i = 0; i < n; i++) {
    // Order sizes 0.01..1000 shares, log-uniform-ish.
    const shares = Math.exp(r() * Math.log(100_000)) / 100;
    out.push({
      side: r() < 0.5 ? "BUY" : "SELL",
      outcome: r() < 0.5 ? "YES" : "NO",
      quantity: Math.max(1, Math.round((shares * SHARE) / LOT)) * LOT,
      pool: pools[i & 63],
      tick: 30 + Math.floor(r() * 41),
    });
  }
  return out;
}

function rate(n: number, fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return (n * 1e9) / Number(process.hrtime.bigint() - t0);
}

/** A book with 20 YES levels a side around 0.50 (asks 51..70, bids 49..30), 50 orders per level. */
function realisticBook(seed: number): OrderBook {
  const r = rng(seed);
  const book = new OrderBook("bench");
  let id = 0;
  for (let d = 1; d <= 20; d++)
    for (let k = 0; k < 50; k++) {
      const q = (1 + Math.floor(r() * 200)) * (SHARE / 10);
      const asYes = r() < 0.5;
      // ask at 50 + d (YES), as SELL YES or BUY NO; bid at 50 - d, as BUY YES or SELL NO.
      book.place({
        orderId: `a${id++}`,
        userId: `u${k}`,
        side: asYes ? "SELL" : "BUY",
        outcome: asYes ? "YES" : "NO",
        price: asYes ? 50 + d : 50 - d,
        quantity: q,
        orderType: "GTC",
      });
      book.place({
        orderId: `b${id++}`,
        userId: `u${k}`,
        side: asYes ? "BUY" : "SELL",
        outcome: asYes ? "YES" : "NO",
        price: asYes ? 50 - d : 50 + d,
        quantity: q,
        orderType: "GTC",
      });
    }
  return book;
}

function main(): void {
  const n = Number(process.argv[2] ?? 200_000);
  const reqs = requests(42, n);
  let sink = 0;
  const quotes = (): void => {
    for (const q of reqs) {
      const r = quote(q.pool, q.side, q.outcome, q.quantity, 100);
      if (r.ok) sink += r.net;
    }
  };
  const depth = (): void => {
    for (const q of reqs)
      sink += q.side === "BUY" ? maxBuyUpToPrice(q.pool, q.outcome, q.tick + 5) : maxSellDownToPrice(q.pool, q.outcome, q.tick - 5);
  };
  const book = realisticBook(7);
  // Levels as the router gets them: swept per (side, outcome) for the whole order (Infinity = all depth).
  const swept = new Map<string, BookLevel[]>();
  for (const s of ["BUY", "SELL"] as const) for (const o of ["YES", "NO"] as const) swept.set(s + o, book.sweep(s, o, Infinity).levels);
  const venues = { takerBps: 200, ammFeeBps: 100 };
  const venueCount: Record<string, number> = { CLOB: 0, AMM: 0, HYBRID: 0, refused: 0 };
  const plans = (): void => {
    for (const q of reqs) {
      const p = planRoute(
        { side: q.side, outcome: q.outcome, quantity: q.quantity },
        { ...venues, pool: q.pool, levels: swept.get(q.side + q.outcome)! },
      );
      if (p.ok) {
        sink += p.net;
        venueCount[p.venue]++;
      } else venueCount.refused++;
    }
  };
  const sweepAndPlan = (): void => {
    for (const q of reqs) {
      const levels = book.sweep(q.side, q.outcome, q.quantity, { excludeUserId: "u0" }).levels;
      const p = planRoute({ side: q.side, outcome: q.outcome, quantity: q.quantity }, { ...venues, pool: q.pool, levels });
      if (p.ok) sink += p.net;
    }
  };
  // Warm the JIT.
  for (const f of [quotes, depth, plans, sweepAndPlan]) f();
  for (const k of Object.keys(venueCount)) venueCount[k] = 0;
  const kq = rate(n, quotes);
  const kd = rate(n, depth);
  const kp = rate(n, plans);
  const ks = rate(n, sweepAndPlan);
  const f = (x: number) => `${(x / 1000).toFixed(0)}k/s`;
  console.log(`AMM quote (buy/sell, 0.01..1000 shares)   ${f(kq)}`);
  console.log(`AMM maxBuyUpTo/maxSellDownTo              ${f(kd)}`);
  console.log(
    `router plan (20 levels a side + AMM)      ${f(kp)}  (${Object.entries(venueCount)
      .map(([k, v]) => `${k} ${((100 * v) / n).toFixed(0)}%`)
      .join(", ")})`,
  );
  console.log(`book.sweep + router plan                  ${f(ks)}`);
  if (sink === 42) console.log(""); // keep the work observable
}

main();
