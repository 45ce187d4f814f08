/**
 * The journal as the notifier and the chain follow it: the ledger's `ledger.entriesAfter`, or, on
 * the embedded side node (no TRANSPORTER, no MongoDB, a data dir on disk, no ledger on this node:
 * side-node.ts), the money store's file read by a connection of this thread. Both give the durable
 * entries after a position; the second keeps reading and encoding them off the orders' event loop.
 */
import type { ServiceBroker } from "moleculer";
import { configOf } from "../lib/config";
import { SqliteJournalReader } from "../ledger/journal-reader";
import type { LedgerEntryDoc } from "../models/trading";
import { portCall } from "./port-call";

export interface JournalSource {
  entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  close(): void;
}

/** Read the file only where the ledger runs in this process on another node (opened lazily: the ledger creates the file). */
export function journalSource(broker: ServiceBroker): JournalSource {
  const cfg = configOf(broker);
  const fromFile = !cfg.transporter && !cfg.mongoUri && cfg.dataDir !== ":memory:" && !cfg.services.includes("ledger");
  if (!fromFile) return { entriesAfter: (seq, limit) => portCall(broker, "ledger.entriesAfter", { seq, limit }), close: () => undefined };
  let reader: SqliteJournalReader | null = null;
  return {
    entriesAfter: async (seq, limit) => (reader ??= SqliteJournalReader.open(cfg.dataDir)).entriesAfter(seq, limit),
    close: () => {
      reader?.close();
      reader = null;
    },
  };
}
