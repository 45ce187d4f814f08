/**
 * A server process for the benches, forked with an IPC channel (no port or route is added: the
 * channel is the fork() pipe only). Two kinds:
 *  - BENCH_KIND=exchange (default): the real node exactly as `npm start` builds it (server.ts
 *    createNode with the configuration from the environment);
 *  - BENCH_KIND=bare-gateway / bare-action / bare: the baseline, a moleculer-web ApiGateway with one
 *    trivial action (`GET /bare` and, through the JSON body parser, `POST /bare` -> `bare.hello`),
 *    same moleculer and moleculer-web, same process kind; `bare` holds both, the other two split
 *    them over TRANSPORTER. `POST /bare/durable` (`bare.durable`, with DATA_DIR) also appends the
 *    body to a file and answers once it is synced, group-committed as the money store does: one
 *    fdatasync in flight, every body that arrived meanwhile synced by the next one.
 *
 * Parent -> child: { id, cmd, ... } with cmd
 *   fund {userId, amount} | fundMany {userIds, amount} | call {action, params?, meta?}
 *   mem (runs the GC when exposed, answers process.memoryUsage()) | profileStart | profileStop {file}
 *   heapStart | heapStop {file} (V8's sampling heap profiler: where allocations are made)
 *   sideProfileStart | sideProfileStop {file} (the same CPU profiler inside the side node's worker thread)
 *   fanoutWrites (the gateway's socket fan-out writes per path so far: websocket, engine-io)
 *   authCounts (records of the auth stores, the gateway's session and verified-token caches) | authSweep (the auth sweep, now)
 *   placeMany {count, markets, users, seed, concurrency, offset?, maxMs?} (resting limit orders through book.place,
 *     with the user on ctx.meta as the gateway puts it there; for the memory bench)
 * Child -> parent: { ready: true, port } once listening, then { id, ok, result | error }.
 * Without a parent it refuses to run; it stops when the parent goes away.
 */
import { rng } from "./util";
import { randomUUID } from "node:crypto";
import { fdatasync, openSync, write, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "node:inspector";
import { getHeapStatistics } from "node:v8";
import { ServiceBroker } from "moleculer";
import ApiGateway from "moleculer-web";
import { loadConfig } from "../../lib/config";
import { createNode } from "../../server";
import { serveOverIpc } from "../../scripts/ipc-node";
import type { SocketGatewayThis } from "../../gateway/socket";
import type { Doc, Store } from "../../lib/store";
import { verifiedTokenCount } from "../../auth/tokens";

type Msg = { id: number; cmd: string; [k: string]: unknown };

function bareBroker(kind: string): ServiceBroker {
  const broker = new ServiceBroker({
    namespace: "bare",
    nodeID: process.env.NODE_ID || undefined,
    transporter: process.env.TRANSPORTER || null,
    logger: false,
    serializer: "JSON",
    registry: { strategy: "RoundRobin", preferLocal: true },
  });
  if (kind === "bare" || kind === "bare-action") {
    const durable = process.env.DATA_DIR ? groupCommitted(join(process.env.DATA_DIR, "bare.log")) : null;
    broker.createService({
      name: "bare",
      actions: {
        hello: { handler: () => ({ ok: true }) },
        durable: { handler: async (ctx) => (await durable?.(JSON.stringify(ctx.params)), { ok: true }) },
      },
    });
  }
  if (kind === "bare" || kind === "bare-gateway") {
    broker.createService({
      name: "api",
      mixins: [ApiGateway],
      settings: {
        port: Number(process.env.PORT ?? 0),
        ip: process.env.HOST ?? "127.0.0.1",
        // POST /bare: the same action behind moleculer-web's JSON body parser (an order-sized body's own cost).
        routes: [
          {
            path: "/",
            mappingPolicy: "restrict",
            bodyParsers: { json: { strict: true, limit: "64kb" } },
            aliases: { "GET /bare": "bare.hello", "POST /bare": "bare.hello", "POST /bare/durable": "bare.durable" },
          },
        ],
      },
    });
  }
  return broker;
}

/** Appends a line and resolves once a sync that began after the write returns (one sync in flight). */
function groupCommitted(file: string): (line: string) => Promise<void> {
  const fd = openSync(file, "a");
  let waiting: Array<{ line: string; done: () => void }> = [];
  let busy = false;
  const cycle = (): void => {
    if (busy || !waiting.length) return;
    busy = true;
    const group = waiting;
    waiting = [];
    const bytes = Buffer.from(group.map((g) => `${g.line}\n`).join(""));
    write(fd, bytes, (werr) =>
      fdatasync(fd, (serr) => {
        if (werr || serr) throw werr ?? serr;
        for (const g of group) g.done();
        busy = false;
        cycle();
      }),
    );
  };
  return (line) =>
    new Promise<void>((done) => {
      waiting.push({ line, done });
      cycle();
    });
}

async function placeMany(broker: ServiceBroker, m: Msg): Promise<unknown> {
  const count = m.count as number;
  const markets = m.markets as string[];
  const users = m.users as string[];
  const r = rng((m.seed as number) ?? 1);
  const concurrency = (m.concurrency as number) ?? 64;
  const deadline = Date.now() + ((m.maxMs as number) ?? Infinity);
  const offset = (m.offset as number) ?? 0;
  let next = 0;
  let ok = 0;
  let failed = 0;
  let lastError = "";
  const exp = Math.floor(Date.now() / 1000) + 86_400;
  const worker = async () => {
    while (next < count && Date.now() < deadline) {
      const k = offset + next++;
      const userId = users[k % users.length];
      const marketId = markets[Math.floor(k / users.length + k) % markets.length];
      // Resting bids and asks that never cross: BUY YES 0.30..0.49 and BUY NO 0.30..0.49 (= YES asks 0.51..0.70).
      const outcome = r() < 0.5 ? "YES" : "NO";
      const price = (30 + Math.floor(r() * 20)) / 100;
      try {
        await broker.call(
          "book.place",
          { marketId, side: "BUY", outcome, orderType: "GTC", price, quantity: 1_000_000 },
          { meta: { user: { id: userId, wallet: "0:" + "0".repeat(64), sid: "bench", exp } } },
        );
        ok++;
      } catch (err) {
        failed++;
        lastError = (err as Error).message;
      }
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ok, failed, lastError, ms: Date.now() - t0 };
}

/** The side node's worker (side-node.js) reached through the main thread's inspector session (NodeWorker domain). */
class WorkerInspector {
  private sessionId: string | null = null;
  private next = 1;
  private readonly waiting = new Map<number, { res(v: unknown): void; rej(e: Error): void }>();

  constructor(private readonly session: Session) {
    session.on("NodeWorker.attachedToWorker", (m: { params: { sessionId: string; workerInfo: { url: string } } }) => {
      if (m.params.workerInfo.url.includes("side-node")) this.sessionId = m.params.sessionId;
    });
    session.on("NodeWorker.receivedMessageFromWorker", (m: { params: { sessionId: string; message: string } }) => {
      const r = JSON.parse(m.params.message) as { id?: number; result?: unknown; error?: { message: string } };
      const w = r.id !== undefined ? this.waiting.get(r.id) : undefined;
      if (!w) return;
      this.waiting.delete(r.id as number);
      if (r.error) w.rej(new Error(r.error.message));
      else w.res(r.result);
    });
  }

  async post(method: string, params: object = {}): Promise<unknown> {
    if (!this.sessionId) {
      await new Promise<void>((res, rej) =>
        this.session.post("NodeWorker.enable", { waitForDebuggerOnStart: false }, (e) => (e ? rej(e) : res())),
      );
      for (let i = 0; i < 100 && !this.sessionId; i++) await new Promise((r) => setTimeout(r, 20));
      if (!this.sessionId) throw new Error("no side node worker to profile");
    }
    const id = this.next++;
    const message = JSON.stringify({ id, method, params });
    return new Promise((res, rej) => {
      this.waiting.set(id, { res, rej });
      this.session.post("NodeWorker.sendMessageToWorker", { sessionId: this.sessionId, message }, (e) => {
        if (e) {
          this.waiting.delete(id);
          rej(e);
        }
      });
    });
  }
}

let side: WorkerInspector | null = null;

async function run(broker: ServiceBroker, session: Session | null, m: Msg): Promise<unknown> {
  switch (m.cmd) {
    case "fund":
    case "fundMany": {
      const ids = m.cmd === "fund" ? [m.userId as string] : (m.userIds as string[]);
      const amount = m.amount as number;
      // The same entry a confirmed deposit posts.
      for (const userId of ids) {
        await broker.call("ledger.post", {
          key: `bench-deposit:${randomUUID()}`,
          postings: [
            { kind: "cash", account: userId, available: amount },
            { kind: "external", flow: "deposit", amount },
          ],
        });
      }
      return ids.length;
    }
    case "call":
      return broker.call(m.action as string, (m.params as object) ?? {}, m.meta ? { meta: m.meta as object } : undefined);
    case "placeMany":
      return placeMany(broker, m);
    case "fanoutWrites":
      return { ...(broker.getLocalService("api") as unknown as Pick<SocketGatewayThis, "fanoutWrites">).fanoutWrites };
    case "authCounts": {
      // What logins leave behind: the auth stores' records and the gateway's caches keyed by session or token.
      const auth = broker.getLocalService("auth") as unknown as { stores: Record<"users" | "sessions" | "usedProofs", Store<Doc>> };
      const api = broker.getLocalService("api") as unknown as { sessions?: { size: number } };
      return {
        users: await auth.stores.users.count({}),
        sessions: await auth.stores.sessions.count({}),
        usedProofs: await auth.stores.usedProofs.count({}),
        gatewaySessions: api.sessions?.size ?? 0,
        verifiedTokens: verifiedTokenCount(),
      };
    }
    case "authSweep":
      return (broker.getLocalService("auth") as unknown as { auth: { sweep(): Promise<number> } }).auth.sweep();
    case "mem": {
      const g = (globalThis as { gc?: () => void }).gc;
      if (g) {
        g();
        g();
      }
      return { ...process.memoryUsage(), heapLimit: getHeapStatistics().heap_size_limit };
    }
    case "profileStart":
      if (!session) throw new Error("no inspector session");
      await new Promise<void>((res, rej) => session.post("Profiler.enable", (e) => (e ? rej(e) : res())));
      await new Promise<void>((res, rej) => session.post("Profiler.setSamplingInterval", { interval: 200 }, (e) => (e ? rej(e) : res())));
      await new Promise<void>((res, rej) => session.post("Profiler.start", (e) => (e ? rej(e) : res())));
      return true;
    case "profileStop": {
      if (!session) throw new Error("no inspector session");
      const profile = await new Promise<unknown>((res, rej) => session.post("Profiler.stop", (e, r) => (e ? rej(e) : res(r.profile))));
      writeFileSync(m.file as string, JSON.stringify(profile));
      return m.file;
    }
    case "sideProfileStart":
      if (!session) throw new Error("no inspector session");
      side ??= new WorkerInspector(session);
      await side.post("Profiler.enable");
      await side.post("Profiler.setSamplingInterval", { interval: 200 });
      await side.post("Profiler.start");
      return true;
    case "sideProfileStop": {
      if (!side) throw new Error("no side profile running");
      const r = (await side.post("Profiler.stop")) as { profile: unknown };
      writeFileSync(m.file as string, JSON.stringify(r.profile));
      return m.file;
    }
    case "heapStart":
      if (!session) throw new Error("no inspector session");
      await new Promise<void>((res, rej) => session.post("HeapProfiler.enable", (e) => (e ? rej(e) : res())));
      await new Promise<void>((res, rej) =>
        session.post(
          "HeapProfiler.startSampling",
          { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true },
          (e) => (e ? rej(e) : res()),
        ),
      );
      return true;
    case "heapStop": {
      if (!session) throw new Error("no inspector session");
      const profile = await new Promise<unknown>((res, rej) =>
        session.post("HeapProfiler.stopSampling", (e, r) => (e ? rej(e) : res(r.profile))),
      );
      writeFileSync(m.file as string, JSON.stringify(profile));
      return m.file;
    }
    default:
      throw new Error(`unknown command ${m.cmd}`);
  }
}

async function main(): Promise<void> {
  const kind = process.env.BENCH_KIND ?? "exchange";
  let session: Session | null = null;
  if (process.env.BENCH_PROFILE) {
    session = new Session();
    session.connect();
  }
  await serveOverIpc<Msg>(
    "bench node: fork it from a bench",
    () => (kind === "exchange" ? createNode(loadConfig()) : bareBroker(kind)),
    (broker, m) => run(broker, session, m),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
