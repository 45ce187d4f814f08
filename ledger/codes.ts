/** The codes the ledger refuses with (engine/refusal.ts's Refusal; the shell gives each kind its status). */
export const LEDGER_CODES = [
  "INSUFFICIENT_BALANCE",
  "INSUFFICIENT_SHARES",
  "INVALID_POSTING",
  "MARKET_MOVED",
  "IDEMPOTENCY_KEY_REUSED",
  "DUPLICATE_CLIENT_ORDER_ID",
  "LEDGER_UNAVAILABLE",
  "LEDGER_RESTARTED",
  "SERVICE_UNAVAILABLE",
  "MARKET_NOT_OPEN",
  "BOOK_CHANGED",
] as const;
export type LedgerCode = (typeof LEDGER_CODES)[number];
