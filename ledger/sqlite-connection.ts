import Database from "better-sqlite3";
import { ensurePrivateFile } from "../lib/data-dir";

/**
 * The page size of a store created from now on (an existing store keeps the one it was made
 * with). A commit writes every page it changed whole into the WAL, and an order changes a leaf of
 * several indexes keyed by user or market, each on another page: 1 KiB pages write a quarter of
 * what 4 KiB pages did for the same rows.
 */
export const NEW_STORE_PAGE_SIZE = 1024;
/** Page cache of each connection, KiB: the writer's holds the leaves its commits keep changing. */
const CACHE_KIB = { reader: 32 * 1024, writer: 64 * 1024 } as const;

/**
 * A connection to the money store as both the reader (event loop) and the writer thread open it:
 * WAL, so reads never wait for the writer; synchronous=NORMAL, because the writer syncs the WAL
 * itself after each commit, off the event loop. No automatic checkpoints: SQLite would run one
 * inside the commit that crosses its threshold; the writer runs them itself once it has answered
 * (SqliteWriter). One process owns the data dir (lib/data-dir.ts), so the two connections are the
 * only ones.
 */
export function openConnection(file: string, role: "reader" | "writer" = "reader"): Database.Database {
  ensurePrivateFile(file);
  const db = new Database(file, { timeout: 5_000 });
  // Before the first write only; a no-op on an existing store.
  db.pragma(`page_size = ${NEW_STORE_PAGE_SIZE}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  db.pragma(`cache_size = -${CACHE_KIB[role]}`);
  return db;
}
