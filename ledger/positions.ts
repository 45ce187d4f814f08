/**
 * GET /positions: a user's open positions with a mark price. A resolved market pays 1.00 per
 * winning share and nothing per losing one: that is its mark; otherwise the mark is what selling
 * the position now would fetch (depth-aware, through the router, the user's own orders excluded).
 */
import type { PositionState } from "../engine/accounts";
import { formatAvgPrice } from "../engine/money";
import type { MarketTitle } from "../models/catalog";

export interface PositionMarkPorts {
  /** Titles (and status, result) of markets; an empty answer when the catalog cannot tell. */
  titles(marketIds: string[]): Promise<Record<string, MarketTitle>>;
  /** What selling `quantity` now would fetch; nothing filled when the book cannot tell. */
  exitQuote(p: {
    marketId: string;
    outcome: "YES" | "NO";
    quantity: number;
    userId: string;
  }): Promise<{ filled: number; proceeds: number }>;
}

const isOpen = (p: PositionState) => p.quantity > 0 && !p.settled;

/**
 * Positions of `status`: open ones (shares held) with a mark, closed ones (no shares left, or
 * settled) with their realized PnL and no mark; `all` both, in the ledger's order.
 */
export async function positionsView(
  userId: string,
  positions: readonly PositionState[],
  ports: PositionMarkPorts,
  status: "open" | "closed" | "all" = "open",
) {
  const chosen = positions.filter((p) => (status === "all" ? true : status === "open" ? isOpen(p) : !isOpen(p)));
  const markets = await ports.titles([...new Set(chosen.map((p) => p.marketId))]);
  return Promise.all(
    chosen.map(async (p) => {
      const m = markets[p.marketId];
      if (!isOpen(p))
        return {
          id: `${p.marketId}:${p.outcome}`,
          marketId: p.marketId,
          outcome: p.outcome,
          quantity: String(p.quantity),
          lockedQuantity: String(p.locked),
          avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity),
          totalCost: String(p.totalCost),
          realizedPnl: String(p.realizedPnl),
          status: p.settled ? ("settled" as const) : ("closed" as const),
          market: { id: p.marketId, title: m?.title ?? null },
          markPrice: null,
          unrealizedPnl: null,
        };
      const exit =
        m?.status === "resolved" && (m.result === "YES" || m.result === "NO")
          ? { filled: p.quantity, proceeds: m.result === p.outcome ? p.quantity : 0 }
          : m?.status === "resolved" && m.result === "SPLIT"
            ? { filled: p.quantity, proceeds: Math.floor(p.quantity / 2) }
            : await ports.exitQuote({ marketId: p.marketId, outcome: p.outcome, quantity: p.quantity, userId });
      const markPrice = exit.filled > 0 ? formatAvgPrice(exit.proceeds, exit.filled) : null;
      // unrealizedPnl = (mark - avgEntry) x quantity = mark x q - totalCost, exact in micro-units.
      const unrealized = exit.filled > 0 ? Number((BigInt(exit.proceeds) * BigInt(p.quantity)) / BigInt(exit.filled)) - p.totalCost : null;
      return {
        id: `${p.marketId}:${p.outcome}`,
        marketId: p.marketId,
        outcome: p.outcome,
        quantity: String(p.quantity),
        lockedQuantity: String(p.locked),
        avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity),
        totalCost: String(p.totalCost),
        realizedPnl: String(p.realizedPnl),
        status: "open" as const,
        market: { id: p.marketId, title: m?.title ?? null },
        markPrice,
        unrealizedPnl: unrealized === null ? null : String(unrealized),
      };
    }),
  );
}
