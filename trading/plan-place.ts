import type { BookEvent, Order } from "../engine/types";
import { placementLock, settlePlacement, type Settlement } from "../engine/settlement";
import type { PlaceResult } from "../models/trading";
import { checkAdmitted } from "./trading-modes";
import { Refusal } from "../engine/refusal";
import type { TradingCode } from "./refusals";
import type { PlaceCommand } from "./commands";
import { fillsOf, requireOpen, type CommandPlan, type MarketView } from "./plan";

/** The order a placement adds (its id drawn here). */
function newOrder(view: MarketView, cmd: PlaceCommand): Order {
  return {
    orderId: view.newId("ord"),
    userId: cmd.userId,
    side: cmd.side,
    outcome: cmd.outcome,
    price: cmd.price,
    quantity: cmd.quantity,
    orderType: cmd.orderType,
  };
}

/** Matched on a preview: the book changes only once the ledger took the money. */
function previewPlacement(view: MarketView, order: Order, postOnly?: boolean) {
  // A post-only order only adds liquidity: meeting anything resting at once refuses it whole.
  if (postOnly && view.book.crosses(order))
    throw new Refusal<TradingCode>("rejected", "POST_ONLY_WOULD_CROSS", "A post-only order may not execute at once; nothing was placed");
  const events = view.book.preview(order);
  const rejected = events.find((e) => e.type === "rejected");
  if (rejected && rejected.type === "rejected") {
    if (rejected.reason === "FOK_NOT_FILLED")
      throw new Refusal<TradingCode>(
        "rejected",
        "FOK_NOT_FILLED",
        "Not enough liquidity to fill the whole FOK order at this price; nothing was executed",
      );
    throw new Refusal<TradingCode>("rejected", "ORDER_REJECTED", `Order rejected: ${rejected.reason}`);
  }
  return events;
}

/** A placement's answer from its events and settlement. */
export function placedResult(order: Order, events: BookEvent[], s: Settlement, now: string): PlaceResult {
  const mine = s.orders.find((o) => o.orderId === order.orderId);
  const takerTrade = s.trades.find((t) => t.role === "taker");
  const filled = takerTrade?.filledQuantity ?? 0;
  return {
    orderId: order.orderId,
    status: mine?.status ?? "open",
    filledQuantity: filled,
    remainingQuantity: mine?.remaining ?? 0,
    cancelledQuantity: mine && mine.status === "cancelled" ? order.quantity - filled : 0,
    totalCost: takerTrade?.totalCost ?? 0,
    fee: takerTrade?.fee ?? 0,
    tradeId: takerTrade?.tradeId ?? null,
    fills: fillsOf(events),
    createdAt: now,
  };
}

/**
 * A new limit order: checked against the market's status and mode, matched on a preview, and its
 * placement lock, fills and rest as one entry.
 */
export function planPlace(view: MarketView, cmd: PlaceCommand): CommandPlan<PlaceResult> {
  requireOpen(view, "; orders are not accepted");
  checkAdmitted(view.mode, cmd.postOnly && (cmd.orderType === "GTC" || cmd.orderType === "GTD") ? "placePostOnly" : "place");
  const order = newOrder(view, cmd);
  const events = previewPlacement(view, order, cmd.postOnly);
  const lock = placementLock(order, view.marketId, order.userId, view.fees);
  const s = settlePlacement(view.marketId, order, events, view.fees, view.newId);
  const value = placedResult(order, events, s, view.now);
  const placed = {
    ...order,
    createdAt: view.now,
    prio: events[0].seq,
    ...(cmd.clientOrderId ? { clientOrderId: cmd.clientOrderId } : {}),
    ...(cmd.expiresAt ? { expiresAt: cmd.expiresAt } : {}),
    ...(cmd.postOnly ? { postOnly: true } : {}),
    ...(cmd.cancelOnPause ? { cancelOnPause: true } : {}),
    ...(cmd.orderGroupId ? { orderGroupId: cmd.orderGroupId } : {}),
  };
  return {
    value,
    command: { type: "place", order: placed },
    settlement: { ...s, postings: [...lock, ...s.postings] },
    bookSeq: events[events.length - 1].seq,
    checkAfter: lock.length,
    apply: (book) => void book.place(order),
  };
}
