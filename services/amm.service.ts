import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { QUANTITY } from "../lib/params";
import { currentUser, type AppContext } from "../mixins/context";
import { formatMicro } from "../engine/money";
import { parseTradeQuantity, tradeView, type MarketTradeParams } from "../trading/market-order";

type AmmThis = Service;

/**
 * POST /trade/amm: a trade against the market's pool only. The pool itself lives in the market's
 * actor next to its book (one writer per market); this service is the public shell.
 */
const AmmService = defineService<AmmThis>({
  name: "amm",

  actions: {
    trade: {
      auth: "user",
      params: {
        marketId: { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9_:-]+$/ },
        side: { type: "enum", values: ["BUY", "SELL"] },
        outcome: { type: "enum", values: ["YES", "NO"] },
        quantity: QUANTITY,
        $$strict: "remove",
      },
      async handler(this: AmmThis, ctx: AppContext<MarketTradeParams>) {
        const user = currentUser(ctx);
        const quantity = parseTradeQuantity(ctx.params.quantity);
        const r = await ctx.call("book.route", { marketId: ctx.params.marketId, userId: user.id, side: ctx.params.side, outcome: ctx.params.outcome, quantity, mode: "AMM" });
        return tradeView(r as Parameters<typeof tradeView>[0]);
      },
    },

    /** Internal: the pool of a market (operators, tests). */
    pool: {
      visibility: "public",
      params: { marketId: "string" },
      async handler(this: AmmThis, ctx: AppContext<{ marketId: string }>) {
        const r = (await ctx.call("book.ensureMarket", { marketId: ctx.params.marketId })) as { pool: { yes: number; no: number } | null };
        return r.pool ? { yes: String(r.pool.yes), no: String(r.pool.no), liquidity: formatMicro(Math.min(r.pool.yes, r.pool.no)) } : null;
      },
    },
  },
});

export default AmmService;
