/**
 * `buy` and `sell`: one command per side, the same rules. With --limit an order for the book
 * (GTC, FOK, FAK or GTD), else a trade at market or from the AMM alone, quoted and confirmed first.
 */
import type { PmxClient } from "../client";
import { priceToTick, tickToPriceNumber } from "../money";
import type { OrderType, Outcome, Side, TradeRequest } from "../models";
import { UsageError } from "../terminal/args";
import { confirm, needLogin, print, type Command, type CommandContext } from "../terminal/command";
import { shares, usdt } from "../terminal/format";
import { orderLine, quoteLine, replayedNote } from "../terminal/lines";
import { expiresAt, flag, opt, outcomeOf, pos, sharesToMicro, writeOptions } from "../terminal/options";

/** What the command line asks for, read and checked. */
interface Entry {
  c: PmxClient;
  marketId: string;
  side: Side;
  outcome: Outcome;
  /** Micro-shares. */
  q: bigint;
}

export function orderEntryCommand(side: Side): Command {
  const verb = side.toLowerCase();
  return {
    name: verb,
    usage: `${verb} <marketId> <YES|NO> <shares> [--limit PRICE [--fok | --fak | --expires WHEN] [--post-only] [--client-id ID]] [--amm] [--yes] [--idempotency-key K]`,
    summary: `${verb} shares: a market order (quote first, then confirm), an AMM-only trade (--amm), or a limit order (--limit): GTC, or FOK (--fok, all at once or nothing), FAK (--fak, what fills at once; the rest is cancelled), GTD (--expires 10m or an ISO time); --post-only refuses it if any part would execute at once`,
    async run(ctx) {
      const c = needLogin(ctx);
      const marketId = pos(ctx, 0, "market id");
      const outcome = outcomeOf(pos(ctx, 1, "outcome"));
      const q = sharesToMicro(pos(ctx, 2, "shares"));
      const limit = opt(ctx, "limit");
      const expires = opt(ctx, "expires");
      const types = [flag(ctx, "fok") && "--fok", flag(ctx, "fak") && "--fak", expires !== undefined && "--expires"].filter(Boolean);
      if (types.length > 1) throw new UsageError(`choose one order type: ${types.join(" or ")}`);
      const entry: Entry = { c, marketId, side, outcome, q };
      if (limit !== undefined) return placeLimit(ctx, entry, limit, expires);
      const limitOnly = [types[0], flag(ctx, "post-only") && "--post-only", opt(ctx, "client-id") !== undefined && "--client-id"].filter(
        Boolean,
      );
      if (limitOnly.length) throw new UsageError(`${limitOnly.join(", ")} need${limitOnly.length === 1 ? "s" : ""} --limit PRICE`);
      return tradeNow(ctx, entry);
    },
  };
}

async function placeLimit(ctx: CommandContext, e: Entry, limit: string, expires: string | undefined): Promise<void> {
  const tick = priceToTick(limit);
  if (e.q > BigInt(Number.MAX_SAFE_INTEGER)) throw new UsageError("quantity too large");
  const orderType: OrderType = expires !== undefined ? "GTD" : flag(ctx, "fak") ? "FAK" : flag(ctx, "fok") ? "FOK" : "GTC";
  const clientOrderId = opt(ctx, "client-id");
  const o = await e.c.orders.place(
    {
      marketId: e.marketId,
      side: e.side,
      outcome: e.outcome,
      orderType,
      price: tickToPriceNumber(tick),
      quantity: Number(e.q),
      ...(expires !== undefined ? { expiresAt: expiresAt(expires) } : {}),
      ...(flag(ctx, "post-only") ? { postOnly: true } : {}),
      ...(clientOrderId !== undefined ? { clientOrderId } : {}),
    },
    writeOptions(ctx),
  );
  print(ctx, () => orderLine(o), o);
}

/** At market (the best route) or from the AMM alone: quoted, confirmed, then sent. */
async function tradeNow(ctx: CommandContext, e: Entry): Promise<void> {
  const { c, marketId, side, outcome, q } = e;
  const quote = await c.markets.quote(marketId, { side, outcome, quantity: q.toString() });
  const amm = flag(ctx, "amm");
  if (!ctx.json) {
    ctx.io.out(quoteLine(side, outcome, q, quote));
    if (amm && quote.source !== "AMM") ctx.io.out("(the quote is the best route; the AMM alone may price it differently)");
  }
  await confirm(ctx, `${side === "BUY" ? "Buy" : "Sell"} ${shares(q)} ${outcome} ${amm ? "from the AMM" : "at market"}?`);
  const body: TradeRequest = { marketId, side, outcome, quantity: q.toString() };
  const t = amm ? await c.trade.amm(body, writeOptions(ctx)) : await c.trade.market(body, writeOptions(ctx));
  print(
    ctx,
    () =>
      `Filled ${shares(t.filledQuantity)} ${outcome} at ${t.avgPrice} via ${t.venue}: ${side === "BUY" ? "cost" : "proceeds"} ${usdt(t.totalCost)}, fee ${usdt(t.fee)} (trade ${t.tradeId})${replayedNote(t)}`,
    { quote, trade: t },
  );
}
