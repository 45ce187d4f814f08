import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { Accounts, isPostingRefusal, type AccountsSnapshot, type CashAccount, type PositionState } from "../engine/accounts";
import type { Outcome } from "../engine/types";
import type { RestingOrder } from "../engine/types";
import type {
  BookJournalDoc,
  CommittedRestingOrder,
  GroupOrderFill,
  IdemAnswerSource,
  LedgerEntryDoc,
  MarketLease,
  OrderDoc,
  TradeDoc,
  OrderQuery,
  StoredOrderGroup,
} from "../models/trading";
import { chainHash, GENESIS_HASH } from "./chain-hash";
import { noLease, replayEntry } from "./replay";
import { openConnection } from "./sqlite-connection";
import {
  HEAD_FILE,
  noStateRows,
  Projector,
  StateWriter,
  type StateRows,
  PROJECTION,
  SqliteWriter,
  type CheckpointPolicy,
  type ProjectionPolicy,
  type WriteBatch,
  type WriterTarget,
} from "./sqlite-writer";
import type { WriterReply, WriterRequest } from "./sqlite-writer-thread";
import {
  checkedOrderGroup,
  CommitRefused,
  DEPOSIT_KEY_PREFIX,
  depositorsOf,
  formatToWrite,
  STORE_FORMAT,
  StoreDamaged,
  type CommitBatch,
  type JournalRow,
  type MoneyFacts,
  type MoneyStore,
  type ReadModelFacts,
  type StoredIdem,
  type StoredState,
  USER_ACCOUNT_PREFIX,
} from "./store";

/** The money store's file in the data dir. */
export const MONEY_STORE_FILE = "money.db";
const FILE = MONEY_STORE_FILE;
/** The read models' projection when the caller does not choose (null: inside each journal commit). */
export const DEFAULT_PROJECTION: ProjectionPolicy | null = PROJECTION;
/** The writer thread's compiled entry; absent when running from TypeScript sources (the test runner). */
const WRITER_THREAD = join(__dirname, "sqlite-writer-thread.js");

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (
  seq INTEGER PRIMARY KEY, key TEXT NOT NULL, market_id TEXT, position INTEGER, epoch INTEGER,
  body TEXT NOT NULL, hash TEXT NOT NULL);
-- Entries other than book entries are looked up by key (idempotency of deposits, withdrawals, ...).
CREATE UNIQUE INDEX IF NOT EXISTS journal_key ON journal(key) WHERE position IS NULL;
-- Book entries by market and position (their key is book:<market>:<position>), for rebuilding a
-- book: written behind the journal with the read models, so that the journal's commit changes no
-- index leaf per market.
CREATE TABLE IF NOT EXISTS book_positions (
  market_id TEXT NOT NULL, position INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (market_id, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cash (account TEXT PRIMARY KEY, available INTEGER NOT NULL, locked INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS positions (
  account TEXT NOT NULL, market_id TEXT NOT NULL, outcome TEXT NOT NULL, quantity INTEGER NOT NULL, locked INTEGER NOT NULL,
  total_cost INTEGER NOT NULL, realized_pnl INTEGER NOT NULL, settled INTEGER NOT NULL,
  PRIMARY KEY (account, market_id, outcome)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS markets (
  market_id TEXT PRIMARY KEY, collateral INTEGER NOT NULL, epoch INTEGER NOT NULL, owner TEXT, position INTEGER NOT NULL,
  book_seq INTEGER NOT NULL, pool_yes INTEGER, pool_no INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS orders (
  order_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, market_id TEXT NOT NULL, side TEXT NOT NULL, outcome TEXT NOT NULL,
  order_type TEXT NOT NULL, price INTEGER NOT NULL, quantity INTEGER NOT NULL, filled INTEGER NOT NULL, remaining INTEGER NOT NULL,
  cancelled INTEGER NOT NULL, holds INTEGER NOT NULL, status TEXT NOT NULL, cancel_reason TEXT, client_order_id TEXT,
  expires_at TEXT, post_only INTEGER NOT NULL, prio INTEGER NOT NULL, seq INTEGER NOT NULL, created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL, cancel_on_pause INTEGER NOT NULL DEFAULT 0, is_quote INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS orders_user ON orders(user_id, created_at DESC, order_id DESC);
CREATE INDEX IF NOT EXISTS orders_resting_user ON orders(user_id, market_id) WHERE remaining > 0;
CREATE INDEX IF NOT EXISTS orders_resting_market ON orders(market_id, prio) WHERE remaining > 0;
-- A client order id names one of its user's open orders at a time.
CREATE UNIQUE INDEX IF NOT EXISTS orders_client_id ON orders(user_id, client_order_id) WHERE remaining > 0 AND client_order_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS orders_expiry ON orders(expires_at) WHERE remaining > 0 AND expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, response TEXT NOT NULL,
  seq INTEGER NOT NULL, created_at TEXT NOT NULL, answer_from TEXT, PRIMARY KEY (scope, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS heartbeats (user_id TEXT PRIMARY KEY, timeout_s INTEGER NOT NULL, deadline TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS trades (
  trade_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, market_id TEXT NOT NULL, order_id TEXT NOT NULL, side TEXT NOT NULL,
  outcome TEXT NOT NULL, venue TEXT NOT NULL, role TEXT NOT NULL, filled_quantity INTEGER NOT NULL, total_cost INTEGER NOT NULL,
  fee INTEGER NOT NULL, fill_ids TEXT NOT NULL, settlement_status TEXT NOT NULL, settlement_tx TEXT, created_at TEXT NOT NULL,
  seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS trades_user ON trades(user_id, created_at DESC, trade_id DESC);
-- Order groups as their journal records left them (a deleted group's row is gone).
CREATE TABLE IF NOT EXISTS order_groups (
  group_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, fill_limit INTEGER NOT NULL, window_s INTEGER NOT NULL,
  triggered INTEGER NOT NULL, since TEXT NOT NULL) WITHOUT ROWID;
`;

/** Indexes earlier versions made that no query uses any more. */
export const RETIRED_INDEXES = ["orders_client_id_all"] as const;

interface OrderRow {
  order_id: string;
  user_id: string;
  market_id: string;
  side: OrderDoc["side"];
  outcome: OrderDoc["outcome"];
  order_type: OrderDoc["orderType"];
  price: number;
  quantity: number;
  filled: number;
  remaining: number;
  cancelled: number;
  holds: number;
  status: OrderDoc["status"];
  cancel_reason: OrderDoc["cancelReason"];
  client_order_id: string | null;
  expires_at: string | null;
  post_only: number;
  cancel_on_pause: number;
  is_quote: number;
  order_group_id: string | null;
  prio: number;
  seq: number;
  created_at: string;
  updated_at: string;
}

interface TradeRow {
  trade_id: string;
  user_id: string;
  market_id: string;
  order_id: string;
  side: TradeDoc["side"];
  outcome: TradeDoc["outcome"];
  venue: TradeDoc["venue"];
  role: TradeDoc["role"];
  filled_quantity: number;
  total_cost: number;
  fee: number;
  fill_ids: string;
  settlement_status: TradeDoc["settlementStatus"];
  settlement_tx: string | null;
  created_at: string;
  seq: number;
}

const orderOf = (r: OrderRow): OrderDoc => ({
  _id: r.order_id,
  userId: r.user_id,
  marketId: r.market_id,
  side: r.side,
  outcome: r.outcome,
  orderType: r.order_type,
  price: r.price,
  quantity: r.quantity,
  filledQuantity: r.filled,
  remaining: r.remaining,
  cancelledQuantity: r.cancelled,
  holds: r.holds,
  status: r.status,
  cancelReason: r.cancel_reason,
  clientOrderId: r.client_order_id,
  expiresAt: r.expires_at,
  postOnly: r.post_only === 1,
  cancelOnPause: r.cancel_on_pause === 1,
  quote: r.is_quote === 1,
  ...(r.order_group_id ? { orderGroupId: r.order_group_id } : {}),
  prio: r.prio,
  seq: r.seq,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const tradeOf = (r: TradeRow): TradeDoc => ({
  _id: r.trade_id,
  tradeId: r.trade_id,
  userId: r.user_id,
  marketId: r.market_id,
  orderId: r.order_id,
  side: r.side,
  outcome: r.outcome,
  venue: r.venue,
  role: r.role,
  filledQuantity: r.filled_quantity,
  totalCost: r.total_cost,
  fee: r.fee,
  fillIds: JSON.parse(r.fill_ids) as string[],
  settlementStatus: r.settlement_status,
  settlementTxHash: r.settlement_tx,
  createdAt: r.created_at,
});

/** The first string after every string that starts with `prefix` (a range scan over an index). */
function nextPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export function parseEntry(body: string, hash: string): LedgerEntryDoc {
  const doc = JSON.parse(body) as LedgerEntryDoc;
  doc.hash = hash;
  return doc;
}

/**
 * The money path in one SQLite database (better-sqlite3, WAL): a group commit is one transaction
 * holding the journal rows, whose last row is the head. The balances, positions, markets and totals
 * they changed and the order and trade rows they project to follow behind it in a transaction of
 * their own (ledger/sqlite-writer.ts: ProjectionPolicy), each set marked with the entry it reflects
 * (meta state_seq, projected_seq); a start replays the entries after the marks onto them before
 * anything is served. The balance rows are read at start only (the ledger keeps its books in memory).
 *
 * Durability: the commit is acknowledged once an fdatasync of the WAL file returns; that is what
 * synchronous=FULL does. On disk the writes and the sync run on a writer thread, so the event loop
 * validates the next group meanwhile and never stalls on a large one; reads run here on a second
 * connection, and see a commit once it is acknowledged. Checkpoints keep synchronous=NORMAL's own
 * syncs.
 */
export class SqliteMoneyStore implements MoneyStore {
  private readonly db: Database.Database;
  private readonly st: Record<string, Database.Statement>;
  private writer: CommitWriter | null = null;
  /** A commit of unknown outcome: the ledger's memory may be ahead of the store, so nothing more is written until a restart. */
  private failed: Error | null = null;
  /** The last entry of the last acknowledged commit, and the last one the read models are known to hold. */
  private committedSeq = 0;
  private projectedSeq = 0;
  /**
   * Acknowledged entries the writer thread may not have projected yet, for the one synchronous
   * read (openOrderByClientId); the asynchronous ones flush the writer instead.
   */
  private tail: LedgerEntryDoc[] = [];
  private tailProjector: Projector | null = null;

  private constructor(
    readonly location: string,
    private readonly dir: string | null,
    private readonly fsync: boolean,
    private readonly writerThread: boolean,
    private readonly checkpoints?: CheckpointPolicy,
    /** Read models written behind the journal (null: in each journal commit). */
    private readonly projection: ProjectionPolicy | null = null,
  ) {
    try {
      this.db = location === ":memory:" ? new Database(":memory:") : openConnection(location);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB")
        throw new StoreDamaged(`the money store ${location} is damaged: ${(err as Error).message}`);
      throw err;
    }
    this.db.exec(SCHEMA);
    // Added after format 1 was first written: an additive column, so the format stays.
    if (!(this.db.pragma("table_info(idempotency)") as Array<{ name: string }>).some((c) => c.name === "answer_from"))
      this.db.exec("ALTER TABLE idempotency ADD COLUMN answer_from TEXT");
    if (!(this.db.pragma("table_info(orders)") as Array<{ name: string }>).some((c) => c.name === "cancel_on_pause"))
      this.db.exec("ALTER TABLE orders ADD COLUMN cancel_on_pause INTEGER NOT NULL DEFAULT 0");
    if (!(this.db.pragma("table_info(orders)") as Array<{ name: string }>).some((c) => c.name === "is_quote"))
      this.db.exec("ALTER TABLE orders ADD COLUMN is_quote INTEGER NOT NULL DEFAULT 0");
    if (!(this.db.pragma("table_info(orders)") as Array<{ name: string }>).some((c) => c.name === "order_group_id"))
      this.db.exec("ALTER TABLE orders ADD COLUMN order_group_id TEXT");
    // Every order with a client id wrote an entry into it, and no query used it (GET /orders by
    // client id goes through orders_user, which also gives its order): dropped from stores that have it.
    for (const name of RETIRED_INDEXES) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
    const q = (sql: string) => this.db.prepare(sql);
    this.st = {
      getMeta: q("SELECT v FROM meta WHERE k = ?"),
      setMeta: q("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"),
      delMeta: q("DELETE FROM meta WHERE k = ?"),
      byKey: q("SELECT seq FROM journal WHERE key = ? AND position IS NULL"),
      after: q("SELECT body, hash FROM journal WHERE seq > ? ORDER BY seq LIMIT ?"),
      scan: q("SELECT seq, key, market_id AS marketId, position, epoch, body, hash FROM journal WHERE seq >= ? ORDER BY seq"),
      bookAfter: q(
        "SELECT j.body, j.hash FROM book_positions b JOIN journal j ON j.seq = b.seq WHERE b.market_id = ? AND b.position > ? ORDER BY b.position LIMIT ?",
      ),
      hasPositionIndex: q("SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'journal_position'"),
      fillPositions: q(
        "INSERT INTO book_positions (market_id, position, seq) SELECT market_id, position, seq FROM journal WHERE position IS NOT NULL AND seq <= ?",
      ),
      lastRow: q("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1"),
      rowAt: q("SELECT hash FROM journal WHERE seq = ?"),
      count: q("SELECT count(*) AS n, coalesce(min(seq), 0) AS lo, coalesce(max(seq), 0) AS hi FROM journal"),
      firstHole: q(
        "SELECT j.seq + 1 AS seq FROM journal j WHERE j.seq < ? AND NOT EXISTS (SELECT 1 FROM journal k WHERE k.seq = j.seq + 1) ORDER BY j.seq LIMIT 1",
      ),
      idem: q("SELECT fingerprint, status, response, answer_from AS answerFrom FROM idempotency WHERE scope = ? AND key = ?"),
      heartbeats: q("SELECT user_id AS userId, timeout_s AS timeoutSeconds, deadline FROM heartbeats"),
      orderGroups: q(
        "SELECT group_id AS orderGroupId, user_id AS userId, fill_limit AS fillLimit, window_s AS windowSeconds, triggered, since FROM order_groups ORDER BY group_id",
      ),
      groupOrders: q(
        "SELECT order_id AS orderId, order_group_id AS orderGroupId, market_id AS marketId FROM orders WHERE remaining > 0 AND order_group_id IS NOT NULL",
      ),
      // Through the user's trades index: a group's orders are its user's.
      groupFills: q(
        "SELECT t.order_id AS orderId, t.filled_quantity AS quantity, t.created_at AS at FROM trades t JOIN orders o ON o.order_id = t.order_id " +
          "WHERE t.user_id = ? AND t.created_at > ? AND o.order_group_id = ? ORDER BY t.created_at",
      ),
      // Audit entries are the journal's keys audit:<id> (a range of its key index).
      auditPage: q(
        "SELECT body, hash FROM journal WHERE key >= 'audit:' AND key < 'audit;' AND position IS NULL ORDER BY seq DESC LIMIT ? OFFSET ?",
      ),
      auditCount: q("SELECT count(*) AS n FROM journal WHERE key >= 'audit:' AND key < 'audit;' AND position IS NULL"),
      openByClientId: q("SELECT order_id AS orderId FROM orders WHERE user_id = ? AND client_order_id = ? AND remaining > 0"),
      dueExpiries: q(
        "SELECT order_id AS orderId, market_id AS marketId, expires_at AS expiresAt FROM orders WHERE remaining > 0 AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?",
      ),
      nextExpiry: q("SELECT min(expires_at) AS at FROM orders WHERE remaining > 0 AND expires_at IS NOT NULL"),
      openMarketsOf: q("SELECT DISTINCT market_id AS marketId FROM orders WHERE user_id = ? AND remaining > 0"),
      cashAll: q("SELECT account, available, locked FROM cash"),
      posAll: q(
        "SELECT account, market_id AS marketId, outcome, quantity, locked, total_cost AS totalCost, realized_pnl AS realizedPnl, settled FROM positions",
      ),
      marketsAll: q(
        "SELECT market_id AS marketId, collateral, epoch, owner, position, book_seq AS bookSeq, pool_yes AS poolYes, pool_no AS poolNo FROM markets",
      ),
      resting: q(
        "SELECT order_id, user_id, side, outcome, price, quantity, remaining, prio, client_order_id, cancel_on_pause, is_quote FROM orders WHERE market_id = ? AND remaining > 0 AND prio > ? ORDER BY prio LIMIT ?",
      ),
      order: q("SELECT * FROM orders WHERE order_id = ?"),
      trade: q("SELECT * FROM trades WHERE trade_id = ?"),
      trades: q("SELECT * FROM trades WHERE user_id = ? ORDER BY created_at DESC, trade_id DESC LIMIT ? OFFSET ?"),
      tradesCount: q("SELECT count(*) AS n FROM trades WHERE user_id = ?"),
      ordersCount: q("SELECT count(*) AS n FROM orders"),
      factUsers: q(
        "SELECT account AS id FROM cash WHERE substr(account, 1, @n) = @p UNION SELECT account FROM positions WHERE substr(account, 1, @n) = @p UNION SELECT user_id FROM orders WHERE remaining > 0 AND substr(user_id, 1, @n) = @p",
      ),
      factMarkets: q(
        "SELECT market_id AS id FROM markets WHERE collateral != 0 OR pool_yes IS NOT NULL UNION SELECT market_id FROM positions UNION SELECT market_id FROM orders WHERE remaining > 0",
      ),
      depositBodies: q("SELECT body FROM journal WHERE key >= ? AND key < ? AND position IS NULL"),
      tradesCountAll: q("SELECT count(*) AS n FROM trades"),
      allOrders: q("SELECT * FROM orders ORDER BY order_id"),
      allTrades: q("SELECT * FROM trades ORDER BY trade_id"),
      badOrders: q(
        "SELECT order_id AS orderId, quantity, filled, remaining, cancelled FROM orders " +
          "WHERE filled < 0 OR remaining < 0 OR cancelled < 0 OR filled > quantity OR filled + remaining + cancelled != quantity LIMIT 100",
      ),
      cashHeld: q("SELECT user_id AS userId, sum(holds) AS held FROM orders WHERE remaining > 0 AND side = 'BUY' GROUP BY user_id"),
      sharesHeld: q(
        "SELECT user_id AS userId, market_id AS marketId, outcome, sum(holds) AS held FROM orders WHERE remaining > 0 AND side = 'SELL' GROUP BY user_id, market_id, outcome",
      ),
      badPositions: q(
        "SELECT market_id AS marketId, position, CASE WHEN prev_position IS NULL AND position != 1 THEN 'does not start at 1' WHEN prev_position IS NOT NULL AND position != prev_position + 1 THEN 'follows position ' || prev_position " +
          "ELSE 'written under epoch ' || epoch || ' after epoch ' || prev_epoch END AS problem FROM (" +
          "SELECT b.market_id, b.position, j.epoch, lag(b.position) OVER w AS prev_position, lag(j.epoch) OVER w AS prev_epoch FROM book_positions b JOIN journal j ON j.seq = b.seq " +
          "WINDOW w AS (PARTITION BY b.market_id ORDER BY b.position)) " +
          "WHERE (prev_position IS NULL AND position != 1) OR (prev_position IS NOT NULL AND (position != prev_position + 1 OR epoch < prev_epoch)) LIMIT 100",
      ),
    };
  }

  /** The store under a data dir (":memory:" keeps it in memory, for tests). */
  static open(
    dataDir: string,
    opts: { fsync: boolean; writerThread?: boolean; checkpoints?: CheckpointPolicy; projection?: ProjectionPolicy | null },
  ): SqliteMoneyStore {
    const projection = opts.projection === undefined ? DEFAULT_PROJECTION : opts.projection;
    if (dataDir === ":memory:") return new SqliteMoneyStore(":memory:", null, false, false, undefined, projection);
    const path = join(dataDir, FILE);
    const legacy = join(dataDir, "ledger-journal.log");
    if (!existsSync(path) && existsSync(legacy)) {
      throw new StoreDamaged(
        `${dataDir} holds a ledger in the earlier format (ledger-journal.log and NeDB read models) and no ${FILE}: this version keeps the money path in ${FILE} and does not migrate the earlier format. Start with an empty DATA_DIR (move this one away to keep it).`,
      );
    }
    return new SqliteMoneyStore(path, dataDir, opts.fsync, opts.writerThread ?? true, opts.checkpoints, projection);
  }

  private metaNumber(k: string): number {
    const r = this.st.getMeta.get(k) as { v: string } | undefined;
    return r ? Number(r.v) : 0;
  }

  private metaString(k: string): string | null {
    const r = this.st.getMeta.get(k) as { v: string } | undefined;
    return r ? r.v : null;
  }

  async load(): Promise<StoredState> {
    const format = this.metaString("format");
    const { n, lo, hi } = this.st.count.get() as { n: number; lo: number; hi: number };
    if (formatToWrite(this.location, format, n)) this.st.setMeta.run("format", STORE_FORMAT);
    // The journal is seqs 1..head without a hole; its last row is the head.
    if (n !== hi || (n > 0 && lo !== 1)) {
      const hole = n && lo !== 1 ? 1 : (this.st.firstHole.get(hi) as { seq: number } | undefined)?.seq;
      throw new StoreDamaged(
        `the ledger journal in ${this.location} is missing entry ${hole ?? "?"} (it holds ${n} entries up to seq ${hi})`,
      );
    }
    const head = hi > 0 ? (this.st.lastRow.get() as { seq: number; hash: string }) : { seq: 0, hash: GENESIS_HASH };
    const stateSeq = this.stateMark(hi);
    this.checkWitness(hi);
    this.positionsFromIndex(hi);
    this.catchUp(hi);
    const orders = (this.st.ordersCount.get() as { n: number }).n;
    const trades = (this.st.tradesCountAll.get() as { n: number }).n;
    if (orders !== this.metaNumber("orders"))
      throw new StoreDamaged(
        `the orders read model in ${this.location} holds ${orders} orders, the journal made ${this.metaNumber("orders")}`,
      );
    if (trades !== this.metaNumber("trades"))
      throw new StoreDamaged(
        `the trades read model in ${this.location} holds ${trades} trades, the journal made ${this.metaNumber("trades")}`,
      );
    const { accounts, markets } = this.catchUpState(stateSeq, hi);
    return { head: { seq: head.seq, hash: head.hash }, accounts, markets };
  }

  /**
   * The entry the stored balances, positions, markets and totals reflect (meta state_seq): never
   * beyond the journal's end, since it is written after the entries it counts were committed. A
   * store of an earlier version wrote them and its head (head_seq, head_hash) in every commit:
   * they reflect that head, which the journal must still end at.
   */
  private stateMark(hi: number): number {
    const mark = this.metaString("state_seq");
    if (mark === null) {
      const legacy = this.metaString("head_seq");
      if (legacy === null) {
        if (hi > 0)
          throw new StoreDamaged(`the money store ${this.location} has journal entries but no record of what its balances reflect`);
        return 0;
      }
      const headSeq = Number(legacy);
      if (hi !== headSeq) {
        throw new StoreDamaged(
          hi < headSeq
            ? `the ledger journal in ${this.location} ends at entry ${hi}, but entries up to ${headSeq} were committed: entries ${hi + 1}..${headSeq} are missing`
            : `the ledger journal in ${this.location} holds entries after its committed head ${headSeq} (up to ${hi})`,
        );
      }
      if (hi > 0 && (this.st.lastRow.get() as { hash: string }).hash !== this.metaString("head_hash"))
        throw new StoreDamaged(`the last ledger journal entry ${hi} in ${this.location} does not hash to the committed head`);
      return headSeq;
    }
    const seq = Number(mark);
    if (!Number.isSafeInteger(seq) || seq < 0)
      throw new StoreDamaged(`the money store ${this.location} records its balances as of entry "${mark}"`);
    if (seq > hi)
      throw new StoreDamaged(
        `the ledger journal in ${this.location} ends at entry ${hi}, but entries up to ${seq} were committed: entries ${hi + 1}..${seq} are missing`,
      );
    return seq;
  }

  /**
   * The balances, positions, markets and totals as stored (as of entry `from`), with every journal
   * entry after it replayed onto them as the ledger applied it (ledger/replay.ts); what the replay
   * changed is written back with the mark moved to the journal's end, so the start begins from
   * rows that reflect the whole journal. The entries replayed must link to the one before them.
   */
  private catchUpState(from: number, head: number): { accounts: AccountsSnapshot; markets: MarketLease[] } {
    const stored = this.storedState();
    if (from === head) {
      // A new store, or an earlier version's: the mark replaces its head records.
      if (this.metaString("state_seq") === null)
        this.db.transaction(() => {
          this.st.setMeta.run("state_seq", String(head));
          this.st.delMeta.run("head_seq");
          this.st.delMeta.run("head_hash");
        })();
      return stored;
    }
    const { accounts, leases, rows } = this.replayed(stored, from, head);
    this.db.transaction(() => new StateWriter(this.db).write(rows))();
    return { accounts: accounts.snapshot(), markets: [...leases.values()] };
  }

  /**
   * The stored balances (as of entry `from`) with the journal entries after it up to `head`
   * replayed onto them, and the rows the replay changed, as they now are.
   */
  private replayed(
    stored: { accounts: AccountsSnapshot; markets: MarketLease[] },
    from: number,
    head: number,
  ): { accounts: Accounts; leases: Map<string, MarketLease>; rows: StateRows } {
    const accounts = Accounts.restore(stored.accounts);
    const leases = new Map(stored.markets.map((m) => [m.marketId, m]));
    const rows = noStateRows(head);
    const touchedMarkets = new Set<string>();
    let prev = from > 0 ? (this.st.rowAt.get(from) as { hash: string }).hash : GENESIS_HASH;
    for (const r of this.st.scan.iterate(from + 1) as IterableIterator<JournalRow>) {
      if (r.seq > head) break;
      if (chainHash(prev, r.body) !== r.hash)
        throw new StoreDamaged(
          `ledger journal entry ${r.seq} (${r.key}) in ${this.location} does not match its hash: its content was changed or the entry before it was`,
        );
      prev = r.hash;
      const doc = JSON.parse(r.body) as LedgerEntryDoc;
      let change;
      try {
        change = replayEntry(accounts, leases, doc);
      } catch (err) {
        if (!isPostingRefusal(err)) throw err;
        throw new StoreDamaged(
          `ledger journal entry ${r.seq} (${r.key}) in ${this.location} does not apply to the balances stored as of entry ${from}: ${err.message}`,
        );
      }
      for (const a of change.cash.keys()) {
        const c = accounts.balance(a);
        rows.cash.set(a, { available: c.available, locked: c.locked });
      }
      for (const k of change.pos.keys()) {
        const [account, marketId, outcome] = k.split("|");
        const p = accounts.position(account, marketId, outcome as Outcome);
        if (p) rows.positions.set(k, { ...p });
      }
      for (const m of change.coll.keys()) touchedMarkets.add(m);
      const m = doc.book?.marketId ?? doc.fence?.marketId;
      if (m) touchedMarkets.add(m);
    }
    for (const m of touchedMarkets) rows.markets.set(m, { ...(leases.get(m) ?? noLease(m)), collateral: accounts.collateralOf(m) });
    rows.totals = { fees: accounts.feeBalance(), ...accounts.externalTotals() };
    return { accounts, leases, rows };
  }

  /** The balances, positions, markets and totals as their rows hold them. */
  private storedState(): { accounts: AccountsSnapshot; markets: MarketLease[] } {
    const cash = (this.st.cashAll.all() as Array<{ account: string; available: number; locked: number }>).map(
      (r): [string, CashAccount] => [r.account, { available: r.available, locked: r.locked }],
    );
    const positions = (this.st.posAll.all() as Array<Omit<PositionState, "settled"> & { settled: number }>).map((p) => ({
      ...p,
      settled: p.settled === 1,
    }));
    const marketRows = this.st.marketsAll.all() as Array<{
      marketId: string;
      collateral: number;
      epoch: number;
      owner: string | null;
      position: number;
      bookSeq: number;
      poolYes: number | null;
      poolNo: number | null;
    }>;
    const markets: MarketLease[] = marketRows.map((m) => ({
      marketId: m.marketId,
      epoch: m.epoch,
      owner: m.owner,
      seq: m.position,
      bookSeq: m.bookSeq,
      pool: m.poolYes === null || m.poolNo === null ? null : { yes: m.poolYes, no: m.poolNo },
    }));
    return {
      accounts: {
        cash,
        positions,
        collateral: marketRows.filter((m) => m.collateral !== 0).map((m) => [m.marketId, m.collateral]),
        fees: this.metaNumber("fees"),
        external: { deposit: this.metaNumber("deposit"), withdrawal: this.metaNumber("withdrawal"), house: this.metaNumber("house") },
      },
      markets,
    };
  }

  /**
   * A store of an earlier version indexed book entries in the journal's own commit
   * (journal_position): the entries the read models reflect go into book_positions and the index
   * goes, in one transaction; the catch-up adds the rest.
   */
  private positionsFromIndex(headSeq: number): void {
    if (!this.st.hasPositionIndex.get()) return;
    const mark = this.metaString("projected_seq");
    this.db.transaction(() => {
      this.st.fillPositions.run(mark === null ? headSeq : Number(mark));
      this.db.exec("DROP INDEX journal_position");
    })();
  }

  /**
   * Projects the entries a stop left beyond the read models' mark (projected_seq), so that they
   * reflect the whole journal before anything is served. A store without the mark projected each
   * entry in its journal commit.
   */
  private catchUp(headSeq: number): void {
    const mark = this.metaString("projected_seq");
    const projected = mark === null ? headSeq : Number(mark);
    if (!Number.isSafeInteger(projected) || projected < 0 || projected > headSeq)
      throw new StoreDamaged(
        `the read models in ${this.location} claim to reflect ledger journal entry ${mark}, but the journal ends at entry ${headSeq}`,
      );
    if (projected < headSeq) {
      const projector = new Projector(this.db);
      const docs: LedgerEntryDoc[] = [];
      for (const r of this.st.scan.iterate(projected + 1) as IterableIterator<JournalRow>) {
        docs.push(JSON.parse(r.body) as LedgerEntryDoc);
        if (docs.length >= 1_000) projector.tx(docs.splice(0));
      }
      projector.tx(docs);
    } else if (mark === null) this.st.setMeta.run("projected_seq", String(headSeq));
    this.committedSeq = this.projectedSeq = headSeq;
  }

  /**
   * Read-your-writes for the read models: every acknowledged commit's rows are written before
   * the read (a message round trip to the writer thread when some may not be, none otherwise).
   */
  private async read<T>(fn: () => T): Promise<T> {
    if (!this.writer || this.projectedSeq >= this.committedSeq) return fn();
    try {
      this.noteProjected(await this.writer.flush());
    } catch (err) {
      // The rows cannot be written now (a full disk): the read sees them in a transaction never committed.
      if (!(err instanceof CommitRefused) || this.failed) throw err;
      return this.readWithTail(fn);
    }
    return fn();
  }

  /**
   * The read inside a write transaction on this connection that projects the acknowledged
   * entries its rows lack, then rolls back: the rows live in its page cache only, never on disk.
   */
  private readWithTail<T>(fn: () => T): T {
    this.db.pragma("query_only = OFF");
    try {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const mark = this.metaNumber("projected_seq");
        (this.tailProjector ??= new Projector(this.db)).apply(this.tail.filter((d) => d.seq > mark));
        return fn();
      } finally {
        this.db.exec("ROLLBACK");
      }
    } finally {
      if (this.writer instanceof ThreadWriter) this.db.pragma("query_only = ON");
    }
  }

  private noteProjected(seq: number): void {
    if (seq <= this.projectedSeq) return;
    this.projectedSeq = seq;
    let n = 0;
    while (n < this.tail.length && this.tail[n].seq <= seq) n++;
    if (n) this.tail.splice(0, n);
  }

  /** The head file names the last commit this data dir saw; the journal must still reach it. */
  private checkWitness(headSeq: number): void {
    if (!this.dir) return;
    const path = join(this.dir, HEAD_FILE);
    if (!existsSync(path)) {
      // Written after every commit: gone beside committed entries, it can no longer tell whether the tail was cut.
      if (headSeq > 0)
        throw new StoreDamaged(
          `${path} is missing beside a money store with ${headSeq} committed entries: without it a cut tail (a lost ${FILE}-wal) cannot be told from a whole journal. Restore it together with ${FILE} from the same backup`,
        );
      return;
    }
    const text = readFileSync(path, "utf8").replace(/\0+$/, "").trim();
    if (!text) return;
    let w: { seq: number; hash: string };
    try {
      w = JSON.parse(text) as { seq: number; hash: string };
    } catch {
      throw new StoreDamaged(`${path} is unreadable`);
    }
    if (w.seq > headSeq)
      throw new StoreDamaged(
        `the ledger journal in ${this.location} ends at entry ${headSeq}, but entry ${w.seq} was committed (${HEAD_FILE}): entries ${headSeq + 1}..${w.seq} are missing`,
      );
    if (w.seq > 0) {
      const row = this.st.rowAt.get(w.seq) as { hash: string } | undefined;
      if (!row || row.hash !== w.hash)
        throw new StoreDamaged(`ledger journal entry ${w.seq} in ${this.location} is not the entry that was committed (${HEAD_FILE})`);
    }
  }

  async foundationFacts(): Promise<MoneyFacts> {
    return this.read(() => {
      const ids = (rows: unknown[]) => (rows as Array<{ id: string }>).map((r) => r.id);
      const { n } = this.st.count.get() as { n: number };
      const bodies = (this.st.depositBodies.all(DEPOSIT_KEY_PREFIX, nextPrefix(DEPOSIT_KEY_PREFIX)) as Array<{ body: string }>).map(
        (r) => r.body,
      );
      const users = new Set(ids(this.st.factUsers.all({ n: USER_ACCOUNT_PREFIX.length, p: USER_ACCOUNT_PREFIX })));
      const markets = new Set(ids(this.st.factMarkets.all()));
      let chainUsed = this.metaNumber("withdrawal") !== 0;
      // Asked before the store is loaded: the balances' rows may lag the journal (a crash before
      // they were written), so the entries after their mark count too.
      const { hi } = this.st.count.get() as { hi: number };
      const mark = this.metaString("state_seq");
      const from = mark === null ? hi : Number(mark);
      if (Number.isSafeInteger(from) && from >= 0 && from < hi) {
        const { accounts, leases } = this.replayed(this.storedState(), from, hi);
        const now = accounts.snapshot();
        for (const [a] of now.cash) if (a.startsWith(USER_ACCOUNT_PREFIX)) users.add(a);
        for (const p of now.positions) {
          if (p.account.startsWith(USER_ACCOUNT_PREFIX)) users.add(p.account);
          markets.add(p.marketId);
        }
        for (const [m, v] of now.collateral) if (v !== 0) markets.add(m);
        for (const l of leases.values()) if (l.pool) markets.add(l.marketId);
        chainUsed = now.external.withdrawal !== 0;
      }
      return {
        fresh: n === 0 && this.metaString("format") === null,
        users: [...users],
        markets: [...markets],
        depositors: depositorsOf(bodies),
        chainUsed,
      };
    });
  }

  async fingerprint(name: string): Promise<string | null> {
    return this.metaString(`fp:${name}`);
  }

  async recordFingerprint(name: string, value: string): Promise<void> {
    if (this.writer) throw new Error("fingerprints are recorded before the first commit");
    this.st.setMeta.run(`fp:${name}`, value);
  }

  keySeq(key: string): number | null {
    const r = this.st.byKey.get(key) as { seq: number } | undefined;
    return r ? r.seq : null;
  }

  async commit(batch: CommitBatch): Promise<void> {
    if (this.failed) throw this.failed;
    if (!batch.rows.length) return;
    if (!this.writer) {
      const target = {
        file: this.dir ? this.location : null,
        dir: this.dir,
        fsync: this.fsync && this.dir !== null,
        ...(this.checkpoints ? { checkpoints: this.checkpoints } : {}),
        ...(this.projection ? { projection: this.projection } : {}),
      };
      if (this.writerThread && this.dir && existsSync(WRITER_THREAD)) {
        // From here on this connection only reads.
        this.db.pragma("query_only = ON");
        this.writer = new ThreadWriter(WRITER_THREAD, target, (seq) => this.noteProjected(seq));
      } else {
        const inline = new SqliteWriter(this.db, target, (seq) => this.noteProjected(seq));
        this.writer = {
          commit: async (b) => {
            await inline.commit(b);
            inline.projectIfDue();
            inline.checkpointIfDue();
            return inline.projectedSeq;
          },
          flush: async () => inline.project(),
          close: async () => inline.close(),
        };
      }
    }
    const threaded = this.writer instanceof ThreadWriter;
    const last = batch.rows[batch.rows.length - 1].seq;
    if (this.projection) for (const d of batch.docs) this.tail.push(d);
    // The thread parses the entries back from their bodies rather than receiving a clone.
    try {
      const projected = await this.writer.commit(
        threaded ? { rows: batch.rows, cash: batch.cash, positions: batch.positions, markets: batch.markets, totals: batch.totals } : batch,
      );
      this.committedSeq = last;
      this.noteProjected(projected);
    } catch (err) {
      // Refused whole (a full disk): the store is as it was, the next commit may go through.
      if (err instanceof CommitRefused) this.tail = this.tail.filter((d) => d.seq <= this.committedSeq);
      else this.failed = err as Error;
      throw err;
    }
  }

  async entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    return (this.st.after.all(seq, limit) as Array<{ body: string; hash: string }>).map((r) => parseEntry(r.body, r.hash));
  }

  async scanJournal(fromSeq: number, onRow: (row: JournalRow) => void): Promise<void> {
    for (const r of this.st.scan.iterate(fromSeq) as IterableIterator<JournalRow>) onRow(r);
  }

  async bookEntries(marketId: string, afterPosition: number, limit: number): Promise<BookJournalDoc[]> {
    return this.read(() =>
      (this.st.bookAfter.all(marketId, afterPosition, limit) as Array<{ body: string; hash: string }>).map(
        (r) => parseEntry(r.body, r.hash).book as BookJournalDoc,
      ),
    );
  }

  async restingOrders(marketId: string, afterPrio: number, limit: number): Promise<CommittedRestingOrder[]> {
    return this.read(() => {
      const rows = this.st.resting.all(marketId, afterPrio, limit) as Array<{
        order_id: string;
        user_id: string;
        side: RestingOrder["side"];
        outcome: RestingOrder["outcome"];
        price: number;
        quantity: number;
        remaining: number;
        prio: number;
        client_order_id: string | null;
        cancel_on_pause: number;
        is_quote: number;
      }>;
      return rows.map((r) => ({
        orderId: r.order_id,
        userId: r.user_id,
        side: r.side,
        outcome: r.outcome,
        price: r.price,
        quantity: r.quantity,
        remaining: r.remaining,
        seq: r.prio,
        clientOrderId: r.client_order_id,
        ...(r.cancel_on_pause === 1 ? { cancelOnPause: true } : {}),
        ...(r.is_quote === 1 ? { quote: true } : {}),
      }));
    });
  }

  /** The answer stored for an Idempotency-Key, if any. */
  async idempotent(scope: string, key: string): Promise<StoredIdem | null> {
    const r = this.st.idem.get(scope, key) as
      { fingerprint: string; status: number; response: string; answerFrom: string | null } | undefined;
    if (!r) return null;
    return {
      fingerprint: r.fingerprint,
      status: r.status,
      response: JSON.parse(r.response) as unknown,
      ...(r.answerFrom ? { answerFrom: JSON.parse(r.answerFrom) as IdemAnswerSource } : {}),
    };
  }

  /** The user's open order carrying this client order id, if any. */
  openOrderByClientId(userId: string, clientOrderId: string): string | null {
    const r = this.st.openByClientId.get(userId, clientOrderId) as { orderId: string } | undefined;
    let open = r ? r.orderId : null;
    // Entries the rows may not reflect yet, replayed in order (one already projected changes nothing).
    for (const doc of this.tail) {
      const b = doc.book;
      if (!b) continue;
      const placed = b.command.type === "place" ? [b.command.order] : b.command.type === "quotes" ? b.command.orders : [];
      for (const o of placed) if (o.userId === userId && o.clientOrderId === clientOrderId) open = o.orderId;
      for (const c of b.orders) if (c.orderId === open && c.remaining === 0) open = null;
    }
    return open;
  }

  async auditLog(page: number, pageSize: number): Promise<{ items: LedgerEntryDoc[]; total: number }> {
    const rows = this.st.auditPage.all(pageSize, (page - 1) * pageSize) as Array<{ body: string; hash: string }>;
    return { items: rows.map((r) => parseEntry(r.body, r.hash)), total: (this.st.auditCount.get() as { n: number }).n };
  }

  async orderGroups(): Promise<StoredOrderGroup[]> {
    return (this.st.orderGroups.all() as Array<Omit<StoredOrderGroup, "triggered"> & { triggered: unknown }>).map((r) =>
      checkedOrderGroup(this.location, { ...r, triggered: r.triggered === 1 ? true : r.triggered === 0 ? false : r.triggered }),
    );
  }

  async groupOrders(): Promise<Array<{ orderId: string; orderGroupId: string; marketId: string }>> {
    return this.read(() => {
      return this.st.groupOrders.all() as Array<{ orderId: string; orderGroupId: string; marketId: string }>;
    });
  }

  async groupFills(userId: string, orderGroupId: string, after: string): Promise<GroupOrderFill[]> {
    return this.read(() => {
      return this.st.groupFills.all(userId, after, orderGroupId) as GroupOrderFill[];
    });
  }

  async heartbeats(): Promise<Array<{ userId: string; timeoutSeconds: number; deadline: string }>> {
    return this.st.heartbeats.all() as Array<{ userId: string; timeoutSeconds: number; deadline: string }>;
  }

  async dueExpiries(now: string, limit: number): Promise<Array<{ orderId: string; marketId: string; expiresAt: string }>> {
    return this.read(() => {
      return this.st.dueExpiries.all(now, limit) as Array<{ orderId: string; marketId: string; expiresAt: string }>;
    });
  }

  async nextExpiry(): Promise<string | null> {
    return this.read(() => {
      return (this.st.nextExpiry.get() as { at: string | null }).at;
    });
  }

  async openMarketsOf(userId: string): Promise<string[]> {
    return this.read(() => {
      return (this.st.openMarketsOf.all(userId) as Array<{ marketId: string }>).map((r) => r.marketId);
    });
  }

  private readonly orderQueries = new Map<string, { items: Database.Statement; total: Database.Statement }>();

  async orders(q: OrderQuery): Promise<{ items: OrderDoc[]; total: number }> {
    return this.read(() => {
      const where = ["user_id = @userId"];
      if (q.marketId) where.push("market_id = @marketId");
      if (q.clientOrderId) where.push("client_order_id = @clientOrderId");
      if (q.status === "open") where.push("remaining > 0");
      else if (q.status === "closed") where.push("remaining = 0");
      const params = {
        userId: q.userId,
        marketId: q.marketId ?? null,
        clientOrderId: q.clientOrderId ?? null,
        limit: q.pageSize,
        offset: (q.page - 1) * q.pageSize,
      };
      const sql = `FROM orders WHERE ${where.join(" AND ")}`;
      let st = this.orderQueries.get(sql);
      if (!st)
        this.orderQueries.set(
          sql,
          (st = {
            items: this.db.prepare(`SELECT * ${sql} ORDER BY created_at DESC, order_id DESC LIMIT @limit OFFSET @offset`),
            total: this.db.prepare(`SELECT count(*) AS n ${sql}`),
          }),
        );
      const items = (st.items.all(params) as OrderRow[]).map(orderOf);
      const total = (st.total.get(params) as { n: number }).n;
      return { items, total };
    });
  }

  async order(orderId: string): Promise<OrderDoc | null> {
    return this.read(() => {
      const r = this.st.order.get(orderId) as OrderRow | undefined;
      return r ? orderOf(r) : null;
    });
  }

  async trades(userId: string, page: number, pageSize: number): Promise<{ items: TradeDoc[]; total: number }> {
    return this.read(() => {
      const items = (this.st.trades.all(userId, pageSize, (page - 1) * pageSize) as TradeRow[]).map(tradeOf);
      const total = (this.st.tradesCount.get(userId) as { n: number }).n;
      return { items, total };
    });
  }

  async trade(tradeId: string): Promise<TradeDoc | null> {
    return this.read(() => {
      const r = this.st.trade.get(tradeId) as TradeRow | undefined;
      return r ? tradeOf(r) : null;
    });
  }

  async readModelFacts(): Promise<ReadModelFacts> {
    return this.read(() => {
      const cashHeld = new Map<string, number>();
      for (const r of this.st.cashHeld.all() as Array<{ userId: string; held: number }>) cashHeld.set(r.userId, r.held);
      const sharesHeld = new Map<string, number>();
      for (const r of this.st.sharesHeld.all() as Array<{ userId: string; marketId: string; outcome: string; held: number }>)
        sharesHeld.set(`${r.userId}|${r.marketId}|${r.outcome}`, r.held);
      return {
        badOrders: this.st.badOrders.all() as ReadModelFacts["badOrders"],
        cashHeld,
        sharesHeld,
        badPositions: this.st.badPositions.all() as ReadModelFacts["badPositions"],
        counts: { orders: (this.st.ordersCount.get() as { n: number }).n, trades: (this.st.tradesCountAll.get() as { n: number }).n },
      };
    });
  }

  async allOrders(onRow: (o: OrderDoc) => void): Promise<void> {
    return this.read(() => {
      for (const r of this.st.allOrders.iterate() as IterableIterator<OrderRow>) onRow(orderOf(r));
    });
  }

  async allTrades(onRow: (t: TradeDoc) => void): Promise<void> {
    return this.read(() => {
      for (const r of this.st.allTrades.iterate() as IterableIterator<TradeRow>) onRow(tradeOf(r));
    });
  }

  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    await writer?.close();
    if (this.db.open) this.db.close();
  }
}

interface CommitWriter {
  /** Resolves once durable, with the last entry whose read-model rows are written. */
  commit(batch: WriteBatch): Promise<number>;
  /** Every committed entry's read-model rows written; the last entry projected. */
  flush(): Promise<number>;
  close(): Promise<void>;
}

/** Commits handed to the writer thread in order, each answered once durable. */
class ThreadWriter implements CommitWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (projected: number) => void; reject: (err: Error) => void }>();
  /** A flush asked for and not answered yet, and the last commit sent before it. */
  private flushing: { upTo: number; done: Promise<number> } | null = null;
  private failure: Error | null = null;
  private readonly exited: Promise<void>;

  constructor(
    entry: string,
    target: WriterTarget,
    private readonly onProjected: (seq: number) => void,
  ) {
    this.worker = new Worker(entry, { workerData: target });
    this.worker.on("message", (r: WriterReply) => {
      if (r.ok && r.id === 0) return this.onProjected(r.projected);
      const w = this.waiting.get(r.id);
      if (!w) return;
      this.waiting.delete(r.id);
      if (r.ok) w.resolve(r.projected);
      else if (r.refused) w.reject(new CommitRefused(r.message, r.code ?? "", r.refused.diskFull));
      else w.reject(Object.assign(new Error(r.message), r.code ? { code: r.code } : {}));
    });
    this.worker.on("error", (err) => this.fail(err));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.fail(new Error(`the money store's writer thread stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }

  private send(req: (id: number) => WriterRequest): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(req(id));
    });
  }

  commit(batch: WriteBatch): Promise<number> {
    return this.send((id) => ({ id, batch }));
  }

  /** One flush in flight serves every read that needs no commit sent after it. */
  flush(): Promise<number> {
    const upTo = this.nextId - 1;
    if (this.flushing && this.flushing.upTo >= upTo) return this.flushing.done;
    const done = this.send((id) => ({ id, flush: true }));
    const mine = { upTo, done };
    this.flushing = mine;
    const clear = () => {
      if (this.flushing === mine) this.flushing = null;
    };
    done.then(clear, clear);
    return done;
  }

  /** After the commits already handed over. */
  async close(): Promise<void> {
    if (!this.failure) this.worker.postMessage("close");
    else await this.worker.terminate();
    await this.exited;
  }
}
