/**
 * Memory of the embedded server (every service in one process, NeDB files in a temp DATA_DIR, as
 * `npm start` runs it) at --markets (1,000) markets, --users (100,000) funded users and up to
 * --orders (1,000,000) resting limit orders.
 *
 * How it is filled (through the server's own actions over the bench node's IPC channel, no HTTP):
 *  - markets: catalog.createEvent (the operator action), 10 markets per event;
 *  - users: one deposit entry each (ledger.post, as a confirmed deposit posts it), 1,000 USDT;
 *  - logins: a real ton_proof login (auth.connect) is costly, so only --logins (500) users log in
 *    and the auth records of the rest are extrapolated from them (labelled);
 *  - orders: book.place with the user on ctx.meta exactly as the gateway hands it over (same actor,
 *    ledger lock, journal and commit as POST /orders), BUY YES / BUY NO at 0.30..0.49 so nothing
 *    crosses and every order rests; --concurrency in flight. Placement stops after --seconds (180)
 *    if --orders is not reached, and the figure at --orders is then EXTRAPOLATED linearly from the
 *    per-order growth measured over the second half of the run (labelled as such).
 * RSS is read from /proc after a full GC (the server runs with --expose-gc), with V8's heap figures.
 *
 *   node dist-bench/bench/memory.js [--markets=1000] [--users=100000] [--orders=1000000]
 *                                   [--seconds=180] [--logins=500] [--concurrency=64]
 * Loopback/IPC only; the server is stopped at the end (hard limit 10 minutes).
 */
import { randomBytes } from "node:crypto";
import { BenchNode, runBench, tempDir } from "./lib/proc";
import { TestWallet } from "../test/support/wallet";
import { flags, machine, mib, num } from "./lib/util";

const SHARE = 1_000_000;
const DOMAIN = "bench.local";

type Mem = { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; heapLimit: number };

async function main(): Promise<void> {
  const f = flags();
  const nMarkets = num(f, "markets", 1_000);
  const nUsers = num(f, "users", 100_000);
  const nOrders = num(f, "orders", 1_000_000);
  const seconds = num(f, "seconds", 180);
  const nLogins = Math.min(nUsers, num(f, "logins", 500));
  const concurrency = num(f, "concurrency", 64);
  console.log(`# bench/memory  ${machine()}`);
  console.log(`# target: ${nMarkets} markets, ${nUsers} users, ${nOrders} resting orders; order placement capped at ${seconds} s`);

  const server = await BenchNode.launch(
    "exchange",
    {
      DATA_DIR: tempDir("pmx-bench-mem-"),
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN: DOMAIN,
      JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "false",
      SEED_DEMO: "false",
    },
    { execArgv: ["--expose-gc"] },
  );
  const mem = () => server.ctl<Mem>({ cmd: "mem" });
  const show = (what: string, m: Mem, extra = "") =>
    console.log(
      `${what.padEnd(44)} RSS ${mib(m.rss).padStart(11)}  heap used ${mib(m.heapUsed).padStart(11)}  external ${mib(m.external).padStart(9)}${extra}`,
    );
  const m0 = await mem();
  show("idle embedded server", m0);

  let t = Date.now();
  const markets: string[] = [];
  for (let e = 0; markets.length < nMarkets; e++) {
    const k = Math.min(10, nMarkets - markets.length);
    const ev = await server.call<{ markets: Array<{ id: string }> }>("catalog.createEvent", {
      title: `Memory event ${e}`,
      category: "Tech",
      markets: Array.from({ length: k }, (_, i) => ({ title: `Memory market ${e}-${i}?` })),
    });
    for (const m of ev.markets) markets.push(m.id);
  }
  const m1 = await mem();
  show(`+ ${markets.length} markets`, m1, `  (${((Date.now() - t) / 1000).toFixed(1)} s)`);

  t = Date.now();
  for (let i = 0; i < nLogins; i++)
    await server.call("auth.connect", TestWallet.random().connectBody({ domain: DOMAIN }) as unknown as Record<string, unknown>);
  const mL2 = await mem();
  // RSS moves by whole pages and keeps freed memory, so a small step is read off the V8 heap.
  const perLogin = nLogins ? Math.max(0, mL2.heapUsed - m1.heapUsed) / nLogins : 0;
  show(
    `+ ${nLogins} logins (auth user + session)`,
    mL2,
    `  (${((Date.now() - t) / 1000).toFixed(1)} s, heap ${(perLogin / 1024).toFixed(2)} KiB each)`,
  );

  t = Date.now();
  const users = Array.from({ length: nUsers }, (_, i) => `usr_bench${String(i).padStart(7, "0")}`);
  for (let i = 0; i < users.length; i += 1000)
    await server.ctl({ cmd: "fundMany", userIds: users.slice(i, i + 1000), amount: 1_000 * SHARE });
  const m2 = await mem();
  show(`+ ${nUsers} funded users (ledger accounts)`, m2, `  (${((Date.now() - t) / 1000).toFixed(1)} s)`);

  // Actors loaded for every market (one cheap order each would skew nothing; ensureMarket loads it).
  for (const id of markets) await server.call("book.ensureMarket", { marketId: id });
  const m4 = await mem();
  show(`+ ${markets.length} market actors loaded`, m4);

  const samples: Array<{ orders: number; m: Mem; atMs: number }> = [{ orders: 0, m: m4, atMs: 0 }];
  const chunk = 25_000;
  const t0 = Date.now();
  const deadline = t0 + seconds * 1000;
  let placed = 0;
  let failed = 0;
  let lastError = "";
  while (placed < nOrders && Date.now() < deadline) {
    const r = await server.ctl<{ ok: number; failed: number; lastError: string }>({
      cmd: "placeMany",
      count: Math.min(chunk, nOrders - placed),
      markets,
      users,
      seed: 1 + placed,
      concurrency,
      maxMs: deadline - Date.now(),
      offset: placed,
    });
    placed += r.ok;
    failed += r.failed;
    if (r.lastError) lastError = r.lastError;
    const m = await mem();
    samples.push({ orders: placed, m, atMs: Date.now() - t0 });
    const rate = (placed * 1000) / (Date.now() - t0);
    show(
      `  ${placed} resting orders`,
      m,
      `  (${((Date.now() - t0) / 1000).toFixed(0)} s, ${rate.toFixed(0)} orders/s${failed ? `, ${failed} failed: ${lastError}` : ""})`,
    );
    if (r.ok === 0) break;
  }
  const last = samples[samples.length - 1];
  // Growth per order over the second half of the run (past warm-up and one-off allocations).
  const mid = samples.find((s) => s.orders >= last.orders / 2) ?? samples[0];
  const dOrders = last.orders - mid.orders;
  const perOrder = dOrders > 0 ? (last.m.rss - mid.m.rss) / dOrders : NaN;
  const perOrderHeap = dOrders > 0 ? (last.m.heapUsed - mid.m.heapUsed) / dOrders : NaN;
  const loginsRest = perLogin * (nUsers - nLogins);

  console.log("\n## summary");
  console.log(
    `idle server RSS ${mib(m0.rss)}; heap growth: ${markets.length} markets ${mib(m1.heapUsed - m0.heapUsed)}, ` +
      `${nLogins} logins ${mib(mL2.heapUsed - m1.heapUsed)}, ${nUsers} funded users ${mib(m2.heapUsed - mL2.heapUsed)} (${((m2.heapUsed - mL2.heapUsed) / nUsers / 1024).toFixed(2)} KiB each)`,
  );
  console.log(
    `measured: RSS ${mib(last.m.rss)} (heap used ${mib(last.m.heapUsed)}) with ${markets.length} markets, ${nUsers} users (${nLogins} logged in), ${last.orders} resting orders`,
  );
  console.log(
    `per resting order (second half of the run): RSS ${(perOrder / 1024).toFixed(2)} KiB, heap ${(perOrderHeap / 1024).toFixed(2)} KiB; placement ${((last.orders * 1000) / Math.max(1, last.atMs)).toFixed(0)} orders/s`,
  );
  if (last.orders < nOrders || nLogins < nUsers) {
    const est = last.m.rss + (nOrders - last.orders) * perOrder + loginsRest;
    const estHeap = last.m.heapUsed + (nOrders - last.orders) * perOrderHeap + loginsRest;
    console.log(
      `EXTRAPOLATED V8 heap used ~${mib(estHeap)} of this process's heap limit ${mib(last.m.heapLimit)}${estHeap > 0.8 * last.m.heapLimit ? " (near or over the limit: the default heap would not hold it)" : ""}`,
    );
    console.log(
      `EXTRAPOLATED (linear, not measured): RSS ~${mib(est)} at ${nOrders} resting orders and ${nUsers} logged-in users ` +
        `(+${mib((nOrders - last.orders) * perOrder)} for ${nOrders - last.orders} more orders at the per-order RSS growth above, +${mib(loginsRest)} for ${nUsers - nLogins} more logins at ${(perLogin / 1024).toFixed(2)} KiB of heap each)`,
    );
  } else {
    console.log(`all ${nOrders} orders placed: RSS ${mib(last.m.rss)} measured`);
  }
}

runBench(main, 10 * 60_000);
