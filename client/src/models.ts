/**
 * Request and response models of every REST route: the contract (api-spec.md), the decisions the
 * server's docs/api-decisions.md records where the contract says "not shown", and the additions (operator API,
 * sandbox faucet, conditionId, notifications read). The OpenAPI document the gateway serves at
 * /api/v1/openapi.json describes the same shapes: both are generated from the server's contract.
 *
 * Conventions: quantities and money are strings of digits in micro-units (1 share = 1 USDT =
 * 1,000,000); prices are decimal strings ("0.55"). Use money.ts to convert without float loss.
 */

import type {
  ConnectRequest,
  CreateEventRequest,
  GetPriceHistoryQuery,
  GetMarketTradesQuery,
  ListEventsQuery,
  ListNotificationsQuery,
  ListOrdersQuery,
  ListTradesQuery,
  ListTransfersQuery,
  MarketItem,
  Pagination,
  PlacedOrder,
  SearchEventsQuery,
} from "./generated/models";

/** The route models, generated from the server's contract (npm run contract:sdk). */
export type * from "./generated/models";

/** Digits of micro-units, e.g. "50000000" for 50 shares or 50 USDT. */
export type MicroString = string;
/** A decimal such as "0.55" or "0.50125". */
export type DecimalString = string;
/** ISO 8601 UTC timestamp. */
export type IsoTime = string;

export type Outcome = "YES" | "NO";
export type Side = "BUY" | "SELL";
/** GTC rests until filled or cancelled; GTD until `expiresAt`; FOK fills whole at once or not at all; FAK fills what it can at once and cancels the rest. */
export type OrderType = "GTC" | "GTD" | "FOK" | "FAK";
export type Venue = "AMM" | "CLOB" | "HYBRID";
export type Category = "Sports" | "Crypto" | "Politics" | "E-sports" | "Culture" | "Economics" | "Tech";
export type MarketStatus = "open" | "closed" | "resolved" | "resolution_failed" | "cancelled";
export type OrderStatus = "open" | "partially_filled" | "filled" | "cancelled" | "expired";
/** Why an order left the book unfilled (null while open or filled, and for a FAK's cancelled rest). */
export type CancelReason =
  "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved" | "paused" | "order_group";
export type SettlementStatus = "pending" | "confirmed" | "failed";
export type Interval = "1H" | "1D" | "1W" | "1M" | "MAX";
export type FaucetAsset = "USDT" | "TON" | "FOREIGN_USDT";
/** Redemption index sets: "0x1" selects YES, "0x2" selects NO. */
export type IndexSet = string;

export const ORDER_TYPES: readonly OrderType[] = ["GTC", "GTD", "FOK", "FAK"];
export const CATEGORIES: readonly Category[] = ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"];
export const INTERVALS: readonly Interval[] = ["1H", "1D", "1W", "1M", "MAX"];
export const INDEX_SET: Readonly<Record<Outcome, IndexSet>> = { YES: "0x1", NO: "0x2" };

/** One page of a list endpoint, with the envelope's pagination and request id. */
export interface Page<T> {
  items: T[];
  pagination: Pagination;
  requestId: string;
}

/** Paging of a list (GET /trades takes only these). */
export type PageParams = ListTradesQuery;

// ---- auth ----

export type ProofDomain = TonProof["domain"];

/** The TON Connect `ton_proof` item, as a wallet returns it. */
export type TonProof = ConnectRequest["proof"];

/** Answer of POST /auth/connect and POST /auth/refresh. */

// ---- catalog ----

/** Live prices are null when that side has no liquidity (never made up). */
export type LivePrices = Pick<MarketItem, "buyYesPrice" | "buyNoPrice" | "sellYesPrice" | "sellNoPrice">;

export type ListEventsParams = ListEventsQuery;

export type SearchEventsParams = SearchEventsQuery;

export type PriceHistoryParams = GetPriceHistoryQuery;
export type MarketTradesParams = GetMarketTradesQuery;

// ---- trading ----

export type QuoteVenue = "AUTO" | "AMM";

/** What every view of an order adds to the contract's fields (trading-api.md). */
export type OrderOptionsView = Pick<PlacedOrder, "cancelledQuantity" | "cancelReason" | "clientOrderId" | "expiresAt" | "postOnly">;

export type ListOrdersParams = ListOrdersQuery;

// ---- portfolio ----

export type TransferType = "deposit" | "withdrawal";
/** Deposits: credited or not_credited; withdrawals: pending, confirmed or failed. */
export type TransferStatus = "credited" | "not_credited" | "pending" | "confirmed" | "failed";
export type KnownTransferReason = "native_coin" | "foreign_jetton" | "forged_notification" | "bounced" | "unknown_message" | "bad_amount";

export type ListTransfersParams = ListTransfersQuery;

// ---- chain ----

// ---- notifications ----

export type KnownNotificationType =
  | "TRADE_FILLED"
  | "ORDER_CANCELLED"
  | "SETTLEMENT_CONFIRMED"
  | "SETTLEMENT_FAILED"
  | "MARKET_RESOLVED"
  | "MARKET_CANCELLED"
  | "DEPOSIT_CREDITED"
  | "WITHDRAWAL_SENT"
  | "REWARD_PAID";

export type ListNotificationsParams = ListNotificationsQuery;

// ---- operator API (X-Admin-Key) ----

/** One market of POST /admin/events. */
export type NewMarket = CreateEventRequest["markets"][number];

// ---- misc ----
