import { isLotQuantity, LOT } from "../engine/money";
import { validationError } from "../lib/errors";
import type { Outcome, Side } from "../engine/types";
import type { RouteExecution } from "./market-actor";

/** Body of POST /trade/amm and POST /trade/market (quantity as a string of micro-units). */
export interface MarketTradeParams {
  marketId: string;
  side: Side;
  outcome: Outcome;
  quantity: string;
}

export function parseTradeQuantity(raw: string): number {
  const q = Number(raw);
  if (!isLotQuantity(q)) throw validationError(`quantity must be a positive multiple of ${LOT} micro-units`, [{ field: "quantity", rule: "lot" }]);
  return q;
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
