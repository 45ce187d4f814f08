import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";

/** Who holds a data dir: written beside the lock once it is taken (the lock itself cannot be read). */
export interface DataDirHolder {
  pid: number;
  nodeID: string;
  startedAt: string;
  /** Where operator tools join the running exchange (`npm run repl`). */
  socket: string;
}

export class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: DataDirHolder | null,
  ) {
    super(
      `DATA_DIR ${dir} is in use by ${holder ? `process ${holder.pid} (node ${holder.nodeID}, since ${holder.startedAt})` : "another process"}: ` +
        "one process owns a data dir. Stop that process first, or attach to it with `npm run repl`.",
    );
    this.name = "DataDirInUse";
  }
}

/**
 * Modes of what the exchange creates in its data dir: the owner only (balances, sessions, keys).
 * Explicit where a file is made here; the umask (`restrictNewFiles`) covers what libraries create
 * on their own (SQLite's -wal and -shm, NeDB's rewrites, the chain's files, the operator socket).
 */
export const DATA_FILE_MODE = 0o600;
export const DATA_DIR_MODE = 0o700;

/** The data dir, created owner-only if it is not there (an existing one keeps its mode). */
export function makeDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
}

/** An SQLite database file created owner-only before SQLite opens it (its -wal and -shm take its mode). */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, "a", DATA_FILE_MODE));
}

/**
 * From now on this process creates files and dirs for its owner only (umask 077, as PostgreSQL
 * does): called once a data dir on disk is taken, before anything is written into it.
 */
export function restrictNewFiles(): void {
  process.umask(process.umask() | 0o077);
}

/**
 * Below this much free space on its disk a data dir is not started: opening the stores writes
 * (the lock, the money store's log, the read models' files), and a start that fails half way
 * helps nobody.
 */
export const START_MIN_FREE_BYTES = 1 << 20;

/** The disk holding a data dir has no room: said in words (which dir, how much is free, what to do). */
export class DiskFull extends Error {
  constructor(
    readonly dir: string,
    readonly free: number | null,
    /** What failed for want of space, when something did. */
    readonly failure?: string,
  ) {
    const room = free === null ? "free space unknown" : `${bytes(free)} free`;
    super(
      `the disk holding DATA_DIR ${dir} is full (${room}${failure ? `; ${failure}` : `, at least ${bytes(START_MIN_FREE_BYTES)} needed to start`}). ` +
        "Free space on that disk (or point DATA_DIR at a directory on another disk), then start again.",
    );
    this.name = "DiskFull";
  }
}

function bytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1 << 20) return `${Math.floor(n / 1024)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

/** Free bytes (for an unprivileged process) on the disk holding `dir`, or its nearest existing parent; null when unknown. */
export function freeBytes(dir: string): number | null {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      const s = statfsSync(d);
      return Number(s.bavail) * Number(s.bsize);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || dirname(d) === d) return null;
    }
  }
}

/** Refuses (DiskFull) to start on a data dir whose disk has less than START_MIN_FREE_BYTES free. */
export function checkStartSpace(dir: string): void {
  const free = freeBytes(dir);
  if (free !== null && free < START_MIN_FREE_BYTES) throw new DiskFull(dir, free);
}

const NO_SPACE = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);

/** A failure for want of space (ENOSPC, EDQUOT, SQLITE_FULL) as a DiskFull naming the data dir; null for any other. */
export function diskFullOf(err: unknown, dir: string): DiskFull | null {
  if (err instanceof DiskFull) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code !== "string" || !NO_SPACE.has(e.code)) return null;
  return new DiskFull(dir, freeBytes(dir), typeof e.message === "string" ? e.message : e.code);
}

const LOCK_FILE = "pmx.lock";
const HOLDER_FILE = "pmx.pid";
/** sun_path is 108 bytes on Linux. */
const MAX_SOCKET_PATH = 100;

/** The operator socket of a data dir: inside it when the path fits, else a fixed name in the temp dir. */
export function socketPathFor(dir: string): string {
  const inside = join(resolve(dir), "pmx.sock");
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  return join(tmpdir(), `pmx-${createHash("sha1").update(resolve(dir)).digest("hex").slice(0, 16)}.sock`);
}

export function readHolder(dir: string): DataDirHolder | null {
  try {
    return JSON.parse(readFileSync(join(dir, HOLDER_FILE), "utf8")) as DataDirHolder;
  } catch {
    return null;
  }
}

/**
 * Exactly one process owns a data dir: an exclusive SQLite lock on DATA_DIR/pmx.lock (fcntl),
 * held for the process's life and dropped by the OS when it dies, so a SIGKILL never leaves a
 * stale lock behind. A second process is refused at once with the holder's pid.
 */
export class DataDirLock {
  private db: Database.Database | null = null;

  private constructor(readonly dir: string) {}

  static acquire(dir: string, nodeID: string): DataDirLock {
    makeDataDir(dir);
    const lock = new DataDirLock(dir);
    ensurePrivateFile(join(dir, LOCK_FILE));
    const db = new Database(join(dir, LOCK_FILE), { timeout: 0 });
    try {
      db.pragma("locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE; COMMIT");
    } catch (err) {
      db.close();
      const code = (err as { code?: string }).code;
      if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") throw new DataDirInUse(dir, readHolder(dir));
      throw err;
    }
    lock.db = db;
    const holder: DataDirHolder = { pid: process.pid, nodeID, startedAt: new Date().toISOString(), socket: socketPathFor(dir) };
    writeFileSync(join(dir, HOLDER_FILE), JSON.stringify(holder) + "\n", { mode: DATA_FILE_MODE });
    return lock;
  }

  /** Is a live process holding `dir` right now? */
  static isHeld(dir: string): boolean {
    try {
      DataDirLock.acquire(dir, "probe").release();
      return false;
    } catch (err) {
      if (err instanceof DataDirInUse) return true;
      throw err;
    }
  }

  release(): void {
    if (!this.db) return;
    rmSync(join(this.dir, HOLDER_FILE), { force: true });
    this.db.close();
    this.db = null;
  }
}
