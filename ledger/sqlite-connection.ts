import Database from "better-sqlite3";
import { ensurePrivateFile } from "../lib/data-dir";

/**
 * A connection to the money store as both the reader (event loop) and the writer thread open it:
 * WAL, so reads never wait for the writer; synchronous=NORMAL, because the writer syncs the WAL
 * itself after each commit, off the event loop. One process owns the data dir (lib/data-dir.ts),
 * so the two connections are the only ones.
 */
export function openConnection(file: string): Database.Database {
  ensurePrivateFile(file);
  const db = new Database(file, { timeout: 5_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  return db;
}
