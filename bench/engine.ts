/**
 * Matching-core benchmark: seeded mixed workload (GTC around a moving mid with some crossing,
 * FOK, cancels of recently placed orders) on a shallow book and on a deep book (~200k resting
 * orders on 8 levels). Commands are generated up front so only the book is measured.
 * Plain TS: compile with tsc and run with node (no loader needed).
 */
import { OrderBook } from "../engine/book";
import type { Order, OrderType } from "../engine/types";

const SHARE = 1_000_000;

/** mulberry32: tiny, fast, good enough for workload generation. */
function rng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Cmd = { cancel: false; order: Order } | { cancel: true; orderId: string; userId: string };

interface Scenario {
  name: string;
  preload: Order[];
  cmds: Cmd[];
}

const clampTick = (t: number): number => (t < 1 ? 1 : t > 99 ? 99 : t);

/** A YES-view bid/ask at tick t, randomly expressed as either YES or NO order. */
function yesViewOrder(r: () => number, orderId: string, userId: string, bid: boolean, t: number, quantity: number, orderType: OrderType): Order {
  const asYes = r() < 0.5;
  const side = bid === asYes ? "BUY" : "SELL";
  return { orderId, userId, side, outcome: asYes ? "YES" : "NO", price: asYes ? t : 100 - t, quantity, orderType };
}

function workload(name: string, seed: number, n: number, deepOrders: number): Scenario {
  const r = rng(seed);
  let next = 0;
  const user = (): string => `u${(r() * 1000) | 0}`;
  const qty = (): number => (1 + ((r() * 100) | 0)) * (SHARE / 10);
  const preload: Order[] = [];
  // Cancel candidates: every GTC placed so far (some already filled, which exercises the reject path).
  const pool: Array<{ id: string; user: string }> = [];
  // Deep book: bids on 46..49 and asks on 51..54, ~25k orders per level.
  for (let i = 0; i < deepOrders; i++) {
    const bid = (i & 1) === 0;
    const t = bid ? 49 - ((r() * 4) | 0) : 51 + ((r() * 4) | 0);
    const o = yesViewOrder(r, `p${i}`, user(), bid, t, qty(), "GTC");
    preload.push(o);
    pool.push({ id: o.orderId, user: o.userId });
  }
  const cmds: Cmd[] = [];
  let mid = 50;
  const [lo, hi] = deepOrders > 0 ? [48, 52] : [35, 65];
  for (let i = 0; i < n; i++) {
    if (i % 200 === 0) mid = Math.min(hi, Math.max(lo, mid + (r() < 0.5 ? -1 : 1)));
    const p = r();
    // Cancels roughly balance passive adds so the book stays near its initial depth.
    if (p < 0.4 && pool.length > 0) {
      const k = (r() * pool.length) | 0;
      cmds.push({ cancel: true, orderId: pool[k].id, userId: pool[k].user });
      pool[k] = pool[pool.length - 1];
      pool.pop();
      continue;
    }
    const bid = r() < 0.5;
    const u = user();
    const id = `c${next++}`;
    if (p < 0.48) {
      cmds.push({ cancel: false, order: yesViewOrder(r, id, u, bid, clampTick(bid ? mid + 2 : mid - 2), qty(), "FOK") });
      continue;
    }
    const crossing = r() < 0.15;
    const off = 1 + ((r() * 5) | 0);
    const t = clampTick(crossing ? (bid ? mid + 1 : mid - 1) : bid ? mid - off : mid + off);
    cmds.push({ cancel: false, order: yesViewOrder(r, id, u, bid, t, qty(), "GTC") });
    pool.push({ id, user: u });
  }
  return { name, preload, cmds };
}

/** 10ns buckets up to 1ms; beyond that only counted and max kept. */
class Histogram {
  private readonly buckets = new Uint32Array(100_000);
  private over = 0;
  private count = 0;
  max = 0;
  add(ns: number): void {
    const b = (ns / 10) | 0;
    if (b < this.buckets.length) this.buckets[b]++;
    else this.over++;
    if (ns > this.max) this.max = ns;
    this.count++;
  }
  percentile(p: number): number {
    const target = Math.ceil(this.count * p);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i];
      if (seen >= target) return (i + 1) * 10;
    }
    return this.max;
  }
}

function freshBook(s: Scenario): OrderBook {
  const book = new OrderBook("bench");
  for (const o of s.preload) book.place(o);
  return book;
}

function exec(book: OrderBook, c: Cmd): number {
  return c.cancel ? book.cancel(c.orderId, c.userId).length : book.place(c.order).length;
}

/** Throughput pass: no per-command timer overhead. Returns commands per second. */
function throughput(s: Scenario): { perSec: number; events: number; resting: number } {
  const book = freshBook(s);
  let events = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < s.cmds.length; i++) events += exec(book, s.cmds[i]);
  const ns = Number(process.hrtime.bigint() - t0);
  return { perSec: (s.cmds.length * 1e9) / ns, events, resting: book.size };
}

function latency(s: Scenario): Histogram {
  const book = freshBook(s);
  const h = new Histogram();
  for (let i = 0; i < s.cmds.length; i++) {
    const t0 = process.hrtime.bigint();
    exec(book, s.cmds[i]);
    h.add(Number(process.hrtime.bigint() - t0));
  }
  return h;
}

function main(): void {
  const n = Number(process.argv[2] ?? 1_000_000);
  const only = process.argv[3]; // optional scenario name filter
  const scenarios = [workload("shallow", 42, n, 0), workload("deep", 7, n, 200_000)].filter((s) => !only || s.name === only);
  // Warm the JIT on a separate run so both scenarios see optimized code.
  throughput(workload("warmup", 1, 200_000, 20_000));
  for (const s of scenarios) {
    const t = throughput(s);
    const h = latency(s);
    const us = (ns: number): string => (ns / 1000).toFixed(2);
    console.log(
      `${s.name.padEnd(8)} ${s.cmds.length} cmds  ${(t.perSec / 1e6).toFixed(2)}M cmds/s  ` +
        `p50 ${us(h.percentile(0.5))}us  p99 ${us(h.percentile(0.99))}us  p99.9 ${us(h.percentile(0.999))}us  ` +
        `max ${us(h.max)}us  (events ${t.events}, resting at end ${t.resting}, preload ${s.preload.length})`,
    );
  }
}

main();
