/**
 * GENERATED from the server's contract (contract/events.ts) by `npm run contract:sdk`; do not edit.
 * The Socket.IO payloads at /ws: what a client emits and every `message` the server sends.
 */
import type { Balance, BookLevel, Notification, OrderBook, PublicTrade } from "./models";

export type SubscribeRequest = {
  channel: "market";
  marketIds: string[];
} | {
  channel: "book";
  marketId: string;
  outcome?: "YES" | "NO";
} | {
  channel: "user";
  token: string;
};

export type UnsubscribeRequest = {
  channel: "market";
  marketIds?: string[];
} | {
  channel: "book";
  marketId: string;
  outcome?: "YES" | "NO";
} | {
  channel: "user";
};

export interface MarketPrices {
  marketId: string;
  buyYesPrice: string | null;
  buyNoPrice: string | null;
  sellYesPrice: string | null;
  sellNoPrice: string | null;
}

export interface MarketLifecycle {
  marketId: string;
  status: "open" | "closed" | "resolved" | "resolution_failed" | "cancelled";
  resolution: {
    /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
    proposedResult: "YES" | "NO" | "SPLIT";
    note: string | null;
    proposedAt: string;
    /** Disputes are taken until then; undisputed, the proposal then finalizes by itself */
    disputeEndsAt: string;
    disputed: boolean;
    disputes: number;
    finalizedAt: string | null;
  } | null;
  /** The market's own trading mode; an exchange-wide mode, when stricter, applies over it */
  tradingMode: "normal" | "post_only" | "cancel_only" | "halted";
}

export interface PositionUpdate {
  marketId: string;
  outcome: "YES" | "NO";
  quantity: string;
  avgEntryPrice: string;
  totalCost: string;
  realizedPnl: string;
}

export interface OrderUpdate {
  orderId: string;
  marketId: string;
  status: "open" | "partially_filled" | "filled" | "cancelled" | "expired";
  remainingQuantity: string;
  filledDelta: string;
  clientOrderId: string | null;
  /** Why the order left the book unfilled; null while it is open or filled, and for the cancelled rest of a FAK */
  cancelReason: "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved" | "paused" | "order_group" | null;
}

export interface TradeUpdate {
  tradeId: string;
  marketId: string;
  orderId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  venue: "AMM" | "CLOB" | "HYBRID";
  role: "taker" | "maker";
  filledQuantity: string;
  avgPrice: string;
  totalCost: string;
  fee: string;
}

export type UserUpdate = {
  balance: Balance;
} | {
  position: PositionUpdate;
} | {
  order: OrderUpdate;
} | {
  trade: TradeUpdate;
} | {
  notification: Notification;
};

export type SocketErrorCode = "VALIDATION_ERROR" | "UNAUTHORIZED" | "SESSION_ENDED" | "NOT_FOUND" | "LIMIT_EXCEEDED" | "UNSUPPORTED" | "IDLE_TIMEOUT" | "UNAVAILABLE";

export type ServerMessage = {
  type: "pong";
} | {
  type: "subscribed";
  channel: "market";
  marketIds: string[];
} | {
  type: "subscribed";
  channel: "book";
  marketId: string;
  outcome: "YES" | "NO";
} | {
  type: "subscribed";
  channel: "user";
  userId: string;
} | {
  type: "unsubscribed";
  channel: "market";
  marketIds: string[];
} | {
  type: "unsubscribed";
  channel: "book";
  marketId: string;
  outcome: "YES" | "NO";
} | {
  type: "unsubscribed";
  channel: "user";
  userId: string | null;
} | {
  type: "snapshot";
  channel: "book";
  marketId: string;
  outcome: "YES" | "NO";
  seq: number;
  data: OrderBook;
} | {
  type: "update";
  channel: "book";
  marketId: string;
  outcome: "YES" | "NO";
  seq: number;
  data: {
    marketId: string;
    bids: BookLevel[];
    asks: BookLevel[];
  };
} | {
  type: "update";
  channel: "market";
  data: MarketPrices;
} | {
  type: "lifecycle";
  channel: "market";
  data: MarketLifecycle;
} | {
  type: "trade";
  channel: "market";
  data: PublicTrade;
} | {
  type: "update";
  channel: "user";
  data: UserUpdate;
} | {
  type: "error";
  code: SocketErrorCode;
  message: string;
  channel?: "market" | "book" | "user";
};
