import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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
