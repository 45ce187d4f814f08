/**
 * Request and response models of every REST route: the contract (api-spec.md), the decisions the
 * server's README records where the contract says "not shown", and the additions (operator API,
 * sandbox faucet, conditionId, notifications read). The OpenAPI document the gateway serves at
 * /api/v1/openapi.json describes the same shapes; a test keeps the two equal.
 *
 * Conventions: quantities and money are strings of digits in micro-units (1 share = 1 USDT =
 * 1,000,000); prices are decimal strings ("0.55"). Use money.ts to convert without float loss.
 */

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
export type CancelReason = "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved";
export type SettlementStatus = "pending" | "confirmed" | "failed";
export type Interval = "1H" | "1D" | "1W" | "1M" | "MAX";
export type FaucetAsset = "USDT" | "TON" | "FOREIGN_USDT";
/** Redemption index sets: "0x1" selects YES, "0x2" selects NO. */
export type IndexSet = string;

export const ORDER_TYPES: readonly OrderType[] = ["GTC", "GTD", "FOK", "FAK"];
export const CATEGORIES: readonly Category[] = ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"];
export const INTERVALS: readonly Interval[] = ["1H", "1D", "1W", "1M", "MAX"];
export const INDEX_SET: Readonly<Record<Outcome, IndexSet>> = { YES: "0x1", NO: "0x2" };

export interface Pagination {
  total: number;
  page: number;
  pageSize: number;
  hasNext: boolean;
}

/** One page of a list endpoint, with the envelope's pagination and request id. */
export interface Page<T> {
  items: T[];
  pagination: Pagination;
  requestId: string;
}

export interface PageParams {
  page?: number;
  pageSize?: number;
}

// ---- auth ----

export interface ProofDomain {
  lengthBytes: number;
  value: string;
}

/** The TON Connect `ton_proof` item, as a wallet returns it. */
export interface TonProof {
  /** Unix seconds at signing; the server accepts it for 5 minutes. */
  timestamp: number;
  domain: ProofDomain;
  payload: string;
  /** Base64 ed25519 signature. */
  signature: string;
  /** Base64 BOC of the wallet's StateInit (lets non-standard wallets prove key ownership). */
  stateInit?: string;
}

/** Body of POST /auth/connect. */
export interface ConnectRequest {
  /** Raw ("0:<hex>") or friendly wallet address. */
  address: string;
  /** Hex ed25519 public key. */
  publicKey: string;
  proof: TonProof;
  /** Telegram Mini App init data, when launched inside Telegram. */
  messengerInitData?: string;
}

/** Answer of POST /auth/connect and POST /auth/refresh. */
/** GET /auth/challenge: what to sign for a login on this exchange. */
export interface Challenge {
  /** The domain the exchange checks in a ton_proof (its APP_DOMAIN or listening address). */
  domain: string;
  /** A fresh one-time random payload (32 bytes, hex). */
  payload: string;
  /** ISO 8601: a proof made now is fresh until then. */
  expiresAt: string;
}

export interface Session {
  accessToken: string;
  /** Unix seconds; 24 hours after issuance. */
  expiresAt: number;
  userId: string;
  /** Raw form "0:<hex>". */
  walletAddress: string;
}

export interface RefreshRequest {
  token?: string;
}

// ---- catalog ----

/** Live prices are null when that side has no liquidity (never made up). */
export interface LivePrices {
  buyYesPrice: DecimalString | null;
  buyNoPrice: DecimalString | null;
  sellYesPrice: DecimalString | null;
  sellNoPrice: DecimalString | null;
}

export interface MarketItem extends LivePrices {
  id: string;
  eventId: string;
  title: string;
  status: MarketStatus;
  /** The winning outcome once resolved, else null. */
  result: Outcome | null;
  outcomes: Outcome[];
  /** Traded volume in USDT, decimal string. */
  volume: DecimalString;
  /** Hex on-chain condition id; needed to redeem. */
  conditionId: string;
}

export interface Event {
  id: string;
  externalEventId: string;
  title: string;
  subtitle: string;
  category: Category;
  subcategory: string;
  imageUrl: string;
  volumeUsd: DecimalString;
  isActive: boolean;
  isLive: boolean;
  beginAt: IsoTime;
  tags: string[];
  /** Empty in lists; with live prices in GET /events/:id. */
  markets: MarketItem[];
}

export interface ListEventsParams extends PageParams {
  category?: Category | "all";
  search?: string;
}

export interface SearchEventsParams extends PageParams {
  q: string;
}

export interface BookLevel {
  /** 2-decimal price, e.g. "0.55". */
  price: DecimalString;
  /** Micro-shares aggregated at the level. */
  quantity: MicroString;
  numOrders: number;
}

export interface OrderBook {
  bids: BookLevel[];
  asks: BookLevel[];
}

export interface Candle {
  timestamp: IsoTime;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface PriceHistory {
  marketId: string;
  outcome: Outcome;
  interval: Interval;
  candles: Candle[];
  currentPrice: number;
  priceChange: number;
  priceChangePercent: number;
  volume24h: number;
}

export interface PriceHistoryParams {
  outcome?: Outcome;
  interval?: Interval;
}

// ---- trading ----

/** Body of POST /markets/:id/quote. */
export interface QuoteRequest {
  side: Side;
  outcome: Outcome;
  quantity: MicroString;
  /** "AUTO" (default) prices POST /trade/market; "AMM" prices POST /trade/amm. */
  venue?: QuoteVenue;
}

export type QuoteVenue = "AUTO" | "AMM";

export interface Quote {
  estimatedPrice: DecimalString;
  estimatedCost: MicroString;
  source: Venue;
  fee: MicroString;
}

/** Body of POST /orders (and of each order of a batch). Price and quantity are JSON numbers here (the contract's choice). */
export interface PlaceOrderRequest {
  marketId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  /** 0.01..0.99 on the cent grid; use tickToPriceNumber(). */
  price: number;
  /** Micro-shares, a positive multiple of 100. */
  quantity: number;
  /** ISO 8601; required for GTD (5 s to 365 days ahead), refused for the other types. */
  expiresAt?: IsoTime;
  /** GTC and GTD only: refused whole (POST_ONLY_WOULD_CROSS) if any part would execute at once. */
  postOnly?: boolean;
  /** Your own id, 1-64 of [A-Za-z0-9._:-], unique among your open orders (else 409 DUPLICATE_CLIENT_ORDER_ID). */
  clientOrderId?: string;
}

/** What every view of an order adds to the contract's fields (trading-api.md). */
export interface OrderOptionsView {
  /** Micro-shares that will never fill (cancelled, expired, a FAK's rest). */
  cancelledQuantity: MicroString;
  cancelReason: CancelReason | null;
  clientOrderId: string | null;
  /** GTD only. */
  expiresAt: IsoTime | null;
  postOnly: boolean;
}

export interface Fill {
  price: DecimalString;
  quantity: MicroString;
}

/** Answer of POST /orders, of each placed order of a batch, and of PATCH /orders/:id. */
export interface PlacedOrder extends OrderOptionsView {
  orderId: string;
  marketId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  price: DecimalString;
  quantity: MicroString;
  status: OrderStatus;
  filledQuantity: MicroString;
  remainingQuantity: MicroString;
  avgPrice: DecimalString | null;
  totalCost: MicroString;
  fee: MicroString;
  tradeId: string | null;
  fills: Fill[];
  createdAt: IsoTime;
  updatedAt: IsoTime;
}

/** Body of POST /orders/batch: 1 to 20 orders. */
export interface BatchOrderRequest {
  orders: PlaceOrderRequest[];
}

/** One order's result in a batch answer (in request order); a refusal changes no other order. */
export type BatchOrderResult = { ok: true; order: PlacedOrder } | { ok: false; error: ErrorDetail };

/** Body of PATCH /orders/:id: at least one; `quantity` is the new open remainder. */
export interface AmendOrderRequest {
  /** A new price loses time priority. */
  price?: number;
  /** Lower keeps time priority; higher loses it. */
  quantity?: number;
}

/** Answer of DELETE /orders. */
export interface CancelAllResult {
  /** Ids of the orders cancelled. */
  cancelled: string[];
  /** Micro-USDT returned to the available balance, digits. */
  releasedAmount: MicroString;
}

/** Answer of DELETE /orders/:id. The two amounts are JSON numbers of micro-units. */
export interface CancelledOrder {
  orderId: string;
  status: "cancelled";
  /** Micro-shares left unfilled, digits. */
  cancelledQuantity: string;
  /** Micro-USDT returned to the available balance, digits. */
  releasedAmount: string;
}

/** An item of GET /orders (newest first). */
export interface Order extends OrderOptionsView {
  id: string;
  orderId: string;
  marketId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  price: DecimalString;
  quantity: MicroString;
  filledQuantity: MicroString;
  remainingQuantity: MicroString;
  status: OrderStatus;
  createdAt: IsoTime;
  updatedAt: IsoTime;
}

export interface ListOrdersParams extends PageParams {
  marketId?: string;
  /** open (default: open and partially filled), closed (filled, cancelled, expired) or all. */
  status?: "open" | "closed" | "all";
  clientOrderId?: string;
}

/** Body of POST /heartbeats. */
export interface HeartbeatRequest {
  /** 0 disarms; else 5 to 300. */
  timeoutSeconds: number;
}

/** The dead man's switch: while armed, every open order is cancelled at `expiresAt` unless another heartbeat comes first. */
export interface Heartbeat {
  armed: boolean;
  expiresAt: IsoTime | null;
}

/** Body of POST /trade/amm and POST /trade/market. */
export interface TradeRequest {
  marketId: string;
  side: Side;
  outcome: Outcome;
  quantity: MicroString;
}

export interface TradeExecution {
  tradeId: string;
  venue: Venue;
  filledQuantity: MicroString;
  avgPrice: DecimalString;
  totalCost: MicroString;
  fee: MicroString;
}

// ---- portfolio ----

export interface Balance {
  available: MicroString;
  locked: MicroString;
  total: MicroString;
}

export interface Position {
  /** `<marketId>:<outcome>` */
  id: string;
  marketId: string;
  outcome: Outcome;
  quantity: MicroString;
  /** Offered by open SELL orders. */
  lockedQuantity: MicroString;
  avgEntryPrice: DecimalString;
  totalCost: MicroString;
  realizedPnl: MicroString;
  status: "open" | "settled";
  market: { id: string; title: string | null };
  markPrice: DecimalString | null;
  unrealizedPnl: MicroString | null;
}

export interface Trade {
  id: string;
  tradeId: string;
  marketId: string;
  orderId: string;
  side: Side;
  outcome: Outcome;
  venue: Venue;
  role: "taker" | "maker";
  filledQuantity: MicroString;
  avgPrice: DecimalString;
  totalCost: MicroString;
  fee: MicroString;
  settlementStatus: SettlementStatus;
  settlementTxHash: string | null;
  createdAt: IsoTime;
}

export type TransferType = "deposit" | "withdrawal";
/** Deposits: credited or not_credited; withdrawals: pending, confirmed or failed. */
export type TransferStatus = "credited" | "not_credited" | "pending" | "confirmed" | "failed";
export type KnownTransferReason = "native_coin" | "foreign_jetton" | "forged_notification" | "bounced" | "unknown_message" | "bad_amount";

/** An item of GET /transfers (newest first). */
export interface Transfer {
  id: string;
  type: TransferType;
  /** Micro-USDT; for a deposit not credited, the units that arrived (nanoTON, the foreign jetton's). */
  amount: MicroString;
  /** What `amount` counts; null when it cannot be told. */
  asset: "USDT" | "TON" | "OTHER_JETTON" | null;
  status: TransferStatus;
  /** Only on not_credited deposits. */
  reason?: KnownTransferReason | (string & {});
  txHash: string | null;
  /** Deposits: your deposit address; withdrawals: the destination wallet. */
  address: string;
  createdAt: IsoTime;
}

export interface ListTransfersParams extends PageParams {
  type?: TransferType;
}

// ---- chain ----

export interface DepositAddress {
  /** Non-bounceable friendly address (test-network form on testnet and the sandbox). */
  address: string;
  jettonWalletAddress: string | null;
  derivationIndex: number;
}

export interface WithdrawRequest {
  amount: MicroString;
}

export interface WithdrawResult {
  status: "accepted" | "duplicate" | "failed";
  txHash?: string;
  message: string;
}

export interface RedeemRequest {
  conditionId: string;
  indexSets: IndexSet[];
}

export interface RedeemResult {
  status: "accepted" | "duplicate";
  /** Micro-USDT paid (accepted redemptions and refunds). */
  payout?: MicroString;
  message: string;
}

export interface FaucetRequest {
  /** Micro-units (nanoTON for asset TON). */
  amount: MicroString;
  asset?: FaucetAsset;
}

export interface FaucetResult {
  status: "accepted";
  txHash: string;
  asset: FaucetAsset;
  amount: MicroString;
  /** The deposit address the tokens were sent to. */
  address: string;
}

// ---- notifications ----

export type KnownNotificationType =
  | "TRADE_FILLED"
  | "ORDER_CANCELLED"
  | "SETTLEMENT_CONFIRMED"
  | "SETTLEMENT_FAILED"
  | "MARKET_RESOLVED"
  | "MARKET_CANCELLED"
  | "DEPOSIT_CREDITED"
  | "WITHDRAWAL_SENT";

export interface Notification {
  id: string;
  /** A KnownNotificationType, or a newer type this SDK does not know yet. */
  type: KnownNotificationType | (string & {});
  title: string;
  body: string;
  metadata: Record<string, unknown>;
  delivered: boolean;
  read: boolean;
  createdAt: IsoTime;
}

export interface ListNotificationsParams extends PageParams {
  /** Only unread ones; `pagination.total` is then the unread count. */
  unread?: boolean;
}

export interface MarkReadRequest {
  ids?: string[];
  all?: boolean;
}

export interface MarkReadResult {
  updated: number;
  unread: number;
}

// ---- operator API (X-Admin-Key) ----

export interface NewMarket {
  title: string;
  /** Micro-USDT of AMM seed liquidity; "0" or absent = no pool. */
  ammLiquidity?: MicroString;
}

export interface CreateEventRequest {
  title: string;
  subtitle?: string;
  category: Category;
  subcategory?: string;
  imageUrl?: string;
  externalEventId?: string;
  beginAt?: IsoTime;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  markets: NewMarket[];
}

export interface UpdateEventRequest {
  title?: string;
  subtitle?: string;
  category?: Category;
  subcategory?: string;
  imageUrl?: string;
  beginAt?: IsoTime;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  /** Retitle markets of this event. */
  markets?: Array<{ id: string; title: string }>;
}

export interface ResolveMarketRequest {
  result: Outcome;
}

// ---- misc ----

export interface Health {
  status: string;
  nodeID: string;
  uptime: number;
}

/** An error as the envelope (and a refused order of a batch) carries it. */
export interface ErrorDetail {
  code: string;
  message: string;
  fields?: Array<{ field: string; rule: string }>;
}

/** The error envelope's body. */
export interface ErrorEnvelope {
  error: ErrorDetail;
  requestId: string;
}
