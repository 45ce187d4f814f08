/**
 * The socket contract at `/ws`: what clients send, what the server pushes (always one socket event
 * named `message` with a `type`), and the pure helpers behind them. No I/O here.
 */
import type { Outcome } from "../engine/types";
import type { Model, SocketModel } from "../contract";
import { ID_RE } from "../contract/schema";

export const SOCKET_PATH = "/ws";
/** Market ids one connection may follow on the `market` channel. */
export const MAX_MARKET_SUBSCRIPTIONS = 200;
/** Order books one connection may follow (each is a full top-10 snapshot + updates). */
export const MAX_BOOK_SUBSCRIPTIONS = 20;
/** At most one book / price / balance / position push per key in this window (latest state wins). */
export const COALESCE_MS = 50;
/** Largest client packet accepted (a full market subscription plus a token fits easily). */
export const MAX_PACKET_BYTES = 64 * 1024;

/** The contract's one id rule. */
const MARKET_ID_RE = ID_RE;
const MAX_TOKEN_LENGTH = 4096;

export type Channel = "market" | "book" | "user";

export type Level = Model<"BookLevel">;
/** One side's view of a book, as `book.depth` answers it and the book channel sends it. */
export type BookLevels = Model<"OrderBook">;

// What the server sends: the contract's socket payloads (contract/events.ts), one type each.
export type MarketPrices = SocketModel<"MarketPrices">;
export type PositionUpdate = SocketModel<"PositionUpdate">;
export type OrderUpdate = SocketModel<"OrderUpdate">;
export type TradeUpdate = SocketModel<"TradeUpdate">;
/** What changed for the user: exactly one key. */
export type UserUpdate = SocketModel<"UserUpdate">;
export type SocketErrorCode = SocketModel<"SocketErrorCode">;
/** Everything the server sends, as the payload of the `message` event. */
export type ServerMessage = SocketModel<"ServerMessage">;

export type ErrorMessage = Extract<ServerMessage, { type: "error" }>;

/** Client -> server `subscribe` / `unsubscribe` payloads after validation. */
export type Subscription =
  { channel: "market"; marketIds: string[] } | { channel: "book"; marketId: string; outcome: Outcome } | { channel: "user"; token: string };

export type Unsubscription =
  { channel: "market"; marketIds: string[] | null } | { channel: "book"; marketId: string; outcome: Outcome } | { channel: "user" };

type Parsed<T> = { ok: true; value: T } | { ok: false; error: ErrorMessage };

const invalid = (message: string, channel?: Channel): { ok: false; error: ErrorMessage } => ({
  ok: false,
  error: channel ? { type: "error", code: "VALIDATION_ERROR", message, channel } : { type: "error", code: "VALIDATION_ERROR", message },
});

function asRecord(x: unknown): Record<string, unknown> | null {
  return x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
}

function parseOutcome(x: unknown): Outcome | null {
  if (x === undefined || x === null) return "YES";
  return x === "YES" || x === "NO" ? x : null;
}

function parseMarketIds(x: unknown, channel: "market"): Parsed<string[]> {
  if (!Array.isArray(x) || x.length === 0) return invalid("marketIds must be a non-empty array of market ids", channel);
  // Cheap size check before looking at elements.
  if (x.length > MAX_MARKET_SUBSCRIPTIONS)
    return {
      ok: false,
      error: { type: "error", code: "LIMIT_EXCEEDED", message: `At most ${MAX_MARKET_SUBSCRIPTIONS} markets per connection`, channel },
    };
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const id of x) {
    if (typeof id !== "string" || !MARKET_ID_RE.test(id)) return invalid("marketIds must be a non-empty array of market ids", channel);
    if (!seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  return { ok: true, value: ids };
}

/** A book channel (subscribe and unsubscribe name it the same way). */
function parseBook(p: Record<string, unknown>): Parsed<{ channel: "book"; marketId: string; outcome: Outcome }> {
  const outcome = parseOutcome(p.outcome);
  if (typeof p.marketId !== "string" || !MARKET_ID_RE.test(p.marketId)) return invalid("marketId must be a market id", "book");
  if (!outcome) return invalid('outcome must be "YES" or "NO"', "book");
  return { ok: true, value: { channel: "book", marketId: p.marketId, outcome } };
}

export function parseSubscribe(payload: unknown): Parsed<Subscription> {
  const p = asRecord(payload);
  if (!p) return invalid("subscribe needs an object payload with a channel");
  switch (p.channel) {
    case "market": {
      const ids = parseMarketIds(p.marketIds, "market");
      return ids.ok ? { ok: true, value: { channel: "market", marketIds: ids.value } } : ids;
    }
    case "book":
      return parseBook(p);
    case "user":
      if (typeof p.token !== "string" || p.token.length === 0 || p.token.length > MAX_TOKEN_LENGTH)
        return { ok: false, error: { type: "error", code: "UNAUTHORIZED", message: "A valid access token is required", channel: "user" } };
      return { ok: true, value: { channel: "user", token: p.token } };
    default:
      return invalid('channel must be "market", "book" or "user"');
  }
}

export function parseUnsubscribe(payload: unknown): Parsed<Unsubscription> {
  const p = asRecord(payload);
  if (!p) return invalid("unsubscribe needs an object payload with a channel");
  switch (p.channel) {
    case "market": {
      if (p.marketIds === undefined || p.marketIds === null) return { ok: true, value: { channel: "market", marketIds: null } };
      const ids = parseMarketIds(p.marketIds, "market");
      return ids.ok ? { ok: true, value: { channel: "market", marketIds: ids.value } } : ids;
    }
    case "book":
      return parseBook(p);
    case "user":
      return { ok: true, value: { channel: "user" } };
    default:
      return invalid('channel must be "market", "book" or "user"');
  }
}

/** "0.55" -> "0.45": the NO view's price of a YES level. */
function mirrorPrice(price: string): string {
  const tick = Math.round(Number(price) * 100);
  return ((100 - tick) / 100).toFixed(2);
}

/**
 * The NO view of the YES levels: a YES ask at p is a NO bid at 1-p and vice versa, so the top 10
 * of each NO side is exactly the mirrored top 10 of the opposite YES side.
 */
export function noView(yes: BookLevels): BookLevels {
  const m = (l: Level): Level => ({ price: mirrorPrice(l.price), quantity: l.quantity, numOrders: l.numOrders });
  return { bids: yes.asks.map(m), asks: yes.bids.map(m) };
}

export const rooms = {
  market: (marketId: string) => `m:${marketId}`,
  book: (marketId: string, outcome: Outcome) => `b:${marketId}:${outcome}`,
  user: (userId: string) => `u:${userId}`,
};
