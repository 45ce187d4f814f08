import { mkdirSync } from "node:fs";
import type { AppConfig } from "../lib/config";
import { MongoMoneyStore } from "./mongo-store";
import { SqliteMoneyStore } from "./sqlite-store";
import type { MoneyStore } from "./store";

/**
 * The money path's store for this node: scaled out (MONGO_URI) one MongoDB transaction per group
 * commit; embedded, SQLite under DATA_DIR (":memory:" for tests).
 */
export async function openMoneyStore(cfg: AppConfig): Promise<MoneyStore> {
  if (cfg.mongoUri) return MongoMoneyStore.open(cfg.mongoUri);
  if (cfg.dataDir !== ":memory:") mkdirSync(cfg.dataDir, { recursive: true });
  return SqliteMoneyStore.open(cfg.dataDir, { fsync: cfg.journalFsync, writerThread: cfg.moneyWriterThread });
}
