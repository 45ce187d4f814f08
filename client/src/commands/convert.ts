import type { MarketItem } from "../models";
import { UsageError } from "../terminal/args";
import { confirm, needLogin, print, type Command } from "../terminal/command";
import { shares, usdt } from "../terminal/format";
import { replayedNote } from "../terminal/lines";
import { opt, pos, sharesToMicro, writeOptions } from "../terminal/options";

const label = (m: Pick<MarketItem, "outcomeLabel" | "title">) => m.outcomeLabel ?? m.title;

export const convert: Command = {
  name: "convert",
  usage: "convert <eventId> <marketId...> --quantity Q [--yes] [--idempotency-key K]",
  summary:
    "a race's NO shares of k named outcomes (Q of each) become (k-1) x Q USDT plus Q YES of each of its other open outcomes (shown, then confirmed)",
  async run(ctx) {
    const c = needLogin(ctx);
    const eventId = pos(ctx, 0, "event id");
    const marketIds = ctx.args.positionals.slice(1);
    if (!marketIds.length) throw new UsageError("missing market ids: the outcomes whose NO shares you give up");
    const raw = opt(ctx, "quantity");
    if (raw === undefined) throw new UsageError("missing --quantity: NO shares of each named market");
    const q = sharesToMicro(raw);
    // What the exchange will hand out, said before anything is sent.
    const e = await c.events.get(eventId);
    const name = (id: string) => {
      const m = e.markets.find((x) => x.id === id);
      return m ? label(m) : id;
    };
    const others = e.markets.filter((m) => m.status === "open" && !marketIds.includes(m.id));
    const cash = BigInt(marketIds.length - 1) * q;
    await confirm(
      ctx,
      `Give up ${shares(q)} NO of ${marketIds.map(name).join(", ")} for ${usdt(cash)}` +
        `${others.length ? ` and ${shares(q)} YES of ${others.map(label).join(", ")}` : ""}?`,
    );
    const r = await c.events.convert(eventId, { marketIds, quantity: q.toString() }, writeOptions(ctx));
    print(
      ctx,
      () => [
        `Converted ${shares(r.quantity)} NO of ${r.marketIds.map(name).join(", ")}: credited ${usdt(r.cashCredited)}${replayedNote(r)}`,
        ...r.yesReceived.map((y) => `+ ${shares(y.quantity)} YES ${y.marketId} ${name(y.marketId)}`),
      ],
      r,
    );
  },
};
