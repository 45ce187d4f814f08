/** The ledger's answers in the contract's wire shape: amounts as digit strings. */
import type { Model, SocketModel } from "../contract";
import type { PositionState } from "../engine/accounts";
import { formatAvgPrice } from "../engine/money";
import { tradeRecordView } from "../engine/settlement";
import type { TradeDoc, MoneyCheck } from "../models/trading";

export function balanceView(b: { available: number; locked: number; total: number }): Model<"Balance"> {
  return { available: String(b.available), locked: String(b.locked), total: String(b.total) };
}

/** A trade as GET /trades lists it. */
export function tradeView(t: TradeDoc): Model<"Trade"> {
  return {
    id: t._id,
    ...tradeRecordView(t),
    settlementStatus: t.settlementStatus,
    settlementTxHash: t.settlementTxHash,
    createdAt: t.createdAt,
  };
}

/** A position as the user channel pushes it after a change. */
export function positionChangeView(p: PositionState): SocketModel<"PositionUpdate"> {
  return {
    marketId: p.marketId,
    outcome: p.outcome,
    quantity: String(p.quantity),
    avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity),
    totalCost: String(p.totalCost),
    realizedPnl: String(p.realizedPnl),
  };
}

/** What a failed money check found, for the message that stops the start (a few of each kind). */
export function moneyCheckProblems(check: MoneyCheck): string[] {
  const what = [
    ...check.badOrders
      .slice(0, 3)
      .map((o) => `order ${o.orderId} holds filled ${o.filled} + open ${o.remaining} + cancelled ${o.cancelled} of ${o.quantity}`),
    ...check.badLocks
      .slice(0, 3)
      .map(
        (l) =>
          `account ${l.account}${l.marketId ? ` ${l.marketId} ${l.outcome}` : ""} has ${l.locked} locked while its open orders hold ${l.heldByOrders}`,
      ),
    ...check.badPositions.slice(0, 3).map((p) => `market ${p.marketId} position ${p.position} ${p.problem}`),
    ...(check.unbalancedMarkets.length
      ? [`markets whose shares and collateral disagree: ${check.unbalancedMarkets.slice(0, 5).join(", ")}`]
      : []),
    ...(check.uncoveredConversions ?? [])
      .slice(0, 3)
      .map((c) => `${c.account} has ${c.cash} of cash, ${c.cover} with what its NO shares are guaranteed to pay: below zero`),
  ];
  if (!what.length)
    what.push(
      `conservation does not hold: cash ${check.cash} + collateral ${check.collateral} + fees ${check.fees} != deposits ${check.deposits} - withdrawals ${check.withdrawals} + house ${check.house}`,
    );
  return what;
}
