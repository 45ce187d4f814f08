/** Shared types of the matching core (engine/book.ts) and its consumers. Pure data, no runtime code. */

export type Side = "BUY" | "SELL";
export type Outcome = "YES" | "NO";
/** Integer price tick 1..99 in the order's own outcome (cents: 55 = 0.55). */
export type Tick = number;
/**
 * GTC and GTD rest until filled or cancelled (a GTD's expiry is kept outside the book); FOK fills
 * completely at once or is rejected; FAK (fill-and-kill) takes what it can at once, never rests.
 */
export type OrderType = "GTC" | "GTD" | "FOK" | "FAK";

/** Same outcome on both sides = transfer; BUY+BUY of opposite outcomes = mint; SELL+SELL = merge. */
export type FillKind = "transfer" | "mint" | "merge";

export type CancelReason = "USER" | "SELF_TRADE" | "MARKET_CLOSED";

export type RejectReason =
  | "INVALID_ORDER" // malformed id / side / outcome / orderType
  | "INVALID_PRICE"
  | "INVALID_QUANTITY"
  | "DUPLICATE_ORDER" // orderId is currently resting in this book
  | "FOK_NOT_FILLED"
  | "UNKNOWN_ORDER"; // cancel of an unknown id, or of another user's order

export interface Order {
  orderId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  price: Tick;
  /** Micro-shares (1 share = 1_000_000), positive safe integer. */
  quantity: number;
  orderType: OrderType;
}

/** An open order as persisted / restored. Resting orders are always GTC. */
/** What rests before an order at its price level (time priority), the order's price in its own outcome. */
export interface QueuePosition {
  price: Tick;
  quantityAhead: number;
  ordersAhead: number;
}

export interface RestingOrder {
  orderId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  price: Tick;
  /** Original quantity. */
  quantity: number;
  /** Still open, 0 < remaining <= quantity. */
  remaining: number;
  /** Time priority: seq of the order's "accepted" event; lower = earlier within a level. */
  seq: number;
}

export interface PriceLevel {
  price: Tick;
  quantity: number;
  numOrders: number;
}

export interface Depth {
  bids: PriceLevel[];
  asks: PriceLevel[];
}

export interface BestPrices {
  bid: Tick | null;
  ask: Tick | null;
}

export interface SweepOptions {
  /** Act as self-trade prevention would: skip this user's resting orders. */
  excludeUserId?: string;
  /** Worst acceptable price in the order's own outcome (max for BUY, min for SELL). */
  limit?: Tick;
}

export interface SweepResult {
  filled: number;
  /** Per price level, in the order's own outcome, best first. */
  levels: Array<{ price: Tick; quantity: number }>;
}

export interface AcceptedEvent {
  type: "accepted";
  seq: number;
  orderId: string;
}

export interface FillEvent {
  type: "fill";
  seq: number;
  makerOrderId: string;
  takerOrderId: string;
  makerUserId: string;
  takerUserId: string;
  kind: FillKind;
  quantity: number;
  makerSide: Side;
  makerOutcome: Outcome;
  /** Execution price in the maker's outcome (= the maker's limit). */
  makerPrice: Tick;
  takerSide: Side;
  takerOutcome: Outcome;
  /** Execution price in the taker's outcome: makerPrice if same outcome, else 100 - makerPrice. */
  takerPrice: Tick;
  makerRemaining: number;
  takerRemaining: number;
}

export interface RestedEvent {
  type: "rested";
  seq: number;
  orderId: string;
  remaining: number;
}

export interface CancelledEvent {
  type: "cancelled";
  seq: number;
  orderId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  price: Tick;
  remaining: number;
  reason: CancelReason;
}

export interface RejectedEvent {
  type: "rejected";
  seq: number;
  orderId: string;
  reason: RejectReason;
}

export type BookEvent = AcceptedEvent | FillEvent | RestedEvent | CancelledEvent | RejectedEvent;

export interface OrderBookOptions {
  /** Last seq already emitted (e.g. persisted before a restart); the next event gets startSeq + 1. */
  startSeq?: number;
}
