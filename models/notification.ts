import type { Outcome, Side } from "../engine/types";
import type { SettledTrade } from "./chain";

/** Why an order was cancelled without the user asking (a user's own cancel notifies nothing). */
export type OrderCancelNotice = "MARKET_CLOSED" | "MARKET_CANCELLED" | "MARKET_RESOLVED" | "EXPIRED" | "HEARTBEAT" | "ORDER_GROUP";

export const NOTIFICATION_TYPES = [
  "TRADE_FILLED",
  "ORDER_CANCELLED",
  "SETTLEMENT_CONFIRMED",
  "SETTLEMENT_FAILED",
  "MARKET_RESOLVED",
  "MARKET_CANCELLED",
  "RESOLUTION_PROPOSED",
  "RESOLUTION_DISPUTED",
  "DEPOSIT_CREDITED",
  "WITHDRAWAL_SENT",
  "WITHDRAWAL_FAILED",
  "POSITIONS_CONVERTED",
  "REWARD_PAID",
] as const;

export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export type ResolutionNoticeMetadata = {
  marketId: string;
  proposedResult: string;
  disputeEndsAt: string;
  positions: Array<{ outcome: Outcome; quantity: string }>;
};

/** Metadata per type; amounts and quantities are micro-unit digit strings, prices decimals. */
export interface NotificationMetadata {
  TRADE_FILLED: {
    marketId: string;
    tradeId: string;
    orderId: string;
    side: Side;
    outcome: Outcome;
    venue: string;
    role: string;
    filledQuantity: string;
    avgPrice: string;
    totalCost: string;
    fee: string;
  };
  ORDER_CANCELLED: { marketId: string; orderId: string; reason: OrderCancelNotice };
  /** Every trade of the user in that market committed by one settlement transaction. */
  SETTLEMENT_CONFIRMED: { marketId: string; tradeIds: string[]; txHash: string | null };
  SETTLEMENT_FAILED: { marketId: string; tradeIds: string[]; txHash: string | null };
  MARKET_RESOLVED: {
    marketId: string;
    result: string;
    conditionId: string | null;
    positions: Array<{ outcome: Outcome; quantity: string }>;
  };
  /** `price`: what each YES share is paid (NO: 1 - price), as a decimal string ("0.50"). */
  MARKET_CANCELLED: { marketId: string; price: string; positions: Array<{ outcome: Outcome; quantity: string }> };
  /** A result was proposed: holders may dispute it until `disputeEndsAt`. */
  RESOLUTION_PROPOSED: ResolutionNoticeMetadata;
  /** The proposal was disputed: it waits for the operator's decision. */
  RESOLUTION_DISPUTED: ResolutionNoticeMetadata;
  DEPOSIT_CREDITED: { amount: string; reference: string; txHash: string | null };
  WITHDRAWAL_SENT: { withdrawalId: string; amount: string; txHash: string | null };
  WITHDRAWAL_FAILED: { withdrawalId: string; amount: string; reason: string };
  /** NO shares of `marketIds` (each `quantity`) became `cashCredited` and YES of the event's other open markets. */
  POSITIONS_CONVERTED: {
    eventId: string;
    marketIds: string[];
    quantity: string;
    cashCredited: string;
    yesReceived: Array<{ marketId: string; quantity: string }>;
  };
  /** A market's day of liquidity rewards and maker rebates (UTC day YYYY-MM-DD), credited to the available balance. */
  REWARD_PAID: { marketId: string; day: string; reward: string; rebate: string };
}

/** Telegram push state: `none` = no verified link or bot off; `failed` = gave up after max attempts or a permanent error. */
export type DeliveryState = "none" | "pending" | "delivered" | "failed";

export interface NotificationDoc<T extends NotificationType = NotificationType> {
  /** `<TYPE>:<source id>` (trade id, order id, market:user, batch:user:market, ledger entry key): the idempotency key. */
  _id: string;
  userId: string;
  type: T;
  title: string;
  body: string;
  metadata: NotificationMetadata[T];
  read: boolean;
  /** When the underlying fact happened (trade time for fills), ISO 8601. */
  createdAt: string;
  /** Ledger journal seq for journal-derived notifications (tie-break of the same millisecond). */
  seq?: number;
  delivered: boolean;
  delivery: DeliveryState;
  attempts: number;
  /** Chat the push goes to, fixed when the notification is created. */
  chatId?: number;
  /** Epoch ms of the next push attempt (or end of a claim's lease); absent unless pending. */
  deliverAt?: number;
  lastError?: string;
  deliveredAt?: string;
}

/** What GET /notifications answers per item. */
export interface NotificationItem {
  id: string;
  type: NotificationType;
  title: string;
  body: string;
  metadata: NotificationMetadata[NotificationType];
  delivered: boolean;
  read: boolean;
  createdAt: string;
}

/** The notifier's durable position in the ledger journal. */
export interface NotifierCursorDoc {
  _id: string;
  seq: number;
}

export interface HolderPositions {
  userId: string;
  positions: Array<{ outcome: Outcome; quantity: string }>;
}

/** A fan-out to a market's holders, stored before it runs so a crash mid-way resumes it. */
export interface NotifierJobDoc {
  _id: string;
  kind: "marketResolved" | "marketCancelled" | "resolutionProposed" | "resolutionDisputed";
  marketId: string;
  /** Resolved: the result; proposed or disputed: the proposed result. */
  result?: string;
  /** Proposed or disputed: when the dispute window ends. */
  disputeEndsAt?: string;
  conditionId?: string | null;
  /** A cancellation's micro-USDT per YES share (absent on jobs stored before it was recorded: 0.50). */
  yesPayout?: number;
  /**
   * Holders read as soon as the event arrived: resolution sweeps and refunds settle positions
   * right after, and settled positions are no longer listed by the ledger.
   */
  holders?: HolderPositions[];
  at: string;
}

export function notificationItem(d: NotificationDoc): NotificationItem {
  return {
    id: d._id,
    type: d.type,
    title: d.title,
    body: d.body,
    metadata: d.metadata,
    delivered: d.delivered,
    read: d.read,
    createdAt: d.createdAt,
  };
}

/** Which kinds of notification the Telegram bot pushes to a user (every kind is stored and listed anyway). */
export const PUSH_KINDS = ["trades", "settlement", "results", "transfers"] as const;
export type PushKind = (typeof PUSH_KINDS)[number];
export type PushSettings = Record<PushKind, boolean>;

/** A user's notification settings; absent means every kind is pushed. */
export interface NotifierSettingsDoc {
  _id: string;
  push: PushSettings;
  updatedAt: string;
}

/** The notifier service's collections. */
export type NotifierCollections = {
  notifications: NotificationDoc;
  notifierCursor: NotifierCursorDoc;
  notifierJobs: NotifierJobDoc;
  notifierSettings: NotifierSettingsDoc;
};

/** A settlement batch's outcome for the trades in it (the chain service's settlement notices). */
export interface TradeSettledParams {
  batchId: string;
  status: "confirmed" | "failed";
  txHash?: string | null;
  trades: SettledTrade[];
}
