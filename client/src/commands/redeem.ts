import { INDEX_SET, type Outcome } from "../models";
import { needLogin, print, type Command } from "../terminal/command";
import { usdt } from "../terminal/format";
import { replayedNote } from "../terminal/lines";
import { opt, outcomeOf, pos, writeOptions } from "../terminal/options";

export const redeem: Command = {
  name: "redeem",
  usage: "redeem <marketId> [--outcome YES|NO|BOTH] [--idempotency-key K]",
  summary: "redeem winning shares of a resolved market (or the refund of a cancelled one)",
  async run(ctx) {
    const c = needLogin(ctx);
    const id = pos(ctx, 0, "market id");
    const m = await c.markets.get(id);
    const o = opt(ctx, "outcome")?.toUpperCase();
    const indexSets =
      o === "BOTH" || (!o && !m.result) ? [INDEX_SET.YES, INDEX_SET.NO] : [INDEX_SET[o ? outcomeOf(o) : (m.result as Outcome)]];
    const r = await c.wallet.redeem(id, { conditionId: m.conditionId, indexSets }, writeOptions(ctx));
    print(ctx, () => `${r.status}: ${r.message}${r.payout ? ` (payout ${usdt(r.payout)})` : ""}${replayedNote(r)}`, r);
  },
};
