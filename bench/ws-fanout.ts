/**
 * Socket fan-out benchmark: one embedded node (in-memory storage), N socket.io clients subscribed
 * to one market's book and prices, then K orders placed over HTTP one at a time by a trader. The
 * clients and the trader run in child processes so none of them shares the server's event loop.
 * For every order and every client: time from the order's HTTP acknowledgement (and from its
 * send) to that client receiving the book update the order caused. Wall clock via
 * performance.timeOrigin + now() (one host, so the processes share the clock).
 *
 * Plain TS: compile with tsc and run with node, e.g.
 *   npx tsc -p tsconfig.json --outDir /tmp/pmx-bench
 *   NODE_PATH=$PWD/node_modules node /tmp/pmx-bench/bench/ws-fanout.js [clients=1000] [orders=50] [procs=4]
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { performance } from "node:perf_hooks";
import { io, type Socket } from "socket.io-client";
import { loadConfig } from "../lib/config";
import { createNode } from "../server";
import { TestWallet } from "../test/support/wallet";

const SHARE = 1_000_000;
const DOMAIN = "bench.local";
const ADMIN_KEY = "bench-admin";
/** Gap between orders: longer than the coalescing window, so each order is its own push. */
const ORDER_GAP_MS = 150;

const wall = () => performance.timeOrigin + performance.now();

type ToParent = { kind: "ready" } | { kind: "arrivals"; arrivals: Record<string, number[]>; disconnects: number } | { kind: "placed"; sent: number; acked: number };
type ToChild = { kind: "report" } | { kind: "order"; price: number };

/** Trader child: places one order per request from the parent and reports when it was acknowledged. */
function trader(url: string, marketId: string, token: string): void {
  process.on("message", async (msg: ToChild) => {
    if (msg.kind === "report") process.exit(0);
    if (msg.kind !== "order") return;
    const sent = wall();
    const res = await fetch(`${url}/api/v1/orders`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ marketId, side: "BUY", outcome: "YES", orderType: "GTC", price: msg.price, quantity: SHARE }),
    });
    await res.text();
    const acked = wall();
    if (res.status !== 200) throw new Error(`order failed: ${res.status}`);
    process.send?.({ kind: "placed", sent, acked } satisfies ToParent);
  });
  process.send?.({ kind: "ready" } satisfies ToParent);
}

/** Child: `count` sockets on the book and market channels; records arrival time per book seq. */
async function client(url: string, marketId: string, count: number): Promise<void> {
  const arrivals: Record<string, number[]> = {};
  const sockets: Socket[] = [];
  let disconnects = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const s = io(url, { path: "/ws", transports: ["websocket"], forceNew: true, reconnection: false, timeout: 20_000 });
      sockets.push(s);
      s.on("disconnect", () => disconnects++);
      await new Promise<void>((resolve, reject) => {
        s.once("connect_error", reject);
        s.on("message", (m: { type: string; channel?: string; seq?: number }) => {
          if (m.type === "update" && m.channel === "book" && typeof m.seq === "number") (arrivals[m.seq] ??= []).push(wall());
          if (m.type === "subscribed" && m.channel === "book") resolve();
        });
        s.once("connect", () => {
          s.emit("subscribe", { channel: "market", marketIds: [marketId] });
          s.emit("subscribe", { channel: "book", marketId });
        });
      });
    }),
  );
  const ping = setInterval(() => sockets.forEach((s) => s.emit("ping")), 4_000);
  process.on("message", (msg: ToChild) => {
    if (msg.kind !== "report") return;
    clearInterval(ping);
    process.send?.({ kind: "arrivals", arrivals, disconnects } satisfies ToParent, () => {
      sockets.forEach((s) => s.close());
      process.exit(0);
    });
  });
  process.send?.({ kind: "ready" } satisfies ToParent);
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const clients = Number(process.argv[2] ?? 1000);
  const orders = Number(process.argv[3] ?? 50);
  const procs = Number(process.argv[4] ?? 4);

  const cfg = loadConfig({
    DATA_DIR: ":memory:",
    PORT: "0",
    HOST: "127.0.0.1",
    APP_DOMAIN: DOMAIN,
    JWT_SECRET: randomBytes(32).toString("hex"),
    LOG_LEVEL: "false",
    SEED_DEMO: "false",
    ADMIN_KEY,
    RATE_LIMIT_TRADE: "1000000",
    RATE_LIMIT_READ: "1000000",
  });
  const broker = createNode(cfg);
  let lastSeq = 0;
  broker.createService({ name: "benchProbe", events: { "book.changed"(ctx: { params: { seq: number } }) { lastSeq = ctx.params.seq; } } });
  await broker.start();
  const api = broker.getLocalService("api") as unknown as { server: Server };
  const url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: Record<string, unknown> };
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };

  const login = await post("/api/v1/auth/connect", TestWallet.random().connectBody({ domain: DOMAIN }));
  const token = login.accessToken as string;
  await broker.call("ledger.post", { key: "bench-funding", postings: [{ kind: "cash", account: login.userId, available: 1_000_000 * SHARE }, { kind: "external", flow: "deposit", amount: 1_000_000 * SHARE }] });
  const event = await post("/api/v1/admin/events", { title: "Bench event", category: "Tech", markets: [{ title: "Bench market" }] }, { "x-admin-key": ADMIN_KEY });
  const marketId = (event.markets as Array<{ id: string }>)[0].id;

  const t0 = Date.now();
  const children: ChildProcess[] = [];
  const per = Math.ceil(clients / procs);
  await Promise.all(
    Array.from({ length: procs }, (_, i) => {
      const n = Math.min(per, clients - i * per);
      const child = fork(process.argv[1], ["client", url, marketId, String(n)], { stdio: "inherit" });
      children.push(child);
      return new Promise<void>((resolve, reject) => {
        child.once("message", (m: ToParent) => (m.kind === "ready" ? resolve() : reject(new Error("unexpected message"))));
        child.once("exit", (code) => reject(new Error(`client process exited early (${code})`)));
      });
    }),
  );
  console.log(`${clients} subscribers connected in ${Date.now() - t0} ms (${procs} client processes)`);

  const traderProc = fork(process.argv[1], ["trader", url, marketId, token], { stdio: "inherit" });
  await new Promise<void>((resolve) => traderProc.once("message", () => resolve()));
  const placed: Array<{ seq: number; sent: number; acked: number }> = [];
  for (let k = 0; k < orders; k++) {
    const price = (1 + (k % 49)) / 100;
    const done = new Promise<Extract<ToParent, { kind: "placed" }>>((resolve) => traderProc.once("message", (m: ToParent) => m.kind === "placed" && resolve(m)));
    traderProc.send({ kind: "order", price } satisfies ToChild);
    const { sent, acked } = await done;
    // book.changed is emitted before the order is answered, so the probe holds this order's seq.
    placed.push({ seq: lastSeq, sent, acked });
    await new Promise((r) => setTimeout(r, ORDER_GAP_MS));
  }
  traderProc.send({ kind: "report" } satisfies ToChild);
  await new Promise((r) => setTimeout(r, 500));

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
  const fromAck: number[] = [];
  const fromSend: number[] = [];
  let missing = 0;
  for (const o of placed) {
    let got = 0;
    for (const r of reports) {
      for (const t of r.arrivals[o.seq] ?? []) {
        fromAck.push(t - o.acked);
        fromSend.push(t - o.sent);
        got++;
      }
    }
    missing += clients - got;
  }
  fromAck.sort((a, b) => a - b);
  fromSend.sort((a, b) => a - b);
  const ackRtt = placed.map((o) => o.acked - o.sent).sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(1);
  console.log(`orders: ${orders}, samples: ${fromAck.length}, missing: ${missing}, disconnects: ${reports.reduce((s, r) => s + r.disconnects, 0)}`);
  console.log(`order HTTP round trip (send -> ack): p50 ${f(pct(ackRtt, 50))} ms, p99 ${f(pct(ackRtt, 99))} ms`);
  console.log(`ack -> update at subscriber:  p50 ${f(pct(fromAck, 50))} ms, p99 ${f(pct(fromAck, 99))} ms, max ${f(fromAck[fromAck.length - 1])} ms`);
  console.log(`send -> update at subscriber: p50 ${f(pct(fromSend, 50))} ms, p99 ${f(pct(fromSend, 99))} ms, max ${f(fromSend[fromSend.length - 1])} ms`);
  await broker.stop();
}

if (process.argv[2] === "trader") {
  trader(process.argv[3], process.argv[4], process.argv[5]);
} else if (process.argv[2] === "client") {
  client(process.argv[3], process.argv[4], Number(process.argv[5])).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
