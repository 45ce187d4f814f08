import { isLotQuantity, LOT } from "../engine/money";
import type { Outcome, Side } from "../engine/types";
import type { IdemKey, RouteExecution, RouteRequest } from "../models/trading";
import type { Checked } from "../lib/order-rules";

/** A market order's quantity (digits, checked by the validator): whole lots. */
function checkTradeQuantity(raw: string): Checked<number> {
  const q = Number(raw);
  if (!isLotQuantity(q))
    return {
      ok: false,
      message: `quantity must be a positive multiple of ${LOT} micro-units`,
      fields: [{ field: "quantity", rule: "lot" }],
    };
  return { ok: true, value: q };
}

/**
 * The market order a trade request asks for (POST /trade/amm, POST /trade/market, a quote): the
 * body's quantity (digits) as whole lots, or why it is refused.
 */
export function marketOrderOf(
  userId: string,
  body: { marketId: string; side: Side; outcome: Outcome; quantity: string },
  mode: RouteRequest["mode"],
  idem?: IdemKey,
): Checked<RouteRequest> {
  const q = checkTradeQuantity(body.quantity);
  if (!q.ok) return q;
  const { marketId, side, outcome } = body;
  return { ok: true, value: { marketId, userId, side, outcome, quantity: q.value, mode, ...(idem ? { idem } : {}) } };
}

/** The contract's trade execution response. */
export function tradeView(r: RouteExecution) {
  return {
    tradeId: r.tradeId,
    venue: r.venue,
    filledQuantity: String(r.filledQuantity),
    avgPrice: r.avgPrice,
    totalCost: String(r.totalCost),
    fee: String(r.fee),
  };
}
