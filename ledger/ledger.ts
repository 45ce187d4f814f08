import { randomBytes } from "node:crypto";
import { Refusal } from "../engine/refusal";
import {
  Accounts,
  isPostingRefusal,
  type AccountsUndo,
  type ConservationReport,
  type Posting,
  type PreparedChange,
} from "../engine/accounts";
import type {
  BookJournalDoc,
  EventPoolRecord,
  IdemClaim,
  IdemRecord,
  LedgerEntryDoc,
  MarketLease,
  MoneyCheck,
  PostInput,
  PostOutcome,
} from "../models/trading";
import { chainHash } from "./chain-hash";
import { entryRuleProblems } from "./entry-rules";
import { poolPostingsOf, replanPoolLeg } from "./pool-legs";
import { eventPoolAccount } from "../engine/event-pool";
import { eventResolutionKey, payoutKey, resolutionKey } from "../engine/payout";
import { IdemClaims } from "./idempotency";
import { moneyCheck } from "./money-check";
import type { LedgerCode } from "./codes";
import { CommitRefused, type CommitBatch, type JournalRow, type MarketRow, type MoneyStore, type StoredState } from "./store";

export interface LedgerHooks {
  /** After each group commit, with its entries (real-time events, the durability watermark). */
  committed?(docs: LedgerEntryDoc[]): void;
  /**
   * The store refused a group commit whole (a full disk): that group and every entry after it were
   * undone and refused; the ledger goes on under a new `instance` (waits by seq of the old one are
   * answered from what it made durable).
   */
  refused?(err: CommitRefused, entries: number): void;
  /** A commit of unknown outcome: the ledger takes no more entries until a restart. */
  failed?(err: Error): void;
  /** May `node` take `marketId`? The ledger's view of who owns a market (null: anyone may). */
  mayOwn?(marketId: string, node: string): boolean;
  now?(): Date;
}

/** Two writes of one journal position are the same commit (a retry) when they carry the same command and effects. */
function sameBookCommand(a: BookJournalDoc | undefined, b: BookJournalDoc | undefined): boolean {
  if (!a || !b) return a === b;
  const content = (d: BookJournalDoc) => JSON.stringify([d.marketId, d.seq, d.epoch, d.command, d.orders, d.pool ?? null]);
  return content(a) === content(b);
}

/** Durable entries kept decoded for readers tailing the journal. */
const RECENT = 8192;
/** Retry-After of a request refused because its write was (seconds): long enough not to hammer a full disk. */
const WRITE_REFUSED_RETRY_S = 5;
/** Earlier instances whose waits are still answered by seq after a refused commit. */
const RETIRED = 64;

/** What one applied command changed in memory besides its entries: undone if its commit is refused. */
interface Undo {
  accounts: AccountsUndo;
  leases: Array<[string, MarketLease | undefined]>;
  lastBook: Array<[string, LedgerEntryDoc | undefined]>;
}

interface Pending {
  doc: LedgerEntryDoc;
  body: string;
  /** On the first entry of each command. */
  undo?: Undo;
}

/** A journal entry as written: the input's fields (those it has) at `seq`. */
function entryDoc(input: PostInput, seq: number, at: string): LedgerEntryDoc {
  const doc: LedgerEntryDoc = { _id: input.key, seq, postings: input.postings, at };
  if (input.checkAfter) doc.checkAfter = input.checkAfter;
  if (input.trades?.length) doc.trades = input.trades;
  if (input.book) doc.book = input.book;
  if (input.fence) doc.fence = input.fence;
  if (input.settlement) doc.settlement = input.settlement;
  if (input.payout) doc.payout = input.payout;
  if (input.conversion) doc.conversion = input.conversion;
  if (input.eventPool) doc.eventPool = input.eventPool;
  if (input.idem) doc.idem = input.idem;
  if (input.heartbeat) doc.heartbeat = input.heartbeat;
  if (input.audit) doc.audit = input.audit;
  if (input.reward) doc.reward = input.reward;
  if (input.orderGroup) doc.orderGroup = input.orderGroup;
  return doc;
}

/**
 * The ledger: the single writer of money. Entries are validated and applied in memory at once (so
 * the next one validates against them, synchronously, without a lock) and reach the store in group
 * commits, one transaction each; an entry is acknowledged only once its commit is durable. Book
 * entries are also checked against the market's writer lease (epoch) and journal position, so a
 * writer that lost its market is refused before any money moves.
 */
export class Ledger {
  private current = randomBytes(8).toString("hex");
  /** Instances retired by a refused commit: up to which seq they made durable, and why they stopped. */
  private readonly retired = new Map<string, { durable: number; refusal: Refusal }>();
  private accounts: Accounts;
  private readonly markets = new Map<string, MarketLease>();
  private seq: number;
  /** Hash of the last durable entry: the chain continues from it. */
  private hash: string;
  private pending: Pending[] = [];
  private readonly pendingKeys = new Map<string, LedgerEntryDoc>();
  /** Parts of split book commands waiting for their last part. */
  private readonly groups = new Map<string, { marketId: string; parts: PostInput[] }>();
  /** Each market's latest book entry: a retry of it is answered, not refused. */
  private readonly lastBook = new Map<string, LedgerEntryDoc>();
  private touchedCash = new Set<string>();
  private touchedPos = new Set<string>();
  private touchedMarkets = new Set<string>();
  private durable: number;
  private waiters: Array<{ seq: number; resolve(): void; reject(err: Error): void }> = [];
  private flushing: Promise<void> | null = null;
  private flushQueued = false;
  private idleWaiters: Array<() => void> = [];
  /** Set when a commit failed: memory is ahead of the store, so nothing more is accepted. */
  broken: Error | null = null;
  /** The latest durable entries, decoded: readers tailing the journal (notifier, chain) need no store read. */
  private recent: LedgerEntryDoc[] = [];
  private recentFirst: number;
  private readonly idem = new IdemClaims({
    unwritten: (scope, key) => this.pending.find((p) => p.doc.idem?.scope === scope && p.doc.idem.key === key)?.doc,
    waitDurable: (seq) => this.waitDurable(seq),
    stored: (scope, key) => this.store.idempotent(scope, key),
  });

  private constructor(
    private readonly store: MoneyStore,
    private readonly hooks: LedgerHooks,
    state: StoredState,
  ) {
    this.accounts = Accounts.restore(state.accounts);
    for (const m of state.markets) this.markets.set(m.marketId, m);
    this.seq = state.head.seq;
    this.hash = state.head.hash;
    this.durable = state.head.seq;
    this.recentFirst = state.head.seq + 1;
  }

  /** Opens the ledger over its store; the store refuses to load when it is damaged. */
  static async open(store: MoneyStore, hooks: LedgerHooks = {}): Promise<Ledger> {
    return new Ledger(store, hooks, await store.load());
  }

  /**
   * This ledger process's memory: a wait by seq across a restart of it cannot be trusted. Renewed
   * when a refused commit is undone, as the seqs after the durable one are then given out again.
   */
  get instance(): string {
    return this.current;
  }

  get lastSeq(): number {
    return this.seq;
  }

  get durableSeq(): number {
    return this.durable;
  }

  get headHash(): string {
    return this.hash;
  }

  private now(): Date {
    return this.hooks.now ? this.hooks.now() : new Date();
  }

  lease(marketId: string): MarketLease {
    return this.markets.get(marketId) ?? { marketId, epoch: 0, owner: null, seq: 0, bookSeq: 0, pool: null };
  }

  /** The seq of the market's latest entry not yet durable (a book entry or a fence), or null. */
  pendingSeqOf(marketId: string): number | null {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const d = this.pending[i].doc;
      if (d.book?.marketId === marketId || d.fence?.marketId === marketId) return d.seq;
    }
    return null;
  }

  /**
   * Applies an entry exactly once. A repeated key answers `applied: false` and changes nothing (a
   * retry); a book entry whose lease or position is stale is refused (`moved`); an entry that would
   * overdraw an account is refused (`rejected`). Nothing of a refused entry is applied or journaled.
   *
   * A command too large for one entry (an order sweeping thousands of resting orders) comes as a
   * group of parts at consecutive journal positions: the parts are held until the last arrives,
   * then validated and applied together (all or nothing) and written in the same commit.
   */
  post(input: PostInput): PostOutcome {
    if (this.broken)
      throw new Refusal<LedgerCode>("unavailable", "LEDGER_UNAVAILABLE", "The ledger stopped after a failed write; it recovers on restart");
    const part = input.part;
    if (!part) return this.apply([input]);
    const b = input.book;
    if (!b || part.count < 2 || part.index < 0 || part.index >= part.count)
      throw new Refusal<LedgerCode>("rejected", "INVALID_POSTING", "an entry group is parts of one book command");
    let group = this.groups.get(part.group);
    if (part.index === 0) this.groups.set(part.group, (group = { marketId: b.marketId, parts: [] }));
    if (!group || group.parts.length !== part.index || group.marketId !== b.marketId) {
      this.groups.delete(part.group);
      throw new Refusal<LedgerCode>("moved", "MARKET_MOVED", `entry group ${part.group} arrived out of order; nothing was executed`);
    }
    group.parts.push(input);
    if (group.parts.length < part.count) return { applied: true, seq: -1, instance: this.instance };
    this.groups.delete(part.group);
    return this.apply(group.parts);
  }

  /** Entries of one command (one, or the parts of a group), validated and applied together. */
  private apply(parts: PostInput[]): PostOutcome {
    const at = this.position(parts);
    if ("answered" in at) return at.answered;
    this.checkKeys(parts);
    return this.record(parts, this.prepare(parts), at.lease);
  }

  /**
   * Where a command goes: a book command at its market's next journal position under the
   * writer's lease (the same command again, a retry of one that landed, is answered); an entry
   * without a book under a key not used before (a used key is answered).
   */
  private position(parts: PostInput[]): { lease: MarketLease | null } | { answered: PostOutcome } {
    const first = parts[0];
    const b = first.book;
    if (!b) {
      const seq = this.pendingKeys.get(first.key)?.seq ?? this.store.keySeq(first.key);
      return seq !== null ? { answered: { applied: false, seq, instance: this.instance } } : { lease: null };
    }
    const lease = this.lease(b.marketId);
    if (b.epoch !== lease.epoch || b.seq !== lease.seq + 1) {
      const prev = this.lastBook.get(b.marketId);
      const prior = parts.length === 1 && prev?._id === first.key ? prev : null;
      // The same command again (a retry of a commit that landed): answered, not applied twice.
      if (prior && sameBookCommand(prior.book, b)) return { answered: { applied: false, seq: prior.seq, instance: this.instance } };
      throw new Refusal<LedgerCode>(
        "moved",
        "MARKET_MOVED",
        b.epoch !== lease.epoch
          ? `market ${b.marketId} is written under lease ${lease.epoch} (${lease.owner ?? "nobody"}), not ${b.epoch} (${b.node}); nothing was executed`
          : `journal position ${b.seq} of market ${b.marketId} is not the next one (${lease.seq + 1}); nothing was executed`,
      );
    }
    parts.forEach((p, i) => {
      if (!p.book || p.book.marketId !== b.marketId || p.book.epoch !== b.epoch || p.book.seq !== b.seq + i)
        throw new Refusal<LedgerCode>(
          "rejected",
          "INVALID_POSTING",
          "the parts of a book command take consecutive positions of one market",
        );
    });
    return { lease };
  }

  /** The command's Idempotency-Key and client order ids: neither taken by another entry. */
  private checkKeys(parts: PostInput[]): void {
    const last = parts[parts.length - 1];
    // Keys are claimed before their command runs (idemClaim); this only guards against a second writer.
    if (last.idem && this.pendingIdem(last.idem)) {
      throw new Refusal<LedgerCode>("conflict", "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key already answered a request");
    }
    for (const p of parts) {
      const placed = p.book?.command.type === "place" ? p.book.command.order : null;
      if (placed?.clientOrderId && this.clientOrderIdTaken(placed.userId, placed.clientOrderId)) {
        throw new Refusal<LedgerCode>(
          "conflict",
          "DUPLICATE_CLIENT_ORDER_ID",
          `clientOrderId ${placed.clientOrderId} names another of your open orders`,
        );
      }
    }
  }

  /** The command's money, checked against the entry rules and the books: what it changes, or its refusal. */
  private prepare(parts: PostInput[]): PreparedChange {
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (first.conversion) this.refuseDecided(first.conversion.eventId, [...first.conversion.marketIds, ...first.conversion.otherOpen]);
    if (last.eventPool) this.checkPoolLeg(last.eventPool, parts.length === 1 ? first.postings : parts.flatMap((p) => p.postings));
    const postings = parts.length === 1 ? first.postings : parts.flatMap((p) => p.postings);
    const trades = parts.length === 1 ? first.trades : parts.flatMap((p) => p.trades ?? []);
    const broken = entryRuleProblems(
      { key: last.key, postings, trades, book: last.book, payout: first.payout, conversion: first.conversion, reward: first.reward },
      this.accounts,
    );
    if (broken.length) throw new Refusal<LedgerCode>("rejected", "INVALID_POSTING", broken.join("; "));
    try {
      return this.accounts.prepare(postings, first.checkAfter ?? 0);
    } catch (err) {
      if (!isPostingRefusal(err)) throw err;
      const code =
        err.code === "INSUFFICIENT_SHARES"
          ? "INSUFFICIENT_SHARES"
          : err.code === "INVALID_POSTING"
            ? "INVALID_POSTING"
            : "INSUFFICIENT_BALANCE";
      throw new Refusal<LedgerCode>(
        "rejected",
        code,
        code === "INSUFFICIENT_SHARES" ? "Insufficient shares" : code === "INVALID_POSTING" ? err.message : "Insufficient balance",
      );
    }
  }

  /** Is an entry under this key journaled, or waiting for its commit? */
  private entered(key: string): boolean {
    return this.pendingKeys.has(key) || this.store.keySeq(key) !== null;
  }

  /**
   * Refuses an entry that would still create shares of a market whose end went through this
   * ledger (resolved alone, with its event in one step, or paid out at a price): the catalog's
   * "open" it was checked against may be older than that entry.
   */
  refuseDecided(eventId: string, marketIds: readonly string[]): void {
    const ended = this.entered(eventResolutionKey(eventId))
      ? marketIds[0]
      : marketIds.find((m) => this.entered(resolutionKey(m)) || this.entered(payoutKey(m)));
    if (ended !== undefined)
      throw new Refusal<LedgerCode>(
        "conflict",
        "MARKET_NOT_OPEN",
        `Market ${ended} is not open: its end was settled; nothing was executed`,
      );
  }

  /**
   * A market order's leg against its race's pool, planned by the market's actor on the pool's books
   * as it read them: planned again here on the books as they are now (this entry applies in the
   * same turn). Another price: the pool moved meanwhile (BOOK_CHANGED, nothing executed). The
   * pool's own postings must be exactly that plan's.
   */
  private checkPoolLeg(rec: EventPoolRecord, postings: readonly Posting[]): void {
    this.refuseDecided(rec.eventId, [rec.marketId]);
    const account = eventPoolAccount(rec.eventId);
    const plan = replanPoolLeg(rec, this);
    if (!plan.ok || plan.quote.cash !== rec.cash || plan.quote.fee !== rec.fee)
      throw new Refusal<LedgerCode>("conflict", "BOOK_CHANGED", "The event's pool moved since this order was priced; nothing was executed");
    const want = poolPostingsOf(account, plan.postings);
    const got = poolPostingsOf(account, postings);
    if (want.length !== got.length || want.some((w, i) => w !== got[i]))
      throw new Refusal<LedgerCode>("rejected", "INVALID_POSTING", `entry moves pool ${account} other than its pool leg's record`);
  }

  /** Applies the prepared change and queues the entries for the next group commit; leases follow the command. */
  private record(parts: PostInput[], change: PreparedChange, lease: MarketLease | null): PostOutcome {
    const first = parts[0];
    const undo: Undo = { accounts: this.accounts.commit(change), leases: [], lastBook: [] };
    for (const account of change.cash.keys()) this.touchedCash.add(account);
    for (const k of change.pos.keys()) this.touchedPos.add(k);
    for (const m of change.coll.keys()) this.touchedMarkets.add(m);
    const at = this.now().toISOString();
    let doc!: LedgerEntryDoc;
    parts.forEach((input, i) => {
      doc = entryDoc(input, this.seq + 1, at);
      this.seq = doc.seq;
      this.pending.push({ doc, body: JSON.stringify(doc), ...(i === 0 ? { undo } : {}) });
      this.pendingKeys.set(doc._id, doc);
    });
    const lastBook = parts[parts.length - 1].book;
    if (lastBook && lease) {
      undo.leases.push([lastBook.marketId, this.markets.get(lastBook.marketId)]);
      undo.lastBook.push([lastBook.marketId, this.lastBook.get(lastBook.marketId)]);
      this.markets.set(lastBook.marketId, { ...lease, seq: lastBook.seq, bookSeq: lastBook.bookSeq, pool: lastBook.pool ?? lease.pool });
      this.lastBook.set(lastBook.marketId, doc);
      this.touchedMarkets.add(lastBook.marketId);
    }
    if (first.fence) {
      const cur = this.lease(first.fence.marketId);
      undo.leases.push([first.fence.marketId, this.markets.get(first.fence.marketId)]);
      this.markets.set(first.fence.marketId, { ...cur, epoch: first.fence.epoch, owner: first.fence.node });
      this.touchedMarkets.add(first.fence.marketId);
      // Parts of a command an earlier writer never finished are dropped with its lease.
      for (const [id, g] of this.groups) if (g.marketId === first.fence.marketId) this.groups.delete(id);
    }
    this.scheduleFlush();
    return { applied: true, seq: doc.seq, instance: this.instance };
  }

  /**
   * A new writer lease for a market: from this entry on only `node`, under the returned epoch, may
   * write it, and every entry of an earlier lease is refused. The caller rebuilds the book once the
   * entry is durable (everything before it is then in the store).
   */
  acquire(marketId: string, node: string): { lease: MarketLease; seq: number } {
    if (this.hooks.mayOwn && !this.hooks.mayOwn(marketId, node)) {
      throw new Refusal<LedgerCode>("moved", "MARKET_MOVED", `market ${marketId} belongs to another engine node; retry`);
    }
    const epoch = this.lease(marketId).epoch + 1;
    const r = this.post({ key: `fence:${marketId}:${epoch}`, postings: [], fence: { marketId, epoch, node } });
    return { lease: this.lease(marketId), seq: r.seq };
  }

  /**
   * Resolves once every entry up to `seq` is durable. Of an instance retired by a refused commit:
   * resolves for what it made durable and refuses the rest (undone); of another ledger process:
   * rejects, the outcome being unknown here.
   */
  waitDurable(seq: number, instance?: string): Promise<void> {
    if (instance && instance !== this.current) {
      const r = this.retired.get(instance);
      if (r) return seq <= r.durable ? Promise.resolve() : Promise.reject(r.refusal);
      return Promise.reject(
        new Refusal<LedgerCode>(
          "restarted",
          "LEDGER_RESTARTED",
          "The ledger restarted; the outcome of that entry is unknown to this writer",
        ),
      );
    }
    if (seq <= this.durable) return Promise.resolve();
    if (this.broken) return Promise.reject(this.unavailable());
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private unavailable(): Refusal {
    return new Refusal<LedgerCode>("unavailable", "LEDGER_UNAVAILABLE", "A ledger write failed; it recovers on restart");
  }

  /** Entries accepted during this turn of the event loop are committed together (group commit). */
  private scheduleFlush(): void {
    if (this.flushQueued || this.flushing) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flushing = this.flush()
        .catch((err: Error) => this.fail(err))
        .finally(() => {
          this.flushing = null;
          if (this.pending.length && !this.broken) this.scheduleFlush();
          else for (const w of this.idleWaiters.splice(0)) w();
        });
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length && !this.broken) {
      // The batch stays in `pending` until it is committed: until then the store cannot answer for
      // it (its writer may be another thread), so lookups of keys and client ids still see it here.
      const batch = this.pending.slice();
      const rows: JournalRow[] = [];
      let hash = this.hash;
      for (const { doc, body } of batch) {
        hash = chainHash(hash, body);
        const b = doc.book;
        const f = doc.fence;
        rows.push({
          seq: doc.seq,
          key: doc._id,
          body,
          hash,
          marketId: b?.marketId ?? f?.marketId ?? null,
          position: b ? b.seq : null,
          epoch: b ? b.epoch : f ? f.epoch : null,
        });
      }
      const commit: CommitBatch = {
        rows,
        docs: batch.map((p) => p.doc),
        cash: [],
        positions: [],
        markets: [],
        totals: { fees: this.accounts.feeBalance(), ...this.accounts.externalTotals() },
      };
      for (const a of this.touchedCash) {
        const c = this.accounts.balance(a);
        commit.cash.push([a, { available: c.available, locked: c.locked }]);
      }
      for (const k of this.touchedPos) {
        const [account, marketId, outcome] = k.split("|");
        const p = this.accounts.position(account, marketId, outcome as "YES" | "NO");
        if (p) commit.positions.push({ ...p });
      }
      for (const m of this.touchedMarkets) commit.markets.push(this.marketRow(m));
      this.touchedCash = new Set();
      this.touchedPos = new Set();
      this.touchedMarkets = new Set();
      try {
        await this.store.commit(commit);
      } catch (err) {
        if (err instanceof CommitRefused) this.undoPending(err);
        else this.fail(err as Error);
        return;
      }
      this.hash = hash;
      this.pending.splice(0, batch.length);
      for (const { doc } of batch) this.pendingKeys.delete(doc._id);
      const last = batch[batch.length - 1].doc.seq;
      this.durable = last;
      if (this.waiters.length) {
        const due = this.waiters.filter((w) => w.seq <= last);
        this.waiters = this.waiters.filter((w) => w.seq > last);
        for (const w of due) w.resolve();
      }
      batch.forEach(({ doc }, i) => {
        doc.hash = rows[i].hash;
        this.recent.push(doc);
      });
      // Trimmed once per RECENT entries, not on every commit.
      if (this.recent.length > 2 * RECENT) {
        const drop = this.recent.length - RECENT;
        this.recent = this.recent.slice(drop);
        this.recentFirst += drop;
      }
      for (const { doc } of batch) if (doc.idem) this.idem.answered(doc.idem);
      this.hooks.committed?.(commit.docs);
    }
  }

  /** A commit of unknown outcome: memory may be ahead of the store, so nothing more is accepted. */
  private fail(err: Error): void {
    if (this.broken) return;
    this.broken = err;
    for (const w of this.waiters.splice(0)) w.reject(this.unavailable());
    this.hooks.failed?.(err);
  }

  /**
   * The store refused a group whole: every entry not yet durable (the group, and those applied
   * while it was written, which were checked against it) is undone, newest first, so the books,
   * leases and keys are again exactly what is durable; their waiters are refused (nothing was
   * executed) and their Idempotency-Keys are free again once their requests give them back.
   */
  private undoPending(err: CommitRefused): void {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const u = this.pending[i].undo;
      if (!u) continue;
      for (let j = u.leases.length - 1; j >= 0; j--) restore(this.markets, ...u.leases[j]);
      for (let j = u.lastBook.length - 1; j >= 0; j--) restore(this.lastBook, ...u.lastBook[j]);
      this.accounts.revert(u.accounts);
    }
    const entries = this.pending.length;
    this.pending = [];
    this.pendingKeys.clear();
    this.touchedCash = new Set();
    this.touchedPos = new Set();
    this.touchedMarkets = new Set();
    this.seq = this.durable;
    const refusal = new Refusal<LedgerCode>(
      "unavailable",
      "SERVICE_UNAVAILABLE",
      err.diskFull
        ? "The exchange cannot store requests right now (its disk is full); nothing was executed. Retry later"
        : "The exchange could not store this request; nothing was executed. Retry later",
      { retryAfter: WRITE_REFUSED_RETRY_S },
    );
    // The seqs after `durable` are given out again: a wait by seq must not take another entry for its own.
    this.retired.set(this.current, { durable: this.durable, refusal });
    if (this.retired.size > RETIRED) this.retired.delete(this.retired.keys().next().value as string);
    this.current = randomBytes(8).toString("hex");
    for (const w of this.waiters.splice(0)) w.reject(refusal);
    this.hooks.refused?.(err, entries);
  }

  // --- Idempotency-Key: one execution per key and caller, its answer journaled with the command ---

  private pendingIdem(r: IdemRecord): boolean {
    for (const p of this.pending) if (p.doc.idem && p.doc.idem.scope === r.scope && p.doc.idem.key === r.key) return true;
    return false;
  }

  /** See IdemClaims.claim (ledger/idempotency.ts). */
  idemClaim(scope: string, key: string, fingerprint: string): Promise<IdemClaim> {
    return this.idem.claim(scope, key, fingerprint);
  }

  /** The request ended without an answer to keep (refused, failed): the next one may execute. */
  idemRelease(scope: string, key: string): void {
    this.idem.release(scope, key);
  }

  /** Is this client order id on an open order of the user (committed, or placed by an entry not yet written)? */
  private clientOrderIdTaken(userId: string, cid: string): boolean {
    const open = this.store.openOrderByClientId(userId, cid);
    const closedSince = (orderId: string) =>
      this.pending.some((p) => p.doc.book?.orders.some((o) => o.orderId === orderId && o.remaining === 0));
    if (open && !closedSince(open)) return true;
    for (const p of this.pending) {
      const c = p.doc.book?.command;
      if (c?.type !== "place" || c.order.userId !== userId || c.order.clientOrderId !== cid) continue;
      if (!closedSince(c.order.orderId)) return true;
    }
    return false;
  }

  private marketRow(marketId: string): MarketRow {
    return { ...this.lease(marketId), collateral: this.accounts.collateralOf(marketId) };
  }

  /** Durable entries after `seq` from memory, or null when they are older than the window kept. */
  recentAfter(seq: number, limit: number): LedgerEntryDoc[] | null {
    if (seq + 1 < this.recentFirst) return null;
    const from = seq + 1 - this.recentFirst;
    return this.recent.slice(from, from + limit);
  }

  /** Resolves when nothing is waiting to be written. */
  idle(): Promise<void> {
    if (!this.pending.length && !this.flushing && !this.flushQueued) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // --- reads of the books (memory) ---

  /** What the fee account holds now (maker rebates are paid out of it). */
  feeBalance(): number {
    return this.accounts.feeBalance();
  }

  balance(account: string) {
    return this.accounts.balance(account);
  }

  positionsOf(account: string) {
    return this.accounts.positionsOf(account);
  }

  holders(marketId: string) {
    return this.accounts.holders(marketId);
  }

  conservation(): ConservationReport {
    return this.accounts.conservation();
  }

  /**
   * The money check (ledger/money-check.ts), once nothing is pending: the books as they stand
   * against the read models committed with the journal.
   */
  async check(): Promise<MoneyCheck> {
    for (;;) {
      await this.idle();
      if (this.pending.length) continue;
      const report = this.accounts.conservation();
      return moneyCheck(report, this.accounts, await this.store.readModelFacts());
    }
  }

  /** A snapshot of the books (verification compares a replay with it). */
  snapshotAccounts() {
    return this.accounts.snapshot();
  }

  leases(): MarketLease[] {
    return [...this.markets.values()];
  }
}

function restore<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}
