import { print, type Command } from "../terminal/command";
import { bookTable } from "../terminal/lines";
import { opt, outcomeOf, pos } from "../terminal/options";

export const book: Command = {
  name: "book",
  usage: "book <marketId> [--outcome YES|NO]",
  summary: "the order book (top 10 levels) as a table",
  async run(ctx) {
    const id = pos(ctx, 0, "market id");
    const outcome = outcomeOf(opt(ctx, "outcome") ?? "YES");
    const b = await ctx.client().markets.orderbook(id, outcome);
    print(ctx, () => [`Order book ${id}, ${outcome} view`, bookTable(b)], b);
  },
};
