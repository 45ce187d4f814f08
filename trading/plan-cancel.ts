import type { RestingOrder } from "../engine/book";
import type { Posting } from "../engine/accounts";
import { releaseResting, type CancelReasonCode } from "../engine/settlement";
import type { BookCommand, BookJournalDoc, CancelManyResult } from "../models/trading";
import { checkAdmitted } from "./trading-modes";
import { Refusal } from "../engine/refusal";
import type { TradingCode } from "./refusals";
import { releasedCash, type CommandPlan, type MarketView } from "./plan";

export interface CancelResult {
  orderId: string;
  status: "cancelled";
  cancelledQuantity: number;
  releasedAmount: number;
}

/** Cancel one resting order of `userId`; ORDER_NOT_FOUND for unknown or someone else's. */
export function planCancel(view: MarketView, orderId: string, userId: string, reason: CancelReasonCode): CommandPlan<CancelResult> {
  const o = view.book.getOrder(orderId);
  if (!o || o.userId !== userId) throw new Refusal<TradingCode>("not_found", "ORDER_NOT_FOUND", "Order not found");
  if (reason === "user") checkAdmitted(view.mode, "cancel");
  const postings = releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees);
  return {
    value: { orderId, status: "cancelled", cancelledQuantity: o.remaining, releasedAmount: releasedCash(o.side, postings) },
    command: { type: "cancel", orderId, userId },
    settlement: {
      postings,
      trades: [],
      fills: [],
      orders: [{ orderId, userId, filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason }],
    },
    bookSeq: view.book.seq + 1,
    apply: (book) => void book.cancel(orderId, userId),
  };
}

/** Cancel resting orders in one entry; the answer is the cash released to BUYs. */
export function planRelease(
  view: MarketView,
  targets: RestingOrder[],
  reason: CancelReasonCode,
  command: BookCommand,
): CommandPlan<number> {
  const postings: Posting[] = [];
  const orders: BookJournalDoc["orders"] = [];
  const status = reason === "expired" ? ("expired" as const) : ("cancelled" as const);
  let released = 0;
  for (const o of targets) {
    const p = releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees);
    postings.push(...p);
    released += releasedCash(o.side, p);
    orders.push({ orderId: o.orderId, userId: o.userId, filledDelta: 0, remaining: 0, status, holds: 0, reason });
  }
  return {
    value: released,
    command,
    settlement: { postings, trades: [], fills: [], orders },
    bookSeq: view.book.seq + targets.length,
    apply: (book) => {
      for (const o of targets) book.cancel(o.orderId, o.userId);
    },
  };
}

/**
 * Cancel some or all of a user's resting orders in one entry (cancel-all, a lapsed dead man's
 * switch, expiry). `orderIds` null: every one of the user's; ids not resting (or not the user's)
 * are skipped. Nothing to cancel: null (nothing changes).
 */
export function planCancelMany(
  view: MarketView,
  userId: string | null,
  orderIds: string[] | null,
  reason: CancelReasonCode,
): CommandPlan<CancelManyResult> | null {
  // A trader's cancel obeys the mode; the exchange's own (expiry, a lapsed heartbeat) always runs.
  if (reason === "user") checkAdmitted(view.mode, "cancel");
  const wanted = orderIds ? new Set(orderIds) : null;
  const targets = view.book.openOrders().filter((o) => (userId === null || o.userId === userId) && (!wanted || wanted.has(o.orderId)));
  if (!targets.length) return null;
  const plan = planRelease(view, targets, reason, { type: "cancelMany", userId: userId ?? "*", reason });
  return { ...plan, value: { cancelled: targets.map((o) => o.orderId), releasedAmount: plan.value } };
}

/** Market closed, cancelled or resolved: every resting order released in one entry; null when none rests. */
export function planHalt(view: MarketView, status: string): CommandPlan<number> | null {
  if (view.book.size === 0) return null;
  const reason: CancelReasonCode =
    status === "cancelled" ? "market_cancelled" : status === "resolved" ? "market_resolved" : "market_closed";
  const postings: Posting[] = [];
  const orders: BookJournalDoc["orders"] = [];
  for (const o of view.book.openOrders()) {
    postings.push(...releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees));
    orders.push({ orderId: o.orderId, userId: o.userId, filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason });
  }
  return {
    value: orders.length,
    command: { type: "cancelAll", reason },
    settlement: { postings, trades: [], fills: [], orders },
    bookSeq: view.book.seq + orders.length,
    apply: (book) => void book.cancelAll("MARKET_CLOSED"),
  };
}
