/** Orders and books in the contract's wire shape: amounts as digit strings, prices as 2-decimal strings. */
import { formatAvgPrice, formatTick } from "../engine/money";
import { marginalPrice, type PoolState } from "../engine/amm";
import type { Model } from "../contract";
import type { Depth } from "../engine/types";
import type { OrderDoc, PlaceResult, TopOfBook } from "../models/trading";
import type { OrderTerms } from "../lib/order-rules";

/** The statuses an answer shows: a rejected order was refused with an error, never rendered. */
function shownStatus<S extends string>(s: S): Exclude<S, "rejected"> {
  if (s === "rejected") throw new Error("A rejected order is refused, never rendered");
  return s as Exclude<S, "rejected">;
}

/** An order as GET /orders lists it. */
export function orderView(o: OrderDoc): Model<"Order"> {
  return {
    id: o._id,
    orderId: o._id,
    marketId: o.marketId,
    side: o.side,
    outcome: o.outcome,
    orderType: o.orderType,
    price: formatTick(o.price),
    quantity: String(o.quantity),
    filledQuantity: String(o.filledQuantity),
    remainingQuantity: String(o.remaining),
    cancelledQuantity: String(o.cancelledQuantity),
    status: shownStatus(o.status),
    cancelReason: o.cancelReason,
    clientOrderId: o.clientOrderId,
    expiresAt: o.expiresAt,
    postOnly: o.postOnly,
    quote: !!o.quote,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

/** The answer of POST /orders (and of each order of a batch, of an amend, and of each quote of a mass quote: `quote`). */
export function placeView(t: OrderTerms, r: PlaceResult, quantity = t.quantity, quote = false): PlaceView {
  return {
    orderId: r.orderId,
    marketId: t.marketId,
    side: t.side,
    outcome: t.outcome,
    orderType: t.orderType,
    price: formatTick(t.price),
    quantity: String(quantity),
    status: shownStatus(r.status),
    filledQuantity: String(r.filledQuantity),
    remainingQuantity: String(r.remainingQuantity),
    cancelledQuantity: String(r.cancelledQuantity),
    cancelReason: null,
    avgPrice: r.filledQuantity ? formatAvgPrice(r.totalCost, r.filledQuantity) : null,
    totalCost: String(r.totalCost),
    fee: String(r.fee),
    tradeId: r.tradeId,
    fills: r.fills,
    clientOrderId: t.clientOrderId ?? null,
    expiresAt: t.expiresAt ?? null,
    postOnly: !!t.postOnly,
    quote,
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
  };
}

/** A placed (or amended) order: the contract's PlacedOrder. */
export type PlaceView = Model<"PlacedOrder">;

/** Aggregated price levels as the contract shows them (prices as 2-decimal strings, quantities as digit strings). */
export function levelView(d: Depth): Model<"OrderBook"> {
  const v = (l: { price: number; quantity: number; numOrders: number }) => ({
    price: formatTick(l.price),
    quantity: String(l.quantity),
    numOrders: l.numOrders,
  });
  return { bids: d.bids.map(v), asks: d.asks.map(v) };
}

export function poolYesPrice(pool: PoolState): { num: string; den: string } {
  const f = marginalPrice(pool, "YES");
  return { num: f.num.toString(), den: f.den.toString() };
}

/** A market's top of book as its owner answers it; all null for a market not (yet) loaded. */
export function topOfBook(
  book: { best(outcome: "YES"): { bid: number | null; ask: number | null } } | undefined,
  pool: PoolState | null | undefined,
): TopOfBook {
  const b = book?.best("YES");
  return { yesBid: b?.bid ?? null, yesAsk: b?.ask ?? null, ammYes: pool ? poolYesPrice(pool) : null };
}
