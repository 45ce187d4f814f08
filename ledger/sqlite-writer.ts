import { closeSync, constants, fdatasync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { CashAccount, PositionState } from "../engine/accounts";
import type { LedgerEntryDoc, OrderDoc } from "../models/trading";
import { applyOrderChange, projectEntry } from "./projection";
import { CommitRefused, type CommitBatch, type MarketRow, type Totals } from "./store";

/** The last committed head, written after every commit: a store whose tail was cut no longer reaches it. */
export const HEAD_FILE = "money.head";
const HEAD_BYTES = 128;

/** The writer thread's name as `top -H` and /proc/<pid>/task/<tid>/comm show it (15 characters at most). */
export const WRITER_THREAD_NAME = "pmx-writer";

/** SQLite's answers to a write that may succeed later; the transaction was rolled back. */
const TRANSIENT = /^SQLITE_(FULL|IOERR|BUSY|NOMEM)/;

/**
 * A failed group commit's transaction as a CommitRefused when SQLite rolled it back and the cause
 * may pass (a full disk, an I/O error); anything else (a constraint: memory and store disagree)
 * unchanged.
 */
export function refusedCommit(err: unknown, inTransaction: boolean): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (inTransaction || typeof code !== "string" || !TRANSIENT.test(code)) return err;
  const diskFull = code === "SQLITE_FULL";
  return new CommitRefused(
    diskFull ? "the disk holding the money store is full" : `the money store could not be written (${code})`,
    code,
    diskFull,
  );
}

/**
 * A group commit as it crosses to the writer thread: the journal rows carry each entry's body, so
 * the entries themselves are not cloned (the writer parses them back for the read models).
 */
export type WriteBatch = Omit<CommitBatch, "docs"> & { docs?: LedgerEntryDoc[] };

/**
 * When the writer checkpoints the WAL into the database (PASSIVE: it never waits for a reader),
 * always after the commit that made it due was answered: once no commit came for `idleMs`, or once
 * `commits` commits or `rows` journal rows were written since the last one, so that the WAL stays
 * bounded under a load that never pauses.
 */
export interface CheckpointPolicy {
  idleMs: number;
  commits: number;
  rows: number;
}
/**
 * Each checkpoint copies every page changed since the last one into the database: the journal's
 * pages once whatever the interval, the read models' and balances' leaves once per checkpoint. The
 * commit count bounds small groups (2,500 rather than 1,000: ~18% fewer checkpoint bytes per order
 * at 16 connections); the row count still bounds the WAL under large ones.
 */
export const CHECKPOINTS: CheckpointPolicy = { idleMs: 1_000, commits: 2_500, rows: 20_000 };

/**
 * When what committed entries changed besides the journal (the order and trade read models, the
 * balances, positions, markets and totals) is written, if not in the journal's own transaction:
 * `ms` after the first entry waiting, or once `entries` wait. Many orders then share each page they
 * change, instead of each commit writing its own copy of every page; the journal's commit writes
 * its rows alone (and an Idempotency-Key's answer, a heartbeat or an order group when it has one).
 */
export interface ProjectionPolicy {
  ms: number;
  entries: number;
}
/**
 * A read of the read models has the writer project what waits first, so the delay bounds only a
 * load with no such reads: the longer it is, the more orders share each index leaf they change
 * (the projection's bytes per order at 16 connections: ~3.9 KB at 250 ms, ~1.8 KB at 1 s), and the
 * longer the commits that arrive during it wait (~25 us per entry: 1 s of a 2,000/s load held
 * them ~50-70 ms and put the half-rate p99 at 66-96 ms; 250 ms, 38-45 ms).
 */
export const PROJECTION: ProjectionPolicy = { ms: 250, entries: 1_000 };

/** Where the writer works: its connection, and (on disk) the data dir for the WAL and the head file. */
export interface WriterTarget {
  /** Read models and balances written behind the journal under this policy; absent: in each journal commit. */
  projection?: ProjectionPolicy;
  /** The database file, or null in memory. */
  file: string | null;
  dir: string | null;
  /** fdatasync the WAL after each commit (JOURNAL_FSYNC). */
  fsync: boolean;
  /** Tests: another checkpoint policy than CHECKPOINTS. */
  checkpoints?: CheckpointPolicy;
}

/**
 * The read models (orders, trades, book entries by position) of journal entries written by one connection: inside the
 * journal's commit, in a later transaction of their own on the writer, or at start for the
 * entries a crash left unprojected. Records the last entry projected (meta projected_seq) and the
 * rows the journal made (meta orders, trades) in the same transaction as the rows.
 */
export class Projector {
  private readonly st: Record<string, Database.Statement>;
  readonly tx: (docs: LedgerEntryDoc[]) => void;

  constructor(db: Database.Database) {
    const q = (sql: string) => db.prepare(sql);
    this.st = {
      getMeta: q("SELECT v FROM meta WHERE k = ?"),
      setMeta: q("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"),
      insOrder: q(
        "INSERT INTO orders (order_id, user_id, market_id, side, outcome, order_type, price, quantity, filled, remaining, cancelled, holds, status, cancel_reason, client_order_id, expires_at, post_only, prio, seq, created_at, updated_at, cancel_on_pause, is_quote, order_group_id) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      changeOrder: q(
        "UPDATE orders SET quantity = coalesce(?, quantity), price = coalesce(?, price), prio = coalesce(?, prio), filled = filled + ?, remaining = ?, " +
          "cancelled = coalesce(?, quantity) - filled - ? - ?, holds = ?, status = ?, cancel_reason = coalesce(?, cancel_reason), seq = ?, updated_at = ? WHERE order_id = ?",
      ),
      insTrade: q(
        "INSERT INTO trades (trade_id, user_id, market_id, order_id, side, outcome, venue, role, filled_quantity, total_cost, fee, fill_ids, settlement_status, settlement_tx, created_at, seq) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?, ?)",
      ),
      settleTrade: q("UPDATE trades SET settlement_status = ?, settlement_tx = ? WHERE trade_id = ?"),
      insPosition: q("INSERT INTO book_positions (market_id, position, seq) VALUES (?, ?, ?)"),
    };
    this.tx = db.transaction((docs: LedgerEntryDoc[]) => this.apply(docs));
  }

  private metaNumber(k: string): number {
    const r = this.st.getMeta.get(k) as { v: string } | undefined;
    return r ? Number(r.v) : 0;
  }

  /** The entries' rows, inside the caller's transaction. */
  apply(docs: LedgerEntryDoc[]): void {
    if (!docs.length) return;
    const st = this.st;
    let orders = 0;
    let trades = 0;
    // Orders placed in this batch are written once, as the batch leaves them.
    const fresh = new Map<string, OrderDoc>();
    for (const doc of docs) {
      if (doc.book) st.insPosition.run(doc.book.marketId, doc.book.seq, doc.seq);
      for (const op of projectEntry(doc)) {
        switch (op.op) {
          case "insertOrder":
            fresh.set(op.order._id, op.order);
            break;
          case "changeOrder": {
            const c = op.change;
            const o = fresh.get(c.orderId);
            if (o) applyOrderChange(o, c, op.seq, op.at);
            else
              st.changeOrder.run(
                c.quantity ?? null,
                c.price ?? null,
                c.prio ?? null,
                c.filledDelta,
                c.remaining,
                c.quantity ?? null,
                c.filledDelta,
                c.remaining,
                c.holds,
                c.status,
                c.reason ?? null,
                op.seq,
                op.at,
                c.orderId,
              );
            break;
          }
          case "insertTrade": {
            const t = op.trade;
            st.insTrade.run(
              t._id,
              t.userId,
              t.marketId,
              t.orderId,
              t.side,
              t.outcome,
              t.venue,
              t.role,
              t.filledQuantity,
              t.totalCost,
              t.fee,
              JSON.stringify(t.fillIds),
              t.createdAt,
              doc.seq,
            );
            trades++;
            break;
          }
          case "settleTrades":
            for (const id of op.tradeIds) st.settleTrade.run(op.status, op.txHash, id);
            break;
        }
      }
    }
    for (const o of fresh.values()) {
      st.insOrder.run(
        o._id,
        o.userId,
        o.marketId,
        o.side,
        o.outcome,
        o.orderType,
        o.price,
        o.quantity,
        o.filledQuantity,
        o.remaining,
        o.cancelledQuantity,
        o.holds,
        o.status,
        o.cancelReason,
        o.clientOrderId,
        o.expiresAt,
        o.postOnly ? 1 : 0,
        o.prio,
        o.seq,
        o.createdAt,
        o.updatedAt,
        o.cancelOnPause ? 1 : 0,
        o.quote ? 1 : 0,
        o.orderGroupId ?? null,
      );
      orders++;
    }
    if (orders) st.setMeta.run("orders", String(this.metaNumber("orders") + orders));
    if (trades) st.setMeta.run("trades", String(this.metaNumber("trades") + trades));
    st.setMeta.run("projected_seq", String(docs[docs.length - 1].seq));
  }
}

/**
 * The balances, positions, markets and totals as of one journal entry: the latest value of each
 * row the commits up to `seq` touched (a row untouched keeps the value it had).
 */
export interface StateRows {
  seq: number;
  cash: Map<string, CashAccount>;
  positions: Map<string, PositionState>;
  markets: Map<string, MarketRow>;
  totals: Totals | null;
}

export function noStateRows(seq: number): StateRows {
  return { seq, cash: new Map(), positions: new Map(), markets: new Map(), totals: null };
}

/** A commit's final values merged into the rows waiting (later values replace earlier ones). */
export function mergeStateRows(into: StateRows, b: Pick<CommitBatch, "cash" | "positions" | "markets" | "totals">, seq: number): void {
  for (const [account, c] of b.cash) into.cash.set(account, c);
  for (const p of b.positions) into.positions.set(`${p.account}|${p.marketId}|${p.outcome}`, p);
  for (const m of b.markets) into.markets.set(m.marketId, m);
  into.totals = b.totals;
  into.seq = seq;
}

/**
 * Writes balances, positions, markets and totals with the mark of the entry they reflect (meta
 * state_seq), inside the caller's transaction: behind the journal (the deferred projection's
 * transaction), in each journal commit when nothing is deferred, or at start once the entries
 * after the mark were replayed onto them.
 */
export class StateWriter {
  private readonly st: Record<string, Database.Statement>;

  constructor(db: Database.Database) {
    const q = (sql: string) => db.prepare(sql);
    this.st = {
      setMeta: q("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"),
      upCash: q(
        "INSERT INTO cash (account, available, locked) VALUES (?, ?, ?) ON CONFLICT(account) DO UPDATE SET available = excluded.available, locked = excluded.locked",
      ),
      upPos: q(
        "INSERT INTO positions (account, market_id, outcome, quantity, locked, total_cost, realized_pnl, settled) VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT(account, market_id, outcome) DO UPDATE SET quantity = excluded.quantity, locked = excluded.locked, total_cost = excluded.total_cost, realized_pnl = excluded.realized_pnl, settled = excluded.settled",
      ),
      upMarket: q(
        "INSERT INTO markets (market_id, collateral, epoch, owner, position, book_seq, pool_yes, pool_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT(market_id) DO UPDATE SET collateral = excluded.collateral, epoch = excluded.epoch, owner = excluded.owner, position = excluded.position, book_seq = excluded.book_seq, pool_yes = excluded.pool_yes, pool_no = excluded.pool_no",
      ),
    };
  }

  write(s: StateRows): void {
    const st = this.st;
    for (const [account, c] of s.cash) st.upCash.run(account, c.available, c.locked);
    for (const p of s.positions.values())
      st.upPos.run(p.account, p.marketId, p.outcome, p.quantity, p.locked, p.totalCost, p.realizedPnl, p.settled ? 1 : 0);
    for (const m of s.markets.values())
      st.upMarket.run(m.marketId, m.collateral, m.epoch, m.owner, m.seq, m.bookSeq, m.pool?.yes ?? null, m.pool?.no ?? null);
    if (s.totals) {
      st.setMeta.run("fees", String(s.totals.fees));
      st.setMeta.run("deposit", String(s.totals.deposit));
      st.setMeta.run("withdrawal", String(s.totals.withdrawal));
      st.setMeta.run("house", String(s.totals.house));
    }
    st.setMeta.run("state_seq", String(s.seq));
  }
}

/**
 * The write half of the money store: one transaction per group commit holding the journal rows
 * (with the balances, positions, markets and read-model rows they change when nothing is deferred,
 * else those follow in the projection's transaction); then an fdatasync of the WAL (run in libuv's
 * thread pool) and the head file. It runs on the writer thread (ledger/sqlite-writer-thread.ts)
 * or, in memory and under the test runner, inline.
 */
export class SqliteWriter {
  private headFd: number | null = null;
  private walFd: number | null = null;
  private readonly tx: (b: WriteBatch) => LedgerEntryDoc[];
  private readonly policy: CheckpointPolicy;
  private readonly projector: Projector;
  private readonly state: StateWriter;
  private readonly projectTx: (docs: LedgerEntryDoc[], state: StateRows) => void;
  /** Committed entries whose read-model rows are not written yet (a deferred projection), in order. */
  private unprojected: LedgerEntryDoc[] = [];
  /** The balances, positions, markets and totals those entries left, written with their rows. */
  private unwritten: StateRows = noStateRows(0);
  private projectTimer: NodeJS.Timeout | null = null;
  /** The last entry whose read-model rows are written (or 0 before any was, this session). */
  projectedSeq = 0;
  /** A commit between its transaction and its answer: no checkpoint then. */
  private busy = false;
  private sinceCheckpoint = { commits: 0, rows: 0 };
  private idleTimer: NodeJS.Timeout | null = null;
  /** Checkpoints run so far, and the last one's result (frames in the WAL, frames copied). */
  readonly checkpoints = { count: 0, last: null as { busy: number; log: number; checkpointed: number } | null };

  constructor(
    private readonly db: Database.Database,
    private readonly target: WriterTarget,
    /** Told after a deferred projection its timer ran (not after project() called from outside). */
    private readonly onProjected?: (seq: number) => void,
  ) {
    this.policy = target.checkpoints ?? CHECKPOINTS;
    const q = (sql: string) => db.prepare(sql);
    const st = {
      insJournal: q("INSERT INTO journal (seq, key, market_id, position, epoch, body, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      // A key bound to its command first (answerFrom) gets its answer later, under the same key.
      insIdem: q(
        "INSERT INTO idempotency (scope, key, fingerprint, status, response, seq, created_at, answer_from) VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT(scope, key) DO UPDATE SET status = excluded.status, response = excluded.response, seq = excluded.seq, answer_from = excluded.answer_from",
      ),
      upHeartbeat: q(
        "INSERT INTO heartbeats (user_id, timeout_s, deadline) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET timeout_s = excluded.timeout_s, deadline = excluded.deadline",
      ),
      delHeartbeat: q("DELETE FROM heartbeats WHERE user_id = ?"),
      insGroup: q("INSERT INTO order_groups (group_id, user_id, fill_limit, window_s, triggered, since) VALUES (?, ?, ?, ?, 0, ?)"),
      resetGroup: q("UPDATE order_groups SET triggered = 0, since = ? WHERE group_id = ?"),
      triggerGroup: q("UPDATE order_groups SET triggered = 1 WHERE group_id = ?"),
      delGroup: q("DELETE FROM order_groups WHERE group_id = ?"),
    };
    this.projector = new Projector(db);
    this.state = new StateWriter(db);
    this.projectTx = db.transaction((docs: LedgerEntryDoc[], state: StateRows) => {
      this.projector.apply(docs);
      this.state.write(state);
    });
    this.tx = db.transaction((b: WriteBatch) => {
      const docs = b.docs ?? b.rows.map((r) => JSON.parse(r.body) as LedgerEntryDoc);
      for (const r of b.rows) st.insJournal.run(r.seq, r.key, r.marketId, r.position, r.epoch, r.body, r.hash);
      // Deferred: the head is the journal's last row, and the rest follows in the projection's transaction.
      if (!this.target.projection) {
        this.projector.apply(docs);
        const rows = noStateRows(0);
        mergeStateRows(rows, b, b.rows[b.rows.length - 1].seq);
        this.state.write(rows);
      }
      for (const doc of docs) {
        const i = doc.idem;
        if (i)
          st.insIdem.run(
            i.scope,
            i.key,
            i.fingerprint,
            i.status,
            JSON.stringify(i.response ?? null),
            doc.seq,
            doc.at,
            i.answerFrom ? JSON.stringify(i.answerFrom) : null,
          );
        const h = doc.heartbeat;
        if (h) {
          if (h.deadline) st.upHeartbeat.run(h.userId, h.timeoutSeconds, h.deadline);
          else st.delHeartbeat.run(h.userId);
        }
        const g = doc.orderGroup;
        if (g) {
          if (g.kind === "create") st.insGroup.run(g.orderGroupId, g.userId, g.fillLimit, g.windowSeconds, doc.at);
          else if (g.kind === "reset") st.resetGroup.run(doc.at, g.orderGroupId);
          else if (g.kind === "trigger") st.triggerGroup.run(g.orderGroupId);
          else st.delGroup.run(g.orderGroupId);
        }
      }
      return docs;
    });
  }

  /**
   * The batch in one transaction, then durable (WAL synced), then the head file. Throws
   * CommitRefused when the transaction was rolled back for a cause that may pass; a failed sync
   * leaves the outcome unknown (an error as it came).
   */
  async commit(batch: WriteBatch): Promise<void> {
    if (!batch.rows.length) return;
    this.busy = true;
    try {
      let docs: LedgerEntryDoc[];
      try {
        docs = this.tx(batch);
      } catch (err) {
        throw refusedCommit(err, this.db.inTransaction);
      }
      const last = batch.rows[batch.rows.length - 1].seq;
      if (this.target.projection) {
        for (const d of docs) this.unprojected.push(d);
        mergeStateRows(this.unwritten, batch, last);
        if (!this.projectTimer) {
          this.projectTimer = setTimeout(() => {
            this.projectTimer = null;
            try {
              this.project();
              this.onProjected?.(this.projectedSeq);
            } catch {
              // Kept (a full disk): the next commit's timer, a read's flush or the close tries again.
            }
          }, this.target.projection.ms);
          // Nothing is lost when the process ends first: the next start projects what waits.
          this.projectTimer.unref();
        }
      } else this.projectedSeq = last;
      const { file, dir, fsync } = this.target;
      if (fsync && file) {
        // The WAL exists once something was written; the same file for the connection's life.
        if (this.walFd === null) this.walFd = openSync(`${file}-wal`, "r+");
        const fd = this.walFd;
        await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
      }
      if (dir) this.writeHead(dir, batch.rows[batch.rows.length - 1]);
      this.sinceCheckpoint.commits++;
      this.sinceCheckpoint.rows += batch.rows.length;
    } finally {
      this.busy = false;
    }
    if (!this.target.file) return;
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        // A commit awaiting its sync re-arms the timer when it is done.
        if (!this.busy) this.checkpoint();
      }, this.policy.idleMs);
      // Nothing waits for an idle checkpoint: closing checkpoints anyway.
      this.idleTimer.unref();
    }
  }

  /**
   * The read-model rows of every committed entry not yet projected, in one transaction; the
   * entries stay waiting if it fails. Returns the last entry projected.
   */
  project(): number {
    if (this.projectTimer) clearTimeout(this.projectTimer);
    this.projectTimer = null;
    if (!this.unprojected.length) return this.projectedSeq;
    const docs = this.unprojected;
    try {
      this.projectTx(docs, this.unwritten);
    } catch (err) {
      throw refusedCommit(err, this.db.inTransaction);
    }
    this.unprojected = [];
    this.unwritten = noStateRows(0);
    this.projectedSeq = docs[docs.length - 1].seq;
    return this.projectedSeq;
  }

  /** After answering a commit: the deferred projection once enough entries wait. */
  projectIfDue(): boolean {
    if (!this.target.projection || this.unprojected.length < this.target.projection.entries) return false;
    this.project();
    return true;
  }

  /**
   * The caller runs this once it has answered a commit and before it starts the next: a
   * checkpoint when enough was written since the last one (a load that never pauses would
   * otherwise grow the WAL without end).
   */
  checkpointIfDue(): void {
    const { commits, rows } = this.sinceCheckpoint;
    if (commits >= this.policy.commits || rows >= this.policy.rows) this.checkpoint();
  }

  /** A PASSIVE checkpoint of what was committed (it waits for no reader and copies what it can). */
  checkpoint(): void {
    if (!this.target.file || !this.db.open || this.sinceCheckpoint.commits === 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    try {
      const [r] = this.db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number; checkpointed: number }>;
      this.checkpoints.count++;
      this.checkpoints.last = r;
      this.sinceCheckpoint = { commits: 0, rows: 0 };
    } catch {
      // A checkpoint that failed (a full disk) leaves the WAL whole and committed; the next is tried later.
    }
  }

  /**
   * No fsync: it only ever lags the database, which is synced first. Nor does a failure to write
   * it (a full disk) fail the commit, which is durable by now: the next commit writes it again.
   * Never truncated: a crash leaves the previous head, not an empty file that proves nothing.
   */
  private writeHead(dir: string, last: { seq: number; hash: string }): void {
    const buf = Buffer.alloc(HEAD_BYTES);
    buf.write(JSON.stringify({ seq: last.seq, hash: last.hash }));
    try {
      if (this.headFd === null) this.headFd = openSync(join(dir, HEAD_FILE), constants.O_WRONLY | constants.O_CREAT);
      writeSync(this.headFd, buf, 0, HEAD_BYTES, 0);
    } catch {
      // Lagging is what the head file may do (checkWitness reads an empty one as no witness).
    }
  }

  /** Projects what waits first: a store closed cleanly starts with nothing to catch up. */
  close(): void {
    try {
      if (this.db.open) this.project();
    } catch {
      // Left to the next start, which projects every entry beyond projected_seq.
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.headFd !== null) closeSync(this.headFd);
    this.headFd = null;
    if (this.walFd !== null) closeSync(this.walFd);
    this.walFd = null;
  }
}
