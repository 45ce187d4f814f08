/**
 * Per-thread CPU and write counters of a server process, from Linux's /proc: each thread's
 * utime + stime (/proc/<pid>/task/<tid>/stat, clock ticks), its name (comm) and its I/O counters
 * (/proc/<pid>/task/<tid>/io), and the process's own I/O counters. Threads are told apart as the
 * event loop (tid = pid), the money store's writer thread (it names itself, see
 * ledger/sqlite-writer-thread.ts), the side node's thread (side-node.ts, likewise) and the rest
 * (V8's platform threads, libuv's pool where fdatasync runs, other workers). Not Linux: every
 * figure is NaN.
 */
import { readdirSync, readFileSync } from "node:fs";
import { WRITER_THREAD_NAME } from "../../ledger/sqlite-writer";
import { SIDE_THREAD_NAME } from "../../lib/config";
/** USER_HZ: /proc reports CPU times in these ticks (100 on every Linux this runs on). */
const TICKS_PER_SEC = 100;

export interface IoCounters {
  /** Bytes handed to write-type syscalls (files and sockets alike). */
  wchar: number;
  syscw: number;
  syscr: number;
  /** Bytes this task caused to be sent to storage (page cache dirtied). */
  writeBytes: number;
}

export interface ThreadSample {
  /** CPU seconds per thread class. */
  cpu: { loop: number; writer: number; side: number; other: number };
  /** The writer thread's own I/O (its pwrites are SQLite's), zero when it does not run. */
  writerIo: IoCounters;
  /** The whole process's I/O. */
  io: IoCounters;
}

function readIo(path: string): IoCounters {
  const out: IoCounters = { wchar: 0, syscw: 0, syscr: 0, writeBytes: 0 };
  try {
    for (const line of readFileSync(path, "utf8").split("\n")) {
      const [k, v] = line.split(":");
      const n = Number(v);
      if (k === "wchar") out.wchar = n;
      else if (k === "syscw") out.syscw = n;
      else if (k === "syscr") out.syscr = n;
      else if (k === "write_bytes") out.writeBytes = n;
    }
  } catch {
    return { wchar: NaN, syscw: NaN, syscr: NaN, writeBytes: NaN };
  }
  return out;
}

/** The process's threads now (threads that ended since the last sample are no longer counted). */
export function sampleThreads(pid: number): ThreadSample {
  const cpu = { loop: 0, writer: 0, side: 0, other: 0 };
  let writerIo: IoCounters = { wchar: 0, syscw: 0, syscr: 0, writeBytes: 0 };
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    const nan = { wchar: NaN, syscw: NaN, syscr: NaN, writeBytes: NaN };
    return { cpu: { loop: NaN, writer: NaN, side: NaN, other: NaN }, writerIo: nan, io: nan };
  }
  for (const tid of tids) {
    const dir = `/proc/${pid}/task/${tid}`;
    let stat: string;
    let comm: string;
    try {
      stat = readFileSync(`${dir}/stat`, "utf8");
      comm = readFileSync(`${dir}/comm`, "utf8").trim();
    } catch {
      continue; // ended meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const sec = (Number(f[11]) + Number(f[12])) / TICKS_PER_SEC;
    if (Number(tid) === pid) cpu.loop += sec;
    else if (comm === WRITER_THREAD_NAME) {
      cpu.writer += sec;
      writerIo = readIo(`${dir}/io`);
    } else if (comm === SIDE_THREAD_NAME) cpu.side += sec;
    else cpu.other += sec;
  }
  return { cpu, writerIo, io: readIo(`/proc/${pid}/io`) };
}

const ioDiff = (a: IoCounters, b: IoCounters): IoCounters => ({
  wchar: b.wchar - a.wchar,
  syscw: b.syscw - a.syscw,
  syscr: b.syscr - a.syscr,
  writeBytes: b.writeBytes - a.writeBytes,
});

/** What the processes used between two samples each (summed over the processes). */
export function threadsUsed(before: ThreadSample[], after: ThreadSample[]): ThreadSample {
  const out: ThreadSample = {
    cpu: { loop: 0, writer: 0, side: 0, other: 0 },
    writerIo: { wchar: 0, syscw: 0, syscr: 0, writeBytes: 0 },
    io: { wchar: 0, syscw: 0, syscr: 0, writeBytes: 0 },
  };
  for (let i = 0; i < before.length; i++) {
    const a = before[i];
    const b = after[i];
    // A writer thread started during the pass counts from zero.
    const wa = a.cpu.writer === 0 && b.cpu.writer > 0 ? { wchar: 0, syscw: 0, syscr: 0, writeBytes: 0 } : a.writerIo;
    out.cpu.loop += b.cpu.loop - a.cpu.loop;
    out.cpu.writer += b.cpu.writer - a.cpu.writer;
    out.cpu.side += b.cpu.side - a.cpu.side;
    out.cpu.other += b.cpu.other - a.cpu.other;
    const wi = ioDiff(wa, b.writerIo);
    const pi = ioDiff(a.io, b.io);
    for (const k of Object.keys(wi) as Array<keyof IoCounters>) {
      out.writerIo[k] += wi[k];
      out.io[k] += pi[k];
    }
  }
  return out;
}

/**
 * Per order (or request): CPU microseconds per thread class and in all (the whole process: every
 * thread, the side node's included), and the writes: storage bytes of the
 * process, the writer thread's bytes written and write / read syscalls.
 */
export function perOrder(used: ThreadSample, n: number): string {
  if (!n) return "";
  const us = (s: number) => ((s * 1e6) / n).toFixed(0);
  const c = used.cpu;
  const cpu = `cpu/order us loop ${us(c.loop)} writer ${us(c.writer)} side ${us(c.side)} other ${us(c.other)} all ${us(c.loop + c.writer + c.side + c.other)}`;
  const kb = (b: number) => (b / n / 1024).toFixed(1);
  const per = (x: number) => (x / n).toFixed(1);
  const io = used.writerIo;
  return `${cpu}  disk ${kb(used.io.writeBytes)} KB/order (writer pwrite ${kb(io.wchar)} KB, ${per(io.syscw)} w + ${per(io.syscr)} r syscalls)`;
}
