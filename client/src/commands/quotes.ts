/**
 * `quotes`: a market maker's quote set in one market, replaced atomically by each call (POST
 * /quotes), or withdrawn (`quotes cancel`, DELETE /quotes).
 */
import type { MassQuoteRequest } from "../models";
import { priceToTick, tickToPriceNumber } from "../money";
import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { usdt } from "../terminal/format";
import { orderLine, replayedNote } from "../terminal/lines";
import { flag, opt, outcomeOf, pos, sharesToMicro, sideOf, writeOptions } from "../terminal/options";

/** The most quotes in one set (the server's limit). */
const MAX_QUOTES = 20;

/** One quote as typed: side:outcome:price:shares, e.g. buy:YES:0.45:10. */
export function parseQuote(raw: string): MassQuoteRequest["quotes"][number] {
  const parts = raw.split(":");
  if (parts.length !== 4) throw new UsageError(`a quote is side:outcome:price:shares (e.g. buy:YES:0.45:10), got "${raw}"`);
  const [side, outcome, price, q] = parts;
  const quantity = sharesToMicro(q);
  if (quantity > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError("quantity too large");
  return { side: sideOf(side), outcome: outcomeOf(outcome), price: tickToPriceNumber(priceToTick(price)), quantity: Number(quantity) };
}

export const quotes: Command = {
  name: "quotes",
  usage: "quotes <marketId> <side:outcome:price:shares...> [--post-only] [--group G] [--idempotency-key K] | quotes cancel <marketId>",
  summary: `replace your quote set in a market atomically: your previous quotes there are cancelled and 1 to ${MAX_QUOTES} new ones placed as GTC orders (e.g. buy:YES:0.45:10 sell:YES:0.55:10), or none if any is refused; "quotes cancel" withdraws the set`,
  async run(ctx) {
    const c = needLogin(ctx);
    const first = pos(ctx, 0, "market id (or cancel)");
    if (first === "cancel") {
      const marketId = pos(ctx, 1, "market id");
      const r = await c.orders.cancelQuotes(marketId);
      print(
        ctx,
        () =>
          r.cancelled.length
            ? `Withdrew ${r.cancelled.length} quote${r.cancelled.length === 1 ? "" : "s"} (${r.cancelled.join(", ")}): ${usdt(r.releasedAmount)} released`
            : "No quotes to withdraw in this market.",
        r,
      );
      return;
    }
    const typed = ctx.args.positionals.slice(1);
    if (!typed.length) throw new UsageError("missing quotes (side:outcome:price:shares, e.g. buy:YES:0.45:10)");
    if (typed.length > MAX_QUOTES) throw new UsageError(`at most ${MAX_QUOTES} quotes in one set`);
    const group = opt(ctx, "group");
    const r = await c.orders.quote(
      {
        marketId: first,
        quotes: typed.map(parseQuote),
        ...(flag(ctx, "post-only") ? { postOnly: true } : {}),
        ...(group !== undefined ? { orderGroupId: group } : {}),
      },
      writeOptions(ctx),
    );
    print(
      ctx,
      () => [
        (r.cancelled.length
          ? `Replaced ${r.cancelled.length} quote${r.cancelled.length === 1 ? "" : "s"} (${r.cancelled.join(", ")}).`
          : "No previous quotes here.") + replayedNote(r),
        ...r.orders.map((o) => orderLine(o)),
      ],
      r,
    );
  },
};
