import { join } from "node:path";
import { mkdirSync } from "node:fs";
import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { SerialQueue } from "../lib/serial";
import { createDbMixin, openStore, type DbState, type Store } from "../mixins/db.mixin";
import { configOf } from "../lib/config";
import { FileLog, IndexedJournal, MemoryLog, StoreJournal, sameBookCommand, type LedgerJournal } from "../ledger/journal";
import { currentUser, type AppContext } from "../mixins/context";
import { DomainError, notFound } from "../lib/errors";
import { Accounts, LedgerRejection, type ConservationReport, type Posting, type PositionState, type PreparedChange } from "../engine/accounts";
import { formatAvgPrice, formatMicro } from "../engine/money";
import { tradeRecordView, type TradeRecord } from "../engine/settlement";
import type { BookJournalDoc, BookSnapshotDoc, LedgerEntryDoc, LedgerSnapshotDoc, OrderDoc, OrderStatus, TradeDoc } from "../models/trading";
import { page, type Page } from "../gateway/envelope";

/**
 * A snapshot as stored: the whole document as one JSON string, which the document store copies and
 * writes as a single value (deep-copying a deep book's thousands of orders stalled the event loop
 * for tens of ms).
 */
interface StoredSnapshot {
  _id: string;
  seq: number;
  body: string;
}

const packSnapshot = (doc: { _id: string; seq: number }): StoredSnapshot => ({ _id: doc._id, seq: doc.seq, body: JSON.stringify(doc) });
const unpackSnapshot = <T>(stored: StoredSnapshot | null): T | null => (stored ? (JSON.parse(stored.body) as T) : null);

type LedgerCollections = { ledgerSnapshots: StoredSnapshot; trades: TradeDoc; orders: OrderDoc; bookSnapshots: StoredSnapshot };

export interface PostParams {
  key: string;
  postings: Posting[];
  lockRef?: { orderId: string; marketId: string };
  closesLocks?: string[];
  trades?: TradeRecord[];
  book?: BookJournalDoc;
  /** false: answer once applied in memory, without waiting for the journal write. */
  durable?: boolean;
}

export interface PostResult {
  applied: boolean;
  seq: number;
}

/**
 * Entries between snapshots of the whole state (bounds replay time after a restart): at least this
 * many, and at least as many as the snapshot holds, so snapshots cost O(1) per entry at any size.
 */
const SNAPSHOT_EVERY = 2000;

export const TRADES_DEFAULT_PAGE_SIZE = 20;
export const TRADES_MAX_PAGE_SIZE = 100;

type LedgerThis = Service &
  DbState<LedgerCollections> & {
    accounts: Accounts;
    journal: LedgerJournal;
    openJournal(): Promise<LedgerJournal>;
    queue: SerialQueue;
    seq: number;
    snapshotSeq: number;
    pendingLocks: Map<string, string>;
    applyEntry(doc: LedgerEntryDoc, change?: PreparedChange): void;
    /** Applied in memory, not yet written. */
    pending: LedgerEntryDoc[];
    pendingKeys: Map<string, LedgerEntryDoc>;
    flushing: Promise<void> | null;
    durableSeq: number;
    waiters: Array<{ seq: number; resolve(): void; reject(err: Error): void }>;
    /** Read models (orders, trades) are up to date to here; they follow the journal off the ack path. */
    projectedSeq: number;
    projectionWaiters: Array<{ seq: number; resolve(): void; reject(err: Error): void }>;
    /** Resolves once the read models include every entry acknowledged so far (read your writes). */
    readModels(): Promise<void>;
    /** Set when a journal write failed: memory is ahead of the journal, so nothing more is accepted. */
    broken: Error | null;
    snapshotting: Promise<void> | null;
    flush(): Promise<void>;
    waitDurable(seq: number): Promise<void>;
    projectBatch(docs: LedgerEntryDoc[], replay?: boolean): Promise<void>;
    snapshot(): Promise<void>;
    notifyChanges(batch: LedgerEntryDoc[]): void;
  };

const isUser = (account: string) => account.startsWith("usr_");

function tradeDocsOf(doc: LedgerEntryDoc): TradeDoc[] {
  return (doc.trades ?? []).map((t) => ({ ...t, _id: t.tradeId, settlementStatus: "pending" as const, settlementTxHash: null, createdAt: doc.at }));
}

/** The read model of the order a `place` command created, as of that command. */
function newOrderOf(doc: LedgerEntryDoc): OrderDoc | null {
  const b = doc.book;
  if (!b || b.command.type !== "place") return null;
  const o = b.command.order;
  const mine = b.orders.find((c) => c.orderId === o.orderId);
  return {
    _id: o.orderId,
    userId: o.userId,
    marketId: b.marketId,
    side: o.side,
    outcome: o.outcome,
    orderType: o.orderType,
    price: o.price,
    quantity: o.quantity,
    filledQuantity: mine?.filledDelta ?? 0,
    remaining: mine?.remaining ?? 0,
    status: mine?.status ?? "open",
    seq: b.seq,
    createdAt: o.createdAt,
    updatedAt: b.at,
  };
}

export function tradeView(t: TradeDoc) {
  return {
    id: t._id,
    ...tradeRecordView(t),
    settlementStatus: t.settlementStatus,
    settlementTxHash: t.settlementTxHash,
    createdAt: t.createdAt,
  };
}

const LedgerService = defineService<LedgerThis>({
  name: "ledger",
  mixins: [
    createDbMixin<LedgerCollections>({
      ledgerSnapshots: [],
      trades: [{ fields: { userId: 1 } }],
      orders: [{ fields: { userId: 1 } }],
      bookSnapshots: [],
    }),
  ],

  actions: {
    /**
     * Internal: apply one entry exactly once. A repeated key answers `applied: false` and changes
     * nothing; a rejected entry (insufficient funds or shares) changes nothing and is not journaled.
     */
    post: {
      visibility: "public",
      params: {
        key: { type: "string", min: 1, max: 200 },
        postings: { type: "array", items: "object", max: 10000 },
        lockRef: { type: "object", optional: true, props: { orderId: "string", marketId: "string" } },
        closesLocks: { type: "array", items: "string", optional: true },
        trades: { type: "array", items: "object", optional: true },
        book: { type: "object", optional: true },
        durable: { type: "boolean", optional: true },
      },
      handler(this: LedgerThis, ctx: AppContext<PostParams>): Promise<PostResult> {
        const p = ctx.params;
        const accepted = this.queue.run(async () => {
          if (this.broken) throw new DomainError("The ledger stopped after a failed journal write; it recovers on restart", 503, "LEDGER_UNAVAILABLE");
          // The rare duplicate is read back to compare its content.
          const existing = this.pendingKeys.get(p.key) ?? ((await this.journal.has(p.key)) ? await this.journal.get(p.key) : null);
          if (existing) {
            // Same key, same content: a retry. Same key, other content: a second writer of that market.
            if (!sameBookCommand(existing.book, p.book)) throw new DomainError("This journal position is already taken by another writer", 409, "JOURNAL_CONFLICT");
            return { applied: false, seq: existing.seq };
          }
          const doc: LedgerEntryDoc = { _id: p.key, seq: this.seq + 1, postings: p.postings, at: new Date().toISOString() };
          if (p.lockRef) doc.lockRef = p.lockRef;
          if (p.closesLocks?.length) doc.closesLocks = p.closesLocks;
          if (p.trades?.length) doc.trades = p.trades;
          if (p.book) doc.book = p.book;
          // Validate first: a rejected entry never reaches the journal or memory.
          let change: PreparedChange;
          try {
            change = this.accounts.prepare(doc.postings);
          } catch (err) {
            if (err instanceof LedgerRejection) throw new DomainError(err.code === "INSUFFICIENT_SHARES" ? "Insufficient shares" : "Insufficient balance", 400, err.code);
            throw err;
          }
          // Applied in memory at once so the next entry validates against it; written with the
          // entries around it in one journal write (group commit).
          this.applyEntry(doc, change);
          this.pending.push(doc);
          this.pendingKeys.set(doc._id, doc);
          if (!this.flushing) this.flushing = this.flush();
          return { applied: true, seq: doc.seq };
        });
        // Acknowledged only once durable, unless the caller only needs it applied (a placement
        // lock: any later entry that depends on it is written after it, in order).
        if (p.durable === false) return accepted;
        return accepted.then(async (r) => {
          await this.waitDurable(r.seq);
          return r;
        });
      },
    },

    /** Internal: resolves once every entry up to `seq` is durable in the journal. */
    sync: {
      visibility: "public",
      params: { seq: { type: "number", integer: true, min: 0 } },
      async handler(this: LedgerThis, ctx: AppContext<{ seq: number }>) {
        await this.waitDurable(ctx.params.seq);
        return { durableSeq: this.durableSeq };
      },
    },

    /** GET /balance */
    balance: {
      auth: "user",
      params: { $$strict: "remove" },
      handler(this: LedgerThis, ctx: AppContext) {
        const b = this.accounts.balance(currentUser(ctx).id);
        return { available: String(b.available), locked: String(b.locked), total: String(b.total) };
      },
    },

    /** GET /positions: open positions with a depth-aware mark price from the book. */
    positions: {
      auth: "user",
      params: { $$strict: "remove" },
      async handler(this: LedgerThis, ctx: AppContext) {
        const user = currentUser(ctx);
        const open = this.accounts.positionsOf(user.id).filter((p) => p.quantity > 0 && !p.settled);
        const titles = await ctx
          .call<Record<string, { title: string }>, { marketIds: string[] }>("catalog.marketTitles", { marketIds: [...new Set(open.map((p) => p.marketId))] })
          .catch(() => ({}) as Record<string, { title: string }>);
        return Promise.all(
          open.map(async (p: PositionState) => {
            const exit = await ctx
              .call<{ filled: number; proceeds: number }, object>("book.exitQuote", { marketId: p.marketId, outcome: p.outcome, quantity: p.quantity, userId: user.id })
              .catch(() => ({ filled: 0, proceeds: 0 }));
            const markPrice = exit.filled > 0 ? formatAvgPrice(exit.proceeds, exit.filled) : null;
            // unrealizedPnl = (mark - avgEntry) x quantity = mark x q - totalCost, exact in micro-units.
            const unrealized = exit.filled > 0 ? Number((BigInt(exit.proceeds) * BigInt(p.quantity)) / BigInt(exit.filled)) - p.totalCost : null;
            return {
              id: `${p.marketId}:${p.outcome}`,
              marketId: p.marketId,
              outcome: p.outcome,
              quantity: String(p.quantity),
              lockedQuantity: String(p.locked),
              avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity),
              totalCost: String(p.totalCost),
              realizedPnl: String(p.realizedPnl),
              status: p.settled ? "settled" : "open",
              market: { id: p.marketId, title: titles[p.marketId]?.title ?? null },
              markPrice,
              unrealizedPnl: unrealized === null ? null : String(unrealized),
            };
          }),
        );
      },
    },

    /** GET /trades: newest first. */
    listTrades: {
      auth: "user",
      params: {
        page: { type: "number", integer: true, min: 1, optional: true, convert: true, default: 1 },
        pageSize: { type: "number", integer: true, min: 1, max: TRADES_MAX_PAGE_SIZE, optional: true, convert: true, default: TRADES_DEFAULT_PAGE_SIZE },
        $$strict: "remove",
      },
      async handler(this: LedgerThis, ctx: AppContext<{ page: number; pageSize: number }>): Promise<Page<ReturnType<typeof tradeView>>> {
        const user = currentUser(ctx);
        const { page: pageNo, pageSize } = ctx.params;
        await this.readModels();
        const [items, total] = await Promise.all([
          this.stores.trades.find({ userId: user.id }, { sort: { createdAt: -1, _id: -1 }, skip: (pageNo - 1) * pageSize, limit: pageSize }),
          this.stores.trades.count({ userId: user.id }),
        ]);
        return page(items.map(tradeView), total, pageNo, pageSize);
      },
    },

    /** GET /trades/:id: only the caller's own trades exist for the caller. */
    getTrade: {
      auth: "user",
      params: { id: { type: "string", min: 1, max: 100 }, $$strict: "remove" },
      async handler(this: LedgerThis, ctx: AppContext<{ id: string }>) {
        await this.readModels();
        const t = await this.stores.trades.findOne({ _id: ctx.params.id });
        if (!t || t.userId !== currentUser(ctx).id) throw notFound("Trade");
        return tradeView(t);
      },
    },

    /** Internal: settlement progress of trades (the chain service). */
    markSettlement: {
      visibility: "public",
      params: { tradeIds: { type: "array", items: "string" }, status: { type: "enum", values: ["pending", "confirmed", "failed"] }, txHash: { type: "string", optional: true } },
      async handler(this: LedgerThis, ctx: AppContext<{ tradeIds: string[]; status: TradeDoc["settlementStatus"]; txHash?: string }>) {
        const { tradeIds, status, txHash } = ctx.params;
        await this.readModels();
        const n = await this.stores.trades.update({ _id: { $in: tradeIds } }, { $set: { settlementStatus: status, settlementTxHash: txHash ?? null } }, { multi: true });
        return { updated: n };
      },
    },

    /** Internal: the conservation equation, checkable at any moment. */
    conservation: {
      visibility: "public",
      handler(this: LedgerThis): Promise<ConservationReport> {
        return this.queue.run(() => this.accounts.conservation());
      },
    },

    /** Internal: raw state of an account (tests, operators, other services). */
    account: {
      visibility: "public",
      params: { account: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ account: string }>) {
        return { balance: this.accounts.balance(ctx.params.account), positions: this.accounts.positionsOf(ctx.params.account) };
      },
    },

    /** Internal: placement locks of a market still waiting for their order's outcome (crash recovery). */
    pendingLocks: {
      visibility: "public",
      params: { marketId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ marketId: string }>) {
        return this.queue.run(() => [...this.pendingLocks.entries()].filter(([, m]) => m === ctx.params.marketId).map(([orderId]) => orderId));
      },
    },

    /** Internal: a market's book commands after `afterSeq`, in order (rebuilding a book). */
    bookEntries: {
      visibility: "public",
      params: { marketId: "string", afterSeq: { type: "number", integer: true, min: 0 } },
      async handler(this: LedgerThis, ctx: AppContext<{ marketId: string; afterSeq: number }>): Promise<BookJournalDoc[]> {
        const { marketId, afterSeq } = ctx.params;
        const docs = await this.journal.bookEntries(marketId, afterSeq);
        // Entries accepted but still being written belong to the market's history too.
        const seen = new Set(docs.map((d) => d.seq));
        for (const d of this.pendingKeys.values()) if (d.book?.marketId === marketId && d.book.seq > afterSeq && !seen.has(d.book.seq)) docs.push(d.book);
        return docs.sort((a, b) => a.seq - b.seq);
      },
    },

    /** Internal: the latest snapshot of a market's book (open orders at a journal seq). */
    loadBookSnapshot: {
      visibility: "public",
      params: { marketId: "string" },
      async handler(this: LedgerThis, ctx: AppContext<{ marketId: string }>): Promise<BookSnapshotDoc | null> {
        return unpackSnapshot<BookSnapshotDoc>(await this.stores.bookSnapshots.findOne({ _id: ctx.params.marketId }));
      },
    },

    saveBookSnapshot: {
      visibility: "public",
      params: { snapshot: "object" },
      async handler(this: LedgerThis, ctx: AppContext<{ snapshot: BookSnapshotDoc }>) {
        const snap = ctx.params.snapshot;
        // A stale writer must not roll a snapshot back.
        const cur = await this.stores.bookSnapshots.findOne({ _id: snap._id });
        if (!cur || cur.seq < snap.seq) await this.stores.bookSnapshots.put(packSnapshot(snap));
        return { saved: !cur || cur.seq < snap.seq };
      },
    },

    /** Internal: a user's open orders (GET /orders). */
    openOrders: {
      visibility: "public",
      params: { userId: "string", marketId: { type: "string", optional: true } },
      async handler(this: LedgerThis, ctx: AppContext<{ userId: string; marketId?: string }>): Promise<OrderDoc[]> {
        await this.readModels();
        const q: Record<string, unknown> = { userId: ctx.params.userId, status: { $in: ["open", "partially_filled"] } };
        if (ctx.params.marketId) q.marketId = ctx.params.marketId;
        // Ties (same millisecond) broken by id so the list is stable across restarts.
        return this.stores.orders.find(q, { sort: { createdAt: -1, _id: -1 } });
      },
    },

    /** Internal: one order's read model. */
    getOrder: {
      visibility: "public",
      params: { orderId: "string" },
      async handler(this: LedgerThis, ctx: AppContext<{ orderId: string }>): Promise<OrderDoc | null> {
        await this.readModels();
        return this.stores.orders.findOne({ _id: ctx.params.orderId });
      },
    },

    /** Internal: markets with placement locks still open (books to recover first after a restart). */
    pendingLockMarkets: {
      visibility: "public",
      handler(this: LedgerThis): Promise<string[]> {
        return this.queue.run(() => [...new Set(this.pendingLocks.values())]);
      },
    },

    /** Internal: undo the placement lock of an order that never got committed by its book. */
    releaseLock: {
      visibility: "public",
      params: { orderId: "string" },
      async handler(this: LedgerThis, ctx: AppContext<{ orderId: string }>) {
        const { orderId } = ctx.params;
        if (!this.pendingLocks.has(orderId)) return { released: false };
        const lock = this.pendingKeys.get(`lock:${orderId}`) ?? (await this.journal.get(`lock:${orderId}`));
        if (!lock) return { released: false };
        const postings = lock.postings.map((p) => (p.kind === "cash" ? { ...p, available: -(p.available ?? 0), locked: -(p.locked ?? 0) } : p.kind === "shares" ? { ...p, locked: -(p.locked ?? 0) } : p));
        await ctx.call("ledger.post", { key: `unlock:${orderId}`, postings, closesLocks: [orderId] });
        return { released: true };
      },
    },

    /** Internal: holders of a market's positions (redemption, refunds, notices). */
    holders: {
      visibility: "public",
      params: { marketId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ marketId: string }>) {
        return this.accounts.holders(ctx.params.marketId);
      },
    },

    /**
     * Internal: journal entries with seq > `seq`, in seq order (the notifier's durable cursor).
     * Only written entries are read, and they are written in seq order: no hole behind a read.
     */
    entriesAfter: {
      visibility: "public",
      params: { seq: { type: "number", integer: true, min: 0 }, limit: { type: "number", integer: true, min: 1, max: 1000, optional: true, default: 200 } },
      handler(this: LedgerThis, ctx: AppContext<{ seq: number; limit: number }>): Promise<LedgerEntryDoc[]> {
        return this.journal.after(ctx.params.seq, ctx.params.limit);
      },
    },
  },

  methods: {
    /** Embedded: an append-only file under DATA_DIR (memory with ":memory:"); scaled out: a MongoDB collection. */
    async openJournal(this: LedgerThis): Promise<LedgerJournal> {
      const cfg = configOf(this.broker);
      if (cfg.mongoUri) {
        const { store, adapter } = await openStore<LedgerEntryDoc>(this, "ledgerJournal", [{ fields: { seq: 1 }, unique: true }, { fields: { "book.marketId": 1 }, sparse: true }]);
        return StoreJournal.open(store, () => adapter.disconnect());
      }
      if (cfg.dataDir === ":memory:") return IndexedJournal.open(async () => new MemoryLog());
      mkdirSync(cfg.dataDir, { recursive: true });
      return IndexedJournal.open((onRecord) => FileLog.open(join(cfg.dataDir, "ledger-journal.log"), { fsync: cfg.journalFsync }, onRecord));
    },

    applyEntry(this: LedgerThis, doc: LedgerEntryDoc, change?: PreparedChange) {
      this.accounts.commit(change ?? this.accounts.prepare(doc.postings));
      if (doc.lockRef) this.pendingLocks.set(doc.lockRef.orderId, doc.lockRef.marketId);
      for (const id of doc.closesLocks ?? []) this.pendingLocks.delete(id);
      this.seq = doc.seq;
    },

    /**
     * Read models of a batch of new entries: one insert per collection; orders created in the batch
     * are inserted as they stand at its end, older orders get one update each. `replay` (after a
     * restart, one entry at a time): documents already there are left alone, so it can be redone.
     */
    async projectBatch(this: LedgerThis, docs: LedgerEntryDoc[], replay = false) {
      const insert = async <T extends { _id: string }>(store: Store<T>, items: T[]) => {
        if (!replay) return store.insertMany(items);
        for (const item of items) await store.insertOnce(item);
      };
      await insert(this.stores.trades, docs.flatMap(tradeDocsOf));
      const created = new Map<string, OrderDoc>();
      const older = new Map<string, { filledDelta: number; remaining: number; status: OrderStatus; seq: number; firstSeq: number; at: string }>();
      for (const doc of docs) {
        const o = newOrderOf(doc);
        if (o) created.set(o._id, o);
        const b = doc.book;
        if (!b) continue;
        for (const c of b.orders) {
          const fresh = created.get(c.orderId);
          if (fresh) {
            // Its own command is already in it (newOrderOf); later commands of the batch are folded in.
            if (fresh.seq < b.seq) Object.assign(fresh, { filledQuantity: fresh.filledQuantity + c.filledDelta, remaining: c.remaining, status: c.status, seq: b.seq, updatedAt: b.at });
            continue;
          }
          const prev = older.get(c.orderId);
          if (prev) Object.assign(prev, { filledDelta: prev.filledDelta + c.filledDelta, remaining: c.remaining, status: c.status, seq: b.seq, at: b.at });
          else older.set(c.orderId, { filledDelta: c.filledDelta, remaining: c.remaining, status: c.status, seq: b.seq, firstSeq: b.seq, at: b.at });
        }
      }
      await insert(this.stores.orders, [...created.values()]);
      for (const [orderId, c] of older) {
        // Guarded by the market's seq: an order already past this batch's first change is not changed twice.
        await this.stores.orders.update({ _id: orderId, seq: { $lt: c.firstSeq } }, { $inc: { filledQuantity: c.filledDelta }, $set: { remaining: c.remaining, status: c.status, seq: c.seq, updatedAt: c.at } });
      }
    },

    /** Call only when memory equals the journal (nothing pending); the state is captured at once. */
    async snapshot(this: LedgerThis) {
      const doc: LedgerSnapshotDoc = { _id: "ledger", seq: this.seq, accounts: this.accounts.snapshot(), pendingLocks: [...this.pendingLocks.entries()] };
      this.snapshotSeq = doc.seq;
      await this.stores.ledgerSnapshots.put(packSnapshot(doc));
    },

    /** Write everything pending in as few journal writes as possible, then wake the waiters. */
    async flush(this: LedgerThis) {
      while (this.pending.length && !this.broken) {
        const batch = this.pending.splice(0);
        const last = batch[batch.length - 1].seq;
        const fail = (err: unknown, what: string) => {
          this.broken = err as Error;
          this.logger.fatal(`${what} failed; the ledger refuses work until restarted (the restart replays the journal)`, err);
          for (const w of [...this.waiters.splice(0), ...this.projectionWaiters.splice(0)]) w.reject(new DomainError("Journal write failed", 503, "LEDGER_UNAVAILABLE"));
        };
        try {
          await this.journal.append(batch);
        } catch (err) {
          fail(err, "Journal write");
          break;
        }
        for (const d of batch) this.pendingKeys.delete(d._id);
        this.durableSeq = last;
        const due = this.waiters.filter((w) => w.seq <= last);
        this.waiters = this.waiters.filter((w) => w.seq > last);
        for (const w of due) w.resolve();
        this.notifyChanges(batch);
        // Read models after the acknowledgements; reads of them wait for this (readModels).
        try {
          await this.projectBatch(batch);
        } catch (err) {
          fail(err, "Read model update");
          break;
        }
        this.projectedSeq = last;
        const read = this.projectionWaiters.filter((w) => w.seq <= last);
        this.projectionWaiters = this.projectionWaiters.filter((w) => w.seq > last);
        for (const w of read) w.resolve();
        // Captured now (memory equals the journal here), written off the acknowledgement path.
        if (!this.pending.length && !this.snapshotting && this.seq - this.snapshotSeq >= Math.max(SNAPSHOT_EVERY, this.accounts.size)) {
          this.snapshotting = this.snapshot()
            .catch((err) => this.logger.warn("ledger snapshot failed (replay will be longer)", err))
            .finally(() => (this.snapshotting = null));
        }
      }
      this.flushing = null;
    },

    waitDurable(this: LedgerThis, seq: number): Promise<void> {
      if (seq <= this.durableSeq) return Promise.resolve();
      if (this.broken) return Promise.reject(new DomainError("Journal write failed", 503, "LEDGER_UNAVAILABLE"));
      return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    },

    readModels(this: LedgerThis): Promise<void> {
      const seq = this.durableSeq;
      if (seq <= this.projectedSeq) return Promise.resolve();
      if (this.broken) return Promise.reject(new DomainError("Journal write failed", 503, "LEDGER_UNAVAILABLE"));
      return new Promise((resolve, reject) => this.projectionWaiters.push({ seq, resolve, reject }));
    },

    /**
     * Broadcast: every gateway pushes to its own sockets; consumers treat these as hints. One
     * balance and one position update per user per written batch, with the state after it.
     */
    notifyChanges(this: LedgerThis, batch: LedgerEntryDoc[]) {
      const users = new Set<string>();
      const positions = new Map<string, { userId: string; marketId: string; outcome: "YES" | "NO" }>();
      const trades: TradeRecord[] = [];
      for (const d of batch) {
        for (const p of d.postings) {
          if (p.kind === "cash" && isUser(p.account)) users.add(p.account);
          if (p.kind === "shares" && isUser(p.account)) positions.set(`${p.account}|${p.marketId}|${p.outcome}`, { userId: p.account, marketId: p.marketId, outcome: p.outcome });
        }
        if (d.trades) trades.push(...d.trades);
      }
      for (const userId of users) {
        const b = this.accounts.balance(userId);
        this.broker.broadcast("ledger.balanceChanged", { userId, balance: { available: String(b.available), locked: String(b.locked), total: String(b.total) } });
      }
      for (const { userId, marketId, outcome } of positions.values()) {
        const p = this.accounts.position(userId, marketId, outcome);
        if (p) this.broker.broadcast("ledger.positionChanged", { userId, position: { marketId, outcome, quantity: String(p.quantity), avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity), totalCost: String(p.totalCost), realizedPnl: String(p.realizedPnl) } });
      }
      for (const t of trades) if (isUser(t.userId)) this.broker.broadcast("ledger.tradeCreated", { userId: t.userId, trade: { ...t, totalCostDecimal: formatMicro(t.totalCost) } });
    },
  },

  created() {
    this.accounts = new Accounts();
    this.queue = new SerialQueue();
    this.seq = 0;
    this.snapshotSeq = 0;
    this.pendingLocks = new Map();
    this.pending = [];
    this.pendingKeys = new Map();
    this.flushing = null;
    this.durableSeq = 0;
    this.waiters = [];
    this.projectedSeq = 0;
    this.projectionWaiters = [];
    this.broken = null;
    this.snapshotting = null;
  },

  async started() {
    this.journal = await this.openJournal();
    // Rebuild: latest snapshot, then every journal entry after it, in order.
    const snap = unpackSnapshot<LedgerSnapshotDoc>(await this.stores.ledgerSnapshots.findOne({ _id: "ledger" }));
    if (snap && snap.seq > this.journal.lastSeq) throw new Error(`Ledger snapshot at seq ${snap.seq} is ahead of the journal (${this.journal.lastSeq}): the journal is missing entries`);
    if (snap) {
      this.accounts = Accounts.restore(snap.accounts);
      this.pendingLocks = new Map(snap.pendingLocks);
      this.seq = snap.seq;
      this.snapshotSeq = snap.seq;
    }
    const replayFrom = this.seq;
    for (let rest = await this.journal.after(this.seq, 1000); rest.length; rest = await this.journal.after(this.seq, 1000)) {
      for (const doc of rest) {
        this.applyEntry(doc);
        await this.projectBatch([doc], true);
      }
    }
    if (this.seq > replayFrom) await this.snapshot();
    this.durableSeq = this.seq;
    this.projectedSeq = this.seq;
    const report = this.accounts.conservation();
    if (!report.ok) this.logger.error("Conservation does not hold after replay", report);
  },

  async stopped() {
    await this.queue.drain();
    await this.flushing;
    await this.snapshotting;
    if (this.stores && !this.broken && this.seq > this.snapshotSeq) await this.snapshot();
    await this.journal?.close();
  },
});

export default LedgerService;
