/**
 * What one `POST /orders` costs the embedded server, two builds side by side: event-loop and
 * process CPU per order, bytes the process sent to storage and the money writer's syscalls per
 * order (bench/lib/threads.ts), and, in a separate pass with counting hooks preloaded
 * (bench/lib/probe-hooks.ts), broker contexts created and copied, promises created and bytes
 * allocated per order. Both servers start at once (each its own DATA_DIR, the same markets, users
 * and funding); their timed passes take turns --rounds times, so load from elsewhere falls on both.
 *
 *   node dist-bench/bench/order-cost.js [--base=/path/to/other/checkout] [--orders=3000]
 *        [--connections=16] [--rounds=5] [--users=100] [--events=5] [--profile[=N]]
 * --profile: one more pass per build under V8's CPU profiler, its top N self-time functions printed.
 * --heap[=N]: one more pass per build under V8's sampling heap profiler, the top N allocating functions.
 * --side-profile[=N]: the same profiler in the side node's worker thread, over an order pass and a GET /events pass.
 * --reads=N: each round also reads GET /events N times (first page, not cached) per build: reads/s and
 * CPU per read of the event loop and the side node.
 * Without --base only this build is measured. The other checkout needs its `dist-bench` built.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { BenchNode, login, procCpuSec, runBench, tempDir, until, type BenchUser } from "./lib/proc";
import { orderRequests } from "./lib/orders";
import { flags, machine, num } from "./lib/util";
import { byPackage, topAllocations, topSelf } from "./lib/cpuprofile";
import { sampleThreads, threadsUsed, type ThreadSample } from "./lib/threads";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<{ "2xx": number; non2xx: number; errors: number }>;

const SHARE = 1_000_000;
const DOMAIN = "bench.local";
const ADMIN_KEY = "bench-admin-key";
const HOOKS = join(__dirname, "lib", "probe-hooks.js");

interface Build {
  name: string;
  node: BenchNode;
  users: BenchUser[];
  markets: string[];
  cpu: Array<{ loop: number; side: number; proc: number; disk: number; pwrite: number; syscw: number; rps: number }>;
  reads: Array<{ loop: number; side: number; rps: number }>;
  counts?: Record<string, unknown>;
}

async function launch(name: string, root: string, events: number, nUsers: number, profile: boolean): Promise<Build> {
  const node = await BenchNode.start<BenchNode>(
    {
      PATH: process.env.PATH ?? "",
      NODE_ID: name,
      JWT_SECRET: randomBytes(32).toString("hex"),
      ADMIN_KEY,
      APP_DOMAIN: DOMAIN,
      SEED_DEMO: "false",
      LOG_LEVEL: "false",
      PORT: "0",
      HOST: "127.0.0.1",
      RATE_LIMIT_READ: "1000000000",
      RATE_LIMIT_TRADE: "1000000000",
      DATA_DIR: tempDir("pmx-cost-"),
      ...(process.env.PROBE_STACKS ? { PROBE_STACKS: "1" } : {}),
      ...(profile ? { BENCH_PROFILE: "1" } : {}),
    },
    {
      name,
      script: join(root, "dist-bench", "bench", "lib", "node.js"),
      execArgv: ["--require", HOOKS, "--stack-trace-limit=12"],
      readyTimeoutMs: 120_000,
    },
  );
  await until("gateway", async () => ((await node.http("GET", "/api/v1/events")).status === 200 ? true : null));
  const markets: string[] = [];
  for (let e = 0; e < events; e++) {
    const r = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: `Cost event ${e}`, category: "Tech", markets: [{ title: `Cost market ${e} A?` }, { title: `Cost market ${e} B?` }] },
    });
    if (r.status !== 201) throw new Error(`create event: ${r.status} ${JSON.stringify(r.body)}`);
    for (const m of r.body.data.markets as Array<{ id: string }>) markets.push(m.id);
  }
  const users = await login(node, DOMAIN, nUsers);
  await node.ctl({ cmd: "fundMany", userIds: users.map((u) => u.userId), amount: 1_000_000 * SHARE });
  return { name, node, users, markets, cpu: [], reads: [] };
}

const EVENTS_READ = [{ method: "GET", path: "/api/v1/events" }];

async function pass(
  b: Build,
  orders: number,
  connections: number,
  requests: unknown[] = orderRequests(b.users, b.markets),
): Promise<{ ok: number; used: ThreadSample; proc: number; wall: number }> {
  const t0 = sampleThreads(b.node.pid);
  const p0 = procCpuSec(b.node.pid);
  const w0 = Date.now();
  const r = await autocannon({
    url: b.node.url,
    connections,
    amount: orders,
    pipelining: 1,
    timeout: 30,
    requests,
  });
  const wall = (Date.now() - w0) / 1000;
  if (r.non2xx || r.errors) throw new Error(`${b.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { ok: r["2xx"], used: threadsUsed([t0], [sampleThreads(b.node.pid)]), proc: procCpuSec(b.node.pid) - p0, wall };
}

function probe(b: Build, msg: "start" | "stop"): Promise<Record<string, unknown>> {
  return new Promise((res) => {
    if (msg === "start") {
      b.node.child.send({ probe: "start" });
      // The child handles messages in order: the next pass's requests come after it.
      setTimeout(() => res({}), 200);
      return;
    }
    const on = (m: { probe?: string }) => {
      if (m?.probe !== "counts") return;
      b.node.child.off("message", on);
      res(m as Record<string, unknown>);
    };
    b.node.child.on("message", on);
    b.node.child.send({ probe: "stop" });
  });
}

const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1] : NaN);

async function main(): Promise<void> {
  const f = flags();
  const orders = num(f, "orders", 3000);
  const connections = num(f, "connections", 16);
  const rounds = num(f, "rounds", 5);
  const here = resolve(__dirname, "..", "..");
  const roots: Array<[string, string]> = [["this", here]];
  if (f.base) roots.unshift(["base", resolve(f.base)]);
  console.log(`# bench/order-cost  ${machine()}  ${orders} orders per pass, ${connections} connections, ${rounds} rounds`);
  const builds: Build[] = [];
  const reads = num(f, "reads", 0);
  for (const [name, root] of roots)
    builds.push(await launch(name, root, num(f, "events", 5), num(f, "users", 100), !!f.profile || !!f.heap || !!f["side-profile"]));
  // Warm-up: every market's actor loaded and the JIT warm.
  for (const b of builds) {
    await pass(b, orders, connections);
    if (reads) await pass(b, reads, connections, EVENTS_READ);
  }
  for (let r = 0; r < rounds; r++) {
    for (const b of r % 2 ? [...builds].reverse() : builds) {
      const p = await pass(b, orders, connections);
      const n = p.ok;
      const row = {
        loop: (p.used.cpu.loop * 1e6) / n,
        side: (p.used.cpu.side * 1e6) / n,
        proc: (p.proc * 1e6) / n,
        disk: p.used.io.writeBytes / n,
        pwrite: p.used.writerIo.wchar / n,
        syscw: p.used.writerIo.syscw / n,
        rps: n / p.wall,
      };
      b.cpu.push(row);
      console.log(
        `${b.name.padEnd(5)} round ${r}: loop ${row.loop.toFixed(0)} us, side ${row.side.toFixed(0)} us, process ${row.proc.toFixed(0)} us per order, disk ${(row.disk / 1024).toFixed(1)} KB, pwrite ${(row.pwrite / 1024).toFixed(1)} KB, ${row.syscw.toFixed(1)} writes per order, ${row.rps.toFixed(0)} orders/s`,
      );
      if (reads) {
        const q = await pass(b, reads, connections, EVENTS_READ);
        const read = { loop: (q.used.cpu.loop * 1e6) / q.ok, side: (q.used.cpu.side * 1e6) / q.ok, rps: q.ok / q.wall };
        b.reads.push(read);
        console.log(
          `${b.name.padEnd(5)} round ${r}: GET /events ${read.rps.toFixed(0)} reads/s, loop ${read.loop.toFixed(0)} us, side ${read.side.toFixed(0)} us per read`,
        );
      }
    }
  }
  for (const b of builds) {
    await probe(b, "start");
    const p = await pass(b, orders, connections);
    const c = await probe(b, "stop");
    const byName = Object.entries(c.byName as Record<string, number>)
      .map(([k, v]) => `${k} ${(v / p.ok).toFixed(2)}`)
      .join(", ");
    b.counts = c;
    console.log(
      `${b.name.padEnd(5)} per order: ${((c.contexts as number) / p.ok).toFixed(2)} contexts created, ${((c.copies as number) / p.ok).toFixed(2)} copied, ${((c.promises as number) / p.ok).toFixed(1)} promises, ${((c.allocated as number) / p.ok / 1024).toFixed(1)} KiB allocated (${c.gcs} GCs)\n      contexts by name: ${byName}`,
    );
    for (const [site, n] of (c.promiseSites as Array<[string, number]>) ?? [])
      console.log(`      ${(n / p.ok).toFixed(2).padStart(6)} promises  ${site}`);
  }
  if (f.profile) {
    for (const b of builds) {
      mkdirSync(join(__dirname, "..", "profiles"), { recursive: true });
      const file = join(__dirname, "..", "profiles", `order-cost-${b.name}.cpuprofile`);
      await b.node.ctl({ cmd: "profileStart" });
      await pass(b, orders, connections);
      await b.node.ctl({ cmd: "profileStop", file });
      console.log(`\n# CPU profile of ${b.name}, ${file}`);
      for (const l of byPackage(file, 12)) console.log(`#   ${l}`);
      for (const l of topSelf(file, Number(f.profile) > 1 ? Number(f.profile) : 40)) console.log(`#   ${l}`);
      if (!reads) continue;
      const readsFile = join(__dirname, "..", "profiles", `order-cost-${b.name}-events.cpuprofile`);
      await b.node.ctl({ cmd: "profileStart" });
      await pass(b, reads, connections, EVENTS_READ);
      await b.node.ctl({ cmd: "profileStop", file: readsFile });
      console.log(`\n# CPU profile of ${b.name}, GET /events, ${readsFile}`);
      for (const l of byPackage(readsFile, 12)) console.log(`#   ${l}`);
      for (const l of topSelf(readsFile, Number(f.profile) > 1 ? Number(f.profile) : 40)) console.log(`#   ${l}`);
    }
  }
  if (f["side-profile"]) {
    const top = Number(f["side-profile"]) > 1 ? Number(f["side-profile"]) : 40;
    for (const b of builds) {
      mkdirSync(join(__dirname, "..", "profiles"), { recursive: true });
      const what: Array<[string, number, unknown[] | undefined]> = [["orders", orders, undefined]];
      if (reads) what.push(["events", reads, EVENTS_READ]);
      for (const [kind, n, requests] of what) {
        const file = join(__dirname, "..", "profiles", `order-cost-${b.name}-side-${kind}.cpuprofile`);
        await b.node.ctl({ cmd: "sideProfileStart" });
        await pass(b, n, connections, requests);
        await b.node.ctl({ cmd: "sideProfileStop", file });
        console.log(`\n# CPU profile of ${b.name}'s side node, ${kind}, ${file}`);
        for (const l of byPackage(file, 12)) console.log(`#   ${l}`);
        for (const l of topSelf(file, top)) console.log(`#   ${l}`);
      }
    }
  }
  if (f.heap) {
    for (const b of builds) {
      mkdirSync(join(__dirname, "..", "profiles"), { recursive: true });
      const file = join(__dirname, "..", "profiles", `order-cost-${b.name}.heapprofile`);
      await b.node.ctl({ cmd: "heapStart" });
      const p = await pass(b, orders, connections);
      await b.node.ctl({ cmd: "heapStop", file });
      console.log(`\n# allocations of ${b.name} (sampled), ${file}`);
      for (const l of topAllocations(file, p.ok, Number(f.heap) > 1 ? Number(f.heap) : 30)) console.log(`#   ${l}`);
    }
  }
  console.log("\n## medians per order");
  for (const b of builds) {
    const m = (k: keyof Build["cpu"][number]) => median(b.cpu.map((x) => x[k]));
    console.log(
      `${b.name.padEnd(5)} loop ${m("loop").toFixed(0)} us (${b.cpu.map((x) => x.loop.toFixed(0)).join(", ")}), side ${m("side").toFixed(0)} us (${b.cpu.map((x) => x.side.toFixed(0)).join(", ")}), process ${m("proc").toFixed(0)} us, disk ${(m("disk") / 1024).toFixed(1)} KB, pwrite ${(m("pwrite") / 1024).toFixed(1)} KB, ${m("syscw").toFixed(1)} writes, ${m("rps").toFixed(0)} orders/s`,
    );
    if (b.reads.length) {
      const r = (k: keyof Build["reads"][number]) => median(b.reads.map((x) => x[k]));
      console.log(
        `${b.name.padEnd(5)} GET /events ${r("rps").toFixed(0)} reads/s (${b.reads.map((x) => x.rps.toFixed(0)).join(", ")}), loop ${r("loop").toFixed(0)} us, side ${r("side").toFixed(0)} us per read`,
      );
    }
  }
}

runBench(main, 30 * 60_000);
