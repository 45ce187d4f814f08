import { mkdirSync } from "node:fs";
import type { AppConfig } from "../lib/config";
import { SqliteMoneyStore } from "./sqlite-store";
import type { MoneyStore } from "./store";

/** The money path's store for this node: SQLite under DATA_DIR (":memory:" for tests). */
export function openMoneyStore(cfg: AppConfig): MoneyStore {
  if (cfg.dataDir !== ":memory:") mkdirSync(cfg.dataDir, { recursive: true });
  return SqliteMoneyStore.open(cfg.dataDir, { fsync: cfg.journalFsync });
}
