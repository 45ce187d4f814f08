/**
 * Process helpers for the benches: forked bench nodes (bench/lib/node.ts) with their IPC channel,
 * a loopback nats-server, temp data dirs, logins, and cleanup that always runs (every child is
 * killed by id when the bench ends, fails or is interrupted).
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestWallet } from "../../test/support/wallet";
import { freePort } from "../../test/support/redis";
import { startNats as startTestNats } from "../../test/support/nats";

const NODE_JS = join(__dirname, "node.js");

const cleanups: Array<() => Promise<void> | void> = [];

export { freePort };

/** Run (and forget) every cleanup registered so far, latest first: children, then their dirs. */
export async function cleanup(): Promise<void> {
  for (let c = cleanups.pop(); c; c = cleanups.pop()) await Promise.resolve(c()).catch(() => undefined);
}
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    cleanup().finally(() => process.exit(130));
  });
}

/** Runs `main`, then cleans up and exits (0, or 1 on an error). A hard deadline stops a stuck run. */
export function runBench(main: () => Promise<void>, maxMs: number): void {
  const timer = setTimeout(() => {
    console.error(`bench exceeded its ${Math.round(maxMs / 1000)} s limit; stopping`);
    cleanup().finally(() => process.exit(2));
  }, maxMs);
  timer.unref();
  main().then(
    () => cleanup().then(() => process.exit(0)),
    (err) => {
      console.error(err);
      cleanup().finally(() => process.exit(1));
    },
  );
}

export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    child.kill(signal);
  });
}

/** nats-server on a free loopback port (the tests' helper; `npm test`'s setup installs it), stopped at cleanup. */
export async function startNats(): Promise<{ url: string; stop(): Promise<void> }> {
  const nats = await startTestNats();
  cleanups.push(() => nats.stop());
  return nats;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: { message?: string };
}

/** One forked bench node and its IPC channel. */
export class BenchNode {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  url = "";
  stderr = "";

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
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
  }

  get pid(): number {
    return this.child.pid as number;
  }

  static async start(name: string, env: Record<string, string>, opts: { execArgv?: string[]; readyTimeoutMs?: number } = {}): Promise<BenchNode> {
    const child = fork(NODE_JS, [], {
      env: { PATH: process.env.PATH ?? "", NODE_ID: name, ...env },
      execArgv: opts.execArgv ?? [],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const node = new BenchNode(name, child);
    cleanups.push(() => stopChild(child));
    child.stderr?.on("data", (d: Buffer) => {
      node.stderr += d.toString();
      if (node.stderr.length > 20_000) node.stderr = node.stderr.slice(-10_000);
    });
    const timeout = opts.readyTimeoutMs ?? 60_000;
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

  async http(method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(this.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** Resident set size of the process from /proc (what the OS holds for it). */
  rss(): number {
    return procRss(this.pid);
  }

  stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    return stopChild(this.child, signal);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function procCpuSec(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

export function procRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Retry `fn` until it returns non-null (discovery, ownership moves). */
export async function until<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface BenchUser {
  userId: string;
  token: string;
}

/** Real logins: a fresh TON wallet signs a ton_proof for `domain` and POSTs /auth/connect. */
export async function login(gateway: BenchNode, domain: string, n: number, concurrency = 8): Promise<BenchUser[]> {
  const out: BenchUser[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await gateway.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain }) });
      if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
      out[i] = { userId: r.body.data.userId, token: r.body.data.accessToken };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}
