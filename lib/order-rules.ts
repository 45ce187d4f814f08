/**
 * The rules of an order's terms (../shared/spec/api-spec.md POST /orders and trading-api.md):
 * one place for them, shared by POST /orders, the batch and the amend. Pure: the service turns a
 * refusal into the contract's 400 VALIDATION_ERROR with the fields named.
 */
import { isLotQuantity, LOT, priceToTick } from "../engine/money";
import type { OrderType, Outcome, Side } from "../engine/types";
import type { FieldError } from "../engine/refusal";

/** A GTD deadline: at least this far ahead, at most a year. */
const GTD_MIN_AHEAD_MS = 5_000;
const GTD_MAX_AHEAD_MS = 365 * 24 * 3600 * 1000;
export const CLIENT_ORDER_ID = /^[A-Za-z0-9._:-]{1,64}$/;
export const MAX_BATCH = 20;
/** Quotes in one mass quote (POST /quotes). */
export const MAX_QUOTES = 20;

/**
 * An order's terms, the one shape from the request to the market's actor: as POST /orders' body
 * (the validator checked the types, `price` a decimal) until `checkOrder` makes them the checked
 * terms (`price` a tick, `postOnly` set, `expiresAt` normalized); models/trading.ts's PlaceTerms
 * adds the user and the Idempotency-Key.
 */
export interface OrderTerms {
  marketId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  /** Tick 1..99 once checked (a decimal 0.01..0.99 in the request's body). */
  price: number;
  quantity: number;
  expiresAt?: string;
  postOnly?: boolean;
  clientOrderId?: string;
  /** Cancelled (reason `paused`) when its market leaves the normal trading mode. */
  cancelOnPause?: boolean;
  /** An order group of the caller (admitted by the ledger before the order is placed). */
  orderGroupId?: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string; fields: FieldError[] };

const refuse = <T>(message: string, field: string, rule: string): Checked<T> => ({ ok: false, message, fields: [{ field, rule }] });

/** Price on the cent grid, quantity in whole lots. */
export function checkPriceAndQuantity(
  price: number | undefined,
  quantity: number | undefined,
): Checked<{ tick?: number; quantity?: number }> {
  let tick: number | undefined;
  if (price !== undefined) {
    const t = priceToTick(price);
    if (t === null) return refuse("price must be on the 0.01 grid between 0.01 and 0.99", "price", "tick");
    tick = t;
  }
  if (quantity !== undefined && !isLotQuantity(quantity))
    return refuse(`quantity must be a positive multiple of ${LOT} micro-units`, "quantity", "lot");
  return { ok: true, value: { tick, quantity } };
}

/** The whole order: price and lot, GTD's deadline, post-only's order types, the client id's form. */
export function checkOrder(p: OrderTerms, nowMs: number): Checked<OrderTerms> {
  const pq = checkPriceAndQuantity(p.price, p.quantity);
  if (!pq.ok) return pq;
  if (p.orderType === "GTD") {
    if (p.expiresAt === undefined) return refuse("expiresAt is required for a GTD order", "expiresAt", "required");
    const at = Date.parse(p.expiresAt);
    if (!Number.isFinite(at) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(p.expiresAt))
      return refuse("expiresAt must be an ISO 8601 date and time", "expiresAt", "date");
    if (at < nowMs + GTD_MIN_AHEAD_MS) return refuse("expiresAt must be at least 5 seconds ahead", "expiresAt", "dateMin");
    if (at > nowMs + GTD_MAX_AHEAD_MS) return refuse("expiresAt must be at most 365 days ahead", "expiresAt", "dateMax");
  } else if (p.expiresAt !== undefined) return refuse("expiresAt is only for GTD orders", "expiresAt", "forbidden");
  if (p.postOnly && p.orderType !== "GTC" && p.orderType !== "GTD")
    return refuse("postOnly is only for GTC and GTD orders", "postOnly", "forbidden");
  if (p.clientOrderId !== undefined && !CLIENT_ORDER_ID.test(p.clientOrderId))
    return refuse("clientOrderId is 1 to 64 of A-Z a-z 0-9 . _ : -", "clientOrderId", "stringPattern");
  return {
    ok: true,
    value: {
      marketId: p.marketId,
      side: p.side,
      outcome: p.outcome,
      orderType: p.orderType,
      price: pq.value.tick as number,
      quantity: p.quantity,
      ...(p.orderType === "GTD" ? { expiresAt: new Date(Date.parse(p.expiresAt as string)).toISOString() } : {}),
      postOnly: !!p.postOnly,
      ...(p.clientOrderId !== undefined ? { clientOrderId: p.clientOrderId } : {}),
      ...(p.cancelOnPause ? { cancelOnPause: true } : {}),
      ...(p.orderGroupId ? { orderGroupId: p.orderGroupId } : {}),
    },
  };
}

/** Heartbeat timeouts: 0 disarms, else 5 to 300 seconds. */
export function checkHeartbeat(timeoutSeconds: number): Checked<number> {
  if (timeoutSeconds === 0 || (timeoutSeconds >= 5 && timeoutSeconds <= 300)) return { ok: true, value: timeoutSeconds };
  return refuse("timeoutSeconds is 0 (disarm) or 5 to 300", "timeoutSeconds", timeoutSeconds < 5 ? "numberMin" : "numberMax");
}

/** An order group's rolling fill window: 1 to 3600 seconds, 15 when not given. */
export const ORDER_GROUP_WINDOW_SECONDS = { min: 1, max: 3600, default: 15 } as const;
