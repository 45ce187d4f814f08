import { INTERVALS, type Interval } from "../models";
import { UsageError } from "../terminal/args";
import { print, type Command } from "../terminal/command";
import { moneyUnits, table } from "../terminal/format";
import { opt, outcomeOf, pos } from "../terminal/options";

export const history: Command = {
  name: "history",
  usage: "history <marketId> [--outcome YES|NO] [--interval 1H|1D|1W|1M|MAX]",
  summary: "price history candles",
  async run(ctx) {
    const id = pos(ctx, 0, "market id");
    const interval = (opt(ctx, "interval") ?? "1D").toUpperCase() as Interval;
    if (!INTERVALS.includes(interval)) throw new UsageError(`--interval must be one of ${INTERVALS.join(", ")}`);
    const h = await ctx.client().markets.priceHistory(id, { outcome: outcomeOf(opt(ctx, "outcome") ?? "YES"), interval });
    print(
      ctx,
      () => [
        `${h.outcome} ${h.currentPrice} (${h.priceChange >= 0 ? "+" : ""}${h.priceChange}, ${h.priceChangePercent}%), 24h volume ${moneyUnits(h.volume24h)} USDT`,
        h.candles.length
          ? table(
              ["time", "open", "high", "low", "close", "volume USDT"],
              h.candles.map((c) => [c.timestamp, String(c.open), String(c.high), String(c.low), String(c.close), moneyUnits(c.volume)]),
              new Set([1, 2, 3, 4, 5]),
            )
          : "(no trades in this interval)",
      ],
      h,
    );
  },
};
