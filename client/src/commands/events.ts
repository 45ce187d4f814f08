import { CATEGORIES, type Category } from "../models";
import { UsageError } from "../terminal/args";
import { print, type Command } from "../terminal/command";
import { moneyUnits, table } from "../terminal/format";
import { pageLine } from "../terminal/lines";
import { intOpt, opt } from "../terminal/options";

export const events: Command = {
  name: "events",
  usage: "events [--category C] [--search TEXT] [--page N] [--page-size N]",
  summary: "list events (soonest first)",
  async run(ctx) {
    const category = opt(ctx, "category");
    if (category && category !== "all" && !CATEGORIES.includes(category as Category))
      throw new UsageError(`--category must be one of ${CATEGORIES.join(", ")} or all`);
    const page = await ctx.client().events.list({
      category: category as Category | undefined,
      search: opt(ctx, "search"),
      page: intOpt(ctx, "page"),
      pageSize: intOpt(ctx, "page-size"),
    });
    print(
      ctx,
      () => [
        table(
          ["event", "category", "begins", "live", "volume USDT", "title"],
          page.items.map((e) => [e.id, e.category, e.beginAt.slice(0, 10), e.isLive ? "live" : "", moneyUnits(e.volumeUsd), e.title]),
          new Set([4]),
        ),
        pageLine(page),
      ],
      page,
    );
  },
};
