import { join } from "node:path";
import Database from "better-sqlite3";
import type { LedgerEntryDoc } from "../models/trading";
import { MONEY_STORE_FILE, parseEntry } from "./sqlite-store";

/**
 * The journal read straight from the money store's file by a connection of its own, read-only: what
 * the embedded side node's notifier and chain follow (side-node.ts), so that entries are read and
 * parsed on their thread instead of being encoded for them on the orders' event loop. WAL: these
 * reads never wait for the writer and see committed (durable) entries only, as `ledger.entriesAfter`
 * answers them.
 */
export class SqliteJournalReader {
  private readonly after: Database.Statement;

  private constructor(private readonly db: Database.Database) {
    this.after = db.prepare("SELECT body, hash FROM journal WHERE seq > ? ORDER BY seq LIMIT ?");
  }

  /** The store in `dir`, which the ledger (another node of this process) has opened already. */
  static open(dir: string): SqliteJournalReader {
    return new SqliteJournalReader(new Database(join(dir, MONEY_STORE_FILE), { readonly: true, fileMustExist: true, timeout: 5_000 }));
  }

  async entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    return (this.after.all(seq, limit) as Array<{ body: string; hash: string }>).map((r) => parseEntry(r.body, r.hash));
  }

  close(): void {
    this.db.close();
  }
}
