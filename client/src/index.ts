/** @pmx/client: typed REST and socket client of the prediction-market exchange. */
export * from "./models";
export * from "./errors";
export * from "./money";
export * from "./proof";
export * from "./pagination";
export {
  PmxClient,
  sessionFromToken,
  newIdempotencyKey,
  API_PREFIX,
  REFRESH_WINDOW_SEC,
  type ClientOptions,
  type RetryOptions,
  type ResponseInfo,
  type KeyPairLoginOptions,
  type WriteOptions,
  type Replayable,
  type HeartbeatKeeper,
} from "./client";
export {
  PmxSocket,
  SOCKET_PATH,
  DEFAULT_PING_INTERVAL_MS,
  MarketSubscription,
  BookSubscription,
  UserSubscription,
  SocketSubscriptionError,
  type SocketOptions,
  type BookState,
  type BookStats,
  type BookLevels,
  type MarketPrices,
  type UserUpdate,
  type PositionUpdate,
  type OrderUpdate,
  type TradeUpdate,
  type ServerMessage,
  type SocketErrorMessage,
  type SocketErrorCode,
  type Channel,
  type PmxSocketEvents,
} from "./socket";
