/** How an order ended (or stands), in words: every cancel reason the exchange gives, and any it adds later as given. */
import type { CancelReason, Order } from "@pmx/client/models";
import { shareCount } from "./format";

export const CANCEL_REASON_WORDS: Readonly<Record<CancelReason, string>> = {
  user: "cancelled by you",
  expired: "expired",
  heartbeat: "cancelled: heartbeat missed",
  self_trade: "cancelled: would have traded with your own order",
  market_closed: "cancelled: market closed",
  market_cancelled: "cancelled: market cancelled",
  market_resolved: "cancelled: market resolved",
  paused: "cancelled: trading paused",
  order_group: "cancelled: its order group's fill limit was reached",
};

type OrderFacts = Pick<Order, "status" | "filledQuantity" | "quantity" | "cancelReason" | "orderType">;

/** A reason the app does not know yet is shown as the server gave it (never "undefined"). */
export function cancelReasonWords(reason: string): string {
  return (CANCEL_REASON_WORDS as Record<string, string>)[reason] ?? `cancelled (${reason})`;
}

export function orderState(o: OrderFacts): string {
  if (o.status === "filled") return "filled";
  if (o.status === "open") return "open";
  if (o.status === "partially_filled") return `partly filled (${shareCount(o.filledQuantity)} of ${shareCount(o.quantity)})`;
  const why = o.cancelReason
    ? cancelReasonWords(o.cancelReason)
    : o.orderType === "FAK" || o.orderType === "FOK"
      ? "rest cancelled (fill and kill)"
      : o.status;
  const filled = BigInt(o.filledQuantity) > 0n ? `, ${shareCount(o.filledQuantity)} of ${shareCount(o.quantity)} filled` : "";
  return `${o.status === "expired" ? "expired" : why}${filled}`;
}
