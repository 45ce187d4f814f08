/**
 * End-to-end HTTP benchmark through the real gateway, with autocannon, side by side with a bare
 * moleculer-web gateway measured in the same run on the same machine.
 *
 * Variants (--variant=embedded|cluster|both, default both):
 *   embedded: one exchange process (every service, the embedded default: NeDB files in a temp
 *             DATA_DIR, memory cacher) beside one bare process (ApiGateway + `GET /bare` action);
 *   cluster:  nats-server + core node (auth, catalog, ledger, chain, notifier) + engine node (book,
 *             amm, router) + gateway node (api), beside a bare gateway node + bare action node
 *             over the same NATS.
 * Setup: --events events of 2 markets through the operator API, --users real logins (a fresh
 * TON wallet's ton_proof each, so every token is a valid JWT with a live session), each funded
 * with 1,000,000 USDT through a ledger deposit entry over the node's IPC channel. Rate limits are
 * raised ONLY for this bench through its environment (RATE_LIMIT_TRADE / RATE_LIMIT_READ).
 *
 * Measured per variant (each pass --duration s after --warmup s, --connections connections; the
 * baseline's and the exchange's passes take turns --rounds times, and each throughput row is the
 * best of its passes, each half-rate row the round with the median p99):
 *   bare     GET /bare                     the baseline's requests/s
 *   bare     POST /bare                    the baseline answering the orders' very requests (body, headers)
 *            through moleculer-web's JSON body parser: what a POST costs before any exchange work
 *   bare     POST /bare/durable            the same, answered once the body is appended to a file and
 *            synced (one fdatasync in flight, the bodies that came meanwhile synced by the next):
 *            what the disk's sync allows at this many connections before any exchange work
 *   orders   POST /api/v1/orders           rotating over every user's token and every market: 80%
 *            resting BUY YES / BUY NO at 0.45..0.49, 20% crossing at 0.55 (mint fills), 1 share
 *   batch    POST /api/v1/orders/batch     10 such orders of one user per request: orders/s against single orders'
 *            (and both again on one connection: one client placing as fast as its answers come)
 *   quotes   POST /api/v1/quotes           a mass quote of 20 (10 bids at 0.30..0.39, 10 asks at 0.60..0.69 as
 *            BUY NO) of one user in one market, rotating over users and markets: each replaces that
 *            user's previous set there (up to 20 cancels and 20 placements in one journal entry);
 *            beside it the same 20 orders as 20 single POST /orders (which cancel nothing), per
 *            order placed: orders/s, CPU per order per thread, bytes per order
 *   orders @ half: the same at overallRate = half the best max (autocannon corrects its
 *            latencies for coordinated omission at a fixed rate): p99 there, beside the bare
 *            gateway answering the same POSTs at that same rate in the same round
 *   market   GET /api/v1/markets/:id       rotating over the markets (cached 5 s by the catalog)
 *   events   GET /api/v1/events            first page (not cached)
 * Each line also gives the CPU the server processes and this process (autocannon) used, in
 * cores: on 2 cores a figure near 1.0 for autocannon means the client, not the server, set the pace.
 * Order rows (the bare POST and the reads too) add a line per order (request): the servers' CPU
 * microseconds per thread (event loop, the money store's writer thread, the side node's thread, the
 * rest: V8's and libuv's threads; and all of them: the whole process), the bytes the
 * servers sent to storage, and the writer thread's own pwrite bytes and write/read syscalls
 * (bench/lib/threads.ts, Linux /proc).
 * Targets: orders >= 0.5x of bare POST req/s embedded, 0.35x in the cluster, and p99 at
 * half of that rate <= 2x the bare POST's p99 at the same rate in the same round; cached reads >= 0.8x
 * of bare GET. --env=K=V,...: extra settings of the exchange's nodes.
 * --profile: extra profiled passes (orders, cached market reads) per variant (V8 CPU profiler inside the gateway or
 * exchange process, and the engine and core nodes in the cluster), top self-time functions printed.
 *
 *   node dist-bench/bench/http.js [--variant=both] [--duration=5] [--rounds=3] [--warmup=3]
 *                                 [--connections=32] [--users=200] [--events=10] [--profile]
 * Loopback only; every child process is stopped at the end (hard limit 8 minutes).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { BenchNode, cleanup, login, procCpuSec, runBench, startNats, tempDir, until, type BenchUser } from "./lib/proc";
import { byPackage, topSelf } from "./lib/cpuprofile";
import { orderRequests } from "./lib/orders";
import { flags, fmtRatio, machine, mark, num } from "./lib/util";
import { perOrder, sampleThreads, threadsUsed, type ThreadSample } from "./lib/threads";

// autocannon ships no types; the part used here.
interface AcRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AcRequest, context: object) => AcRequest;
}
interface AcStat {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  p99_9: number;
  max: number;
}
interface AcResult {
  duration: number;
  latency: AcStat;
  requests: AcStat & { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
  statusCodeStats: Record<string, { count: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<AcResult>;

const SHARE = 1_000_000;
/** Orders per POST /orders/batch. */
const BATCH = 10;
/** Quotes per POST /quotes (the most a set may hold). */
const QUOTES = 20;
const DOMAIN = "bench.local";
const ADMIN_KEY = "bench-admin-key";

interface Opts {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  users: number;
  events: number;
  profile: boolean;
  outDir: string;
  /** --env=K=V,K=V: extra settings of the exchange's nodes (e.g. MONEY_WRITER_THREAD=false). */
  env: Record<string, string>;
}

interface Measure {
  reqPerSec: number;
  p50: number;
  p99: number;
  p999: number;
  failed: number;
  codes: string;
  /** CPU used during the measurement, in cores: the server processes, and this (autocannon) process. */
  serverCpu?: number;
  clientCpu?: number;
  /** The servers' threads during the measurement (CPU per thread class, writes), and the orders (or requests) they served. */
  threads?: ThreadSample;
  orders?: number;
}

/** Servers whose CPU is sampled around each measurement. */
let watched: BenchNode[] = [];

async function cannon(
  url: string,
  requests: AcRequest[],
  o: { connections: number; duration: number; overallRate?: number; ordersPerRequest?: number },
): Promise<Measure> {
  const pids = watched.map((n) => n.pid);
  const s0 = pids.map(procCpuSec);
  const t0 = pids.map(sampleThreads);
  const c0 = process.cpuUsage();
  const w0 = Date.now();
  const r = await autocannon({
    url,
    connections: o.connections,
    duration: o.duration,
    pipelining: 1,
    timeout: 30,
    requests,
    ...(o.overallRate ? { overallRate: o.overallRate } : {}),
  });
  const ok = r["2xx"];
  const codes = Object.entries(r.statusCodeStats ?? {})
    .filter(([c]) => !c.startsWith("2"))
    .map(([c, s]) => `${c}x${s.count}`)
    .join(" ");
  const wall = (Date.now() - w0) / 1000;
  const serverCpu = pids.reduce((a, p, i) => a + procCpuSec(p) - s0[i], 0) / wall;
  const threads = threadsUsed(t0, pids.map(sampleThreads));
  const c = process.cpuUsage(c0);
  const clientCpu = (c.user + c.system) / 1e6 / wall;
  return {
    reqPerSec: ok / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    failed: r.non2xx + r.errors + r.timeouts,
    codes,
    serverCpu,
    clientCpu,
    threads,
    orders: ok * (o.ordersPerRequest ?? 1),
  };
}

/** POST /orders/batch of `size` orders of one user, rotating as orderRequests does over users and markets. */
function batchRequests(users: BenchUser[], markets: string[], size: number): AcRequest[] {
  let k = 0;
  return [
    {
      method: "POST",
      path: "/api/v1/orders/batch",
      setupRequest(req) {
        const b = k++;
        const u = users[b % users.length];
        const orders = Array.from({ length: size }, (_, j) => {
          const i = b * size + j;
          const crossing = i % 5 === 0;
          return {
            marketId: markets[(i + Math.floor(b / users.length)) % markets.length],
            side: "BUY",
            outcome: (i >> 1) % 2 === 0 ? "YES" : "NO",
            orderType: "GTC",
            price: crossing ? 0.55 : (45 + (i % 5)) / 100,
            quantity: SHARE,
          };
        });
        req.headers = { "content-type": "application/json", authorization: `Bearer ${u.token}` };
        req.body = JSON.stringify({ orders });
        return req;
      },
    },
  ];
}

/** The quote `j` of a set: 10 bids at 0.30..0.39, 10 asks at 0.60..0.69 (BUY NO), never crossing the other rows' orders. */
function quoteTerm(j: number): { side: string; outcome: string; price: number; quantity: number } {
  return j % 2 === 0
    ? { side: "BUY", outcome: "YES", price: (30 + (j >> 1)) / 100, quantity: SHARE }
    : { side: "BUY", outcome: "NO", price: (40 - (j >> 1)) / 100, quantity: SHARE };
}

/** POST /quotes of `size` quotes of one user in one market, rotating over users and markets (each replaces that user's set there). */
function quoteRequests(users: BenchUser[], markets: string[], size: number): AcRequest[] {
  let k = 0;
  return [
    {
      method: "POST",
      path: "/api/v1/quotes",
      setupRequest(req) {
        const b = k++;
        const u = users[b % users.length];
        const marketId = markets[(b + Math.floor(b / users.length)) % markets.length];
        req.headers = { "content-type": "application/json", authorization: `Bearer ${u.token}` };
        req.body = JSON.stringify({ marketId, quotes: Array.from({ length: size }, (_, j) => quoteTerm(j)) });
        return req;
      },
    },
  ];
}

/** The same orders as the quote sets, one POST /orders each (GTC, resting; nothing cancelled). */
function quoteOrderRequests(users: BenchUser[], markets: string[], size: number): AcRequest[] {
  let k = 0;
  return [
    {
      method: "POST",
      path: "/api/v1/orders",
      setupRequest(req) {
        const i = k++;
        const b = Math.floor(i / size);
        const u = users[b % users.length];
        const marketId = markets[(b + Math.floor(b / users.length)) % markets.length];
        req.headers = { "content-type": "application/json", authorization: `Bearer ${u.token}` };
        req.body = JSON.stringify({ marketId, orderType: "GTC", ...quoteTerm(i % size) });
        return req;
      },
    },
  ];
}

function marketRequests(markets: string[]): AcRequest[] {
  let k = 0;
  return [
    {
      method: "GET",
      setupRequest(req) {
        req.path = `/api/v1/markets/${markets[k++ % markets.length]}`;
        return req;
      },
    },
  ];
}

interface Row {
  variant: string;
  what: string;
  m: Measure;
  ratio?: number;
  /** Orders only: the ratio to the bare gateway answering the same POST requests. */
  ratioPost?: number;
  target?: string;
  /** Order-placing rows (and the bare POST): CPU per order per thread, bytes and syscalls per order. */
  perOrder?: boolean;
}

const fmtMs = (x: number): string => `${x < 10 ? x.toFixed(2) : x.toFixed(1)}`;

/** The pass with the most requests/s. */
const best = (ms: Measure[]): Measure => ms.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));

const p99Range = (ms: Measure[]): string =>
  ms.length > 1 ? `  (p99 of the ${ms.length} rounds ${ms.map((m) => fmtMs(m.p99)).join(", ")} ms)` : "";

function printRow(r: Row): void {
  const ratio = r.ratio === undefined ? "" : fmtRatio(r.ratio);
  console.log(
    `${r.variant.padEnd(9)} ${r.what.padEnd(30)} ${r.m.reqPerSec.toFixed(0).padStart(7)} req/s  p50 ${fmtMs(r.m.p50).padStart(5)}  p99 ${fmtMs(r.m.p99).padStart(5)}  p99.9 ${fmtMs(r.m.p999).padStart(5)} ms` +
      `  cpu srv ${(r.m.serverCpu ?? NaN).toFixed(2)} cli ${(r.m.clientCpu ?? NaN).toFixed(2)}` +
      `${r.m.failed ? `  FAILED ${r.m.failed} (${r.m.codes})` : ""}${ratio ? `  ${ratio} of bare` : ""}${r.ratioPost === undefined ? "" : ` (${fmtRatio(r.ratioPost)} of bare POST)`}${r.target ? `  ${r.target}` : ""}`,
  );
  if (r.perOrder && r.m.threads && r.m.orders) console.log(`${"".padEnd(40)} ${perOrder(r.m.threads, r.m.orders)}`);
}

async function profiled(nodes: BenchNode[], o: Opts, variant: string, what: string, run: () => Promise<unknown>): Promise<void> {
  await Promise.all(nodes.map((n) => n.ctl({ cmd: "profileStart" })));
  await run();
  for (const n of nodes) {
    const file = join(o.outDir, `http-${variant}-${what.replace(/\W+/g, "-")}-${n.name}.cpuprofile`);
    await n.ctl({ cmd: "profileStop", file });
    console.log(`\n# CPU profile of ${n.name} during ${what} (${variant}), ${file}`);
    console.log("# self time by package:");
    for (const l of byPackage(file, 12)) console.log(`#   ${l}`);
    console.log("# top self-time functions:");
    for (const l of topSelf(file, 25)) console.log(`#   ${l}`);
  }
}

async function runVariant(variant: "embedded" | "cluster", o: Opts): Promise<Row[]> {
  const env: Record<string, string> = {
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_KEY,
    APP_DOMAIN: DOMAIN,
    SEED_DEMO: "false",
    LOG_LEVEL: "false",
    PORT: "0",
    HOST: "127.0.0.1",
    // The benchmark configuration: limits raised here only.
    RATE_LIMIT_READ: "1000000000",
    RATE_LIMIT_TRADE: "1000000000",
    ...(o.profile ? { BENCH_PROFILE: "1" } : {}),
    ...o.env,
  };
  let gateway: BenchNode;
  let ledgerNode: BenchNode;
  let bare: BenchNode;
  let profileNodes: BenchNode[];
  let bareNodes: BenchNode[];
  const t0 = Date.now();
  if (variant === "embedded") {
    const [ex, b] = await Promise.all([
      BenchNode.launch("exchange", { ...env, DATA_DIR: tempDir("pmx-bench-") }),
      BenchNode.launch("bare", { BENCH_KIND: "bare", PORT: "0", HOST: "127.0.0.1", DATA_DIR: tempDir("pmx-bench-bare-") }),
    ]);
    gateway = ledgerNode = ex;
    bare = b;
    profileNodes = [ex];
    bareNodes = [b];
  } else {
    const nats = await startNats();
    const cenv = { ...env, TRANSPORTER: nats.url };
    const [core, engine, gw, bareGw, bareAction] = await Promise.all([
      BenchNode.launch("core", { ...cenv, SERVICES: "auth,catalog,ledger,chain,notifier", DATA_DIR: tempDir("pmx-bench-core-") }),
      BenchNode.launch("engine", { ...cenv, SERVICES: "engine", DATA_DIR: tempDir("pmx-bench-eng-") }),
      BenchNode.launch("gateway", { ...cenv, SERVICES: "gateway", DATA_DIR: tempDir("pmx-bench-gw-") }),
      BenchNode.launch("bare-gateway", { BENCH_KIND: "bare-gateway", TRANSPORTER: nats.url, PORT: "0", HOST: "127.0.0.1" }),
      BenchNode.launch("bare-action", { BENCH_KIND: "bare-action", TRANSPORTER: nats.url, DATA_DIR: tempDir("pmx-bench-bare-") }),
    ]);
    gateway = gw;
    ledgerNode = core;
    bare = bareGw;
    profileNodes = [gw, engine, core];
    bareNodes = [bareGw, bareAction];
    await until("cluster discovery", async () => {
      const list = await gw.call<Array<{ id: string }>>("$node.list", { onlyAvailable: true });
      return list.length >= 3 ? true : null;
    });
    await until("bare cluster discovery", async () => ((await bare.http("GET", "/bare")).status === 200 ? true : null));
  }
  await until("gateway", async () => ((await gateway.http("GET", "/api/v1/events")).status === 200 ? true : null));

  // Markets through the operator API.
  const markets: string[] = [];
  for (let e = 0; e < o.events; e++) {
    const r = await gateway.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: {
        title: `Bench event ${e}`,
        category: "Tech",
        markets: [{ title: `Bench market ${e} A?` }, { title: `Bench market ${e} B?` }],
      },
    });
    if (r.status !== 201) throw new Error(`create event: ${r.status} ${JSON.stringify(r.body)}`);
    for (const m of r.body.data.markets as Array<{ id: string }>) markets.push(m.id);
  }
  const users = await login(gateway, DOMAIN, o.users);
  await ledgerNode.ctl({ cmd: "fundMany", userIds: users.map((u) => u.userId), amount: 1_000_000 * SHARE });
  // Every market's actor loaded (its owner found in a cluster) before anything is timed.
  for (const m of markets) {
    await until(`first order on ${m}`, async () => {
      const r = await gateway.http("POST", "/api/v1/orders", {
        token: users[0].token,
        body: { marketId: m, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.01, quantity: SHARE },
      });
      return r.status === 200 ? true : null;
    });
  }
  // Body sizes beside the bare action's 11 bytes: part of a read's cost is writing its bytes.
  const bodyBytes: string[] = [];
  for (const path of [`/api/v1/markets/${markets[0]}`, "/api/v1/events"]) {
    const r = await gateway.http("GET", path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    bodyBytes.push(`${path.replace(markets[0], ":id")} ${Buffer.byteLength(JSON.stringify(r.body))} B`);
  }
  console.log(
    `# ${variant}: started and seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s (${markets.length} markets, ${users.length} logged-in funded users); bodies: ${bodyBytes.join(", ")}, /bare 11 B`,
  );

  const base = { connections: o.connections, duration: o.duration };
  const warm = { connections: o.connections, duration: o.warmup };
  const bareReq: AcRequest[] = [{ method: "GET", path: "/bare" }];
  const barePostReq = orderRequests(users, markets, "/bare");
  const bareDurableReq = orderRequests(users, markets, "/bare/durable");
  const ordersReq = orderRequests(users, markets);
  const batchReq = batchRequests(users, markets, BATCH);
  const quotesReq = quoteRequests(users, markets, QUOTES);
  const quoteOrdersReq = quoteOrderRequests(users, markets, QUOTES);
  const marketReq = marketRequests(markets);
  const eventsReq: AcRequest[] = [{ method: "GET", path: "/api/v1/events" }];

  const rows: Row[] = [];
  const add = (r: Row) => {
    rows.push(r);
    printRow(r);
  };
  // Warm every path's JIT first. Then the baseline and the exchange take turns, --rounds times, and
  // each throughput figure is the best of its passes: on a shared VM noise only ever lowers
  // throughput, and a slow baseline pass no longer inflates a ratio (or a slow exchange pass
  // deflate it).
  for (const [url, req] of [
    [bare.url, bareReq],
    [bare.url, barePostReq],
    [bare.url, bareDurableReq],
    [gateway.url, ordersReq],
    [gateway.url, batchReq],
    [gateway.url, quotesReq],
    [gateway.url, quoteOrdersReq],
    [gateway.url, marketReq],
    [gateway.url, eventsReq],
  ] as const) {
    if (o.warmup > 0) await cannon(url, req as AcRequest[], warm);
  }
  const onBare = () => (watched = bareNodes);
  const onExchange = () => (watched = profileNodes);
  const passes = {
    bare: [] as Measure[],
    barePost: [] as Measure[],
    bareDurable: [] as Measure[],
    orders: [] as Measure[],
    batch: [] as Measure[],
    orders1: [] as Measure[],
    batch1: [] as Measure[],
    quotes: [] as Measure[],
    quoteOrders: [] as Measure[],
    market: [] as Measure[],
    events: [] as Measure[],
  };
  for (let r = 0; r < o.rounds; r++) {
    onBare();
    passes.bare.push(await cannon(bare.url, bareReq, base));
    passes.barePost.push(await cannon(bare.url, barePostReq, base));
    passes.bareDurable.push(await cannon(bare.url, bareDurableReq, base));
    onExchange();
    passes.orders.push(await cannon(gateway.url, ordersReq, base));
    passes.batch.push(await cannon(gateway.url, batchReq, { ...base, ordersPerRequest: BATCH }));
    // One client placing as fast as its answers come: what waiting for durability costs it.
    passes.orders1.push(await cannon(gateway.url, ordersReq, { ...base, connections: 1 }));
    passes.batch1.push(await cannon(gateway.url, batchReq, { ...base, connections: 1, ordersPerRequest: BATCH }));
    passes.quotes.push(await cannon(gateway.url, quotesReq, { ...base, ordersPerRequest: QUOTES }));
    passes.quoteOrders.push(await cannon(gateway.url, quoteOrdersReq, base));
    passes.market.push(await cannon(gateway.url, marketReq, base));
    passes.events.push(await cannon(gateway.url, eventsReq, base));
  }
  const bareM = best(passes.bare);
  const barePost = best(passes.barePost);
  const orders = best(passes.orders);
  const batch = best(passes.batch);
  const market = best(passes.market);
  const events = best(passes.events);
  add({ variant, what: "bare GET /bare", m: bareM });
  add({ variant, what: "bare POST /bare (order body)", m: barePost, ratio: barePost.reqPerSec / bareM.reqPerSec, perOrder: true });
  // The same POST answered once its body is synced to disk (group commit): what durability alone allows.
  const bareDurable = best(passes.bareDurable);
  add({
    variant,
    what: "bare POST /bare/durable (synced)",
    m: bareDurable,
    target: `${fmtRatio(bareDurable.reqPerSec / barePost.reqPerSec)} of bare POST`,
    perOrder: true,
  });
  // The targets: orders at least 0.5x (cluster 0.35x) of the bare gateway answering the same POSTs.
  const postTarget = variant === "embedded" ? 0.5 : 0.35;
  add({
    variant,
    what: "POST /orders (max)",
    m: orders,
    ratio: orders.reqPerSec / bareM.reqPerSec,
    ratioPost: orders.reqPerSec / barePost.reqPerSec,
    target: `target >= ${postTarget.toFixed(2)}x of bare POST: ${mark(orders.reqPerSec / barePost.reqPerSec >= postTarget)}; ${fmtRatio(orders.reqPerSec / bareDurable.reqPerSec)} of the synced bare POST`,
    perOrder: true,
  });
  // A batch commits its orders together: its orders per second against single orders'.
  const batchOrders = batch.reqPerSec * BATCH;
  add({
    variant,
    what: `POST /orders/batch of ${BATCH} (max)`,
    m: batch,
    target: `${batchOrders.toFixed(0)} orders/s, ${fmtRatio(batchOrders / orders.reqPerSec)} of single orders, target >= 4x: ${mark(batchOrders >= 4 * orders.reqPerSec && !batch.failed)}`,
    perOrder: true,
  });
  const orders1 = best(passes.orders1);
  const batch1 = best(passes.batch1);
  add({ variant, what: "POST /orders (1 connection)", m: orders1, perOrder: true });
  add({
    variant,
    what: `POST /orders/batch of ${BATCH} (1 conn.)`,
    m: batch1,
    target: `${(batch1.reqPerSec * BATCH).toFixed(0)} orders/s, ${fmtRatio((batch1.reqPerSec * BATCH) / orders1.reqPerSec)} of single orders on 1 connection`,
    perOrder: true,
  });
  // A mass quote places its 20 orders (and cancels the previous 20) in one entry: per order placed
  // against the same orders sent one by one.
  const quotes = best(passes.quotes);
  const quoteOrders = best(passes.quoteOrders);
  const quoteOrdersPerSec = quotes.reqPerSec * QUOTES;
  add({ variant, what: `POST /orders (the quotes, 1 each)`, m: quoteOrders, perOrder: true });
  add({
    variant,
    what: `POST /quotes of ${QUOTES} (max)`,
    m: quotes,
    target: `${quoteOrdersPerSec.toFixed(0)} orders/s placed, ${fmtRatio(quoteOrdersPerSec / quoteOrders.reqPerSec)} of the same orders one by one`,
    perOrder: true,
  });
  // Latency at half the best rate: one pass per round, each beside the bare gateway answering the
  // same POSTs at the same rate; the row is the round with the median p99 ratio (never the best).
  const half = Math.max(10, Math.floor(orders.reqPerSec / 2));
  const halfPasses: Measure[] = [];
  const bareHalfPasses: Measure[] = [];
  for (let r = 0; r < o.rounds; r++) {
    halfPasses.push(await cannon(gateway.url, ordersReq, { ...base, overallRate: half }));
    onBare();
    bareHalfPasses.push(await cannon(bare.url, barePostReq, { ...base, overallRate: half }));
    onExchange();
  }
  const p99Ratios = halfPasses.map((m, i) => m.p99 / Math.max(bareHalfPasses[i].p99, 1));
  const mid = p99Ratios.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0])[p99Ratios.length >> 1][1];
  const ordersHalf = halfPasses[mid];
  add({
    variant,
    what: `POST /orders @ ${half}/s (half)`,
    m: ordersHalf,
    perOrder: true,
    target: `p99 ${fmtRatio(p99Ratios[mid])} of bare POST's in its round, target <= 2x: ${mark(p99Ratios[mid] <= 2 && !ordersHalf.failed)}${p99Range(halfPasses)}`,
  });
  add({
    variant,
    what: "GET /markets/:id (cached)",
    m: market,
    perOrder: true,
    ratio: market.reqPerSec / bareM.reqPerSec,
    target: `target >= 0.80x: ${mark(market.reqPerSec / bareM.reqPerSec >= 0.8)}`,
  });
  add({
    variant,
    what: "GET /events (not cached)",
    m: events,
    perOrder: true,
    ratio: events.reqPerSec / bareM.reqPerSec,
    target: `(0.80x applies to cached reads: ${mark(events.reqPerSec / bareM.reqPerSec >= 0.8)})`,
  });
  add({
    variant,
    what: `bare POST /bare @ ${half}/s`,
    m: bareHalfPasses[mid],
    target: `the same round${p99Range(bareHalfPasses)}`,
    perOrder: true,
  });

  if (o.profile) {
    await profiled(profileNodes, o, variant, "POST /orders", () => cannon(gateway.url, ordersReq, base));
    await profiled(profileNodes, o, variant, "GET /markets/:id", () => cannon(gateway.url, marketReq, base));
  }
  return rows;
}

async function main(): Promise<void> {
  const f = flags();
  const o: Opts = {
    duration: num(f, "duration", 5),
    warmup: num(f, "warmup", 3),
    rounds: Math.max(1, num(f, "rounds", 3)),
    connections: num(f, "connections", 32),
    users: num(f, "users", 200),
    events: num(f, "events", 10),
    profile: !!f.profile,
    outDir: f.out ?? join(__dirname, "..", "profiles"),
    env: Object.fromEntries(
      (f.env ?? "")
        .split(",")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    ),
  };
  mkdirSync(o.outDir, { recursive: true });
  const variants = (f.variant ?? "both") === "both" ? (["embedded", "cluster"] as const) : ([f.variant] as Array<"embedded" | "cluster">);
  console.log(`# bench/http  ${machine()}`);
  if (Object.keys(o.env).length) console.log(`# exchange settings: ${JSON.stringify(o.env)}`);
  console.log(
    `# autocannon in this process, ${o.connections} connections, ${o.duration} s per pass after ${o.warmup} s warm-up; baseline and exchange take turns ${o.rounds} times: throughput rows are the best pass, half-rate rows the median-p99 round; latencies in ms`,
  );
  const all: Row[] = [];
  for (const v of variants) {
    all.push(...(await runVariant(v, o)));
    // Stop this variant's processes before the next one starts.
    await cleanup();
  }
  console.log("\n## summary");
  for (const r of all) printRow(r);
}

runBench(main, 8 * 60_000);
