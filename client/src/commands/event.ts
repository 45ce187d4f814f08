import { print, type Command } from "../terminal/command";
import { moneyUnits, orDash, table } from "../terminal/format";
import { pos } from "../terminal/options";

export const event: Command = {
  name: "event",
  usage: "event <eventId>",
  summary: "one event and its markets with live prices and each outcome's chance (a race: one winner among them)",
  async run(ctx) {
    const e = await ctx.client().events.get(pos(ctx, 0, "event id"));
    const chance = new Map(e.outcomes.map((o) => [o.marketId, o.chance]));
    print(
      ctx,
      () => [
        `${e.title} — ${e.subtitle}`,
        `${e.category}/${e.subcategory}, begins ${e.beginAt}${e.isLive ? ", live" : ""}, volume ${moneyUnits(e.volumeUsd)} USDT`,
        ...(e.mutuallyExclusive
          ? [`Race: one winner among ${e.markets.length} outcomes${e.exhaustive ? " (exactly one wins)" : " (or none of them)"}`]
          : []),
        "",
        table(
          ["market", "status", "buy YES", "buy NO", "chance", "volume USDT", e.mutuallyExclusive ? "outcome" : "title"],
          e.markets.map((m) => [
            m.id,
            m.result ? `${m.status} ${m.result}` : m.status,
            orDash(m.buyYesPrice),
            orDash(m.buyNoPrice),
            percentOrDash(chance.get(m.id)),
            moneyUnits(m.volume),
            e.mutuallyExclusive ? (m.outcomeLabel ?? m.title) : m.title,
          ]),
          new Set([2, 3, 4, 5]),
        ),
      ],
      e,
    );
  },
};

/** "0.575" -> "57.5%"; no chance: "-". */
export function percentOrDash(chance: string | null | undefined): string {
  return chance ? `${Math.round(Number(chance) * 1000) / 10}%` : "-";
}
