import { collectAll, needLogin, print, type Command } from "../terminal/command";
import { money, shares, table, usdt } from "../terminal/format";
import { flag, intOpt } from "../terminal/options";

export const trades: Command = {
  name: "trades",
  usage: "trades [tradeId] [--page N] [--page-size N] [--all]",
  summary: "your trades (newest first), or one trade with its settlement",
  async run(ctx) {
    const c = needLogin(ctx);
    const id = ctx.args.positionals[0];
    if (id) {
      const t = await c.portfolio.trade(id);
      print(
        ctx,
        () => [
          `Trade ${t.id}: ${t.side} ${shares(t.filledQuantity)} ${t.outcome} at ${t.avgPrice} via ${t.venue} (${t.role})`,
          `cost ${usdt(t.totalCost)}, fee ${usdt(t.fee)}, market ${t.marketId}`,
          `settlement ${t.settlementStatus}${t.settlementTxHash ? ` tx ${t.settlementTxHash}` : ""}`,
        ],
        t,
      );
      return;
    }
    const items = flag(ctx, "all")
      ? await collectAll(c.portfolio.iterateTrades({ pageSize: 100 }))
      : (await c.portfolio.trades({ page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") })).items;
    print(
      ctx,
      () =>
        items.length
          ? table(
              ["trade", "market", "side", "outcome", "shares", "avg", "cost USDT", "fee USDT", "venue", "settlement"],
              items.map((t) => [
                t.id,
                t.marketId,
                t.side,
                t.outcome,
                shares(t.filledQuantity),
                t.avgPrice,
                money(t.totalCost),
                money(t.fee),
                t.venue,
                t.settlementStatus,
              ]),
              new Set([4, 5, 6, 7]),
            )
          : "No trades yet.",
      items,
    );
  },
};
