import type { ConservationReport, Posting } from "../engine/accounts";
import type { HeldPosition } from "../engine/conversion-guarantee";
import type { OrderTerms } from "../lib/order-rules";
import type { RoutePlan } from "../engine/router";
import type { CancelReasonCode, FillRecord, OrderChange, TradeRecord } from "../engine/settlement";
import type { OrderType, Outcome, QueuePosition, RestingOrder, Side } from "../engine/types";

export type { QueuePosition };

/** A resting order as the ledger committed it: the book's order and its client order id (rebuilding a book). */
export type CommittedRestingOrder = RestingOrder & { clientOrderId?: string | null; cancelOnPause?: boolean; quote?: boolean };

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

/**
 * A conversion of NO positions across a mutually exclusive event (engine/conversion.ts): the
 * money check re-plans it from this record and the books before it.
 */
export interface ConversionRecord {
  eventId: string;
  userId: string;
  /** The named markets whose NO shares were given up. */
  marketIds: string[];
  /** The event's other open markets, whose YES the holder received. */
  otherOpen: string[];
  quantity: number;
  feeBps: number;
}

/** A race's pool as a market's actor routes a market order against it: its parameters and its books when read. */
export interface EventPoolSnapshot {
  eventId: string;
  /** The LMSR liquidity parameter (micro-units). */
  b: number;
  /** Its outcomes: the event's markets still trading (and "none" on an event that is not exhaustive). */
  outcomes: string[];
  /** The pool account's cash and positions. */
  cash: number;
  positions: HeldPosition[];
  /** The LP fee (bps). */
  feeBps: number;
}

/**
 * The pool leg of a market order's entry: what was traded against the pool and what it cost when
 * planned. The ledger plans it again on the pool's books as they are when the entry applies and
 * refuses the entry (BOOK_CHANGED) when the price differs: the pool moved meanwhile.
 */
export interface EventPoolRecord {
  eventId: string;
  b: number;
  outcomes: string[];
  userId: string;
  marketId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  feeBps: number;
  /** Cash into / out of the pool and the fee, as planned. */
  cash: number;
  fee: number;
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
  /** The entry converts NO positions of an event (the money check re-plans it). */
  conversion?: ConversionRecord;
  /** A market order's leg against its race's pool: the ledger re-plans it on the pool's books when it applies the entry. */
  eventPool?: EventPoolRecord;
  /** The answer to an Idempotency-Key request, journaled with the command it answers. */
  idem?: IdemRecord;
  /** A dead man's switch armed (deadline) or disarmed (null). */
  heartbeat?: HeartbeatRecord;
  /** An operator action (the audit log): kept in the hash chain with the money. */
  audit?: AuditEntry;
  /** Liquidity rewards: the rewards account funded, or a market's day of rewards and maker rebates paid (ledger/entry-rules.ts). */
  reward?: RewardRecord;
  /** An order group created, reset, triggered or deleted (trading/order-groups.ts); its orders name it themselves. */
  orderGroup?: OrderGroupRecord;
  at: string;
  /** Present on entries read back from the journal. */
  hash?: string;
}

/**
 * A rewards entry. `fund`: house money into the rewards account (an operator action). `payout`:
 * one market's UTC day paid, once (its key names the day and market): rewards from the rewards
 * account pro rata to the day's scores (at most the market's pool), rebates from the fee account
 * pro rata to filled maker quantity (at most rebateBps of the day's taker fees).
 */
export type RewardRecord =
  | { kind: "fund"; amount: number }
  | {
      kind: "payout";
      marketId: string;
      /** YYYY-MM-DD (UTC). */
      day: string;
      pool: number;
      takerFees: number;
      rebateBps: number;
      rewards: Array<{ userId: string; amount: number; score: string }>;
      rebates: Array<{ userId: string; amount: number; filled: number }>;
    };

/**
 * An order group's change, journaled so that a restart keeps it. Which orders belong to a group is
 * in their own placement (`JournaledOrder.orderGroupId`), its fill window in their trades.
 */
export type OrderGroupRecord =
  | { kind: "create"; orderGroupId: string; userId: string; fillLimit: number; windowSeconds: number }
  | { kind: "reset" | "trigger" | "delete"; orderGroupId: string; userId: string };

/** An order group as the money store keeps it (the projection of its records). */
export interface StoredOrderGroup {
  orderGroupId: string;
  userId: string;
  fillLimit: number;
  windowSeconds: number;
  triggered: boolean;
  /** When it was last reset (or created): fills before it do not count in its window. */
  since: string;
}

/** An order of a group as stored: still open or not, and its fills since a time. */
export interface GroupOrderFill {
  orderId: string;
  quantity: number;
  at: string;
}

/** What a user was paid by a day's rewards run for one market: a liquidity reward or a maker rebate. */
export interface RewardPaid {
  kind: "reward" | "rebate";
  marketId: string;
  /** The UTC day it pays (YYYY-MM-DD). */
  day: string;
  amount: number;
  /** When the payout entry was journaled (ISO). */
  at: string;
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
  /** Placed by POST /quotes: one of its user's quote set in the market (replaced by the next set). */
  quote?: boolean;
  /** The order group it was placed in, if any. */
  orderGroupId?: string;
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
  | { type: "place"; order: JournaledOrder }
  | { type: "cancel"; orderId: string; userId?: string }
  | { type: "cancelMany"; userId: string; reason: string }
  | { type: "amend"; orderId: string; userId: string; price: number; quantity: number; keepsPriority: boolean }
  | { type: "cancelAll"; reason: string }
  /**
   * A mass quote: the user's previous quote orders in the market (`cancelled`, still resting) are
   * cancelled, then `orders` are placed in this order, as one command.
   */
  | { type: "quotes"; userId: string; cancelled: string[]; orders: JournaledOrder[] }
  /** Part of a command too large for one entry; the command itself is in entry `of` (same market). */
  | { type: "part"; of: number };

/** An order as its placement is journaled (the wire answer is the contract's PlacedOrder). */
export interface JournaledOrder {
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
  quote?: boolean;
  /** The caller's order group it joined (its fills count there; a trigger cancels it). */
  orderGroupId?: string;
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

// The ledger's requests and answers (ledger.* actions).

/** `ledger.post`: one entry of postings and what it records with them (the journal entry's own fields). */
export interface PostInput extends Pick<
  LedgerEntryDoc,
  | "postings"
  | "checkAfter"
  | "trades"
  | "book"
  | "fence"
  | "settlement"
  | "payout"
  | "conversion"
  | "eventPool"
  | "idem"
  | "heartbeat"
  | "audit"
  | "reward"
  | "orderGroup"
> {
  key: string;
  /** One part of a book command split over several entries (see post). */
  part?: { group: string; index: number; count: number };
}

/** What a claim of an Idempotency-Key found: the stored answer, or the right to execute. */
export type IdemClaim = { answered: true; status: number; response: unknown; answerFrom?: IdemAnswerSource } | { answered: false };

export interface PostOutcome {
  applied: boolean;
  seq: number;
  /** This ledger process: a durability wait across a restart of it cannot be trusted. */
  instance: string;
}

/** The extended money check: conservation, every order's quantities, every lock, every market's journal. */
export interface MoneyCheck extends ConservationReport {
  /** Orders whose filled + open + cancelled is not their quantity (or that filled beyond it). */
  badOrders: Array<{ orderId: string; quantity: number; filled: number; remaining: number; cancelled: number }>;
  /** Accounts whose locked balance differs from what their open orders hold. */
  badLocks: Array<{ account: string; marketId?: string; outcome?: string; locked: number; heldByOrders: number }>;
  /** Markets whose journal positions are not contiguous, or were written under an older epoch after a newer one. */
  badPositions: Array<{ marketId: string; position: number; problem: string }>;
}

export interface VerifyReport {
  ok: boolean;
  /** Entries checked. */
  entries: number;
  head: { seq: number; hash: string };
  /** What is wrong, each naming the entry, order, account or market (at most MAX_PROBLEMS of ledger/verify.ts). */
  problems: string[];
  ms: number;
}

export interface OrderQuery {
  userId: string;
  marketId?: string;
  /** open: resting orders; closed: finished ones; all. */
  status: "open" | "closed" | "all";
  clientOrderId?: string;
  page: number;
  pageSize: number;
}

// The market actors' requests and answers (book.* actions).

/** A placement, from the order desk to the market's actor (on its owner): checked terms, the user, and the order's own Idempotency-Key. */
export interface PlaceTerms extends OrderTerms {
  userId: string;
  idem?: IdemKey;
}

export interface AmendTerms {
  marketId: string;
  orderId: string;
  userId: string;
  /** New limit as a tick, new open remainder. */
  price?: number;
  quantity?: number;
  postOnly?: boolean;
}

export interface CancelResult {
  orderId: string;
  status: "cancelled";
  cancelledQuantity: number;
  releasedAmount: number;
}

export interface PlaceResult {
  orderId: string;
  status: OrderStatus;
  filledQuantity: number;
  remainingQuantity: number;
  /** FAK: what was not filled at once (cancelled); 0 otherwise. */
  cancelledQuantity: number;
  /** Cash paid (BUY) or received gross (SELL) for the filled part, and the fee. */
  totalCost: number;
  fee: number;
  tradeId: string | null;
  fills: Array<{ price: string; quantity: string }>;
  createdAt: string;
}

/** A quote of a mass quote once checked: price as a tick. */
export interface QuoteTerm {
  side: Side;
  outcome: Outcome;
  price: number;
  quantity: number;
}

/** `book.quotesTerms`: a checked mass quote for the market's actor. */
export interface QuoteSetTerms {
  marketId: string;
  userId: string;
  quotes: QuoteTerm[];
  postOnly: boolean;
  /** The caller's order group every quote order joins (named in each order's placement). */
  orderGroupId?: string;
  idem?: IdemKey;
}

/** What a mass quote did: the previous set's orders cancelled, then each quote placed (in request order). */
export interface QuoteSetResult {
  cancelled: string[];
  releasedAmount: number;
  orders: PlaceResult[];
}

export interface CancelManyResult {
  cancelled: string[];
  releasedAmount: number;
}

export interface RouteExecution {
  tradeId: string;
  venue: RoutePlan["venue"];
  filledQuantity: number;
  totalCost: number;
  fee: number;
  avgPrice: string;
}

/** `ledger.eventPool`: the LMSR pool across a mutually exclusive event (ledger/event-pools.ts). */
export interface EventPoolView {
  eventId: string;
  b: number;
  /** Micro-USDT per outcome (market ids, and "none" on an event that is not exhaustive), summing to 1000000. */
  prices: Record<string, string>;
}

/** `book.route` and `book.quote`: a market order for the market's actor (the request's key with `route`). */
export interface RouteRequest {
  marketId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  /** AMM: the pool only (POST /trade/amm); ROUTE: best of book and pool (POST /trade/market). */
  mode: "AMM" | "ROUTE";
  idem?: IdemKey;
  /** ROUTE on a market of a race with one pool: that pool as the AMM side (the ledger's books, just read). */
  eventPool?: EventPoolSnapshot;
}

/** Best book prices (YES view ticks) and the pool's marginal YES price as an exact fraction. */
export interface TopOfBook {
  yesBid: number | null;
  yesAsk: number | null;
  ammYes: { num: string; den: string } | null;
}
