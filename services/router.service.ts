import type { Service } from "moleculer";
import { defineService } from "../mixins/service";
import { type ActionResult, type HandlerParams, call, internalAction, routeAction } from "../contract";
import { currentUser, type AppContext } from "../mixins/context";
import { marketOrderOf, tradeView } from "../trading/market-order";
import { validationError } from "../lib/errors";
import { livePrices } from "../trading/live-prices";
import type { LivePrice } from "../models/catalog";

type RouterThis = Service;

/** POST /trade/market and POST /markets/:id/quote: the smart router, planned and executed in the market's actor. */
const RouterService = defineService<RouterThis>({
  name: "router",

  actions: {
    trade: {
      ...routeAction("router.trade"),
      async handler(this: RouterThis, ctx: AppContext<HandlerParams<"router.trade">>): Promise<ActionResult<"router.trade">> {
        const order = marketOrderOf(currentUser(ctx).id, ctx.params, "ROUTE", ctx.meta.idem);
        if (!order.ok) throw validationError(order.message, order.fields);
        // A market of an event with one pool trades with that pool (the ledger owns it).
        const pooled = await call(ctx, "ledger.eventPoolRoute", order.value);
        return tradeView(pooled ?? (await call(ctx, "book.route", order.value)));
      },
    },

    /** `venue: "AMM"` prices what POST /trade/amm would do; the default what POST /trade/market would. */
    quote: {
      ...routeAction("router.quote"),
      async handler(this: RouterThis, ctx: AppContext<HandlerParams<"router.quote">>): Promise<ActionResult<"router.quote">> {
        const order = marketOrderOf(currentUser(ctx).id, ctx.params, ctx.params.venue === "AMM" ? "AMM" : "ROUTE");
        if (!order.ok) throw validationError(order.message, order.fields);
        const plan = (await call(ctx, "ledger.eventPoolQuote", order.value)) ?? (await call(ctx, "book.quote", order.value));
        return { estimatedPrice: plan.avgPrice, estimatedCost: String(plan.totalCost), source: plan.venue, fee: String(plan.fee) };
      },
    },

    /** Internal: the price source of market listings (catalog) and the market channel. */
    livePrices: {
      ...internalAction("router.livePrices"),
      async handler(this: RouterThis, ctx: AppContext<HandlerParams<"router.livePrices">>): Promise<ActionResult<"router.livePrices">> {
        const top = await call(ctx, "book.topOfBook", { marketIds: ctx.params.marketIds });
        // Markets of an event with one pool: that pool is their AMM side.
        const pooled = await call(ctx, "ledger.eventPoolPrices", { marketIds: ctx.params.marketIds });
        const out: Record<string, LivePrice> = {};
        for (const id of ctx.params.marketIds)
          out[id] = livePrices(
            pooled[id] && !top[id]?.ammYes
              ? { yesBid: top[id]?.yesBid ?? null, yesAsk: top[id]?.yesAsk ?? null, ammYes: pooled[id] }
              : top[id],
          );
        return out;
      },
    },
  },
});

export default RouterService;
