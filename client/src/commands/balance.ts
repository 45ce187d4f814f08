import { needLogin, print, type Command } from "../terminal/command";
import { money, table } from "../terminal/format";

export const balance: Command = {
  name: "balance",
  usage: "balance",
  summary: "available, locked and total USDT",
  async run(ctx) {
    const b = await needLogin(ctx).portfolio.balance();
    print(
      ctx,
      () =>
        table(
          ["", "USDT"],
          [
            ["available", money(b.available)],
            ["locked", money(b.locked)],
            ["total", money(b.total)],
          ],
          new Set([1]),
        ),
      b,
    );
  },
};
