import type { AccountsSnapshot, CashAccount, PositionState } from "../engine/accounts";
import type { MicroUnits } from "../engine/money";
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
import { ORDER_GROUP_WINDOW_SECONDS } from "../lib/order-rules";

/** One journal row as stored: the entry's body exactly as hashed, and its place in the chain. */
export interface JournalRow {
  seq: number;
  key: string;
  body: string;
  hash: string;
  /** Book entries and fences: the market they belong to. */
  marketId: string | null;
  /** Book entries: the market's journal position. */
  position: number | null;
  epoch: number | null;
}

export interface MarketRow extends MarketLease {
  collateral: MicroUnits;
}

export interface Totals {
  fees: MicroUnits;
  deposit: MicroUnits;
  withdrawal: MicroUnits;
  house: MicroUnits;
}

/** Everything a group commit writes, in one transaction: the entries and what they changed. */
export interface CommitBatch {
  rows: JournalRow[];
  docs: LedgerEntryDoc[];
  /** Final state of every cash account, position and market the batch touched. */
  cash: Array<[string, CashAccount]>;
  positions: PositionState[];
  markets: MarketRow[];
  totals: Totals;
}

/** An Idempotency-Key's record: the request it named, and its answer (or where to read it, see IdemRecord). */
export interface StoredIdem {
  fingerprint: string;
  status: number;
  response: unknown;
  answerFrom?: IdemAnswerSource;
}

/** The ledger's state as committed: what the in-memory books start from. */
export interface StoredState {
  head: { seq: number; hash: string };
  accounts: AccountsSnapshot;
  markets: MarketLease[];
}

/** Aggregates the money check compares with the books (see ledger/money-check.ts). */
export interface ReadModelFacts {
  /** Orders whose filled + open + cancelled differs from their quantity, or that over-filled. */
  badOrders: Array<{ orderId: string; quantity: number; filled: number; remaining: number; cancelled: number }>;
  /** Per user: what their open BUY orders hold (micro-USDT). */
  cashHeld: Map<string, MicroUnits>;
  /** Per `user|market|outcome`: shares their open SELL orders hold. */
  sharesHeld: Map<string, MicroUnits>;
  /** Markets whose journal positions are not contiguous or whose writer epoch went back. */
  badPositions: Array<{ marketId: string; position: number; problem: string }>;
  counts: { orders: number; trades: number };
}

/**
 * Where the money path lives: the journal, the balances and positions it changes and the order and
 * trade read models. Each commit makes its entries durable; what they change may be written with
 * them or behind them, as long as a load reflects every committed entry. Embedded: SQLite
 * (ledger/sqlite-store.ts).
 */
export interface MoneyStore {
  /** Where it is, for messages. */
  readonly location: string;
  /** The committed state; throws a StoreDamaged naming what it found when the store is inconsistent. */
  load(): Promise<StoredState>;
  /**
   * The seq of the written entry under this key (idempotency of deposits, withdrawals, ...), or
   * null. Synchronous: the ledger validates an entry in one step. Book entries are not looked up
   * here (their journal position decides).
   */
  keySeq(key: string): number | null;
  /** One transaction; throws CommitRefused when nothing of it was written (see there). */
  commit(batch: CommitBatch): void | Promise<void>;
  entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  /** Journal rows from `fromSeq` on, raw (chain verification). */
  scanJournal(fromSeq: number, onRow: (row: JournalRow) => void): Promise<void>;
  bookEntries(marketId: string, afterPosition: number, limit: number): Promise<BookJournalDoc[]>;
  /** Resting orders of a market in time priority after `afterPrio` (rebuilding a book). */
  restingOrders(marketId: string, afterPrio: number, limit: number): Promise<CommittedRestingOrder[]>;
  orders(q: OrderQuery): Promise<{ items: OrderDoc[]; total: number }>;
  order(orderId: string): Promise<OrderDoc | null>;
  trades(userId: string, page: number, pageSize: number): Promise<{ items: TradeDoc[]; total: number }>;
  trade(tradeId: string): Promise<TradeDoc | null>;
  readModelFacts(): Promise<ReadModelFacts>;
  /** The answer stored for an Idempotency-Key of `scope` (the caller), if any. */
  idempotent(scope: string, key: string): Promise<StoredIdem | null>;
  /** The user's open order carrying this client order id, if any (synchronous, like keySeq). */
  openOrderByClientId(userId: string, clientOrderId: string): string | null;
  /** Audit entries (operator actions), newest first: one page and the total. */
  auditLog(page: number, pageSize: number): Promise<{ items: LedgerEntryDoc[]; total: number }>;
  /** Armed dead man's switches. */
  heartbeats(): Promise<Array<{ userId: string; timeoutSeconds: number; deadline: string }>>;
  /** Order groups not deleted; throws a StoreDamaged naming a group no version wrote. */
  orderGroups(): Promise<StoredOrderGroup[]>;
  /** Open orders placed in an order group. */
  groupOrders(): Promise<Array<{ orderId: string; orderGroupId: string; marketId: string }>>;
  /** Fills of the group's orders (its user's trades) after `after` (ISO), oldest first: its window rebuilt. */
  groupFills(userId: string, orderGroupId: string, after: string): Promise<GroupOrderFill[]>;
  /** Resting GTD orders whose time has come, oldest deadline first. */
  dueExpiries(now: string, limit: number): Promise<Array<{ orderId: string; marketId: string; expiresAt: string }>>;
  nextExpiry(): Promise<string | null>;
  /** Markets where the user has open orders. */
  openMarketsOf(userId: string): Promise<string[]>;
  /** Every order and trade row as stored (full verification compares them with a replay). */
  allOrders(onRow: (o: OrderDoc) => void): Promise<void>;
  allTrades(onRow: (t: TradeDoc) => void): Promise<void>;
  /** What the pieces kept beside the store must still hold (the start check, ledger/foundations.ts). */
  foundationFacts(): Promise<MoneyFacts>;
  /** A fingerprint of a piece kept elsewhere (the chain's master secret, its genesis), or null. */
  fingerprint(name: string): Promise<string | null>;
  /** Records it; before the first commit only (the start check). */
  recordFingerprint(name: string, value: string): Promise<void>;
  /** After the last commit; resolves once the store let go of its files. */
  close(): void | Promise<void>;
}

/**
 * A commit the store refused whole: nothing of it was written and the store is as it was, so a
 * later commit may succeed (a full disk, an I/O error before the commit point). Any other error of
 * `commit` leaves its outcome unknown.
 */
export class CommitRefused extends Error {
  constructor(
    message: string,
    /** The store's own code (SQLITE_FULL, ...). */
    readonly code: string,
    /** No room on the disk: the write may succeed once space is freed. */
    readonly diskFull: boolean,
  ) {
    super(message);
    this.name = "CommitRefused";
  }
}

/** A money store's user accounts (the house and pools are not users). */
export const USER_ACCOUNT_PREFIX = "usr_";
/** Journal keys of on-chain deposits (chain/deposit-watcher.ts depositEntry). */
export const DEPOSIT_KEY_PREFIX = "deposit:";

/** The users credited by deposit entries, from their bodies. */
export function depositorsOf(bodies: Iterable<string>): string[] {
  const users = new Set<string>();
  for (const body of bodies) {
    const entry = JSON.parse(body) as { postings?: Array<{ kind: string; account?: string }> };
    for (const p of entry.postings ?? []) if (p.kind === "cash" && p.account) users.add(p.account);
  }
  return [...users];
}

/** What the money store knows that the other pieces must still hold. */
export interface MoneyFacts {
  /** The store did not exist before this start (nothing was ever committed). */
  fresh: boolean;
  /** User ids holding cash or shares, or with open orders. */
  users: string[];
  /** Markets holding collateral, a pool, positions or open orders. */
  markets: string[];
  /** Users credited by an on-chain deposit. */
  depositors: string[];
  /** Money has left through the chain (withdrawals); deposits show as depositors. */
  chainUsed: boolean;
}

/** The store is not what the journal says it should be: the start stops and names it. */
export class StoreDamaged extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreDamaged";
  }
}

/** Bumped when the stored schema changes; a store of another format is refused, never misread. */
export const STORE_FORMAT = "pmx-money/1";

/**
 * A store's format record against what this version reads: true when the store is new and the
 * record is to be written; refused when it names another format, or is missing over entries.
 */
export function formatToWrite(location: string, format: unknown, entries: number): boolean {
  if (format === null || format === undefined) {
    if (entries > 0) throw new StoreDamaged(`the money store ${location} has journal entries but no format record`);
    return true;
  }
  if (format !== STORE_FORMAT) {
    throw new StoreDamaged(
      `the money store ${location} is in format "${String(format)}"; this version reads "${STORE_FORMAT}" and does not migrate it`,
    );
  }
  return false;
}

/** An order group as read from a store, or a StoreDamaged naming it when no version wrote it so. */
export function checkedOrderGroup(location: string, g: { [K in keyof StoredOrderGroup]: unknown }): StoredOrderGroup {
  const problem =
    typeof g.orderGroupId !== "string" || !g.orderGroupId
      ? "has no id"
      : typeof g.userId !== "string" || !g.userId
        ? "has no user"
        : typeof g.fillLimit !== "number" || !Number.isSafeInteger(g.fillLimit) || g.fillLimit <= 0
          ? `has fill limit ${String(g.fillLimit)}`
          : typeof g.windowSeconds !== "number" ||
              !Number.isInteger(g.windowSeconds) ||
              g.windowSeconds < ORDER_GROUP_WINDOW_SECONDS.min ||
              g.windowSeconds > ORDER_GROUP_WINDOW_SECONDS.max
            ? `has window ${String(g.windowSeconds)} s`
            : typeof g.triggered !== "boolean"
              ? `has trigger state ${String(g.triggered)}`
              : typeof g.since !== "string" || !Number.isFinite(Date.parse(g.since))
                ? `has reset time ${String(g.since)}`
                : null;
  if (problem) throw new StoreDamaged(`order group ${String(g.orderGroupId)} in the money store ${location} is damaged: it ${problem}`);
  return g as StoredOrderGroup;
}
