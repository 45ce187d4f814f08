import type { Service } from "moleculer";
import { defineService } from "../mixins/service";
import { type ActionResult, type HandlerParams, call, internalAction, routeAction } from "../contract";
import { currentUser, type AppContext } from "../mixins/context";
import { marketOrderOf, tradeView } from "../trading/market-order";
import { validationError } from "../lib/errors";
import { livePrices } from "../trading/live-prices";
import type { LivePrice } from "../models/catalog";
import type { RouteExecution, RouteRequest } from "../models/trading";

type RouterThis = Service;

/** Reads of a race's pool before a market order gives up on a pool that keeps moving under it. */
const POOL_ATTEMPTS = 3;

/**
 * A market order on a market of a race with one pool: split between the market's book and the
 * race's pool by price inside the market's actor, on the pool's books just read from the ledger,
 * which plans the pool leg again when the entry applies. A pool that moved meanwhile is read again.
 * Null: the market has no race pool, or is not open (its actor refuses that).
 */
async function routeOnRace(ctx: AppContext, r: RouteRequest): Promise<RouteExecution | null> {
  for (let attempt = 1; ; attempt++) {
    const eventPool = await call(ctx, "ledger.eventPoolSnapshot", { marketId: r.marketId });
    if (!eventPool) return null;
    try {
      const x = await call(ctx, "book.route", { ...r, eventPool });
      // The pool moved every market of the race: their prices to the sockets, after the answer.
      if (x.venue !== "CLOB") void call(ctx, "ledger.eventPoolPublish", { marketId: r.marketId }).catch(() => undefined);
      return x;
    } catch (err) {
      if (attempt >= POOL_ATTEMPTS || (err as { type?: string }).type !== "BOOK_CHANGED") throw err;
    }
  }
}

/** POST /trade/market and POST /markets/:id/quote: the smart router, planned and executed in the market's actor. */
const RouterService = defineService<RouterThis>({
  name: "router",

  actions: {
    trade: {
      ...routeAction("router.trade"),
      async handler(this: RouterThis, ctx: AppContext<HandlerParams<"router.trade">>): Promise<ActionResult<"router.trade">> {
        const order = marketOrderOf(currentUser(ctx).id, ctx.params, "ROUTE", ctx.meta.idem);
        if (!order.ok) throw validationError(order.message, order.fields);
        // A race's market: its book and the race's pool, best price first; any other: its book and its own pool.
        return tradeView((await routeOnRace(ctx, order.value)) ?? (await call(ctx, "book.route", order.value)));
      },
    },

    /** `venue: "AMM"` prices what POST /trade/amm would do; the default what POST /trade/market would. */
    quote: {
      ...routeAction("router.quote"),
      async handler(this: RouterThis, ctx: AppContext<HandlerParams<"router.quote">>): Promise<ActionResult<"router.quote">> {
        const order = marketOrderOf(currentUser(ctx).id, ctx.params, ctx.params.venue === "AMM" ? "AMM" : "ROUTE");
        if (!order.ok) throw validationError(order.message, order.fields);
        // A race's market: priced as `trade` splits it (book and the race's pool); the pool alone for venue AMM.
        const eventPool =
          order.value.mode === "ROUTE" ? await call(ctx, "ledger.eventPoolSnapshot", { marketId: order.value.marketId }) : null;
        const plan = eventPool
          ? await call(ctx, "book.quote", { ...order.value, eventPool })
          : ((order.value.mode === "AMM" ? await call(ctx, "ledger.eventPoolQuote", order.value) : null) ??
            (await call(ctx, "book.quote", order.value)));
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
