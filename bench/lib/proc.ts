/**
 * Process helpers for the benches: forked bench nodes (bench/lib/node.ts) with their IPC channel,
 * a loopback nats-server, temp data dirs, logins, and cleanup that always runs (every child is
 * killed by id when the bench ends, fails or is interrupted).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestWallet } from "../../test/support/wallet";
import { freePort } from "../../test/support/redis";
import { startNats as startTestNats } from "../../test/support/nats";
import { NodeProcess } from "../../test/support/node-process";

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

/** A forked bench node (bench/lib/node.ts): the tests' NodeProcess, stopped at cleanup. */
export class BenchNode extends NodeProcess {
  static async launch(
    name: string,
    env: Record<string, string>,
    opts: { execArgv?: string[]; readyTimeoutMs?: number } = {},
  ): Promise<BenchNode> {
    const node = await BenchNode.start(
      { PATH: process.env.PATH ?? "", NODE_ID: name, ...env },
      { ...opts, name, script: NODE_JS, readyTimeoutMs: opts.readyTimeoutMs ?? 60_000 },
    );
    cleanups.push(() => stopChild(node.child));
    return node;
  }

  /** Resident set size of the process from /proc (what the OS holds for it). */
  rss(): number {
    return procRss(this.pid);
  }

  override stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
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
