import type { CancelledOrder } from "../models";
import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { shares, usdt } from "../terminal/format";
import { flag, opt } from "../terminal/options";

export const cancel: Command = {
  name: "cancel",
  usage: "cancel <orderId...> | cancel --all [--market M]",
  summary: "cancel open orders (--all: every one, or one market's, in one request); locked USDT or shares come back",
  async run(ctx) {
    const c = needLogin(ctx);
    if (flag(ctx, "all")) {
      const r = await c.orders.cancelAll({ marketId: opt(ctx, "market") });
      print(
        ctx,
        () =>
          r.cancelled.length
            ? `Cancelled ${r.cancelled.length} order${r.cancelled.length === 1 ? "" : "s"} (${r.cancelled.join(", ")}): ${usdt(r.releasedAmount)} released`
            : "No open orders to cancel.",
        r,
      );
      return;
    }
    const ids = ctx.args.positionals;
    if (!ids.length) throw new UsageError("missing order id (or --all)");
    const done: CancelledOrder[] = [];
    for (const id of ids) done.push(await c.orders.cancel(id));
    print(
      ctx,
      () =>
        done.map(
          (d) =>
            `Cancelled ${d.orderId}: ${shares(BigInt(d.cancelledQuantity))} shares unfilled, ${usdt(BigInt(d.releasedAmount))} released`,
        ),
      done,
    );
  },
};
