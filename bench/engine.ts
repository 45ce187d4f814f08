/**
 * Matching-core benchmark, side by side with nodejs-order-book on the SAME pre-generated commands.
 *
 * Workload (seeded, reproducible): GTC placements around a mid price that random-walks every 200
 * commands, about 15% of them priced to cross; FOK orders priced 2 ticks through the mid; cancels
 * of orders placed earlier (some already filled: the reject path). Two books:
 *   shallow: starts empty, mid wanders over 35..65, about 2,000 orders rest on ~40 levels;
 *   deep:    starts with --deep (200,000) resting orders on 8 levels (bids 46..49, asks 51..54,
 *            ~25,000 orders per level), mid within 48..52, so every trade and most cancels hit
 *            those long queues (what a 99-tick binary market produces).
 *
 * nodejs-order-book is a one-sided-pair book; commands are mapped the way the YES view does:
 * BUY YES p -> buy p, SELL YES p -> sell p, BUY NO q -> sell 100-q, SELL NO q -> buy 100-q; FOK ->
 * its FOK time in force; cancel -> cancel by id; self-trade prevention EXPIRE_MAKER with the user
 * as account (our rule: the resting order of the same user is cancelled, the taker continues).
 * Known differences: its FOK check counts the taker's own resting orders (ours does not), so a
 * few FOKs differ; the end-of-run resting counts are printed for both as a sanity check.
 *
 * This engine runs twice: "this engine" through placeReusing / cancelReusing (lib/reusing-book.ts:
 * events left in the book's reused buffer, read before the next command), "this, place()" through place / cancel,
 * which return fresh event objects as the market actor uses them today (--no-place skips it).
 *
 * Per engine and book: warm-up on a separate seed, then a full GC (the workload's garbage is not
 * the engine's), then
 *   throughput: one timed loop over the commands (no per-command timer), commands/s;
 *   service time: closed loop, each command timed alone (p50/p99/p99.9, HDR-style histogram);
 *   response time: open loop at --rate commands/s (default 1,000,000/s), each command's latency
 *     measured from its SCHEDULED start, so a stall delays every command queued behind it (no
 *     coordinated omission). The wait before a command is a calibrated busy loop, not clock
 *     polling (see spin). An engine slower than --rate is driven at half its own throughput
 *     instead, and says so. GC pauses inside each pass are printed.
 * A clock read costs ~40 ns here and is included in the latencies ("timer floor" below).
 * A slow engine stops a pass after --budget seconds and is measured on the prefix it got through.
 *
 *   node dist-bench/bench/engine.js [--n=1000000] [--deep=200000] [--rate=1000000] [--budget=8]
 *                                   [--only=shallow|deep] [--no-baseline] [--no-place]
 */
import { OrderBook } from "../engine/book";
import { ReusingOrderBook } from "./lib/reusing-book";
import type { Order, OrderType } from "../engine/types";
import { OrderBook as NobBook, SelfTradePreventionMode, Side as NobSide, type LimitOrderOptions } from "nodejs-order-book";
import { Histogram } from "./lib/histogram";
import { flags, fmtRate, fmtRatio, machine, mark, num, rng } from "./lib/util";
import { performance, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full collection before each timed pass, so the garbage left by building the workloads (and by
 * the previous pass) is not collected inside the next one; whatever the engine allocates itself is
 * still collected, and counted, within its pass.
 */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (opts?: { type: "major" | "minor" }) => void;

/**
 * Full GC first, then the fresh book, then only a scavenge: a full GC that frees objects the
 * optimised engine code embedded deoptimises that code, and the pass would start interpreted.
 * Building the book re-optimises it.
 */
function collectBefore(e: Engine, s: Scenario): void {
  gc({ type: "major" });
  e.fresh(s);
  gc({ type: "minor" });
}

/** Every GC pause, to say how much of a pass (and of its latency tail) was the collector. */
const gcPauses: PerformanceEntry[] = [];
new PerformanceObserver((list) => gcPauses.push(...list.getEntries())).observe({ entryTypes: ["gc"] });
const flushObservers = (): Promise<void> => new Promise((r) => setImmediate(() => setImmediate(r)));
function gcBetween(fromMs: number, toMs: number): string {
  let count = 0;
  let total = 0;
  let max = 0;
  for (const e of gcPauses) {
    if (e.startTime < fromMs || e.startTime > toMs) continue;
    count++;
    total += e.duration;
    if (e.duration > max) max = e.duration;
  }
  return `GC ${count} pauses, ${total.toFixed(0)} ms (${((100 * total) / (toMs - fromMs)).toFixed(0)}% of the pass), longest ${max.toFixed(1)} ms`;
}

const SHARE = 1_000_000;

/**
 * Nanoseconds from an arbitrary origin. process.hrtime() inlines and its array is optimised away;
 * performance.now() boxes every reading, and at ~20 readings per command the open loop's spin
 * would then fill the young generation every ~50 ms and stall on scavenges the engine never caused.
 */
function nowNs(): number {
  const t = process.hrtime();
  return t[0] * 1e9 + t[1];
}

const enum Kind {
  GTC = 0,
  FOK = 1,
  CANCEL = 2,
}
const KIND_NAMES = ["GTC", "FOK", "cancel"];

type Cmd = { kind: Kind.GTC | Kind.FOK; order: Order } | { kind: Kind.CANCEL; orderId: string; userId: string };

interface Scenario {
  name: string;
  preload: Order[];
  cmds: Cmd[];
}

const clampTick = (t: number): number => (t < 1 ? 1 : t > 99 ? 99 : t);

/** A YES-view bid/ask at tick t, randomly expressed as either a YES or a NO order. */
function yesViewOrder(
  r: () => number,
  orderId: string,
  userId: string,
  bid: boolean,
  t: number,
  quantity: number,
  orderType: OrderType,
): Order {
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
  for (let i = 0; i < deepOrders; i++) {
    const bid = (i & 1) === 0;
    const t = bid ? 49 - ((r() * 4) | 0) : 51 + ((r() * 4) | 0);
    const o = yesViewOrder(r, `p${i}`, user(), bid, t, qty(), "GTC");
    preload.push(o);
    pool.push({ id: o.orderId, user: o.userId });
  }
  const cmds: Cmd[] = [];
  const target = deepOrders > 0 ? Infinity : 2_000;
  let mid = 50;
  const [lo, hi] = deepOrders > 0 ? [48, 52] : [35, 65];
  for (let i = 0; i < n; i++) {
    if (i % 200 === 0) mid = Math.min(hi, Math.max(lo, mid + (r() < 0.5 ? -1 : 1)));
    const p = r();
    // Cancels roughly balance passive adds; above the target size they outnumber them, so the
    // shallow book stays at about 2,000 orders (the deep one stays near its preload without).
    const extraCancel = p >= 0.48 && pool.length > target && r() < 0.2;
    if ((p < 0.4 || extraCancel) && pool.length > 0) {
      const k = (r() * pool.length) | 0;
      cmds.push({ kind: Kind.CANCEL, orderId: pool[k].id, userId: pool[k].user });
      pool[k] = pool[pool.length - 1];
      pool.pop();
      continue;
    }
    const bid = r() < 0.5;
    const u = user();
    const id = `c${next++}`;
    if (p < 0.48) {
      cmds.push({ kind: Kind.FOK, order: yesViewOrder(r, id, u, bid, clampTick(bid ? mid + 2 : mid - 2), qty(), "FOK") });
      continue;
    }
    const crossing = r() < 0.15;
    const off = 1 + ((r() * 5) | 0);
    const t = clampTick(crossing ? (bid ? mid + 1 : mid - 1) : bid ? mid - off : mid + off);
    cmds.push({ kind: Kind.GTC, order: yesViewOrder(r, id, u, bid, t, qty(), "GTC") });
    pool.push({ id, user: u });
  }
  return { name, preload, cmds };
}

/** One engine under test: a fresh book with the preload, then commands by index. */
interface Engine {
  name: string;
  fresh(s: Scenario): void;
  exec(i: number): void;
  resting(): number;
}

/**
 * This book through placeReusing / cancelReusing (events left in the book's reused buffer, read
 * before the next command: what a caller on the hot path uses), or through place / cancel, which
 * return fresh event objects (what the market actor uses today).
 */
function ours(fresh: boolean): Engine {
  let book = new OrderBook("bench");
  let reusing = new ReusingOrderBook("bench");
  let cmds: Cmd[] = [];
  return {
    name: fresh ? "this, place()" : "this engine",
    fresh(s) {
      cmds = s.cmds;
      if (fresh) {
        book = new OrderBook("bench");
        for (const o of s.preload) book.place(o);
      } else {
        reusing = new ReusingOrderBook("bench");
        for (const o of s.preload) reusing.placeReusing(o);
      }
    },
    exec: fresh
      ? (i) => {
          const c = cmds[i];
          if (c.kind === Kind.CANCEL) book.cancel(c.orderId, c.userId);
          else book.place(c.order);
        }
      : (i) => {
          const c = cmds[i];
          if (c.kind === Kind.CANCEL) reusing.cancelReusing(c.orderId, c.userId);
          else reusing.placeReusing(c.order);
        },
    resting: () => (fresh ? book.size : reusing.size),
  };
}

type NobOp = { cancel: true; id: string } | { cancel: false; o: LimitOrderOptions };

function nobOrder(o: Order): LimitOrderOptions {
  const yesBid = (o.side === "BUY") === (o.outcome === "YES");
  const price = o.outcome === "YES" ? o.price : 100 - o.price;
  return {
    id: o.orderId,
    side: yesBid ? NobSide.BUY : NobSide.SELL,
    size: o.quantity,
    price,
    timeInForce: o.orderType as LimitOrderOptions["timeInForce"],
    accountId: o.userId,
    stpMode: SelfTradePreventionMode.EXPIRE_MAKER,
  } as LimitOrderOptions;
}

function baseline(): Engine {
  let book = new NobBook();
  let ops: NobOp[] = [];
  const cache = new WeakMap<Scenario, NobOp[]>();
  return {
    name: "nodejs-order-book",
    fresh(s) {
      let o = cache.get(s);
      if (!o) {
        o = s.cmds.map((c): NobOp => (c.kind === Kind.CANCEL ? { cancel: true, id: c.orderId } : { cancel: false, o: nobOrder(c.order) }));
        cache.set(s, o);
      }
      ops = o;
      book = new NobBook();
      for (const p of s.preload) book.limit(nobOrder(p));
    },
    exec(i) {
      const op = ops[i];
      if (op.cancel) book.cancel(op.id);
      else book.limit(op.o);
    },
    resting: () => Object.keys((book as unknown as { orders: object }).orders).length,
  };
}

interface PassResult {
  done: number;
  perSec: number;
  /** The timed part, in performance.now() ms, to attribute GC pauses. */
  fromMs: number;
  toMs: number;
}

function throughput(e: Engine, s: Scenario, budgetNs: number): PassResult {
  collectBefore(e, s);
  const n = s.cmds.length;
  const fromMs = performance.now();
  const t0 = nowNs();
  let i = 0;
  for (; i < n; i++) {
    e.exec(i);
    if ((i & 1023) === 1023 && nowNs() - t0 > budgetNs) {
      i++;
      break;
    }
  }
  const ns = nowNs() - t0;
  return { done: i, perSec: (i * 1e9) / ns, fromMs, toMs: performance.now() };
}

/** Closed loop: each command timed on its own. */
function serviceTime(e: Engine, s: Scenario, budgetNs: number): { all: Histogram; byKind: Histogram[]; done: number } {
  collectBefore(e, s);
  const all = new Histogram();
  const byKind = [new Histogram(), new Histogram(), new Histogram()];
  const t0 = nowNs();
  let i = 0;
  for (; i < s.cmds.length; i++) {
    const a = nowNs();
    e.exec(i);
    const b = nowNs();
    all.record(b - a);
    byKind[s.cmds[i].kind].record(b - a);
    if ((i & 1023) === 1023 && b - t0 > budgetNs) {
      i++;
      break;
    }
  }
  return { all, byKind, done: i };
}

/**
 * Busy-wait that reads no clock. Polling the clock while waiting allocates (a boxed double or
 * hrtime's array per reading wherever V8 does not inline it), ~20 readings per command at 1 M/s,
 * and those scavenges would land in the engine's latencies. `spinNs` is calibrated per pass and
 * rounded so waits run long, never short: a late start only adds to the measured latency.
 */
let spinSink = 0;
function spin(iterations: number): void {
  let x = spinSink;
  for (let k = 0; k < iterations; k++) x = (Math.imul(x, 1664525) + 1013904223) | 0;
  spinSink = x;
}

/** Fastest observed ns per spin iteration (so computed waits err long). */
function calibrateSpin(): number {
  let best = Infinity;
  for (let k = 0; k < 20; k++) {
    const a = nowNs();
    spin(100_000);
    const ns = (nowNs() - a) / 100_000;
    if (ns < best) best = ns;
  }
  return best;
}

/**
 * The open loop's schedule and last completion, kept in a typed array and updated by a helper that
 * takes an index and returns nothing: a double returned from or passed to a call V8 did not inline
 * is boxed, and one box per command is a scavenge every million commands inside the pass.
 */
const schedule = new Float64Array(3); // [start ns, interval ns, last completion ns]

function completeCommand(i: number, h: Histogram): void {
  const end = nowNs();
  schedule[2] = end;
  h.record(end - (schedule[0] + i * schedule[1]));
}

/** Open loop at `rate`/s: latency from each command's scheduled start to its completion. */
function responseTime(
  e: Engine,
  s: Scenario,
  rate: number,
  budgetNs: number,
): { h: Histogram; done: number; fromMs: number; toMs: number } {
  collectBefore(e, s);
  const spinNs = calibrateSpin();
  const h = new Histogram();
  const fromMs = performance.now();
  const t0 = nowNs();
  schedule[0] = t0;
  schedule[1] = 1e9 / rate;
  schedule[2] = t0;
  let i = 0;
  for (; i < s.cmds.length; i++) {
    const intended = t0 + i * schedule[1];
    // One clock reading per command: the wait is counted from the previous completion.
    if (schedule[2] < intended) spin(Math.ceil((intended - schedule[2]) / spinNs));
    e.exec(i);
    completeCommand(i, h);
    if ((i & 1023) === 1023 && schedule[2] - t0 > budgetNs) {
      i++;
      break;
    }
  }
  return { h, done: i, fromMs, toMs: performance.now() };
}

const us = (ns: number): string => (ns / 1000).toFixed(2);
const pcts = (h: Histogram): string =>
  `p50 ${us(h.quantile(0.5))}  p99 ${us(h.quantile(0.99))}  p99.9 ${us(h.quantile(0.999))}  max ${us(h.max)} us`;

interface Row {
  engine: string;
  book: string;
  perSec: number;
  done: number;
  svc: Histogram;
  resp: Histogram;
  rate: number;
  resting: number;
}

async function main(): Promise<void> {
  const f = flags();
  const n = num(f, "n", 1_000_000);
  const deep = num(f, "deep", 200_000);
  const rate = num(f, "rate", 1_000_000);
  const budgetNs = num(f, "budget", 8) * 1e9;
  const only = f.only;
  const withBaseline = !f["no-baseline"];
  console.log(`# bench/engine  ${machine()}`);
  console.log(`# ${n} commands per book, deep preload ${deep}, open-loop rate ${fmtRate(rate)}, budget ${budgetNs / 1e9}s per pass`);

  // Only the books asked for: every generated command stays on the heap, and a bigger heap makes
  // every scavenge inside a timed pass slower.
  const scenarios = [
    ...(!only || only === "shallow" ? [workload("shallow", 42, n, 0)] : []),
    ...(!only || only === "deep" ? [workload("deep", 7, n, deep)] : []),
  ];
  for (const s of scenarios) {
    const k = [0, 0, 0];
    for (const c of s.cmds) k[c.kind]++;
    console.log(`# ${s.name}: ${s.preload.length} preloaded; GTC ${k[0]}, FOK ${k[1]}, cancel ${k[2]}`);
  }
  const warm = workload("warmup", 1, 300_000, 20_000);
  const engines: Engine[] = [ours(false), ...(f["no-place"] ? [] : [ours(true)]), ...(withBaseline ? [baseline()] : [])];

  // Timer floor: the same loops around an empty command.
  const empty: Engine = { name: "empty", fresh() {}, exec() {}, resting: () => 0 };
  serviceTime(empty, warm, budgetNs);
  const floor = serviceTime(empty, warm, budgetNs).all;
  console.log(`# timer floor (two clock reads around nothing): p50 ${us(floor.quantile(0.5))} us, p99 ${us(floor.quantile(0.99))} us`);

  const rows: Row[] = [];
  for (const e of engines) {
    // Warm-up: JIT both the engine and the measuring loops on another seed.
    throughput(e, warm, budgetNs / 4);
    serviceTime(e, warm, budgetNs / 4);
    // The open loop too: run cold, it would be interpreted until OSR and start the pass behind.
    responseTime(e, warm, rate, budgetNs / 4);
    for (const s of scenarios) {
      const t = throughput(e, s, budgetNs);
      const resting = e.resting();
      const svc = serviceTime(e, s, budgetNs);
      const driveAt = t.perSec >= rate ? rate : Math.max(1000, Math.floor(t.perSec / 2));
      const resp = responseTime(e, s, driveAt, budgetNs);
      await flushObservers();
      rows.push({ engine: e.name, book: s.name, perSec: t.perSec, done: t.done, svc: svc.all, resp: resp.h, rate: driveAt, resting });
      const partial = t.done < s.cmds.length ? ` (budget: first ${t.done} of ${s.cmds.length} commands)` : "";
      console.log(
        `${e.name.padEnd(18)} ${s.name.padEnd(8)} ${fmtRate(t.perSec).padStart(9)} commands/s${partial}, resting at end ${resting}; ${gcBetween(t.fromMs, t.toMs)}`,
      );
      console.log(`${"".padEnd(27)} service time   ${pcts(svc.all)}`);
      console.log(`${"".padEnd(27)} by kind p99    ${svc.byKind.map((h, i) => `${KIND_NAMES[i]} ${us(h.quantile(0.99))}`).join("  ")} us`);
      console.log(
        `${"".padEnd(27)} response @${fmtRate(driveAt).padEnd(8)} ${pcts(resp.h)}${resp.done < s.cmds.length ? ` (first ${resp.done} commands)` : ""}${driveAt !== rate ? "  [driven at half its throughput]" : ""}`,
      );
      console.log(`${"".padEnd(27)} during the open loop: ${gcBetween(resp.fromMs, resp.toMs)}`);
    }
  }

  console.log("\n## summary (ratios against nodejs-order-book on the same commands)");
  const get = (engine: string, book: string) => rows.find((r) => r.engine === engine && r.book === book);
  for (const s of scenarios) {
    const a = get("this engine", s.name);
    const b = get("nodejs-order-book", s.name);
    if (!a) continue;
    const p99 = a.resp.quantile(0.99);
    const line =
      `${s.name.padEnd(8)} this engine ${fmtRate(a.perSec)} (target >= 2.00M/s: ${mark(a.perSec >= 2e6)}), ` +
      `p99 @${fmtRate(a.rate)} ${us(p99)} us (target < 5 us: ${mark(p99 < 5000)})` +
      (b
        ? `; nodejs-order-book ${fmtRate(b.perSec)}, ratio ${fmtRatio(a.perSec / b.perSec)}${s.name === "deep" ? ` (target >= 10x: ${mark(a.perSec / b.perSec >= 10)})` : ""}`
        : "");
    console.log(line);
    const c = get("this, place()", s.name);
    if (c)
      console.log(
        `${"".padEnd(8)} with fresh event objects (place/cancel): ${fmtRate(c.perSec)}, p99 @${fmtRate(c.rate)} ${us(c.resp.quantile(0.99))} us`,
      );
  }
  const sh = get("this engine", "shallow");
  const dp = get("this engine", "deep");
  if (sh && dp)
    console.log(
      `flatness: deep/shallow throughput ${fmtRatio(dp.perSec / sh.perSec)}, p99 service time ${us(sh.svc.quantile(0.99))} -> ${us(dp.svc.quantile(0.99))} us`,
    );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
