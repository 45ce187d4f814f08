import type { OrderChange } from "../engine/settlement";
import type { JournaledOrder, LedgerEntryDoc, OrderDoc, TradeDoc } from "../models/trading";

/**
 * The read models (orders, trades) as a pure function of journal entries: what the store writes in
 * the same transaction as the entry, and what full verification replays to check the stored rows.
 */
export type ReadModelOp =
  | { op: "insertOrder"; order: OrderDoc }
  | { op: "changeOrder"; change: OrderChange; seq: number; at: string }
  | { op: "insertTrade"; trade: TradeDoc }
  | { op: "settleTrades"; tradeIds: string[]; status: "confirmed" | "failed"; txHash: string | null };

export function projectEntry(doc: LedgerEntryDoc): ReadModelOp[] {
  const ops: ReadModelOp[] = [];
  const b = doc.book;
  // Orders a command placed (one, or a mass quote's set), then every order change it made.
  if (b?.command.type === "place") ops.push({ op: "insertOrder", order: placedOrderDoc(b.command.order, b.marketId, doc.seq) });
  else if (b?.command.type === "quotes")
    for (const o of b.command.orders) ops.push({ op: "insertOrder", order: placedOrderDoc(o, b.marketId, doc.seq) });
  for (const c of b?.orders ?? []) ops.push({ op: "changeOrder", change: c, seq: doc.seq, at: doc.at });
  for (const t of doc.trades ?? [])
    ops.push({
      op: "insertTrade",
      trade: { ...t, _id: t.tradeId, settlementStatus: "pending", settlementTxHash: null, createdAt: doc.at },
    });
  if (doc.settlement)
    ops.push({ op: "settleTrades", tradeIds: doc.settlement.tradeIds, status: doc.settlement.status, txHash: doc.settlement.txHash });
  return ops;
}

/** The row of an order as its placement was journaled (before the changes its command made). */
function placedOrderDoc(o: JournaledOrder, marketId: string, seq: number): OrderDoc {
  return {
    _id: o.orderId,
    userId: o.userId,
    marketId,
    side: o.side,
    outcome: o.outcome,
    orderType: o.orderType,
    price: o.price,
    quantity: o.quantity,
    filledQuantity: 0,
    remaining: o.quantity,
    cancelledQuantity: 0,
    holds: 0,
    status: "open",
    cancelReason: null,
    clientOrderId: o.clientOrderId ?? null,
    expiresAt: o.expiresAt ?? null,
    postOnly: o.postOnly ?? false,
    cancelOnPause: o.cancelOnPause ?? false,
    quote: o.quote ?? false,
    ...(o.orderGroupId ? { orderGroupId: o.orderGroupId } : {}),
    prio: o.prio,
    seq,
    createdAt: o.createdAt,
    updatedAt: o.createdAt,
  };
}

/** An order row after a change (the same arithmetic the store does in SQL). */
export function applyOrderChange(o: OrderDoc, c: OrderChange, seq: number, at: string): void {
  if (c.quantity !== undefined) o.quantity = c.quantity;
  if (c.price !== undefined) o.price = c.price;
  if (c.prio !== undefined) o.prio = c.prio;
  o.filledQuantity += c.filledDelta;
  o.remaining = c.remaining;
  o.cancelledQuantity = o.quantity - o.filledQuantity - o.remaining;
  o.holds = c.holds;
  o.status = c.status;
  if (c.reason) o.cancelReason = c.reason;
  o.seq = seq;
  o.updatedAt = at;
}
