/**
 * The embedded process's side node (SIDE_NODE=thread, the default; SIDE_NODE=off: none): the services of SIDE_SERVICES
 * (the catalog's read models, the notifier, the sandbox chain) run as a second Moleculer node in a
 * worker thread of the same process, joined to the main node's hub (lib/local-transporter.ts)
 * through a MessagePort. The main node keeps the gateway and the order path on its event loop;
 * an order waits for nothing the side node does. One process to run and to kill, one data dir lock
 * (the main node's); the side node follows the journal with its own cursors as before, so a
 * SIGKILL loses nothing acknowledged.
 *
 * This file is both ends: `SideNode` in the main thread, and the worker's entry when loaded as one.
 */
import { writeFileSync, writeSync } from "node:fs";
import { format } from "node:util";
import { MessageChannel, Worker, isMainThread, parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { Middleware, ServiceBroker } from "moleculer";
import { SIDE_THREAD_NAME, type AppConfig } from "./lib/config";
import type { LocalSocketTransporter } from "./lib/local-transporter";
import { buildNode } from "./nodes";
import { windDown } from "./mixins/before-stop.middleware";
import { bindCatalogWrites } from "./mixins/catalog-writes";
import { bindJournalGrowth } from "./mixins/journal";
import { SharedCount } from "./mixins/shared-count";

/** What the worker is given at its creation. */
interface SideData {
  pmxSideNode: true;
  cfg: AppConfig;
  port: MessagePort;
  /** The demo's background trader runs here (the whole process runs what it trades through). */
  demoTrader: boolean;
  /** The catalog's count of writes (mixins/catalog-writes.ts), seen by both nodes. */
  catalogWrites: SharedArrayBuffer;
  /** The ledger's count of group commits (mixins/journal.ts), seen by both nodes. */
  journalGrowth: SharedArrayBuffer;
}

/** Main thread -> worker. */
type ToSide = { cmd: "start"; nodeID: string } | { cmd: "stop" };
/** Worker -> main thread. */
type FromSide = { started: true } | { stopped: true } | { failed: { name?: string; message: string; code?: unknown; stack?: string } };

/** The side node of a main node, while it runs (the banner names it). */
const sides = new WeakMap<ServiceBroker, SideNode>();

export function sideNodeOf(broker: ServiceBroker): SideNode | undefined {
  return sides.get(broker);
}

/** An Error carrying what the worker's error said (a start refusal such as a full disk keeps its code). */
function errorFrom(f: { name?: string; message: string; code?: unknown; stack?: string }): Error {
  const err = new Error(f.message) as Error & { code?: unknown };
  if (f.name) err.name = f.name;
  if (f.code !== undefined) err.code = f.code;
  if (f.stack) err.stack = f.stack;
  return err;
}

/**
 * The main thread's handle on the side node. The worker is created at once (it loads its modules
 * while the main node starts) and its node is started once the main node is up, stopped before it.
 */
export class SideNode {
  private readonly worker: Worker;
  private state: "loading" | "starting" | "running" | "stopping" | "ended" = "loading";
  private waiting: { resolve(): void; reject(err: Error): void } | null = null;
  private crashed: ((why: string) => void) | null = null;
  private readonly catalogWrites = new SharedCount();
  private readonly journalGrowth = new SharedCount();
  readonly exited: Promise<number>;

  /** Only a build can be run in a worker (the compiled side-node.js); from sources the process stays one node. */
  static available(): boolean {
    return __filename.endsWith(".js");
  }

  constructor(
    private readonly cfg: AppConfig,
    hub: LocalSocketTransporter,
    demoTrader: boolean,
  ) {
    const { port1, port2 } = new MessageChannel();
    hub.attachPort(port1);
    const data: SideData = {
      pmxSideNode: true,
      cfg,
      port: port2,
      demoTrader,
      catalogWrites: this.catalogWrites.shared,
      journalGrowth: this.journalGrowth.shared,
    };
    this.worker = new Worker(__filename, { workerData: data, transferList: [port2] });
    this.worker.on("message", (m: FromSide) => this.heard(m));
    this.worker.on("error", (err) => this.ended(`${err?.stack ?? err}`));
    this.exited = new Promise((res) => this.worker.once("exit", (code) => res(code)));
    void this.exited.then((code) => this.ended(`its thread exited (code ${code})`));
  }

  get services(): AppConfig["services"] {
    return this.cfg.services;
  }

  /**
   * Attach to the main node. The side node starts once every service of the main node has started
   * (the services it calls answer) and before the main node counts as started: its `started` flag,
   * its `GET /health`, the ready banner come once the whole process is up. It stops before the
   * main node, while the services it calls still answer. `onCrash`: the side node failed while running.
   */
  bind(broker: ServiceBroker, onCrash: (why: string) => void): void {
    sides.set(broker, this);
    bindCatalogWrites(broker, this.catalogWrites);
    bindJournalGrowth(broker, this.journalGrowth);
    this.crashed = onCrash;
    let total = 0;
    let started = 0;
    let release: (side: Promise<void>) => void = () => undefined;
    const up = new Promise<void>((resolve, reject) => (release = (side) => void side.then(resolve, reject)));
    const startSide = async () => {
      try {
        await this.start(`${broker.nodeID}-side`);
        // Once the main node has heard of every side service, requests for them find their way.
        await broker.waitForServices([...this.cfg.services], 30_000);
      } catch (err) {
        await this.stop().catch(() => undefined);
        throw err;
      }
    };
    broker.middlewares.add({
      name: "SideNodeStart",
      starting: () => void (total = broker.services.length),
      // Each service's start waits for the side node, which starts after the last of them.
      serviceStarted: () => {
        if (++started === total) release(startSide());
        return up;
      },
    } as unknown as Middleware);
    // Each group commit the ledger announces wakes the side node's notifier (it no longer hears the announcement).
    const broadcast = broker.broadcast.bind(broker);
    broker.broadcast = ((event: string, payload?: unknown, opts?: unknown) => {
      if (event === "ledger.committed") this.journalGrowth.bump();
      return broadcast(event, payload, opts as never);
    }) as ServiceBroker["broadcast"];
    const stop = broker.stop.bind(broker);
    broker.stop = async () => {
      await this.stop().catch((err) => broker.logger.warn("the side node did not stop cleanly:", err));
      return stop();
    };
  }

  private start(nodeID: string): Promise<void> {
    if (this.state !== "loading") return Promise.reject(new Error(`the side node cannot start: it is ${this.state}`));
    this.state = "starting";
    return this.request({ cmd: "start", nodeID }).then(() => void (this.state = "running"));
  }

  /** Stop the side node's broker (its requests in flight drain), then end its thread. */
  async stop(): Promise<void> {
    if (this.state === "ended") return;
    if (this.state === "running" || this.state === "starting") {
      this.state = "stopping";
      await this.request({ cmd: "stop" }).catch(() => undefined);
    }
    this.state = "ended";
    await this.worker.terminate();
  }

  private request(m: ToSide): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage(m);
    });
  }

  private heard(m: FromSide): void {
    const w = this.waiting;
    this.waiting = null;
    if ("failed" in m) w?.reject(errorFrom(m.failed));
    else w?.resolve();
  }

  private ended(why: string): void {
    const was = this.state;
    if (was === "ended" || was === "stopping") return;
    this.state = "ended";
    this.waiting?.reject(new Error(`the side node (${this.cfg.services.join(", ")}) stopped: ${why}`));
    this.waiting = null;
    if (was === "running") this.crashed?.(why);
  }
}

/**
 * A worker's console reaches the process's stdout through the main thread, later: the last lines
 * before the thread ends (its services' "stopped") were lost when the process exited. The side
 * node writes its lines to the process's own descriptors instead, waiting out a full pipe.
 */
function writeConsoleDirectly(): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const writeAll = (fd: number, text: string) => {
    let rest = Buffer.from(text);
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(fd, rest));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  };
  const to =
    (fd: number) =>
    (...args: unknown[]) =>
      writeAll(fd, `${format(...args)}\n`);
  console.log = console.info = console.debug = to(1);
  console.warn = console.error = to(2);
}

/** The worker: its node is built and started when the main thread says so, stopped likewise. */
function runWorker(data: SideData): void {
  writeConsoleDirectly();
  const parent = parentPort as MessagePort;
  try {
    // Told apart from the event loop and the money writer in `top -H` and the benches' per-thread CPU.
    writeFileSync("/proc/thread-self/comm", SIDE_THREAD_NAME);
  } catch {
    // Not Linux: the thread keeps its default name.
  }
  let broker: ServiceBroker | null = null;
  const answer = (work: () => Promise<void>, done: FromSide) =>
    work().then(
      () => parent.postMessage(done),
      (err: { name?: string; message?: string; code?: unknown; stack?: string }) =>
        parent.postMessage({
          failed: { name: err?.name, message: err?.message ?? String(err), code: err?.code, stack: err?.stack },
        } satisfies FromSide),
    );
  parent.on("message", (m: ToSide) => {
    if (m.cmd === "start")
      void answer(
        async () => {
          broker = buildNode(data.cfg, { role: "side", nodeID: m.nodeID, port: data.port, demoTrader: data.demoTrader }, (b) => {
            bindCatalogWrites(b, new SharedCount(data.catalogWrites));
            bindJournalGrowth(b, new SharedCount(data.journalGrowth));
          });
          await broker.start();
        },
        { started: true },
      );
    else if (m.cmd === "stop")
      void answer(
        async () => {
          if (!broker) return;
          // While the main node still sees this node's services: work that calls back here ends first.
          await windDown(broker);
          await broker.stop();
        },
        { stopped: true },
      );
  });
}

if (!isMainThread && (workerData as Partial<SideData> | null)?.pmxSideNode) runWorker(workerData as SideData);
