/** Small helpers shared by the benches: flags, clock, formatting, machine description. */
import { cpus, totalmem } from "node:os";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** `--name=value` flags (and bare `--name` = "1"); unknown flags are the caller's business. */
export function flags(argv = process.argv.slice(2)): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of argv) {
    const m = /^--([A-Za-z0-9-]+)(?:=(.*))?$/.exec(a);
    if (m) out[m[1]] = m[2] ?? "1";
  }
  return out;
}

export function num(f: Record<string, string>, name: string, fallback: number): number {
  const v = f[name];
  if (v === undefined) return fallback;
  const n = Number(v.replace(/_/g, ""));
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${v}`);
  return n;
}

/** Nanoseconds as a double (sub-microsecond resolution; about 40 ns per call here). */
export const nowNs = (): number => performance.now() * 1e6;
/** Wall clock in ms shared by processes of one host (performance.timeOrigin + now). */
export const wallMs = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function fmtRate(perSec: number): string {
  if (perSec >= 1e6) return `${(perSec / 1e6).toFixed(2)}M/s`;
  if (perSec >= 1e3) return `${(perSec / 1e3).toFixed(1)}k/s`;
  return `${perSec.toFixed(0)}/s`;
}

export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3)}x` : "n/a";
}

export const mark = (ok: boolean): string => (ok ? "MET" : "MISSED");

export function machine(): string {
  let model = cpus()[0]?.model ?? "unknown CPU";
  try {
    const m = /^model name\s*:\s*(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m) model = m[1].trim();
  } catch {
    /* not Linux */
  }
  return `${cpus().length} cores (nproc), ${model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** mulberry32: tiny, fast, seeded; good enough for workload generation. */
export function rng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
