import { needLogin, print, type Command } from "../terminal/command";
import { money, orDash, shares, table } from "../terminal/format";

export const positions: Command = {
  name: "positions",
  usage: "positions",
  summary: "open positions with mark price and unrealized PnL",
  async run(ctx) {
    const ps = await needLogin(ctx).portfolio.positions();
    print(
      ctx,
      () =>
        ps.length
          ? table(
              ["market", "outcome", "shares", "avg entry", "mark", "unrealized", "title"],
              ps.map((p) => [
                p.marketId,
                p.outcome,
                shares(p.quantity),
                p.avgEntryPrice,
                orDash(p.markPrice),
                p.unrealizedPnl === null ? "-" : money(p.unrealizedPnl),
                orDash(p.market.title),
              ]),
              new Set([2, 3, 4, 5]),
            )
          : "No open positions.",
      ps,
    );
  },
};
