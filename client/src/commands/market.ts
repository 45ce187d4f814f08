import { print, type Command } from "../terminal/command";
import { moneyUnits, orDash } from "../terminal/format";
import { pos } from "../terminal/options";

export const market: Command = {
  name: "market",
  usage: "market <marketId>",
  summary: "one market: status, live prices, condition id",
  async run(ctx) {
    const m = await ctx.client().markets.get(pos(ctx, 0, "market id"));
    print(
      ctx,
      () => [
        `${m.title} (${m.id})`,
        `status ${m.status}${m.result ? `, result ${m.result}` : ""}, volume ${moneyUnits(m.volume)} USDT`,
        `YES buy ${orDash(m.buyYesPrice)} / sell ${orDash(m.sellYesPrice)}    NO buy ${orDash(m.buyNoPrice)} / sell ${orDash(m.sellNoPrice)}`,
        `condition ${m.conditionId}`,
      ],
      m,
    );
  },
};
