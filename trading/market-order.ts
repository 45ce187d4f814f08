import { isLotQuantity, LOT } from "../engine/money";
import type { Outcome, Side } from "../engine/types";
import type { IdemKey } from "../models/trading";
import type { RouteCommand, RouteExecution } from "./market-actor";
import type { Checked } from "./order-rules";

/** Body of POST /trade/amm and POST /trade/market (quantity as a string of micro-units). */
export interface MarketTradeParams {
  marketId: string;
  side: Side;
  outcome: Outcome;
  quantity: string;
}

/** `book.route` and `book.quote`: a market order for the market's actor (the request's key with `route`). */
export type RouteRequest = Omit<RouteCommand, "idem"> & { marketId: string; idem?: IdemKey };

/** A market order's quantity (digits, checked by the validator): whole lots. */
export function checkTradeQuantity(raw: string): Checked<number> {
  const q = Number(raw);
  if (!isLotQuantity(q))
    return {
      ok: false,
      message: `quantity must be a positive multiple of ${LOT} micro-units`,
      fields: [{ field: "quantity", rule: "lot" }],
    };
  return { ok: true, value: q };
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
