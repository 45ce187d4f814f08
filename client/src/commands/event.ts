import { print, type Command } from "../terminal/command";
import { moneyUnits, orDash, table } from "../terminal/format";
import { pos } from "../terminal/options";

export const event: Command = {
  name: "event",
  usage: "event <eventId>",
  summary: "one event and its markets with live prices",
  async run(ctx) {
    const e = await ctx.client().events.get(pos(ctx, 0, "event id"));
    print(
      ctx,
      () => [
        `${e.title} — ${e.subtitle}`,
        `${e.category}/${e.subcategory}, begins ${e.beginAt}${e.isLive ? ", live" : ""}, volume ${moneyUnits(e.volumeUsd)} USDT`,
        "",
        table(
          ["market", "status", "buy YES", "buy NO", "volume USDT", "title"],
          e.markets.map((m) => [
            m.id,
            m.result ? `${m.status} ${m.result}` : m.status,
            orDash(m.buyYesPrice),
            orDash(m.buyNoPrice),
            moneyUnits(m.volume),
            m.title,
          ]),
          new Set([2, 3, 4]),
        ),
      ],
      e,
    );
  },
};
