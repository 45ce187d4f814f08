/**
 * The journal as the notifier and the chain follow it: the ledger's `ledger.entriesAfter`, or, on
 * the embedded side node (no TRANSPORTER, no MongoDB, a data dir on disk, no ledger on this node:
 * side-node.ts), the money store's file read by a connection of this thread. Both give the durable
 * entries after a position; the second keeps reading and encoding them off the orders' event loop,
 * and reads each entry once for both followers (`JournalTail`).
 */
import type { ServiceBroker } from "moleculer";
import { configOf } from "../lib/config";
import { SqliteJournalReader } from "../ledger/journal-reader";
import type { LedgerEntryDoc } from "../models/trading";
import { portCall } from "./port-call";
import type { SharedCount } from "./shared-count";

export interface JournalSource {
  entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  close(): void;
}

/** At most this many entries kept (a follower further behind reads the journal itself). */
const TAIL_MAX = 20_000;

/**
 * The journal's latest entries as read, for every follower of one node (the notifier reads every
 * moment, the chain's settlement every few seconds): a follower asking within them gets them
 * already parsed, and what is past them is read once and kept until every follower has read it.
 * Entries are durable and never change, so a kept one is as good as a fresh read; the followers
 * only read them. A follower further back than what is kept reads the journal itself.
 */
export class JournalTail {
  /** Every entry with `from < seq <= to`, in order (nothing read yet: from = to = -1). */
  private kept: LedgerEntryDoc[] = [];
  private from = -1;
  private to = -1;
  /** The last position each follower read up to. */
  private readonly read = new Map<object, number>();

  constructor(
    private readonly load: (seq: number, limit: number) => Promise<LedgerEntryDoc[]>,
    private readonly max = TAIL_MAX,
  ) {}

  /** A follower's reads from now on (its position counts for what is kept). */
  follower(): { entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>; leave(): void } {
    const me = {};
    return {
      entriesAfter: async (seq, limit) => {
        const got = await this.entriesAfter(seq, limit);
        this.read.set(me, got.length ? got[got.length - 1].seq : seq);
        return got;
      },
      leave: () => void this.read.delete(me),
    };
  }

  async entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    if (this.to < 0 || seq < this.from || seq > this.to) {
      // Nothing kept around here: read, and keep from here on when it is ahead of what is kept.
      const got = await this.load(seq, limit);
      if (seq >= this.to) {
        this.kept = got.slice();
        this.from = seq;
        this.to = got.length ? got[got.length - 1].seq : seq;
      }
      return got;
    }
    const at = this.indexAfter(seq);
    const have = this.kept.slice(at, at + limit);
    if (have.length === limit) return have;
    const to = this.to;
    const more = await this.load(to, limit - have.length);
    // Another follower may have read past `to` meanwhile: keep only what follows what is kept now.
    if (this.to === to && more.length) {
      for (const e of more) this.kept.push(e);
      this.to = more[more.length - 1].seq;
      this.trim();
    }
    return have.concat(more);
  }

  /** Entries every follower read are let go, and the oldest past the most kept. */
  private trim(): void {
    let slowest = Infinity;
    for (const at of this.read.values()) slowest = Math.min(slowest, at);
    let drop = slowest === Infinity ? 0 : this.indexAfter(slowest);
    drop = Math.max(drop, this.kept.length - this.max);
    if (drop <= 0) return;
    this.from = this.kept[drop - 1].seq;
    this.kept = this.kept.slice(drop);
  }

  /** The index of the first kept entry after `seq`. */
  private indexAfter(seq: number): number {
    let lo = 0;
    let hi = this.kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.kept[mid].seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** One file reader and tail per node, shared by its followers; closed when the last of them closes. */
const shared = new WeakMap<ServiceBroker, { tail: JournalTail; reader: SqliteJournalReader | null; users: number }>();

/** Read the file only where the ledger runs in this process on another node (opened lazily: the ledger creates the file). */
export function journalSource(broker: ServiceBroker): JournalSource {
  const cfg = configOf(broker);
  const fromFile = !cfg.transporter && !cfg.mongoUri && cfg.dataDir !== ":memory:" && !cfg.services.includes("ledger");
  if (!fromFile) return { entriesAfter: (seq, limit) => portCall(broker, "ledger.entriesAfter", { seq, limit }), close: () => undefined };
  let s = shared.get(broker);
  if (!s) {
    const one: { tail: JournalTail; reader: SqliteJournalReader | null; users: number } = {
      reader: null,
      users: 0,
      tail: new JournalTail(async (seq, limit) => (one.reader ??= SqliteJournalReader.open(cfg.dataDir)).entriesAfter(seq, limit)),
    };
    shared.set(broker, (s = one));
  }
  const mine = s;
  const follower = mine.tail.follower();
  mine.users++;
  let open = true;
  return {
    entriesAfter: (seq, limit) => follower.entriesAfter(seq, limit),
    close: () => {
      if (!open) return;
      open = false;
      follower.leave();
      if (--mine.users > 0) return;
      mine.reader?.close();
      mine.reader = null;
      shared.delete(broker);
    },
  };
}

/**
 * The embedded process's count of the ledger's group commits (SIDE_NODE=thread): the main node adds
 * one as it announces a commit (`ledger.committed`), and the side node's notifier, woken by it,
 * reads the journal, instead of being sent every commit's changes to learn that the journal grew.
 */
const growth = new WeakMap<ServiceBroker, SharedCount>();

export function bindJournalGrowth(broker: ServiceBroker, count: SharedCount): void {
  growth.set(broker, count);
}

export function journalGrowthOf(broker: ServiceBroker): SharedCount | undefined {
  return growth.get(broker);
}
