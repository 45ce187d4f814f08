/**
 * GENERATED from the server's contract (contract/routes.ts) by `npm run contract:sdk`; do not edit.
 * Every REST route by its operation: method, path under /api/v1 (`{name}` path parameters, as
 * the OpenAPI document writes them), who may call it (public, user, admin), whether it takes an
 * Idempotency-Key and whether it answers a page; and what each one takes and answers.
 */
import type { AccountLimits, AddOutcomeRequest, AdminAuditLogQuery, AmendOrderRequest, AuditRecord, Balance, BatchOrderRequest, BatchOrderResult, CancelAllOrdersQuery, CancelAllResult, CancelMarketRequest, CancelQuotesQuery, CancelledOrder, Challenge, ConnectRequest, ConvertRequest, ConvertResult, CreateEventRequest, DeletedOrderGroup, DepositAddress, Dispute, DisputeRequest, Event, ExchangeTradingMode, FaucetRequest, FaucetResult, FinalizeRequest, FundRewardsRequest, GetMarketTradesQuery, GetOrderBookQuery, GetPriceHistoryQuery, GetRewardEarningsQuery, Heartbeat, HeartbeatRequest, ListEventsQuery, ListNotificationsQuery, ListOrdersQuery, ListPositionsQuery, ListTradesQuery, ListTransfersQuery, MarkReadRequest, MarkReadResult, MarketItem, MassQuoteRequest, MassQuoteResult, Notification, NotificationSettings, NotificationSettingsRequest, Order, OrderBook, OrderGroup, OrderGroupRequest, OrderScoring, PlaceOrderRequest, PlacedOrder, Position, PriceHistory, ProposeEventRequest, ProposeRequest, PublicTradeList, QueuePosition, Quote, QuoteRequest, RedeemRequest, RedeemResult, RefreshRequest, ResolveEventRequest, ResolveMarketRequest, RewardEarning, RewardMarket, RewardTermsRequest, RewardsFunded, SearchEventsQuery, Session, SetTierRequest, Trade, TradeExecution, TradeRequest, TradingModeRequest, Transfer, UpdateEventRequest, UserTier, WithdrawRequest, WithdrawResult } from "./models";

export const ROUTES = {
  /** The login domain and a fresh payload for a ton_proof */
  challenge: { method: "GET", path: "/auth/challenge", auth: "public" },
  /** Log in with a TON Connect ton_proof */
  connect: { method: "POST", path: "/auth/connect", auth: "public" },
  /** New token, only in the last hour of the current one (header or body token) */
  refresh: { method: "POST", path: "/auth/refresh", auth: "public" },
  /** End the session now */
  logout: { method: "POST", path: "/auth/logout", auth: "user" },
  /** Published events, soonest first */
  listEvents: { method: "GET", path: "/events", auth: "public", paged: true },
  /** Events matching every word, best match first */
  searchEvents: { method: "GET", path: "/events/search", auth: "public", paged: true },
  /** One event with its markets' live prices */
  getEvent: { method: "GET", path: "/events/{id}", auth: "public" },
  /** One market with live prices (cached 5 s) */
  getMarket: { method: "GET", path: "/markets/{id}", auth: "public" },
  /** Top 10 levels of the YES or NO view */
  getOrderBook: { method: "GET", path: "/markets/{marketId}/orderbook", auth: "public" },
  /** Candles and price change */
  getPriceHistory: { method: "GET", path: "/markets/{marketId}/price-history", auth: "public" },
  /** The market's public trades (every venue, no user ids) */
  getMarketTrades: { method: "GET", path: "/markets/{marketId}/trades", auth: "public" },
  /** Price a market or AMM order without executing it */
  quote: { method: "POST", path: "/markets/{marketId}/quote", auth: "user" },
  /** Limit order: GTC, GTD, FOK or FAK, optionally post-only, with a client order id (trade rate category) */
  placeOrder: { method: "POST", path: "/orders", auth: "user", idempotent: true },
  /** The caller's orders, newest first: open (default), closed or all */
  listOrders: { method: "GET", path: "/orders", auth: "user", paged: true },
  /** Cancel every open order of the caller, or of one market (read rate category) */
  cancelAllOrders: { method: "DELETE", path: "/orders", auth: "user" },
  /** 1 to 20 orders in one request, each standing alone; answers in request order (trade rate category, one request) */
  placeOrderBatch: { method: "POST", path: "/orders/batch", auth: "user", idempotent: true },
  /** Mass quote: cancel the caller's quote set in the market and place 1 to 20 new quotes as GTC orders, atomically (trade rate category, one request) */
  placeQuotes: { method: "POST", path: "/quotes", auth: "user", idempotent: true },
  /** Withdraw the caller's quote set in a market (read rate category, like DELETE /orders) */
  cancelQuotes: { method: "DELETE", path: "/quotes", auth: "user" },
  /** Atomic cancel-and-replace of the open remainder under the same orderId (trade rate category) */
  amendOrder: { method: "PATCH", path: "/orders/{orderId}", auth: "user" },
  /** Cancel an open order (404 ORDER_NOT_FOUND for unknown, finished or others' orders) */
  cancelOrder: { method: "DELETE", path: "/orders/{orderId}", auth: "user" },
  /** Queue position of an open order: quantity and orders ahead of it at its price (404 ORDER_NOT_FOUND for unknown, finished or others' orders) */
  getQueuePosition: { method: "GET", path: "/orders/{orderId}/queue-position", auth: "user" },
  /** An order group: when its orders fill fillLimit within windowSeconds, all of them are cancelled (order_group) and it refuses orders until reset */
  createOrderGroup: { method: "POST", path: "/order-groups", auth: "user" },
  /** The caller's order groups */
  listOrderGroups: { method: "GET", path: "/order-groups", auth: "user" },
  /** Reset a triggered order group: orders may name it again, its window starts empty */
  resetOrderGroup: { method: "POST", path: "/order-groups/{id}/reset", auth: "user" },
  /** Delete an order group and cancel its open orders */
  deleteOrderGroup: { method: "DELETE", path: "/order-groups/{id}", auth: "user" },
  /** Dead man's switch: arm or re-arm (5 to 300 s), or disarm (0) (read rate category) */
  heartbeat: { method: "POST", path: "/heartbeats", auth: "user" },
  /** Trade against the AMM only (trade rate category) */
  tradeAmm: { method: "POST", path: "/trade/amm", auth: "user", idempotent: true },
  /** Smart-routed market order: CLOB, AMM or HYBRID (trade rate category) */
  tradeMarket: { method: "POST", path: "/trade/market", auth: "user", idempotent: true },
  /** The caller's deposit address (allocated on first call) */
  getDepositAddress: { method: "GET", path: "/deposit-address", auth: "user" },
  /** Withdraw to the session's wallet (trade rate category) */
  withdraw: { method: "POST", path: "/withdraw", auth: "user", idempotent: true },
  /** Redeem winning positions of a resolved market, or the refund of a cancelled one (trade rate category) */
  redeem: { method: "POST", path: "/redeem/{marketId}", auth: "user", idempotent: true },
  /** Available, locked, total */
  getBalance: { method: "GET", path: "/balance", auth: "user" },
  /** Convert NO shares of k markets of a mutually exclusive event into (k-1) USDT per share plus YES of its other open markets (trade rate category) */
  convertPositions: { method: "POST", path: "/events/{id}/convert", auth: "user", idempotent: true },
  /** Open positions with mark price (closed ones with their realized PnL on request) */
  listPositions: { method: "GET", path: "/positions", auth: "user" },
  /** The caller's trades, newest first */
  listTrades: { method: "GET", path: "/trades", auth: "user", paged: true },
  /** The caller's deposits (credited, and not credited with the reason), withdrawals, liquidity rewards and maker rebates, newest first */
  listTransfers: { method: "GET", path: "/transfers", auth: "user", paged: true },
  /** One trade (poll settlement) */
  getTrade: { method: "GET", path: "/trades/{id}", auth: "user" },
  /** The caller's notifications, newest first */
  listNotifications: { method: "GET", path: "/notifications", auth: "user", paged: true },
  /** Mark {ids} or {all: true} read */
  markNotificationsRead: { method: "POST", path: "/notifications/read", auth: "user" },
  /** Which kinds of notification the Telegram bot pushes to the caller (all are listed by GET /notifications) */
  getNotificationSettings: { method: "GET", path: "/account/notification-settings", auth: "user" },
  /** Turn kinds of bot pushes on or off (kinds not given keep their setting) */
  setNotificationSettings: { method: "PATCH", path: "/account/notification-settings", auth: "user" },
  /** Sandbox chain only: mint test tokens to the caller's deposit address (own rate limit) */
  faucet: { method: "POST", path: "/sandbox/faucet", auth: "user" },
  /** New event with 1 to 10 open markets, 2 to 64 when mutually exclusive (409 DUPLICATE_EVENT on a reused externalEventId) */
  adminCreateEvent: { method: "POST", path: "/admin/events", auth: "admin" },
  /** Add an outcome market to an open mutually exclusive event (409 EVENT_NOT_OPEN when none of its markets is open) */
  adminAddOutcome: { method: "POST", path: "/admin/events/{id}/markets", auth: "admin" },
  /** Resolve a mutually exclusive event as one step: the winner YES, every other undecided market NO (null: none won, refused on an exhaustive event) */
  adminResolveEvent: { method: "POST", path: "/admin/events/{id}/resolve", auth: "admin" },
  /** Propose the winner of a mutually exclusive event (open markets close first); undisputed, the event finalizes as one step when the window ends */
  adminProposeEvent: { method: "POST", path: "/admin/events/{id}/propose", auth: "admin" },
  /** Display fields of an event, market titles */
  adminUpdateEvent: { method: "PATCH", path: "/admin/events/{id}", auth: "admin" },
  /** Stop trading (open -> closed) */
  adminCloseMarket: { method: "POST", path: "/admin/markets/{id}/close", auth: "admin" },
  /** Void the market: each YES share pays price (default 0.50), each NO share 1 - price, from the market's own collateral; a race's outcome: 0.00 only */
  adminCancelMarket: { method: "POST", path: "/admin/markets/{id}/cancel", auth: "admin" },
  /** Settle the outcome (open passes through closed) */
  adminResolveMarket: { method: "POST", path: "/admin/markets/{id}/resolve", auth: "admin" },
  /** Pause or resume one market: normal, post_only, cancel_only or halted (the stricter of it and the exchange-wide mode applies) */
  adminSetMarketTradingMode: { method: "POST", path: "/admin/markets/{id}/trading-mode", auth: "admin" },
  /** Pause or resume every market at once (the stricter of it and each market's own mode applies) */
  adminSetExchangeTradingMode: { method: "POST", path: "/admin/trading-mode", auth: "admin" },
  /** Every operator action with its time, parameters and X-Admin-Note, as journaled with the money */
  adminAuditLog: { method: "GET", path: "/admin/audit", auth: "admin", paged: true },
  /** Propose a result (an open market closes first); undisputed, it finalizes when the dispute window ends */
  adminProposeResolution: { method: "POST", path: "/admin/markets/{id}/propose", auth: "admin" },
  /** End a pending proposal (disputed or not) with this result, which may differ from the proposal (409 NO_PROPOSAL) */
  adminFinalizeResolution: { method: "POST", path: "/admin/markets/{id}/finalize", auth: "admin" },
  /** Dispute the proposed result: holders only (403 FORBIDDEN), before disputeEndsAt (409 DISPUTE_WINDOW_CLOSED), once per proposal (409 ALREADY_DISPUTED) */
  disputeResolution: { method: "POST", path: "/markets/{id}/disputes", auth: "user" },
  /** Grant a user a rate tier of RATE_TIERS (default takes a grant back); every gateway applies it from the next request */
  adminSetUserTier: { method: "PUT", path: "/admin/users/{userId}/tier", auth: "admin" },
  /** A market's liquidity rewards: its daily pool, the spread and size that score (paid from the rewards account at 00:00 UTC) */
  adminSetMarketRewards: { method: "POST", path: "/admin/markets/{id}/rewards", auth: "admin" },
  /** Fund the exchange's rewards account with house money (one journaled entry) */
  adminFundRewards: { method: "POST", path: "/admin/rewards/fund", auth: "admin" },
  /** The markets that pay liquidity rewards, with their terms */
  listRewardMarkets: { method: "GET", path: "/rewards/markets", auth: "public" },
  /** The caller's liquidity rewards and maker rebates of one UTC day, per market */
  getRewardEarnings: { method: "GET", path: "/rewards/earnings", auth: "user" },
  /** Whether the caller's order scores for liquidity rewards now, and why not (404 ORDER_NOT_FOUND for unknown or others' orders) */
  getOrderScoring: { method: "GET", path: "/orders/{orderId}/scoring", auth: "user" },
  /** The caller's rate tier and its read and trade budgets (sliding window), as X-RateLimit-* count them */
  getAccountLimits: { method: "GET", path: "/account/limits", auth: "user" },
} as const;

export type OperationId = keyof typeof ROUTES;

/** What each operation takes (path parameters, query, body) and answers (a page's item for a paged route). */
export interface RouteTypes {
  challenge: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: Challenge };
  connect: { params: Record<string, never>; query: Record<string, never>; body: ConnectRequest; result: Session };
  refresh: { params: Record<string, never>; query: Record<string, never>; body: Partial<RefreshRequest>; result: Session };
  logout: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: null };
  listEvents: { params: Record<string, never>; query: ListEventsQuery; body: undefined; result: Event };
  searchEvents: { params: Record<string, never>; query: SearchEventsQuery; body: undefined; result: Event };
  getEvent: { params: { id: string }; query: Record<string, never>; body: undefined; result: Event };
  getMarket: { params: { id: string }; query: Record<string, never>; body: undefined; result: MarketItem };
  getOrderBook: { params: { marketId: string }; query: GetOrderBookQuery; body: undefined; result: OrderBook };
  getPriceHistory: { params: { marketId: string }; query: GetPriceHistoryQuery; body: undefined; result: PriceHistory };
  getMarketTrades: { params: { marketId: string }; query: GetMarketTradesQuery; body: undefined; result: PublicTradeList };
  quote: { params: { marketId: string }; query: Record<string, never>; body: QuoteRequest; result: Quote };
  placeOrder: { params: Record<string, never>; query: Record<string, never>; body: PlaceOrderRequest; result: PlacedOrder };
  listOrders: { params: Record<string, never>; query: ListOrdersQuery; body: undefined; result: Order };
  cancelAllOrders: { params: Record<string, never>; query: CancelAllOrdersQuery; body: undefined; result: CancelAllResult };
  placeOrderBatch: { params: Record<string, never>; query: Record<string, never>; body: BatchOrderRequest; result: BatchOrderResult[] };
  placeQuotes: { params: Record<string, never>; query: Record<string, never>; body: MassQuoteRequest; result: MassQuoteResult };
  cancelQuotes: { params: Record<string, never>; query: CancelQuotesQuery; body: undefined; result: CancelAllResult };
  amendOrder: { params: { orderId: string }; query: Record<string, never>; body: AmendOrderRequest; result: PlacedOrder };
  cancelOrder: { params: { orderId: string }; query: Record<string, never>; body: undefined; result: CancelledOrder };
  getQueuePosition: { params: { orderId: string }; query: Record<string, never>; body: undefined; result: QueuePosition };
  createOrderGroup: { params: Record<string, never>; query: Record<string, never>; body: OrderGroupRequest; result: OrderGroup };
  listOrderGroups: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: OrderGroup[] };
  resetOrderGroup: { params: { id: string }; query: Record<string, never>; body: undefined; result: OrderGroup };
  deleteOrderGroup: { params: { id: string }; query: Record<string, never>; body: undefined; result: DeletedOrderGroup };
  heartbeat: { params: Record<string, never>; query: Record<string, never>; body: HeartbeatRequest; result: Heartbeat };
  tradeAmm: { params: Record<string, never>; query: Record<string, never>; body: TradeRequest; result: TradeExecution };
  tradeMarket: { params: Record<string, never>; query: Record<string, never>; body: TradeRequest; result: TradeExecution };
  getDepositAddress: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: DepositAddress };
  withdraw: { params: Record<string, never>; query: Record<string, never>; body: WithdrawRequest; result: WithdrawResult };
  redeem: { params: { marketId: string }; query: Record<string, never>; body: RedeemRequest; result: RedeemResult };
  getBalance: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: Balance };
  convertPositions: { params: { id: string }; query: Record<string, never>; body: ConvertRequest; result: ConvertResult };
  listPositions: { params: Record<string, never>; query: ListPositionsQuery; body: undefined; result: Position[] };
  listTrades: { params: Record<string, never>; query: ListTradesQuery; body: undefined; result: Trade };
  listTransfers: { params: Record<string, never>; query: ListTransfersQuery; body: undefined; result: Transfer };
  getTrade: { params: { id: string }; query: Record<string, never>; body: undefined; result: Trade };
  listNotifications: { params: Record<string, never>; query: ListNotificationsQuery; body: undefined; result: Notification };
  markNotificationsRead: { params: Record<string, never>; query: Record<string, never>; body: MarkReadRequest; result: MarkReadResult };
  getNotificationSettings: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: NotificationSettings };
  setNotificationSettings: { params: Record<string, never>; query: Record<string, never>; body: NotificationSettingsRequest; result: NotificationSettings };
  faucet: { params: Record<string, never>; query: Record<string, never>; body: FaucetRequest; result: FaucetResult };
  adminCreateEvent: { params: Record<string, never>; query: Record<string, never>; body: CreateEventRequest; result: Event };
  adminAddOutcome: { params: { id: string }; query: Record<string, never>; body: AddOutcomeRequest; result: MarketItem };
  adminResolveEvent: { params: { id: string }; query: Record<string, never>; body: ResolveEventRequest; result: Event };
  adminProposeEvent: { params: { id: string }; query: Record<string, never>; body: ProposeEventRequest; result: Event };
  adminUpdateEvent: { params: { id: string }; query: Record<string, never>; body: UpdateEventRequest; result: Event };
  adminCloseMarket: { params: { id: string }; query: Record<string, never>; body: undefined; result: MarketItem };
  adminCancelMarket: { params: { id: string }; query: Record<string, never>; body: Partial<CancelMarketRequest>; result: MarketItem };
  adminResolveMarket: { params: { id: string }; query: Record<string, never>; body: ResolveMarketRequest; result: MarketItem };
  adminSetMarketTradingMode: { params: { id: string }; query: Record<string, never>; body: TradingModeRequest; result: MarketItem };
  adminSetExchangeTradingMode: { params: Record<string, never>; query: Record<string, never>; body: TradingModeRequest; result: ExchangeTradingMode };
  adminAuditLog: { params: Record<string, never>; query: AdminAuditLogQuery; body: undefined; result: AuditRecord };
  adminProposeResolution: { params: { id: string }; query: Record<string, never>; body: ProposeRequest; result: MarketItem };
  adminFinalizeResolution: { params: { id: string }; query: Record<string, never>; body: FinalizeRequest; result: MarketItem };
  disputeResolution: { params: { id: string }; query: Record<string, never>; body: DisputeRequest; result: Dispute };
  adminSetUserTier: { params: { userId: string }; query: Record<string, never>; body: SetTierRequest; result: UserTier };
  adminSetMarketRewards: { params: { id: string }; query: Record<string, never>; body: RewardTermsRequest; result: RewardMarket };
  adminFundRewards: { params: Record<string, never>; query: Record<string, never>; body: FundRewardsRequest; result: RewardsFunded };
  listRewardMarkets: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: RewardMarket[] };
  getRewardEarnings: { params: Record<string, never>; query: GetRewardEarningsQuery; body: undefined; result: RewardEarning[] };
  getOrderScoring: { params: { orderId: string }; query: Record<string, never>; body: undefined; result: OrderScoring };
  getAccountLimits: { params: Record<string, never>; query: Record<string, never>; body: undefined; result: AccountLimits };
}
