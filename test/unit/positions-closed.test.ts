import type { PositionState } from "../../engine/accounts";
import { positionsView, type PositionMarkPorts } from "../../ledger/positions";

const S = 1_000_000;
const pos = (marketId: string, over: Partial<PositionState> = {}): PositionState => ({
  account: "usr_a",
  marketId,
  outcome: "YES",
  quantity: 2 * S,
  locked: 0,
  totalCost: 800_000,
  realizedPnl: 0,
  settled: false,
  ...over,
});

describe("closed positions in GET /positions?status=closed|all", () => {
  const quoted: string[] = [];
  const ports: PositionMarkPorts = {
    titles: async () => ({ mkt_live: { title: "Live?", status: "open" }, mkt_sold: { title: "Sold?", status: "open" } }),
    exitQuote: async (p) => {
      quoted.push(p.marketId);
      return { filled: S, proceeds: 500_000 };
    },
  };
  const all = [
    pos("mkt_live"),
    pos("mkt_sold", { quantity: 0, totalCost: 0, realizedPnl: 350_000 }),
    pos("mkt_paid", { quantity: 0, totalCost: 0, realizedPnl: -120_000, settled: true }),
  ];

  test("closed: no shares left or settled, with realized PnL, no mark and no exit quote asked", async () => {
    quoted.length = 0;
    const views = await positionsView("usr_a", all, ports, "closed");
    expect(views.map((v) => [v.id, v.status, v.realizedPnl, v.markPrice, v.unrealizedPnl, v.market.title])).toEqual([
      ["mkt_sold:YES", "closed", "350000", null, null, "Sold?"],
      ["mkt_paid:YES", "settled", "-120000", null, null, null],
    ]);
    expect(quoted).toEqual([]);
  });

  test("all: open and closed in the ledger's order; the default stays open only", async () => {
    expect((await positionsView("usr_a", all, ports, "all")).map((v) => `${v.id} ${v.status}`)).toEqual([
      "mkt_live:YES open",
      "mkt_sold:YES closed",
      "mkt_paid:YES settled",
    ]);
    expect((await positionsView("usr_a", all, ports)).map((v) => v.id)).toEqual(["mkt_live:YES"]);
  });
});
