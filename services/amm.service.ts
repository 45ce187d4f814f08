import type { Service } from "moleculer";
import { defineService } from "../mixins/service";
import { type ActionResult, type HandlerParams, call, internalAction, routeAction } from "../contract";
import { currentUser, type AppContext } from "../mixins/context";
import { formatMicro } from "../engine/money";
import { marketOrderOf, tradeView } from "../trading/market-order";
import { validationError } from "../lib/errors";

type AmmThis = Service;

/**
 * POST /trade/amm: a trade against the market's pool only. The pool itself lives in the market's
 * actor next to its book (one writer per market); this service is the public shell.
 */
const AmmService = defineService<AmmThis>({
  name: "amm",

  actions: {
    trade: {
      ...routeAction("amm.trade"),
      async handler(this: AmmThis, ctx: AppContext<HandlerParams<"amm.trade">>): Promise<ActionResult<"amm.trade">> {
        const order = marketOrderOf(currentUser(ctx).id, ctx.params, "AMM", ctx.meta.idem);
        if (!order.ok) throw validationError(order.message, order.fields);
        // A market of an event with one pool trades with that pool (the ledger owns it).
        const pooled = await call(ctx, "ledger.eventPoolRoute", order.value);
        return tradeView(pooled ?? (await call(ctx, "book.route", order.value)));
      },
    },

    /** Internal: the pool of a market (operators, tests). */
    pool: {
      ...internalAction("amm.pool"),
      async handler(this: AmmThis, ctx: AppContext<HandlerParams<"amm.pool">>): Promise<ActionResult<"amm.pool">> {
        const r = await call(ctx, "book.ensureMarket", { marketId: ctx.params.marketId });
        return r.pool ? { yes: String(r.pool.yes), no: String(r.pool.no), liquidity: formatMicro(Math.min(r.pool.yes, r.pool.no)) } : null;
      },
    },
  },
});

export default AmmService;
