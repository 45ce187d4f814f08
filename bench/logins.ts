/**
 * Memory per login: the embedded server (as `npm start` runs it, NeDB files in a temp DATA_DIR)
 * takes --logins (100,000) real ton_proof logins of fresh wallets over HTTP (POST /auth/connect,
 * each proof signed here by a software wallet), each followed by --requests (1) authenticated
 * request (GET /balance: the gateway's session check, verified-token cache and per-user rate
 * window). Memory is read after a full GC (the server runs with --expose-gc): RSS from /proc and
 * V8's heap, before and after, every --sample logins, with the auth stores' record counts and the
 * gateway's caches. A run stopped by --seconds before --logins reports what it measured and
 * extrapolates linearly from the per-login growth (labelled).
 *
 *   node dist-bench/bench/logins.js [--logins=100000] [--requests=1] [--concurrency=8] [--sample=10000] [--seconds=3000]
 * Loopback only; the server is stopped at the end.
 */
import { randomBytes } from "node:crypto";
import { BenchNode, runBench, tempDir } from "./lib/proc";
import { TestWallet } from "../test/support/wallet";
import { flags, machine, mib, num } from "./lib/util";

const DOMAIN = "bench.local";

type Mem = { rss: number; heapUsed: number; external: number };
type Counts = { users: number; sessions: number; usedProofs: number; gatewaySessions: number; verifiedTokens: number };

async function main(): Promise<void> {
  const f = flags();
  const target = num(f, "logins", 100_000);
  const requests = num(f, "requests", 1);
  const concurrency = num(f, "concurrency", 8);
  const sample = num(f, "sample", 10_000);
  const seconds = num(f, "seconds", 3000);
  console.log(`# bench/logins  ${machine()}`);
  console.log(`# ${target} logins of fresh wallets over HTTP, ${requests} authenticated request(s) each, ${concurrency} at a time`);

  const server = await BenchNode.launch(
    "exchange",
    {
      DATA_DIR: tempDir("pmx-bench-logins-"),
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN: DOMAIN,
      JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "false",
      SEED_DEMO: "false",
      // One client address logs everyone in: the read budget (where logins count) out of the way.
      RATE_LIMIT_READ: "1000000000",
    },
    { execArgv: ["--expose-gc"] },
  );
  const mem = () => server.ctl<Mem>({ cmd: "mem" });
  const counts = () => server.ctl<Counts>({ cmd: "authCounts" });
  const line = (what: string, m: Mem, c: Counts) =>
    console.log(
      `${what.padEnd(22)} RSS ${mib(m.rss).padStart(10)}  heap ${mib(m.heapUsed).padStart(10)}  external ${mib(m.external).padStart(8)}  ` +
        `users ${c.users} sessions ${c.sessions} usedProofs ${c.usedProofs} gateway sessions ${c.gatewaySessions} verified tokens ${c.verifiedTokens}`,
    );

  let done = 0;
  const loginOne = async () => {
    const r = await server.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
    for (let k = 0; k < requests; k++) {
      const b = await server.http("GET", "/api/v1/balance", { token: r.body.data.accessToken });
      if (b.status !== 200) throw new Error(`authenticated request failed: ${b.status} ${JSON.stringify(b.body)}`);
    }
    done++;
  };
  const run = async (n: number, deadline: number) => {
    const stop = done + n;
    let next = done;
    const worker = async () => {
      while (next < stop && Date.now() < deadline) {
        next++;
        await loginOne();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };

  // Warm-up: code paths compiled, caches and stores created.
  await run(200, Infinity);
  const m0 = await mem();
  const c0 = await counts();
  const base = done;
  line(`${done} logins (warm-up)`, m0, c0);

  const t0 = Date.now();
  const deadline = t0 + seconds * 1000;
  const samples: Array<{ logins: number; m: Mem }> = [{ logins: 0, m: m0 }];
  while (done - base < target && Date.now() < deadline) {
    await run(Math.min(sample, target - (done - base)), deadline);
    const m = await mem();
    samples.push({ logins: done - base, m });
    line(`+${done - base} logins`, m, await counts());
    console.log(`  (${((Date.now() - t0) / 1000).toFixed(0)} s, ${(((done - base) * 1000) / (Date.now() - t0)).toFixed(0)} logins/s)`);
  }
  const last = samples[samples.length - 1];
  const n = last.logins;
  const perRss = (last.m.rss - m0.rss) / n;
  const perHeap = (last.m.heapUsed - m0.heapUsed) / n;
  // Per-login growth over the second half too: past one-off allocations (JIT, pools).
  const mid = samples.find((s) => s.logins >= n / 2) ?? samples[0];
  const halfHeap = n > mid.logins ? (last.m.heapUsed - mid.m.heapUsed) / (n - mid.logins) : NaN;
  const swept = await server.ctl<number>({ cmd: "authSweep" });
  const m1 = await mem();
  const c1 = await counts();
  line(`after a sweep (-${swept})`, m1, c1);

  console.log("\n## summary");
  console.log(
    `${n} logins (+${n * requests} authenticated requests): RSS ${mib(m0.rss)} -> ${mib(last.m.rss)}, heap ${mib(m0.heapUsed)} -> ${mib(last.m.heapUsed)}; ` +
      `per login: RSS ${(perRss / 1024).toFixed(2)} KiB, heap ${(perHeap / 1024).toFixed(2)} KiB (second half ${(halfHeap / 1024).toFixed(2)} KiB)`,
  );
  console.log(
    `records per login: users ${((c1.users - c0.users) / n).toFixed(2)}, sessions ${((c1.sessions - c0.sessions) / n).toFixed(2)} ` +
      `(kept to their expiry + 1 day, at most 10 per user), used proofs ${c1.usedProofs} now (dropped 10 minutes past their timestamp); ` +
      `gateway caches: sessions ${c1.gatewaySessions} (at most 100,000), verified tokens ${c1.verifiedTokens} (at most 50,000)`,
  );
  if (n < target)
    console.log(
      `EXTRAPOLATED (linear, not measured): heap +${mib(perHeap * target)}, RSS ~${mib(m0.rss + perRss * target)} at ${target} logins (stopped by --seconds at ${n})`,
    );
}

runBench(main, 4 * 60 * 60_000);
