import type { Order, RestingOrder } from "../engine/types";
import { placementLock, releaseResting, restingHolds, settlePlacement } from "../engine/settlement";
import type { OrderStatus, PlaceResult } from "../models/trading";
import { amendMustRest, checkAdmitted, tradingPaused } from "./trading-modes";
import { Refusal } from "../engine/refusal";
import type { TradingCode } from "./refusals";
import type { AmendCommand } from "./commands";
import { fillsOf, negate, requireOpen, type CommandPlan, type MarketView } from "./plan";

/** The order being amended and its new terms. */
interface Amend {
  o: RestingOrder;
  price: number;
  remaining: number;
  filledBefore: number;
  postOnly?: boolean;
  base: Pick<PlaceResult, "orderId" | "createdAt" | "fills" | "tradeId" | "totalCost" | "fee" | "cancelledQuantity">;
}

/**
 * Amend a resting order atomically under the same id: a lower quantity at the same price keeps
 * its time priority; a new price or a higher quantity is a cancel and a new placement (which may
 * execute at once, like any new order). Checked like a new order; refused, nothing changes. Terms
 * that are the order's own commit nothing: the answer is `unchanged`.
 */
export function planAmend(view: MarketView, cmd: AmendCommand): { unchanged: PlaceResult } | CommandPlan<PlaceResult> {
  requireOpen(view, "; orders cannot be amended");
  checkAdmitted(view.mode, "amend");
  const o = view.book.getOrder(cmd.orderId);
  if (!o || o.userId !== cmd.userId) throw new Refusal<TradingCode>("not_found", "ORDER_NOT_FOUND", "Order not found");
  const a: Amend = {
    o,
    price: cmd.price ?? o.price,
    remaining: cmd.quantity ?? o.remaining,
    filledBefore: o.quantity - o.remaining,
    postOnly: cmd.postOnly,
    base: { orderId: o.orderId, createdAt: view.now, fills: [], tradeId: null, totalCost: 0, fee: 0, cancelledQuantity: 0 },
  };
  if (a.price === o.price && a.remaining === o.remaining) {
    const status = a.filledBefore ? "partially_filled" : "open";
    return { unchanged: { ...a.base, status, filledQuantity: 0, remainingQuantity: a.remaining } as PlaceResult };
  }
  if (a.price === o.price && a.remaining < o.remaining) return amendDown(view, a);
  return amendReplace(view, a);
}

/** Down in place: priority kept, the difference released. */
function amendDown(view: MarketView, { o, price, remaining, filledBefore, base }: Amend): CommandPlan<PlaceResult> {
  const release = releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees);
  // What the smaller rest holds, taken back: exactly a resting order's hold (no taker fee).
  const hold = releaseResting(o.side, o.outcome, o.price, remaining, view.marketId, o.userId, view.fees).map(negate);
  const status: OrderStatus = filledBefore ? "partially_filled" : "open";
  const change = {
    orderId: o.orderId,
    userId: o.userId,
    filledDelta: 0,
    remaining,
    status,
    holds: restingHolds(o.side, o.price, remaining, view.fees),
    quantity: filledBefore + remaining,
  };
  return {
    value: { ...base, status, filledQuantity: 0, remainingQuantity: remaining } as PlaceResult,
    command: { type: "amend", orderId: o.orderId, userId: o.userId, price, quantity: remaining, keepsPriority: true },
    settlement: { postings: [...release, ...hold], trades: [], fills: [], orders: [change] },
    bookSeq: view.book.seq,
    apply: (book) => void book.reduce(o.orderId, o.userId, remaining),
  };
}

/** The new terms previewed in place of the old rest; refused when they may not execute at once. */
function previewReplacement(view: MarketView, a: Amend, order: Order) {
  const crosses = view.book.crosses(order, a.o.orderId);
  if (a.postOnly && crosses)
    throw new Refusal<TradingCode>(
      "rejected",
      "POST_ONLY_WOULD_CROSS",
      "The amended post-only order would execute at once; the order stands unchanged",
    );
  if (amendMustRest(view.mode.mode) && crosses) throw tradingPaused(view.mode, "an amend that would execute at once");
  const events = view.book.preview(order, { replacing: true });
  const rejected = events.find((e) => e.type === "rejected");
  if (rejected && rejected.type === "rejected")
    throw new Refusal<TradingCode>("rejected", "ORDER_REJECTED", `Amend rejected: ${rejected.reason}`);
  return events;
}

/** Priority lost: the old rest is cancelled and the new terms placed under the same id. */
function amendReplace(view: MarketView, a: Amend): CommandPlan<PlaceResult> {
  const { o, price, remaining, filledBefore } = a;
  const order: Order = {
    orderId: o.orderId,
    userId: o.userId,
    side: o.side,
    outcome: o.outcome,
    price,
    quantity: remaining,
    orderType: "GTC",
  };
  const events = previewReplacement(view, a, order);
  const release = releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees);
  const lock = placementLock(order, view.marketId, o.userId, view.fees);
  // The first event is the old rest's cancel (accounted for above); the rest is a new placement.
  const s = settlePlacement(view.marketId, order, events.slice(1), view.fees, view.newId);
  const mine = s.orders.find((c) => c.orderId === o.orderId);
  if (mine) {
    const filled = filledBefore + mine.filledDelta;
    mine.quantity = filledBefore + remaining;
    mine.price = price;
    mine.prio = events[1].seq;
    if (mine.status === "open" && filled > 0) mine.status = "partially_filled";
  }
  const takerTrade = s.trades.find((t) => t.role === "taker");
  return {
    value: {
      ...a.base,
      status: mine?.status ?? "open",
      filledQuantity: takerTrade?.filledQuantity ?? 0,
      remainingQuantity: mine?.remaining ?? 0,
      totalCost: takerTrade?.totalCost ?? 0,
      fee: takerTrade?.fee ?? 0,
      tradeId: takerTrade?.tradeId ?? null,
      fills: fillsOf(events),
    } as PlaceResult,
    command: { type: "amend", orderId: o.orderId, userId: o.userId, price, quantity: remaining, keepsPriority: false },
    settlement: { ...s, postings: [...release, ...lock, ...s.postings] },
    bookSeq: events[events.length - 1].seq,
    checkAfter: release.length + lock.length,
    apply: (book) => {
      book.cancel(o.orderId, o.userId);
      book.place(order);
      // The order keeps its fills: its size is what it filled before plus its new rest.
      book.setQuantity(o.orderId, filledBefore + remaining);
    },
  };
}
