/**
 * Memory per idle socket: the embedded server (as `npm start` runs it) with --sockets (2,000)
 * Socket.IO websocket connections that only ping (every 4 s, as the contract asks) and follow
 * nothing, opened from this process. RSS (/proc) and V8 heap after a full GC (the server runs with
 * --expose-gc), before and after connecting them, per socket; then the same after they close.
 *
 *   node dist-bench/bench/ws-idle.js [--sockets=2000]
 * Loopback only; the server is stopped at the end.
 */
import { randomBytes } from "node:crypto";
import { io, type Socket } from "socket.io-client";
import { BenchNode, runBench, tempDir } from "./lib/proc";
import { flags, machine, mib, num, sleep } from "./lib/util";

type Mem = { rss: number; heapUsed: number; external: number };

async function main(): Promise<void> {
  const f = flags();
  const n = num(f, "sockets", 2_000);
  console.log(`# bench/ws-idle  ${machine()}`);
  const server = await BenchNode.launch(
    "exchange",
    {
      DATA_DIR: tempDir("pmx-bench-ws-idle-"),
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN: "bench.local",
      JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "false",
      SEED_DEMO: "false",
      // Every socket comes from loopback; a starved machine may delay pings past 10 s.
      SOCKET_MAX_PER_ADDRESS: "0",
      SOCKET_IDLE_TIMEOUT_MS: "60000",
    },
    { execArgv: ["--expose-gc"] },
  );
  const mem = () => server.ctl<Mem>({ cmd: "mem" });
  const show = (what: string, m: Mem) =>
    console.log(
      `${what.padEnd(28)} RSS ${mib(m.rss).padStart(10)}  heap ${mib(m.heapUsed).padStart(10)}  external ${mib(m.external).padStart(8)}`,
    );

  // One connection first: the socket layer's one-off allocations are not a socket's.
  const open = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const s = io(server.url, { path: "/ws", transports: ["websocket"], forceNew: true, reconnection: false, timeout: 60_000 });
      s.once("connect", () => resolve(s));
      s.once("connect_error", reject);
    });
  const first = await open();
  const m0 = await mem();
  show("1 socket (baseline)", m0);

  const sockets: Socket[] = [];
  const t0 = Date.now();
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, open));
    sockets.push(...batch);
  }
  const pinger = setInterval(() => sockets.forEach((s) => s.emit("ping")), 4000);
  console.log(`  ${n} connected in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await sleep(5000); // a round of pings answered: each socket's steady state
  const m1 = await mem();
  show(`+${n} idle sockets`, m1);
  const lost = sockets.filter((s) => !s.connected).length;

  clearInterval(pinger);
  for (const s of sockets) s.close();
  first.close();
  await sleep(3000);
  const m2 = await mem();
  show("all closed", m2);

  console.log("\n## summary");
  console.log(
    `per idle socket: heap ${((m1.heapUsed - m0.heapUsed) / n / 1024).toFixed(2)} KiB, RSS ${((m1.rss - m0.rss) / n / 1024).toFixed(2)} KiB ` +
      `(${n} sockets, ${lost} lost during the run); after they closed heap is back to ${mib(m2.heapUsed)} (baseline ${mib(m0.heapUsed)})`,
  );
}

runBench(main, 10 * 60_000);
