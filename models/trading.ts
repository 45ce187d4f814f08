import type { AccountsSnapshot, Posting } from "../engine/accounts";
import type { FillRecord, TradeRecord } from "../engine/settlement";
import type { OrderType, Outcome, Side } from "../engine/types";

/** One ledger journal entry: applied exactly once, keyed by its idempotency key. */
export interface LedgerEntryDoc {
  _id: string;
  seq: number;
  postings: Posting[];
  /** An order's placement lock: open until an entry naming it in `closesLocks` follows. */
  lockRef?: { orderId: string; marketId: string };
  closesLocks?: string[];
  trades?: TradeRecord[];
  /** A market's book command committed in the same write as its money (the book's journal). */
  book?: BookJournalDoc;
  at: string;
}

export interface LedgerSnapshotDoc {
  _id: string;
  seq: number;
  accounts: AccountsSnapshot;
  pendingLocks: Array<[string, string]>;
}

export interface TradeDoc extends TradeRecord {
  _id: string;
  settlementStatus: "pending" | "confirmed" | "failed";
  settlementTxHash: string | null;
  createdAt: string;
}

export type OrderStatus = "open" | "partially_filled" | "filled" | "cancelled" | "rejected";

/** Read model of an order (GET /orders, DELETE /orders/:id), projected by the ledger from book entries. */
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
  status: OrderStatus;
  seq: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * One command of a market's book as committed, inside the ledger entry that moves its money: the
 * unit of replay and of single-writer fencing.
 */
export interface BookJournalDoc {
  /** `${marketId}:${seq}`: a second writer of the same market collides on it. */
  _id: string;
  marketId: string;
  /** Contiguous per market (1, 2, 3…), so two writers starting from the same state collide. */
  seq: number;
  /** The book's event sequence after this command (its time priority clock). */
  bookSeq: number;
  /** The engine node that wrote it (ownership history, for operators and the cluster tests). */
  node?: string;
  command: { type: "route"; orderId: string; userId: string; side: Side; outcome: Outcome; quantity: number; mode: "AMM" | "ROUTE" } | { type: "ammFund"; liquidity: number } | { type: "place"; order: { orderId: string; userId: string; side: Side; outcome: Outcome; price: number; quantity: number; orderType: OrderType; createdAt: string } } | { type: "cancel"; orderId: string; userId?: string } | { type: "cancelAll"; reason: string };
  /** The ledger entry this command produced (posted with key `ledgerKey`). */
  ledgerKey: string;
  postings: Posting[];
  trades: TradeRecord[];
  fills: FillRecord[];
  orders: Array<{ orderId: string; userId: string; filledDelta: number; remaining: number; status: OrderStatus }>;
  closesLocks: string[];
  /** The market's AMM pool after this command, when the command changed it. */
  pool?: { yes: number; no: number };
  at: string;
}

export interface BookSnapshotDoc {
  _id: string;
  seq: number;
  bookSeq: number;
  pool?: { yes: number; no: number } | null;
  orders: Array<{ orderId: string; userId: string; side: Side; outcome: Outcome; price: number; quantity: number; remaining: number; seq: number }>;
}
