import BookService from "../../services/book.service";
import { MARKET_ACTIONS } from "../../mixins/market-routing.middleware";

/**
 * Every book action that takes a market id runs on that market's actor, so MarketRouting must send
 * it to the owner: one left out reaches a random engine (a needless MARKET_MOVED, or worse, a node
 * that forwards it again).
 */
describe("market routing covers the book's market actions", () => {
  test("each action whose params require a marketId is routed by it", () => {
    const actions = (BookService as unknown as { actions: Record<string, { params?: Record<string, unknown> }> }).actions;
    const takesMarket = Object.entries(actions)
      .filter(([, a]) => {
        const m = a.params?.marketId as { optional?: boolean } | string | undefined;
        return m !== undefined && !(typeof m === "object" && m.optional);
      })
      .map(([name]) => `book.${name}`)
      .sort();
    expect(takesMarket.length).toBeGreaterThan(5);
    expect(takesMarket.filter((n) => !MARKET_ACTIONS.has(n))).toEqual([]);
  });
});
