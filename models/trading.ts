import type { AccountsSnapshot, Posting } from "../engine/accounts";
import type { CancelReasonCode, FillRecord, OrderChange, TradeRecord } from "../engine/settlement";
import type { OrderType, Outcome, RestingOrder, Side } from "../engine/types";

/** A resting order as the ledger committed it: the book's order and its client order id (rebuilding a book). */
export type CommittedRestingOrder = RestingOrder & { clientOrderId?: string | null; cancelOnPause?: boolean };

/** A market's writer lease: who may write its book, under which epoch (issued by the ledger). */
export interface FenceRecord {
  marketId: string;
  epoch: number;
  node: string;
}

/** Settlement progress of trades, journaled like every other fact of the money path. */
/** A market paid out at its end: every holder at `yesPayout` per YES share (engine/payout.ts). */
export interface PayoutRecord {
  marketId: string;
  /** Micro-USDT per YES share (0..1_000_000); a NO share pays 1_000_000 minus it. */
  yesPayout: number;
}

export interface SettlementRecord {
  tradeIds: string[];
  status: "confirmed" | "failed";
  txHash: string | null;
}

/**
 * One ledger journal entry: applied exactly once, keyed by its idempotency key (`_id`), chained to
 * the entry before it by `hash` (sha256 over the previous hash and this entry's stored body).
 */
export interface LedgerEntryDoc {
  _id: string;
  seq: number;
  postings: Posting[];
  /** The first n postings are an order's placement lock: the state after them must be valid too. */
  checkAfter?: number;
  trades?: TradeRecord[];
  /** A market's book command, committed in the same entry as its money. */
  book?: BookJournalDoc;
  /** A market changed hands: from this entry on only `fence.node` under `fence.epoch` writes it. */
  fence?: FenceRecord;
  settlement?: SettlementRecord;
  /** The entry pays a market out (the money check proves it against the market's holders and collateral). */
  payout?: PayoutRecord;
  /** The answer to an Idempotency-Key request, journaled with the command it answers. */
  idem?: IdemRecord;
  /** A dead man's switch armed (deadline) or disarmed (null). */
  heartbeat?: HeartbeatRecord;
  /** An operator action (the audit log): kept in the hash chain with the money. */
  audit?: AuditEntry;
  at: string;
  /** Present on entries read back from the journal. */
  hash?: string;
}

/** One operator action as journaled: which route, with what parameters, and the operator's note. */
export interface AuditEntry {
  id: string;
  action: string;
  method: string;
  path: string;
  params: Record<string, unknown>;
  note: string | null;
}

/** An Idempotency-Key as claimed: `scope` is the caller (user id); the key is theirs; the fingerprint is of the request it named. */
export interface IdemKey {
  scope: string;
  key: string;
  fingerprint: string;
}

/** The first answer to an Idempotency-Key, journaled. */
export interface IdemRecord extends IdemKey {
  status: number;
  response: unknown;
  /**
   * The answer is not known when the command is journaled (a withdrawal's debit comes before the
   * chain answers): the key is bound to the command now, and until the answer is stored a replay
   * is answered by this internal action from what the command left (the withdrawal's record).
   */
  answerFrom?: IdemAnswerSource;
}

export interface IdemAnswerSource {
  action: string;
  params: Record<string, string>;
}

export interface HeartbeatRecord {
  userId: string;
  timeoutSeconds: number;
  /** ISO time after which every open order of the user is cancelled; null when disarmed. */
  deadline: string | null;
}

export interface LedgerSnapshotDoc {
  _id: string;
  seq: number;
  accounts: AccountsSnapshot;
}

export interface TradeDoc extends TradeRecord {
  _id: string;
  settlementStatus: "pending" | "confirmed" | "failed";
  settlementTxHash: string | null;
  createdAt: string;
}

export type OrderStatus = "open" | "partially_filled" | "filled" | "cancelled" | "expired" | "rejected";

/** Read model of an order (GET /orders, DELETE /orders/:id), projected from book entries. */
export interface OrderDoc {
  _id: string;
  userId: string;
  marketId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  /** Tick 1..99 */
  price: number;
  quantity: number;
  filledQuantity: number;
  remaining: number;
  cancelledQuantity: number;
  /** What the order holds now: micro-USDT (BUY) or shares (SELL). */
  holds: number;
  status: OrderStatus;
  cancelReason: CancelReasonCode | null;
  clientOrderId: string | null;
  /** GTD: when the rest is cancelled with status `expired`. */
  expiresAt: string | null;
  postOnly: boolean;
  /** Cancelled (reason `paused`) when its market leaves the normal trading mode. */
  cancelOnPause?: boolean;
  /** Time priority in its market's book (the book's seq of its acceptance). */
  prio: number;
  /** Ledger seq of the order's latest change. */
  seq: number;
  createdAt: string;
  updatedAt: string;
}

export type BookCommand =
  | { type: "route"; orderId: string; userId: string; side: Side; outcome: Outcome; quantity: number; mode: "AMM" | "ROUTE" }
  | { type: "ammFund"; liquidity: number }
  | { type: "place"; order: PlacedOrder }
  | { type: "cancel"; orderId: string; userId?: string }
  | { type: "cancelMany"; userId: string; reason: string }
  | { type: "amend"; orderId: string; userId: string; price: number; quantity: number; keepsPriority: boolean }
  | { type: "cancelAll"; reason: string }
  /** Part of a command too large for one entry; the command itself is in entry `of` (same market). */
  | { type: "part"; of: number };

export interface PlacedOrder {
  orderId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  price: number;
  quantity: number;
  orderType: OrderType;
  createdAt: string;
  prio: number;
  clientOrderId?: string;
  expiresAt?: string;
  postOnly?: boolean;
  cancelOnPause?: boolean;
}

/**
 * One command of a market's book as committed, inside the ledger entry that moves its money: the
 * unit of replay and of single-writer fencing.
 */
export interface BookJournalDoc {
  marketId: string;
  /** The market's journal position: contiguous per market (1, 2, 3…). */
  seq: number;
  /** The writer lease this command was written under; the ledger refuses any other. */
  epoch: number;
  /** The book's event sequence after this command (its time priority clock). */
  bookSeq: number;
  /** The engine node that wrote it (ownership history, for operators and the cluster tests). */
  node: string;
  command: BookCommand;
  fills: FillRecord[];
  orders: OrderChange[];
  /** The market's AMM pool after this command, when the command changed it. */
  pool?: { yes: number; no: number };
  /** The AMM leg of a routed order (a trade print like every fill). */
  amm?: { fillId: string; side: Side; outcome: Outcome; quantity: number; cash: number };
  at: string;
}

/** What the ledger knows of a market's book: its lease and where its journal stands. */
export interface MarketLease {
  marketId: string;
  epoch: number;
  owner: string | null;
  /** Last journal position written. */
  seq: number;
  /** The book's event clock after that position. */
  bookSeq: number;
  pool: { yes: number; no: number } | null;
}
