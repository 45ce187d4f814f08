/** The codes the trading core refuses with (engine/refusal.ts's Refusal; the gateway gives each kind its status). */
export const TRADING_CODES = [
  "VALIDATION_ERROR",
  "MARKET_NOT_OPEN",
  "POST_ONLY_WOULD_CROSS",
  "FOK_NOT_FILLED",
  "ORDER_REJECTED",
  "ORDER_NOT_FOUND",
  "RESOURCE_NOT_FOUND",
  "NO_AMM",
  "INSUFFICIENT_LIQUIDITY",
  "INVALID_QUANTITY",
  "INVALID_FEE",
  "INVALID_LEVELS",
  "TRADING_PAUSED",
  "BOOK_CHANGED",
  "BOOK_DIVERGED",
  "MARKET_MOVED",
] as const;
export type TradingCode = (typeof TRADING_CODES)[number];
