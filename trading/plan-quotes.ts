import { OrderBook } from "../engine/book";
import type { BookEvent, Order, RestingOrder } from "../engine/types";
import type { Posting } from "../engine/accounts";
import { placementLock, releaseResting, settlePlacement, type OrderChange, type Settlement } from "../engine/settlement";
import { invalid, Refusal } from "../engine/refusal";
import type { JournaledOrder, QuoteSetResult, QuoteTerm } from "../models/trading";
import { checkAdmitted } from "./trading-modes";
import type { TradingCode } from "./refusals";
import { releasedCash, requireOpen, type CommandPlan, type MarketView } from "./plan";
import { placedResult } from "./plan-place";

/** A mass quote for the market's actor: the checked quotes and the user's quote orders resting now. */
export interface QuotesCommand {
  userId: string;
  quotes: QuoteTerm[];
  postOnly: boolean;
  /** The order group each quote order joins (journaled with its placement). */
  orderGroupId?: string;
  /** The user's previous quote set (ids of orders that may have left the book since are skipped). */
  previous: string[];
}

/** YES-view side and tick: BUY YES t and SELL NO 100-t bid at t; SELL YES t and BUY NO 100-t ask at t. */
function yesView(q: QuoteTerm): { bid: boolean; tick: number } {
  return { bid: (q.side === "BUY") === (q.outcome === "YES"), tick: q.outcome === "YES" ? q.price : 100 - q.price };
}

/** A set whose own bids meet its own asks would trade with itself: refused whole. */
function checkNotSelfCrossing(quotes: QuoteTerm[]): void {
  let bestBid = 0;
  let bestAsk = 100;
  for (const q of quotes) {
    const v = yesView(q);
    if (v.bid) bestBid = Math.max(bestBid, v.tick);
    else bestAsk = Math.min(bestAsk, v.tick);
  }
  if (bestBid >= bestAsk)
    throw invalid(`The quotes would trade with each other (a bid at ${bestBid} meets an ask at ${bestAsk} in YES terms)`, [
      { field: "quotes", rule: "crossed" },
    ]);
}

/**
 * Where the set is run before the book moves: an empty book on the same event clock when no quote
 * meets anything resting (each quote then only rests, and a copy of a deep book is not needed), else
 * a copy of the book with the previous set cancelled first.
 */
function scratchBook(view: MarketView, previous: RestingOrder[], orders: Order[]): OrderBook {
  if (!orders.some((o) => view.book.crosses(o))) return new OrderBook(view.marketId, { startSeq: view.book.seq + previous.length });
  const scratch = view.book.copy();
  for (const o of previous) scratch.cancel(o.orderId, o.userId);
  return scratch;
}

function placeOnScratch(scratch: OrderBook, order: Order, postOnly: boolean): BookEvent[] {
  if (postOnly && scratch.crosses(order))
    throw new Refusal<TradingCode>("rejected", "POST_ONLY_WOULD_CROSS", "A post-only quote would execute at once; no quote was placed");
  const events = scratch.place(order);
  const rejected = events.find((e) => e.type === "rejected");
  if (rejected && rejected.type === "rejected")
    throw new Refusal<TradingCode>("rejected", "ORDER_REJECTED", `Quote rejected: ${rejected.reason}`);
  return events;
}

/**
 * A mass quote (POST /quotes): the user's previous quote set is cancelled and the new quotes are
 * placed as GTC orders, in request order, as ONE command and one ledger entry: every placement lock
 * together after the previous set's releases (the whole set must be affordable), then the fills of
 * each quote. Any quote refused refuses the whole set; the previous set then stands.
 */
export function planQuotes(view: MarketView, cmd: QuotesCommand): CommandPlan<QuoteSetResult> {
  requireOpen(view, "; quotes are not accepted");
  checkAdmitted(view.mode, cmd.postOnly ? "placePostOnly" : "place");
  checkNotSelfCrossing(cmd.quotes);
  const previous = cmd.previous.flatMap((id) => {
    const o = view.book.getOrder(id);
    return o && o.userId === cmd.userId ? [o] : [];
  });
  const orders: Order[] = cmd.quotes.map((q) => ({ ...q, orderId: view.newId("ord"), userId: cmd.userId, orderType: "GTC" }));
  const scratch = scratchBook(view, previous, orders);
  const placed = orders.map((order) => {
    const events = placeOnScratch(scratch, order, cmd.postOnly);
    return { order, events, s: settlePlacement(view.marketId, order, events, view.fees, view.newId) };
  });

  const releases: Posting[] = [];
  const cancels: OrderChange[] = [];
  let releasedAmount = 0;
  for (const o of previous) {
    const p = releaseResting(o.side, o.outcome, o.price, o.remaining, view.marketId, o.userId, view.fees);
    releases.push(...p);
    releasedAmount += releasedCash(o.side, p);
    cancels.push({ orderId: o.orderId, userId: o.userId, filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason: "user" });
  }
  const locks = orders.flatMap((o) => placementLock(o, view.marketId, o.userId, view.fees));
  const settlement: Settlement = {
    postings: [...releases, ...locks, ...placed.flatMap((p) => p.s.postings)],
    trades: placed.flatMap((p) => p.s.trades),
    fills: placed.flatMap((p) => p.s.fills),
    // The new orders' own changes last: a command split over entries keeps them in the last part,
    // which inserts the orders.
    orders: [
      ...cancels,
      ...placed.flatMap((p) => p.s.orders.filter((c) => c.orderId !== p.order.orderId)),
      ...placed.flatMap((p) => p.s.orders.filter((c) => c.orderId === p.order.orderId)),
    ],
  };
  const journaled: JournaledOrder[] = placed.map(({ order, events }) => ({
    ...order,
    createdAt: view.now,
    prio: events[0].seq,
    ...(cmd.postOnly ? { postOnly: true } : {}),
    ...(cmd.orderGroupId ? { orderGroupId: cmd.orderGroupId } : {}),
    quote: true,
  }));
  return {
    value: {
      cancelled: previous.map((o) => o.orderId),
      releasedAmount,
      orders: placed.map((p) => placedResult(p.order, p.events, p.s, view.now)),
    },
    command: { type: "quotes", userId: cmd.userId, cancelled: previous.map((o) => o.orderId), orders: journaled },
    settlement,
    bookSeq: scratch.seq,
    checkAfter: releases.length + locks.length,
    apply: (book) => {
      for (const o of previous) book.cancel(o.orderId, o.userId);
      for (const o of orders) book.place(o);
    },
  };
}
