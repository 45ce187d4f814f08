/** API and client errors as sentences a person can act on. */
import { ApiError, NetworkError, NotLoggedInError, RateLimitError } from "@pmx/client/errors";

const WORDS: Record<string, string> = {
  INSUFFICIENT_BALANCE: "Your available balance is too low for this.",
  INSUFFICIENT_SHARES: "You do not hold enough free shares for this sale (shares offered in open orders are locked).",
  INSUFFICIENT_LIQUIDITY: "There is not enough liquidity on the book and the AMM together to fill this quantity.",
  FOK_NOT_FILLED: "Fill-or-kill: the book could not fill the whole order at your price, so nothing was done.",
  MARKET_NOT_OPEN: "This market is not open for trading.",
  MARKET_MOVED: "The market is moving between engine nodes; try again in a moment.",
  PRICE_BOUNDS: "The AMM cannot trade this much: its price would leave the 0.01 to 0.99 range.",
  NO_AMM: "This market has no AMM pool.",
  ORDER_NOT_FOUND: "That order is no longer open.",
  MARKET_NOT_RESOLVED: "The market is not resolved yet.",
  CONDITION_MISMATCH: "The redemption does not match this market's condition.",
  LOSING_POSITION: "Only winning shares pay out.",
  NO_POSITION: "You hold no shares of this market to redeem.",
  SHARES_LOCKED: "Some of your shares are offered in open orders: cancel those orders first.",
  UNAUTHORIZED: "You need to sign in (again) for this.",
  FORBIDDEN: "This is not allowed for your account.",
  RESOURCE_NOT_FOUND: "Not found.",
  PAYLOAD_TOO_LARGE: "That request is too large.",
  SERVICE_UNAVAILABLE: "The exchange is busy or restarting; try again shortly.",
  INTERNAL_ERROR: "Something went wrong on the exchange; try again.",
};

const RULES: Record<string, string> = {
  required: "is required",
  tick: "must be on the 0.01 grid between 0.01 and 0.99",
  lot: "must be a multiple of 0.0001 share",
  number: "must be a number",
  numberMin: "is too small",
  numberMax: "is too large",
  stringPattern: "is not in the right format",
  enumValue: "is not one of the allowed values",
};

const sentence = (m: string) => {
  const t = m.trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`;
};

/** One sentence for an error, plus the code and request id to quote to support. */
export function describeError(err: unknown): { text: string; detail?: string; retryAfter?: number } {
  if (err instanceof RateLimitError)
    return { text: "Too many requests.", retryAfter: err.retryAfter, detail: err.requestId ? `request ${err.requestId}` : undefined };
  if (err instanceof ApiError) {
    let text = WORDS[err.code] ?? err.message;
    // The exchange's own sentence names the field and the limit ("amount must be at least 1.00 USDT");
    // the generic rule words stand in only when it said nothing more than the code.
    if (err.code === "VALIDATION_ERROR")
      text =
        err.message && !/^(parameters )?validation (error|failed)[.!]?$/i.test(err.message.trim())
          ? sentence(err.message)
          : err.fields.length
            ? `Please check: ${err.fields.map((f) => `${f.field} ${RULES[f.rule] ?? `(${f.rule})`}`).join("; ")}.`
            : "Please check the values entered.";
    return { text, detail: [err.code, err.requestId && `request ${err.requestId}`].filter(Boolean).join(", ") };
  }
  if (err instanceof NetworkError) return { text: "The exchange cannot be reached. Check your connection and try again." };
  if (err instanceof NotLoggedInError) return { text: "Sign in first." };
  if (err instanceof RangeError || err instanceof TypeError) return { text: err.message };
  return { text: err instanceof Error ? err.message : String(err) };
}
