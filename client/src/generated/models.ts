/**
 * GENERATED from the server's contract (contract/models.ts) by `npm run contract:sdk`; do not edit.
 * Request and response models of every REST route; quantities and money are strings of digits in
 * micro-units, prices decimal strings (see ../money.ts).
 */

export interface Pagination {
  total: number;
  page: number;
  pageSize: number;
  hasNext: boolean;
}

export interface FieldError {
  field: string;
  rule: string;
}

export interface ErrorDetail {
  code: string;
  message: string;
  fields?: FieldError[];
}

export interface ErrorEnvelope {
  error: ErrorDetail;
  requestId: string;
}

export interface Health {
  status: string;
  nodeID: string;
  uptime: number;
}

export interface ConnectRequest {
  /** Wallet address, raw (0:<hex>) or friendly */
  address: string;
  publicKey: string;
  proof: {
    /** Unix seconds; at most 5 minutes old */
    timestamp: number;
    domain: {
      lengthBytes: number;
      value: string;
    };
    payload: string;
    /** Base64 ed25519 signature of the TON Connect ton_proof message */
    signature: string;
    /** Base64 BOC of the wallet StateInit (optional) */
    stateInit?: string;
  };
  /** Telegram Mini App init data */
  messengerInitData?: string;
}

export interface Challenge {
  /** The domain POST /auth/connect checks (APP_DOMAIN, else the server's listening host:port) */
  domain: string;
  /** A fresh random payload to sign (client-made payloads are accepted too) */
  payload: string;
  /** A proof made now is fresh (5 minutes) until then */
  expiresAt: string;
}

export interface RefreshRequest {
  /** Alternative to the Authorization header */
  token?: string;
}

export interface Session {
  accessToken: string;
  /** Unix seconds */
  expiresAt: number;
  userId: string;
  walletAddress: string;
}

export interface MarketItem {
  id: string;
  eventId: string;
  title: string;
  /** The outcome this market stands for in its event, or null */
  outcomeLabel: string | null;
  status: "open" | "closed" | "resolved" | "resolution_failed" | "cancelled";
  /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
  result: "YES" | "NO" | "SPLIT" | null;
  outcomes: Array<"YES" | "NO">;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  buyYesPrice: string | null;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  buyNoPrice: string | null;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  sellYesPrice: string | null;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  sellNoPrice: string | null;
  /** Decimal amount of USDT, e.g. 0 or 12.5 */
  volume: string;
  conditionId: string;
  /** The market's own trading mode; an exchange-wide mode, when stricter, applies over it */
  tradingMode: "normal" | "post_only" | "cancel_only" | "halted";
  rules: string | null;
  settlementSources: SettlementSource[];
  closeTime: string | null;
  /** The proposed result and its dispute window; null until proposed */
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
}

export interface TradingModeRequest {
  /** normal; post_only: post-only limit orders and cancels; cancel_only: cancels; halted: no order changes */
  mode: "normal" | "post_only" | "cancel_only" | "halted";
  /** Why: shown in every refusal the mode causes */
  reason?: string;
}

export interface ExchangeTradingMode {
  /** normal; post_only: post-only limit orders and cancels; cancel_only: cancels; halted: no order changes */
  mode: "normal" | "post_only" | "cancel_only" | "halted";
  reason: string | null;
  /** When the operator set it; null: never set */
  updatedAt: string | null;
}

export interface AuditRecord {
  id: string;
  at: string;
  /** The operator route's operation, e.g. adminCloseMarket */
  action: string;
  method: string;
  /** The request path under /api/v1 */
  path: string;
  /** The request's parameters (path ids and body) */
  params: Record<string, unknown>;
  /** The X-Admin-Note header, if sent */
  note: string | null;
  /** The ledger journal entry that holds the record */
  seq: number;
}

export interface SettlementSource {
  name: string;
  url: string;
}

export interface Resolution {
  /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
  proposedResult: "YES" | "NO" | "SPLIT";
  note: string | null;
  proposedAt: string;
  /** Disputes are taken until then; undisputed, the proposal then finalizes by itself */
  disputeEndsAt: string;
  disputed: boolean;
  disputes: number;
  finalizedAt: string | null;
}

export interface Event {
  id: string;
  externalEventId: string;
  title: string;
  subtitle: string;
  category: "Sports" | "Crypto" | "Politics" | "E-sports" | "Culture" | "Economics" | "Tech";
  subcategory: string;
  imageUrl: string;
  /** Decimal amount of USDT, e.g. 0 or 12.5 */
  volumeUsd: string;
  isActive: boolean;
  isLive: boolean;
  beginAt: string;
  tags: string[];
  /** At most one of its markets resolves YES */
  mutuallyExclusive: boolean;
  /** Mutually exclusive and exactly one of its markets wins */
  exhaustive: boolean;
  /** Micro-USDT of the one AMM across the event's outcomes; "0": none */
  ammLiquidity: string;
  markets: MarketItem[];
  /** One row per market, in display order (lists too) */
  outcomes: EventOutcome[];
  /** The earliest close time among the event's open markets; null: none set */
  closeTime: string | null;
}

export interface EventOutcome {
  marketId: string;
  /** The market's outcomeLabel, else its title */
  label: string;
  status: "open" | "closed" | "resolved" | "resolution_failed" | "cancelled";
  /** Midpoint of the best YES bid and ask (book and AMM) when at most 0.10 apart, else the last trade price, else null */
  chance: string | null;
}

export interface BookLevel {
  price: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  numOrders: number;
}

export interface OrderBook {
  bids: BookLevel[];
  asks: BookLevel[];
}

export interface Candle {
  timestamp: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface PublicTrade {
  marketId: string;
  tradeId: string;
  outcome: "YES" | "NO";
  /** The taker's side */
  side: "BUY" | "SELL";
  /** The outcome's price (a decimal; more than two places for a pool's average) */
  price: string;
  /** Shares in micro-units */
  quantity: string;
  /** The YES price of the execution */
  yesPrice: string;
  at: string;
}

export interface PublicTradeList {
  items: PublicTrade[];
}

export interface PriceHistory {
  marketId: string;
  outcome: "YES" | "NO";
  interval: "1H" | "1D" | "1W" | "1M" | "MAX";
  candles: Candle[];
  currentPrice: number;
  priceChange: number;
  priceChangePercent: number;
  volume24h: number;
}

export interface QuoteRequest {
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  /** AUTO prices POST /trade/market (the router), AMM prices POST /trade/amm */
  venue?: "AUTO" | "AMM";
}

export interface Quote {
  /** Decimal price, e.g. 0.55 or 0.50125 */
  estimatedPrice: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  estimatedCost: string;
  source: "AMM" | "CLOB" | "HYBRID";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  fee: string;
}

export interface PlaceOrderRequest {
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  orderType: "GTC" | "GTD" | "FOK" | "FAK";
  /** On the 0.01 grid */
  price: number;
  /** Micro-shares, a positive multiple of 100 */
  quantity: number;
  /** Required for GTD (5 s to 365 days ahead), refused otherwise */
  expiresAt?: string;
  /** GTC and GTD only: refused whole (POST_ONLY_WOULD_CROSS) if any part would execute at once */
  postOnly?: boolean;
  /** The caller's own id: 1 to 64 of A-Z a-z 0-9 . _ : -; unique among the caller's open orders */
  clientOrderId?: string;
  /** Cancel the order (reason paused) when its market leaves the normal trading mode */
  cancelOnPause?: boolean;
  /** An order group of the caller (POST /order-groups): its fill limit cancels the order with the group's others */
  orderGroupId?: string;
}

export interface BatchOrderRequest {
  orders: PlaceOrderRequest[];
}

export interface MassQuoteRequest {
  marketId: string;
  /** The new quote set, placed as GTC orders in this order; the set's own bids may not meet its own asks */
  quotes: Array<{
    side: "BUY" | "SELL";
    outcome: "YES" | "NO";
    /** On the 0.01 grid */
    price: number;
    /** Micro-shares, a positive multiple of 100 */
    quantity: number;
  }>;
  /** Refuse the whole set (POST_ONLY_WOULD_CROSS) if any quote would execute at once */
  postOnly?: boolean;
  /** An order group of the caller (POST /order-groups): every quote order joins it */
  orderGroupId?: string;
}

export interface MassQuoteResult {
  /** The previous quote set's order ids, cancelled */
  cancelled: string[];
  /** The new quote orders, in request order */
  orders: PlacedOrder[];
}

export type BatchOrderResult = {
  ok: true;
  order: PlacedOrder;
} | {
  ok: false;
  error: ErrorDetail;
};

/** At least one of price and quantity; quantity is the new open remainder */
export interface AmendOrderRequest {
  /** On the 0.01 grid; a new price loses time priority */
  price?: number;
  /** Micro-shares, a positive multiple of 100; lower keeps time priority, higher loses it */
  quantity?: number;
}

export interface CancelAllResult {
  /** Order ids */
  cancelled: string[];
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  releasedAmount: string;
}

export interface HeartbeatRequest {
  /** 0 disarms; else 5 to 300 */
  timeoutSeconds: number;
}

export interface Heartbeat {
  armed: boolean;
  /** When every open order is cancelled unless another heartbeat comes first */
  expiresAt: string | null;
}

export interface Fill {
  /** Decimal price, e.g. 0.55 or 0.50125 */
  price: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
}

export interface PlacedOrder {
  orderId: string;
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  orderType: "GTC" | "GTD" | "FOK" | "FAK";
  /** Decimal price, e.g. 0.55 or 0.50125 */
  price: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  status: "open" | "partially_filled" | "filled" | "cancelled" | "expired";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  filledQuantity: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  remainingQuantity: string;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  avgPrice: string | null;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  totalCost: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  fee: string;
  tradeId: string | null;
  fills: Fill[];
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  cancelledQuantity: string;
  /** Why the order left the book unfilled; null while it is open or filled, and for the cancelled rest of a FAK */
  cancelReason: "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved" | "paused" | "order_group" | null;
  /** The caller's own id: 1 to 64 of A-Z a-z 0-9 . _ : -; unique among the caller's open orders */
  clientOrderId: string | null;
  /** GTD only: when the rest is cancelled with status expired */
  expiresAt: string | null;
  postOnly: boolean;
  /** Placed by a mass quote (POST /quotes): replaced by the caller's next quote set in its market */
  quote: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface CancelledOrder {
  orderId: string;
  status: "cancelled";
  /** Micro-shares left unfilled */
  cancelledQuantity: string;
  /** Micro-USDT returned to the available balance */
  releasedAmount: string;
}

export interface Order {
  id: string;
  orderId: string;
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  orderType: "GTC" | "GTD" | "FOK" | "FAK";
  /** Decimal price, e.g. 0.55 or 0.50125 */
  price: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  filledQuantity: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  remainingQuantity: string;
  status: "open" | "partially_filled" | "filled" | "cancelled" | "expired";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  cancelledQuantity: string;
  /** Why the order left the book unfilled; null while it is open or filled, and for the cancelled rest of a FAK */
  cancelReason: "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved" | "paused" | "order_group" | null;
  /** The caller's own id: 1 to 64 of A-Z a-z 0-9 . _ : -; unique among the caller's open orders */
  clientOrderId: string | null;
  /** GTD only: when the rest is cancelled with status expired */
  expiresAt: string | null;
  postOnly: boolean;
  /** Placed by a mass quote (POST /quotes): replaced by the caller's next quote set in its market */
  quote: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface TradeRequest {
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
}

export interface TradeExecution {
  tradeId: string;
  venue: "AMM" | "CLOB" | "HYBRID";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  filledQuantity: string;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  avgPrice: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  totalCost: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  fee: string;
}

export interface Balance {
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  available: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  locked: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  total: string;
}

export interface Position {
  id: string;
  marketId: string;
  outcome: "YES" | "NO";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  lockedQuantity: string;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  avgEntryPrice: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  totalCost: string;
  /** Integer micro-units, may be negative */
  realizedPnl: string;
  status: "open" | "closed" | "settled";
  market: {
    id: string;
    title: string | null;
  };
  /** Decimal price, e.g. 0.55 or 0.50125 */
  markPrice: string | null;
  /** Integer micro-units, may be negative */
  unrealizedPnl: string | null;
}

export interface Trade {
  id: string;
  tradeId: string;
  marketId: string;
  orderId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  venue: "AMM" | "CLOB" | "HYBRID";
  role: "taker" | "maker";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  filledQuantity: string;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  avgPrice: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  totalCost: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  fee: string;
  settlementStatus: "pending" | "confirmed" | "failed";
  settlementTxHash: string | null;
  createdAt: string;
}

export interface DepositAddress {
  address: string;
  jettonWalletAddress: string | null;
  derivationIndex: number;
}

export interface WithdrawRequest {
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  amount: string;
}

export interface WithdrawResult {
  status: "accepted" | "duplicate" | "failed";
  txHash?: string;
  message: string;
}

export interface RedeemRequest {
  conditionId: string;
  indexSets: string[];
}

export interface ConvertRequest {
  /** 1 to 64 distinct open markets of the event whose NO shares are given up */
  marketIds: string[];
  /** Micro-shares of NO given up per named market, > 0 */
  quantity: string;
}

export interface ConvertResult {
  eventId: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  quantity: string;
  marketIds: string[];
  /** Micro-USDT into available balance: (k-1) x quantity, less CONVERSION_FEE_BPS */
  cashCredited: string;
  /** YES shares received: quantity of every other market of the event still open */
  yesReceived: Array<{
    marketId: string;
    /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
    quantity: string;
  }>;
}

export interface RedeemResult {
  status: "accepted" | "duplicate";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  payout?: string;
  message: string;
}

export interface Transfer {
  id: string;
  /** reward: a market's daily liquidity reward; rebate: a maker rebate of a market's day (both paid by the exchange) */
  type: "deposit" | "withdrawal" | "reward" | "rebate";
  /** Micro-USDT; for a deposit not credited, the units that arrived (nanoTON, the foreign jetton's units) */
  amount: string;
  /** What amount counts; null when it cannot be told */
  asset: "USDT" | "TON" | "OTHER_JETTON" | null;
  /** Deposits: credited or not_credited; withdrawals: pending, confirmed or failed; rewards and rebates: confirmed */
  status: "credited" | "not_credited" | "pending" | "confirmed" | "failed";
  /** Only on not_credited deposits: native_coin, foreign_jetton, forged_notification, bounced, unknown_message, bad_amount */
  reason?: string;
  txHash: string | null;
  /** Deposits: the deposit address; withdrawals: the destination wallet; rewards and rebates: null */
  address: string | null;
  /** Only on rewards and rebates: the market that paid */
  marketId?: string;
  /** Only on rewards and rebates: the UTC day paid (YYYY-MM-DD) */
  day?: string;
  createdAt: string;
}

export interface FaucetRequest {
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  amount: string;
  asset?: "USDT" | "TON" | "FOREIGN_USDT";
}

export interface FaucetResult {
  status: "accepted";
  txHash: string;
  asset: "USDT" | "TON" | "FOREIGN_USDT";
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  amount: string;
  address: string;
}

export interface Notification {
  id: string;
  /** TRADE_FILLED, ORDER_CANCELLED, SETTLEMENT_CONFIRMED, SETTLEMENT_FAILED, MARKET_RESOLVED, MARKET_CANCELLED, RESOLUTION_PROPOSED, RESOLUTION_DISPUTED, DEPOSIT_CREDITED, WITHDRAWAL_SENT, POSITIONS_CONVERTED, ... */
  type: string;
  title: string;
  body: string;
  /** Shape depends on type */
  metadata: Record<string, unknown>;
  delivered: boolean;
  read: boolean;
  createdAt: string;
}

export interface MarkReadRequest {
  ids?: string[];
  all?: boolean;
}

export interface MarkReadResult {
  updated: number;
  unread: number;
}

export interface NotificationSettings {
  push: {
    /** TRADE_FILLED, ORDER_CANCELLED */
    trades: boolean;
    /** SETTLEMENT_CONFIRMED (SETTLEMENT_FAILED is always pushed) */
    settlement: boolean;
    /** MARKET_RESOLVED, MARKET_CANCELLED, RESOLUTION_PROPOSED, RESOLUTION_DISPUTED */
    results: boolean;
    /** DEPOSIT_CREDITED, WITHDRAWAL_SENT, WITHDRAWAL_FAILED */
    transfers: boolean;
  };
}

export interface NotificationSettingsRequest {
  push: {
    trades?: boolean;
    settlement?: boolean;
    results?: boolean;
    transfers?: boolean;
  };
}

export interface CreateEventRequest {
  title: string;
  subtitle?: string;
  category: "Sports" | "Crypto" | "Politics" | "E-sports" | "Culture" | "Economics" | "Tech";
  subcategory?: string;
  imageUrl?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  externalEventId?: string;
  /** At most one market resolves YES; 2 to 64 markets, each with an outcomeLabel */
  mutuallyExclusive?: boolean;
  /** Only with mutuallyExclusive: exactly one market wins */
  exhaustive?: boolean;
  /** One AMM across the event's outcomes (micro-USDT), instead of per market */
  ammLiquidity?: string;
  /** 1 to 10 markets; 2 to 64 in a mutually exclusive event */
  markets: Array<{
    title: string;
    /** The outcome the market stands for in its event (1 to 40 characters) */
    outcomeLabel?: string;
    /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
    ammLiquidity?: string;
    /** What decides YES (up to 4,000 characters), or null */
    rules?: string | null;
    /** Where the result is read from (may be empty) */
    settlementSources?: Array<{
      name: string;
      url: string;
    }>;
    /** ISO 8601: the market closes by itself then (resting orders cancelled, reason market_closed); null: no close time */
    closeTime?: string | null;
  }>;
}

export interface UpdateEventRequest {
  title?: string;
  subtitle?: string;
  category?: "Sports" | "Crypto" | "Politics" | "E-sports" | "Culture" | "Economics" | "Tech";
  subcategory?: string;
  imageUrl?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  markets?: Array<{
    id: string;
    title?: string;
    /** What decides YES (up to 4,000 characters), or null */
    rules?: string | null;
    /** Where the result is read from (may be empty) */
    settlementSources?: Array<{
      name: string;
      url: string;
    }>;
    /** ISO 8601: the market closes by itself then (resting orders cancelled, reason market_closed); null: no close time */
    closeTime?: string | null;
  }>;
}

export interface AddOutcomeRequest {
  title: string;
  /** The outcome the market stands for in its event (1 to 40 characters) */
  outcomeLabel: string;
}

export interface ResolveEventRequest {
  /** The winning market of the event; null: none of them won (not on an exhaustive event) */
  winnerMarketId: string | null;
}

export interface ProposeEventRequest {
  /** The winning market of the event; null: none of them won (not on an exhaustive event) */
  winnerMarketId: string | null;
  note?: string;
}

export interface ResolveMarketRequest {
  /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
  result: "YES" | "NO" | "SPLIT";
}

export interface ProposeRequest {
  /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
  result: "YES" | "NO" | "SPLIT";
  note?: string;
}

export interface FinalizeRequest {
  /** YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share */
  result: "YES" | "NO" | "SPLIT";
}

export interface DisputeRequest {
  /** Why the proposed result is wrong */
  reason: string;
}

export interface Dispute {
  marketId: string;
  reason: string;
  createdAt: string;
  resolution: Resolution;
}

export interface QueuePosition {
  /** The order's price in its own outcome */
  price: string;
  /** Quantity resting before the order at its price level (time priority) */
  quantityAhead: string;
  /** Orders resting before it at that level */
  ordersAhead: number;
}

export interface RewardTermsRequest {
  /** Micro-USDT paid each UTC day to the market's scorers (0 stops it) */
  dailyPool: string;
  /** The widest distance from the midpoint that scores, e.g. 0.03 */
  maxSpread: string;
  /** The smallest resting quantity that scores (micro-shares) */
  minSize: string;
}

export interface RewardMarket {
  marketId: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  dailyPool: string;
  /** Decimal price, e.g. 0.55 or 0.50125 */
  maxSpread: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  minSize: string;
}

export interface FundRewardsRequest {
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  amount: string;
}

export interface RewardsFunded {
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  amount: string;
  /** The rewards account's balance now */
  balance: string;
}

export interface RewardEarning {
  marketId: string;
  /** The day's score (summed per-minute scores; comparable within a market) */
  score: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  reward: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  rebate: string;
}

export interface OrderScoring {
  scoring: boolean;
  /** Why it scores or not: its market pays no rewards, the book has no midpoint, it rests at or beyond maxSpread, below minSize, or it no longer rests */
  reason: "scoring" | "no_rewards" | "no_midpoint" | "too_far" | "too_small" | "not_resting";
}

export interface OrderGroupRequest {
  /** Quantity (micro-shares) filled on the group's orders within the window that triggers it */
  fillLimit: string;
  /** The rolling window, 1 to 3600 s */
  windowSeconds?: number;
}

export interface OrderGroup {
  orderGroupId: string;
  /** Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent */
  fillLimit: string;
  windowSeconds: number;
  triggered: boolean;
}

export interface DeletedOrderGroup {
  orderGroupId: string;
  /** Order ids */
  cancelled: string[];
}

export interface SetTierRequest {
  /** A tier of RATE_TIERS, or default */
  tier: string;
}

export interface UserTier {
  userId: string;
  tier: string;
}

export interface RateBudget {
  /** Requests allowed per window */
  limit: number;
  /** Requests left in the current sliding window */
  remaining: number;
  windowSeconds: number;
}

export interface AccountLimits {
  tier: string;
  read: RateBudget;
  trade: RateBudget;
}

export interface CancelMarketRequest {
  /** What each YES share is paid (0.00 to 1.00; default 0.50, a race's outcome 0.00); each NO share is paid 1 minus it, out of the market's own collateral */
  price?: string;
}

/** Query parameters of GET /events. */
export interface ListEventsQuery {
  /** Category filter */
  category?: "all" | "Sports" | "Crypto" | "Politics" | "E-sports" | "Culture" | "Economics" | "Tech";
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
  /** Free-text filter */
  search?: string;
}

/** Query parameters of GET /events/search. */
export interface SearchEventsQuery {
  /** Search words */
  q: string;
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
}

/** Query parameters of GET /markets/:marketId/orderbook. */
export interface GetOrderBookQuery {
  /** Book view */
  outcome?: "YES" | "NO";
}

/** Query parameters of GET /markets/:marketId/price-history. */
export interface GetPriceHistoryQuery {
  /** Outcome */
  outcome?: "YES" | "NO";
  /** Interval */
  interval?: "1H" | "1D" | "1W" | "1M" | "MAX";
}

/** Query parameters of GET /markets/:marketId/trades. */
export interface GetMarketTradesQuery {
  /** Trades to return, 1 to 100, newest first */
  limit?: number;
}

/** Query parameters of GET /orders. */
export interface ListOrdersQuery {
  /** Only this market */
  marketId?: string;
  /** open: open and partially filled; closed: filled, cancelled and expired; all */
  status?: "open" | "closed" | "all";
  /** Only orders with this client order id */
  clientOrderId?: string;
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 500 */
  pageSize?: number;
}

/** Query parameters of DELETE /orders. */
export interface CancelAllOrdersQuery {
  /** Only this market */
  marketId?: string;
}

/** Query parameters of DELETE /quotes. */
export interface CancelQuotesQuery {
  /** The market whose quote set is withdrawn */
  marketId: string;
}

/** Query parameters of GET /positions. */
export interface ListPositionsQuery {
  /** open: shares held; closed: sold, merged or redeemed to zero, or settled, with their realized PnL; all */
  status?: "open" | "closed" | "all";
}

/** Query parameters of GET /trades. */
export interface ListTradesQuery {
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
}

/** Query parameters of GET /transfers. */
export interface ListTransfersQuery {
  /** Only deposits, withdrawals, liquidity rewards or maker rebates */
  type?: "deposit" | "withdrawal" | "reward" | "rebate";
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
}

/** Query parameters of GET /notifications. */
export interface ListNotificationsQuery {
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
  /** Only unread ones (pagination.total is then the unread count) */
  unread?: boolean;
}

/** Query parameters of GET /admin/audit. */
export interface AdminAuditLogQuery {
  /** Page number, from 1 (plain digits) */
  page?: number;
  /** Items per page, 1 to 100 */
  pageSize?: number;
}

/** Query parameters of GET /rewards/earnings. */
export interface GetRewardEarningsQuery {
  /** The UTC day, YYYY-MM-DD (default: today) */
  date?: string;
}
