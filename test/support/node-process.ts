import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";

export const ROOT = resolve(__dirname, "../..");
/** CRASH_NODE_JS points at another build, e.g. a deliberately broken copy to see a test fail. */
export const NODE_JS = process.env.CRASH_NODE_JS ?? join(ROOT, "dist/scripts/test-node.js");

/** The environment of one embedded exchange on `dataDir` (port 0, no demo catalog, quiet), plus `extra`. */
export function embeddedEnv(dataDir: string, domain: string, adminKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    APP_DOMAIN: domain,
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_KEY: adminKey,
    LOG_LEVEL: "false",
    SEED_DEMO: "false",
    ...extra,
  };
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { message?: string };
}

/** One forked server process and its IPC control channel (tests and benches). */
export class NodeProcess {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly exited: Promise<number | null>;
  url = "";
  /** The tail of what the process wrote to stderr (start failures quote it). */
  stderr = "";

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    this.exited = new Promise((res) => child.once("exit", (code) => res(code)));
    child.on("message", (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`${name}: ${m.error?.message ?? "IPC command failed"}`));
    });
    child.once("exit", () => {
      for (const p of this.pending.values()) p.reject(new Error(`${name} exited`));
      this.pending.clear();
    });
    child.stderr?.on("data", (d: Buffer) => {
      this.stderr += d.toString();
      if (this.stderr.length > 20_000) this.stderr = this.stderr.slice(-10_000);
    });
  }

  /** Fork `script` (the test node by default) and wait for its `{ready, port}` message. */
  static async start<T extends NodeProcess>(
    this: new (child: ChildProcess, name: string) => T,
    env: Record<string, string>,
    opts: { readyTimeoutMs?: number; script?: string; execArgv?: string[]; name?: string } = {},
  ): Promise<T> {
    const name = opts.name ?? "node";
    const child = fork(opts.script ?? NODE_JS, [], { env, execArgv: opts.execArgv ?? [], stdio: ["ignore", "ignore", "pipe", "ipc"] });
    const node = new this(child, name);
    // A ceiling: the ready message (or an exit) ends the wait; a loaded machine starts a node slowly.
    const timeout = opts.readyTimeoutMs ?? 120_000;
    const port = await new Promise<number>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`${name} not ready in ${timeout} ms: ${node.stderr}`)), timeout);
      child.on("message", (m: { ready?: boolean; port?: number }) => {
        if (m.ready) {
          clearTimeout(timer);
          res(m.port as number);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        rej(new Error(`${name} exited with ${code} before ready: ${node.stderr}`));
      });
    });
    node.url = `http://127.0.0.1:${port}`;
    return node;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  ctl<T = unknown>(msg: Record<string, unknown>): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((res, rej) => {
      this.pending.set(id, { resolve: res as (v: unknown) => void, reject: rej });
      this.child.send({ id, ...msg });
    });
  }

  call<T = unknown>(action: string, params: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<T> {
    return this.ctl<T>({ cmd: "call", action, params, meta });
  }

  async http(
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(this.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}
