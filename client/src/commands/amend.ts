import { priceToTick, tickToPriceNumber } from "../money";
import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { orderLine } from "../terminal/lines";
import { opt, pos, sharesToMicro } from "../terminal/options";

export const amend: Command = {
  name: "amend",
  usage: "amend <orderId> [--price P] [--quantity SHARES]",
  summary:
    "change an open order in place: a lower quantity keeps its time priority, a new price or a higher quantity loses it (--quantity is the new open rest)",
  async run(ctx) {
    const c = needLogin(ctx);
    const id = pos(ctx, 0, "order id");
    const price = opt(ctx, "price");
    const quantity = opt(ctx, "quantity");
    if (price === undefined && quantity === undefined) throw new UsageError("give --price, --quantity or both");
    const q = quantity === undefined ? undefined : sharesToMicro(quantity);
    if (q !== undefined && q > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError("quantity too large");
    const o = await c.orders.amend(id, {
      ...(price !== undefined ? { price: tickToPriceNumber(priceToTick(price)) } : {}),
      ...(q !== undefined ? { quantity: Number(q) } : {}),
    });
    print(ctx, () => orderLine(o, " amended,"), o);
  },
};
