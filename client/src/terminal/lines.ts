/** The lines several commands print for the same records: orders, transfers, books, quotes, pages. */
import type { Replayable } from "../client";
import { formatUnits } from "../money";
import type { Order, OrderBook, Outcome, Page, PlacedOrder, Side, Transfer } from "../models";
import { shares, table, usdt } from "./format";

export const replayedNote = (r: { replayed?: boolean }) => (r.replayed ? " (replayed: the first answer to this idempotency key)" : "");

/** One line for an order answer (placement or amend). */
export function orderLine(o: Replayable<PlacedOrder>, verb = ""): string {
  const filled =
    BigInt(o.filledQuantity) > 0n
      ? `, filled ${shares(o.filledQuantity)} at ${o.avgPrice} (cost ${usdt(o.totalCost)}, fee ${usdt(o.fee)})`
      : "";
  const cancelled = BigInt(o.cancelledQuantity) > 0n ? `, ${shares(o.cancelledQuantity)} cancelled` : "";
  const extras = [
    o.orderType !== "GTC" && o.orderType !== "FOK" ? o.orderType : "",
    o.postOnly ? "post-only" : "",
    o.expiresAt ? `expires ${o.expiresAt}` : "",
    o.clientOrderId ? `client id ${o.clientOrderId}` : "",
  ].filter(Boolean);
  return `Order ${o.orderId}${verb} ${o.status}: ${o.side} ${shares(o.quantity)} ${o.outcome} at ${o.price}${filled}; ${shares(o.remainingQuantity)} resting${cancelled}${extras.length ? ` [${extras.join(", ")}]` : ""}${replayedNote(o)}`;
}

export function orderStatusText(o: Order): string {
  return o.cancelReason ? `${o.status} (${o.cancelReason})` : o.status;
}

/** A transfer's amount in its own unit. */
export function transferAmount(t: Transfer): string {
  if (t.asset === "USDT") return usdt(t.amount);
  if (t.asset === "TON") return `${formatUnits(BigInt(t.amount), 9)} TON`;
  return `${t.amount} units${t.asset ? ` of ${t.asset}` : ""}`;
}

export function bookTable(book: OrderBook): string {
  const n = Math.max(book.bids.length, book.asks.length);
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) {
    const b = book.bids[i];
    const a = book.asks[i];
    rows.push([
      b ? String(b.numOrders) : "",
      b ? shares(b.quantity) : "",
      b ? b.price : "",
      a ? a.price : "",
      a ? shares(a.quantity) : "",
      a ? String(a.numOrders) : "",
    ]);
  }
  if (!rows.length) return "(the book is empty)";
  return table(["orders", "bid shares", "bid", "ask", "ask shares", "orders"], rows, new Set([0, 1, 2, 4, 5]));
}

export function quoteLine(
  side: Side,
  outcome: Outcome,
  q: bigint,
  quote: { estimatedPrice: string; estimatedCost: string; source: string; fee: string },
): string {
  const money =
    side === "BUY"
      ? `cost ${usdt(quote.estimatedCost)} + fee ${usdt(quote.fee)}`
      : `proceeds ${usdt(quote.estimatedCost)} - fee ${usdt(quote.fee)}`;
  return `Quote: ${side} ${shares(q)} ${outcome} at about ${quote.estimatedPrice} each via ${quote.source}: ${money}`;
}

/** Where a page of a list stands: "page 2, 20 of 57 (more with --page)". */
export function pageLine(page: Page<unknown>): string {
  const p = page.pagination;
  return `page ${p.page}, ${page.items.length} of ${p.total}${p.hasNext ? " (more with --page)" : ""}`;
}
