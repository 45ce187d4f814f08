/**
 * Socket.IO fan-out benchmark: the embedded exchange in its own process, --clients (10,000)
 * Socket.IO connections subscribed to one market's `market` and `book` channels, spread over
 * --procs client processes, then --orders resting orders placed over HTTP one at a time by a
 * trader (this process), --gap ms apart (longer than the 50 ms coalescing window, so each order is
 * its own push). Order k is BUY YES at (k+1) cents on an empty book, so it becomes the best bid:
 * its book update is the one whose top bid is that price and its price update the one whose
 * sellYesPrice is that price; every client records when each arrived.
 * Reported: for every order and every client, the time from the order's HTTP acknowledgement (and
 * from its send) to the client receiving the book update and the price update, p50/p99/max; how
 * many never arrived; and the server's memory per connection (RSS and V8 heap after a full GC,
 * before vs after connecting; the server runs with --expose-gc).
 * Wall clock via performance.timeOrigin + now() (one host, so the processes share the clock).
 *
 *   node dist-bench/bench/ws.js [--clients=10000] [--orders=40] [--procs=4] [--gap=400] [--channels=market,book] [--fanout=both] [--rounds=1] [--profile]
 * --profile: V8 CPU profile of the server while the orders fan out, and of the first client
 * process over its whole life (the profilers slow both, so the latencies of a profiled run are not
 * comparable), written to dist-bench/profiles/, tops printed.
 * --channels=market,book (default both): the channels each client follows; with one, each order is
 * one message per socket instead of two.
 * --fanout=direct|engine-io|both (default both): the gateway's fan-out write (SOCKET_DIRECT_WRITES,
 * gateway/socket-direct.ts): `direct` each socket's messages through ws's `send` in one corked
 * write, `engine-io` engine.io's `conn.write` per message; `both` runs each on
 * a fresh server and fresh clients, --rounds times, taking turns (A B, then B A, ...), and ends with
 * both side by side (server CPU per order, p50/p99 of each channel, the writes each path counted).
 * Loopback only; every process of a run is stopped at its end (hard limit 5 minutes per run).
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { io, type Socket } from "socket.io-client";
import { BenchNode, login, procCpuSec, runBench, tempDir } from "./lib/proc";
import { Histogram } from "./lib/histogram";
import { byPackage, topSelf } from "./lib/cpuprofile";
import { flags, machine, mark, mib, num, sleep, wallMs } from "./lib/util";

const SHARE = 1_000_000;
const DOMAIN = "bench.local";
const ADMIN_KEY = "bench-admin-key";

type ToParent =
  { kind: "ready"; failed: number } | { kind: "arrivals"; arrivals: Record<string, number[]>; disconnects: number; errors: string[] };
type ToChild = { kind: "report" };
type Channel = "market" | "book";
type Fanout = "direct" | "engine-io";
type FanoutWrites = { websocket: number; "engine-io": number };

interface Options {
  clients: number;
  orders: number;
  procs: number;
  gap: number;
  profile: boolean;
  channels: Channel[];
}

/** One run's figures (ms), for the side-by-side summary of --fanout=both. */
interface RunResult {
  fanout: Fanout;
  cpuMsPerOrder: number;
  latency: Partial<Record<Channel, { p50: number; p99: number }>>;
  missing: number;
  disconnects: number;
  writes: FanoutWrites;
}

/** Client process: `count` sockets on the market and book channels; arrival time per update key. */
async function client(url: string, marketId: string, count: number, channels: Channel[]): Promise<void> {
  const arrivals: Record<string, number[]> = {};
  const sockets: Socket[] = [];
  const errors: string[] = [];
  let disconnects = 0;
  let failed = 0;
  const connectOne = () =>
    new Promise<void>((resolve) => {
      const s = io(url, { path: "/ws", transports: ["websocket"], forceNew: true, reconnection: false, timeout: 30_000 });
      sockets.push(s);
      s.on("disconnect", () => disconnects++);
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          resolve();
        }
      };
      s.once("connect_error", (e) => {
        failed++;
        if (errors.length < 5) errors.push(String(e.message));
        finish();
      });
      s.on("message", (m: { type: string; channel?: string; data?: { bids?: Array<{ price: string }>; sellYesPrice?: string | null } }) => {
        if (m.type === "update" && m.channel === "book") {
          const top = m.data?.bids?.[0]?.price;
          if (top) (arrivals[`b:${Number(top)}`] ??= []).push(wallMs());
        } else if (m.type === "update" && m.channel === "market") {
          const p = m.data?.sellYesPrice;
          if (p) (arrivals[`m:${Number(p)}`] ??= []).push(wallMs());
        } else if (m.type === "subscribed" && m.channel === channels[channels.length - 1]) finish();
        else if (m.type === "error" && errors.length < 5) errors.push(JSON.stringify(m));
      });
      s.once("connect", () => {
        if (channels.includes("market")) s.emit("subscribe", { channel: "market", marketIds: [marketId] });
        if (channels.includes("book")) s.emit("subscribe", { channel: "book", marketId });
      });
    });
  // The contract closes a socket that sends no ping for 10 s. Each socket pings every 4 s, the
  // sockets spread over those 4 s as independent clients' timers would be (not 10,000 in one
  // burst), and from the start, since connecting every wave can take longer than 10 s.
  const PING_MS = 4_000;
  const PING_TICK_MS = 50;
  let pingNext = 0;
  const ping = setInterval(() => {
    const n = Math.ceil((sockets.length * PING_TICK_MS) / PING_MS);
    for (let i = 0; i < n && sockets.length; i++, pingNext++) {
      const s = sockets[pingNext % sockets.length];
      if (s.connected) s.emit("ping");
    }
  }, PING_TICK_MS);
  // Connect in waves so the server is not hit by thousands of handshakes at once.
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, connectOne));
  process.on("message", (msg: ToChild) => {
    if (msg.kind !== "report") return;
    clearInterval(ping);
    process.send?.({ kind: "arrivals", arrivals, disconnects, errors } satisfies ToParent, () => {
      sockets.forEach((s) => s.close());
      process.exit(0);
    });
  });
  process.once("disconnect", () => process.exit(0));
  process.send?.({ kind: "ready", failed } satisfies ToParent);
}

async function run(o: Options, fanout: Fanout): Promise<RunResult> {
  const { clients, orders, procs, gap, profile, channels } = o;
  console.log(`\n# fan-out write: ${fanout} (SOCKET_DIRECT_WRITES=${fanout === "direct"})`);
  const server = await BenchNode.launch(
    "exchange",
    {
      DATA_DIR: tempDir("pmx-bench-ws-"),
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN: DOMAIN,
      JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "false",
      SEED_DEMO: "false",
      ADMIN_KEY,
      RATE_LIMIT_TRADE: "1000000",
      RATE_LIMIT_READ: "1000000",
      SOCKET_DIRECT_WRITES: String(fanout === "direct"),
      // Clients ping every 4 s as the contract asks; on a starved machine the contract's 10 s idle
      // limit closed sockets mid-run (a run with fewer sockets does not compare): 60 s here.
      SOCKET_IDLE_TIMEOUT_MS: "60000",
      // Every client of the bench connects from loopback: no per-address limit.
      SOCKET_MAX_PER_ADDRESS: "0",
      ...(profile ? { BENCH_PROFILE: "1" } : {}),
    },
    { execArgv: ["--expose-gc"] },
  );
  const [trader] = await login(server, DOMAIN, 1);
  await server.ctl({ cmd: "fund", userId: trader.userId, amount: 1_000_000 * SHARE });
  const ev = await server.http("POST", "/api/v1/admin/events", {
    headers: { "x-admin-key": ADMIN_KEY },
    body: { title: "Fan-out event", category: "Tech", markets: [{ title: "Fan-out market?" }] },
  });
  if (ev.status !== 201) throw new Error(`create event: ${ev.status}`);
  const marketId = ev.body.data.markets[0].id as string;
  // Load the market's actor before the clients arrive.
  await server.http("GET", `/api/v1/markets/${marketId}/orderbook`);

  type Mem = { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  const mem0 = await server.ctl<Mem>({ cmd: "mem" });
  const t0 = Date.now();
  const children: ChildProcess[] = [];
  const per = Math.ceil(clients / procs);
  const readies = await Promise.all(
    Array.from({ length: procs }, (_, i) => {
      const n = Math.max(0, Math.min(per, clients - i * per));
      const execArgv =
        profile && i === 0
          ? ["--cpu-prof", `--cpu-prof-dir=${join(__dirname, "..", "profiles")}`, "--cpu-prof-name=ws-client-0.cpuprofile"]
          : [];
      const child = fork(__filename, ["client", server.url, marketId, String(n), channels.join(",")], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        execArgv,
      });
      children.push(child);
      return new Promise<{ failed: number }>((resolve, reject) => {
        child.once("message", (m: ToParent) => (m.kind === "ready" ? resolve(m) : reject(new Error("unexpected message"))));
        child.once("exit", (code) => reject(new Error(`client process exited early (${code})`)));
      });
    }),
  );
  const failedConnects = readies.reduce((a, r) => a + r.failed, 0);
  const connectMs = Date.now() - t0;
  await sleep(1_000);
  const mem1 = await server.ctl<Mem>({ cmd: "mem" });
  const connected = clients - failedConnects;
  console.log(
    `# ${connected} of ${clients} subscribed in ${(connectMs / 1000).toFixed(1)} s${failedConnects ? ` (${failedConnects} failed to connect)` : ""}`,
  );

  const cpu = () => ({
    server: procCpuSec(server.pid),
    clients: children.reduce((a, c) => a + procCpuSec(c.pid as number), 0),
    at: Date.now(),
  });
  if (profile) await server.ctl({ cmd: "profileStart" });
  const writes0 = await server.ctl<FanoutWrites>({ cmd: "fanoutWrites" });
  const cpu0 = cpu();
  const placed: Array<{ price: number; sent: number; acked: number }> = [];
  for (let k = 0; k < orders; k++) {
    const price = (k + 1) / 100;
    const sent = wallMs();
    const r = await server.http("POST", "/api/v1/orders", {
      token: trader.token,
      body: { marketId, side: "BUY", outcome: "YES", orderType: "GTC", price, quantity: SHARE },
    });
    const acked = wallMs();
    if (r.status !== 200) throw new Error(`order failed: ${r.status} ${JSON.stringify(r.body)}`);
    placed.push({ price, sent, acked });
    await sleep(gap);
  }
  await sleep(1_000);
  const cpu1 = cpu();
  const writes1 = await server.ctl<FanoutWrites>({ cmd: "fanoutWrites" });
  const writes: FanoutWrites = {
    websocket: writes1.websocket - writes0.websocket,
    "engine-io": writes1["engine-io"] - writes0["engine-io"],
  };
  if (profile) {
    const dir = join(__dirname, "..", "profiles");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "ws-server.cpuprofile");
    await server.ctl({ cmd: "profileStop", file });
    console.log(`# CPU profile of the server while orders fanned out (${file}); latencies below are slowed by the profiler`);
    for (const l of byPackage(file)) console.log(l);
    for (const l of topSelf(file, 30)) console.log(l);
  }

  const reports = await Promise.all(
    children.map(
      (child) =>
        new Promise<Extract<ToParent, { kind: "arrivals" }>>((resolve) => {
          child.removeAllListeners("exit");
          child.once("message", (m: ToParent) => m.kind === "arrivals" && resolve(m));
          child.send({ kind: "report" } satisfies ToChild);
        }),
    ),
  );
  if (profile) {
    // --cpu-prof writes the client's profile as it exits (right after its report).
    const first = children[0];
    if (first.exitCode === null) await new Promise((resolve) => first.once("exit", resolve));
    const file = join(__dirname, "..", "profiles", "ws-client-0.cpuprofile");
    console.log(`# CPU profile of client process 0 (${file}); kernel time of its reads shows as idle`);
    for (const l of byPackage(file, 10)) console.log(l);
    for (const l of topSelf(file, 15)) console.log(l);
  }
  const errors = reports.flatMap((r) => r.errors);
  const hist = { b: { ack: new Histogram(), send: new Histogram() }, m: { ack: new Histogram(), send: new Histogram() } };
  let early = 0;
  const missing = { b: 0, m: 0 };
  const followed = channels.map((c) => (c === "book" ? "b" : "m"));
  for (const o of placed) {
    for (const ch of followed) {
      let got = 0;
      for (const r of reports) {
        for (const t of r.arrivals[`${ch}:${o.price}`] ?? []) {
          // Microseconds; an update can beat the HTTP answer to the trader (counted as 0 from ack).
          if (t < o.acked) early++;
          hist[ch].ack.record(Math.max(0, t - o.acked) * 1000);
          hist[ch].send.record((t - o.sent) * 1000);
          got++;
        }
      }
      missing[ch] += connected - got;
    }
  }
  const ms = (h: Histogram, q: number) => (h.quantile(q) / 1000).toFixed(1);
  const line = (name: string, h: Histogram) =>
    `${name} p50 ${ms(h, 0.5)} ms, p99 ${ms(h, 0.99)} ms, max ${(h.max / 1000).toFixed(1)} ms (${h.count} deliveries)`;
  const ackRtt = new Histogram();
  for (const o of placed) ackRtt.record((o.acked - o.sent) * 1000);
  console.log(`order HTTP round trip (send -> ack): p50 ${ms(ackRtt, 0.5)} ms, p99 ${ms(ackRtt, 0.99)} ms`);
  if (followed.includes("b")) console.log(line("book channel,   ack -> subscriber: ", hist.b.ack));
  if (followed.includes("m")) console.log(line("market channel, ack -> subscriber: ", hist.m.ack));
  if (followed.includes("b")) console.log(line("book channel,  send -> subscriber: ", hist.b.send));
  if (followed.includes("m")) console.log(line("market channel, send -> subscriber:", hist.m.send));
  console.log(
    `missing deliveries: book ${missing.b}, market ${missing.m}; disconnects ${reports.reduce((s, r) => s + r.disconnects, 0)}; updates before the ack ${early}${errors.length ? `; errors: ${errors.slice(0, 3).join(" | ")}` : ""}`,
  );
  const wallS = (cpu1.at - cpu0.at) / 1000;
  console.log(
    `CPU while orders fanned out: server ${((cpu1.server - cpu0.server) / wallS).toFixed(2)} cores (${((1000 * (cpu1.server - cpu0.server)) / orders).toFixed(0)} ms per order), ` +
      `client processes ${((cpu1.clients - cpu0.clients) / wallS).toFixed(2)} cores, of 2`,
  );
  const perConn = (a: number, b: number) => (connected ? (b - a) / connected : NaN);
  console.log(
    `server memory: RSS ${mib(mem0.rss)} -> ${mib(mem1.rss)}, heap ${mib(mem0.heapUsed)} -> ${mib(mem1.heapUsed)}; ` +
      `per connection: RSS ${(perConn(mem0.rss, mem1.rss) / 1024).toFixed(1)} KiB, heap ${(perConn(mem0.heapUsed, mem1.heapUsed) / 1024).toFixed(1)} KiB, external+buffers ${(perConn(mem0.external, mem1.external) / 1024).toFixed(1)} KiB`,
  );
  console.log(`fan-out writes while orders fanned out (pongs included): websocket ${writes.websocket}, engine-io ${writes["engine-io"]}`);
  const p99 = Math.max(...followed.map((ch) => hist[ch].ack.quantile(0.99))) / 1000;
  const complete = missing.b === 0 && missing.m === 0 && connected === clients;
  console.log(
    `fan-out to ${connected} subscribers (${fanout}): p99 ack -> delivery ${p99.toFixed(1)} ms (target < 250 ms: ${mark(p99 < 250 && complete)}${complete ? "" : ", deliveries missing"})`,
  );
  if (fanout === "direct" && !writes.websocket) throw new Error("--fanout=direct: the server wrote nothing straight to a websocket");
  if (fanout === "engine-io" && writes.websocket) throw new Error("--fanout=engine-io: the server still wrote straight to websockets");

  for (const child of children) if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
  await server.stop();
  const latency: RunResult["latency"] = {};
  for (const c of channels) {
    const h = hist[c === "book" ? "b" : "m"].ack;
    latency[c] = { p50: h.quantile(0.5) / 1000, p99: h.quantile(0.99) / 1000 };
  }
  return {
    fanout,
    cpuMsPerOrder: (1000 * (cpu1.server - cpu0.server)) / orders,
    latency,
    missing: missing.b + missing.m + (clients - connected) * orders * channels.length,
    disconnects: reports.reduce((a, r) => a + r.disconnects, 0),
    writes,
  };
}

async function main(): Promise<void> {
  const f = flags();
  const channels = (["market", "book"] as const).filter((c) => (f.channels ?? "market,book").split(",").includes(c));
  if (!channels.length) throw new Error("--channels must name market, book or both");
  const o: Options = {
    clients: num(f, "clients", 10_000),
    orders: Math.min(98, num(f, "orders", 40)),
    procs: num(f, "procs", 4),
    gap: num(f, "gap", 400),
    profile: !!f.profile,
    channels,
  };
  const fanout = f.fanout ?? "both";
  if (!["direct", "engine-io", "both"].includes(fanout)) throw new Error("--fanout must be direct, engine-io or both");
  const rounds = fanout === "both" ? Math.max(1, num(f, "rounds", 1)) : 1;
  const order: Fanout[] =
    fanout === "both"
      ? Array.from({ length: rounds }, (_, r): Fanout[] => (r % 2 ? ["engine-io", "direct"] : ["direct", "engine-io"])).flat()
      : [fanout as Fanout];
  console.log(`# bench/ws  ${machine()}`);
  console.log(
    `# ${o.clients} Socket.IO subscribers (${channels.join(" + ")} channel${channels.length > 1 ? "s" : ""} of one market) in ${o.procs} client processes; ${o.orders} orders, ${o.gap} ms apart; fan-out write: ${order.join(", ")}`,
  );
  const results: RunResult[] = [];
  for (const fo of order) results.push(await run(o, fo));

  const fmt = (x: number) => x.toFixed(0);
  console.log(`\n## summary (${o.clients} subscribers, ${o.orders} orders, ack -> subscriber)`);
  for (const r of results) {
    const lat = channels.map((c) => `${c} p50 ${fmt(r.latency[c]!.p50)} / p99 ${fmt(r.latency[c]!.p99)} ms`).join(", ");
    console.log(
      `${r.fanout.padEnd(9)}  server CPU ${fmt(r.cpuMsPerOrder)} ms per order; ${lat}; missing ${r.missing}, disconnects ${r.disconnects}; writes websocket ${r.writes.websocket}, engine-io ${r.writes["engine-io"]}`,
    );
  }
  const cpuOf = (fo: Fanout) => results.filter((r) => r.fanout === fo).map((r) => r.cpuMsPerOrder);
  if (fanout === "both") {
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`server CPU per order, engine-io / direct: ${(mean(cpuOf("engine-io")) / mean(cpuOf("direct"))).toFixed(2)}x`);
  }
  const worst = Math.max(...results.flatMap((r) => channels.map((c) => r.latency[c]!.p99)));
  const complete = results.every((r) => r.missing === 0);
  console.log(
    `worst p99 ack -> delivery ${worst.toFixed(1)} ms (target < 250 ms: ${mark(worst < 250 && complete)}${complete ? "" : ", deliveries missing"})`,
  );
}

if (process.argv[2] === "client") {
  client(process.argv[3], process.argv[4], Number(process.argv[5]), process.argv[6].split(",") as Channel[]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  const f = flags();
  const runs = (f.fanout ?? "both") === "both" ? 2 * Math.max(1, num(f, "rounds", 1)) : 1;
  runBench(main, runs * 5 * 60_000);
}
