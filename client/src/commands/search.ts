import { UsageError } from "../terminal/args";
import { print, type Command } from "../terminal/command";
import { table } from "../terminal/format";
import { intOpt } from "../terminal/options";

export const search: Command = {
  name: "search",
  usage: "search <words...>",
  summary: "search events, best match first",
  async run(ctx) {
    const q = ctx.args.positionals.join(" ").trim();
    if (!q) throw new UsageError("missing search words");
    const page = await ctx.client().events.search({ q, page: intOpt(ctx, "page"), pageSize: intOpt(ctx, "page-size") });
    print(
      ctx,
      () =>
        page.items.length
          ? table(
              ["event", "category", "begins", "title"],
              page.items.map((e) => [e.id, e.category, e.beginAt.slice(0, 10), e.title]),
            )
          : `No event matches "${q}".`,
      page,
    );
  },
};
