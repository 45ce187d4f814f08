import type { Service, ServiceSchema } from "moleculer";
import { defineService } from "../mixins/service";
import {
  type ActionResult,
  type Answer,
  type HandlerParams,
  type EventPayload,
  call,
  durableGroup,
  internalAction,
  routeAction,
} from "../contract";
import { throwWire } from "../lib/errors";
import { currentUser, type AppContext } from "../mixins/context";
import type { MarketActor } from "../trading/market-actor";
import type { MarketRegistry } from "../trading/market-registry";
import type { OrderDesk } from "../trading/order-desk";
import type { OwnerDesk } from "../trading/owner-desk";
import type { DurabilityWatch } from "../trading/durability";
import { bookCoresOn } from "../mixins/book-wiring";

type BookThis = Service & {
  registry: MarketRegistry<MarketActor>;
  desk: OrderDesk<AppContext>;
  owner: OwnerDesk<AppContext, MarketActor>;
  durability: DurabilityWatch;
};

/** A market stopped trading: its owner releases every resting order (book.halt). */
const halt =
  (status: string) =>
  (ctx: AppContext<EventPayload<"market.closed" | "market.cancelled" | "market.resolved" | "market.resolutionFailed">>) =>
    call(ctx, "book.halt", { marketId: ctx.params.marketId, status });

function dropForeignMarkets(this: BookThis) {
  this.registry.dropForeignMarkets();
}

/**
 * The order book's shell: market actions are routed to the market's owner by MarketRouting
 * (mixins/market-routing.middleware.ts); the flows live in trading/ (MarketRegistry, OrderDesk,
 * OwnerDesk, MarketActor, publishCommitted).
 */
const BookService = defineService<BookThis>({
  name: "book",

  // The ledger sends its watermark to the engines waiting on it, each under its own group.
  merged(this: Service, schema: ServiceSchema) {
    const ev = schema.events?.["ledger.durable"];
    if (ev && typeof ev === "object") (ev as { group?: string }).group = durableGroup(this.broker.nodeID);
  },

  // Every action's refusal leaves as the broker's error (cancel-all, lists and tops included).
  hooks: { error: { "*": (_ctx: AppContext, err: unknown) => throwWire(err) } },

  actions: {
    /** POST /orders: a limit order, GTC, GTD, FOK or FAK, optionally post-only, with a client order id. */
    place: {
      ...routeAction("book.place"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.place">>): Promise<ActionResult<"book.place">> {
        // Named in an order group: admitted by it first, joined once placed (trading/order-desk.ts).
        return this.desk.placeOne(ctx, currentUser(ctx).id, ctx.params, ctx.meta.idem).catch(throwWire);
      },
    },

    /** Internal: place on the market's owner (an order that reached another node). */
    placeTerms: {
      ...internalAction("book.placeTerms"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.placeTerms">>): Answer<"book.placeTerms"> {
        return this.desk.placeHere(ctx, ctx.params).catch(throwWire);
      },
    },

    /** POST /orders/batch: up to 20 orders, each standing alone; the answers in request order. */
    placeBatch: {
      ...routeAction("book.placeBatch"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.placeBatch">>): Answer<"book.placeBatch"> {
        return this.desk.placeBatch(ctx, currentUser(ctx).id, ctx.params.orders, ctx.meta.idem);
      },
    },

    /** POST /quotes: the caller's quote set in the market replaced atomically (one journal entry). */
    placeQuotes: {
      ...routeAction("book.placeQuotes"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.placeQuotes">>): Promise<ActionResult<"book.placeQuotes">> {
        // Named in an order group: admitted by it first, each quote order joined once placed (trading/order-desk.ts).
        return this.desk.placeQuotes(ctx, currentUser(ctx).id, ctx.params, ctx.meta.idem).catch(throwWire);
      },
    },

    /** Internal: a mass quote placed on the market's owner (one that reached another node). */
    quotesTerms: {
      ...internalAction("book.quotesTerms"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.quotesTerms">>): Answer<"book.quotesTerms"> {
        return this.desk.quotesHere(ctx, ctx.params).catch(throwWire);
      },
    },

    /** DELETE /quotes: the caller's quote set in one market withdrawn. */
    cancelQuotes: {
      ...routeAction("book.cancelQuotes"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancelQuotes">>): Answer<"book.cancelQuotes"> {
        return this.desk.cancelQuotes(ctx, currentUser(ctx).id, ctx.params.marketId).catch(throwWire);
      },
    },

    /** Internal: a user's quote set cancelled inside the market's actor. */
    cancelQuotesOf: {
      ...internalAction("book.cancelQuotesOf"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancelQuotesOf">>): Answer<"book.cancelQuotesOf"> {
        return this.owner.cancelQuotes(ctx.params).catch(throwWire);
      },
    },

    /** PATCH /orders/:orderId: atomic amend under the same id (a lower quantity keeps priority). */
    amend: {
      ...routeAction("book.amend"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.amend">>): Answer<"book.amend"> {
        return this.desk.amend(ctx, currentUser(ctx).id, ctx.params).catch(throwWire);
      },
    },

    /** Internal: the amend inside the market's actor. */
    amendOrder: {
      ...internalAction("book.amendOrder"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.amendOrder">>): Answer<"book.amendOrder"> {
        return this.owner.amend(ctx.params).catch(throwWire);
      },
    },

    /** DELETE /orders: every open order of the caller (in one market, with `marketId`). */
    cancelAll: {
      ...routeAction("book.cancelAll"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancelAll">>): Answer<"book.cancelAll"> {
        return this.desk.cancelAll(ctx, currentUser(ctx).id, ctx.params.marketId);
      },
    },

    /** Internal: cancel a user's resting orders, or given ones (expiry), in one entry on the market's owner. */
    cancelMany: {
      ...internalAction("book.cancelMany"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancelMany">>): Answer<"book.cancelMany"> {
        return this.owner.cancelMany(ctx.params).catch(throwWire);
      },
    },

    /** DELETE /orders/:orderId */
    cancelOrder: {
      ...routeAction("book.cancelOrder"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancelOrder">>): Answer<"book.cancelOrder"> {
        return this.desk.cancelOrder(ctx, currentUser(ctx).id, ctx.params.orderId).catch(throwWire);
      },
    },

    /** Internal: cancel inside the market's actor. */
    cancel: {
      ...internalAction("book.cancel"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.cancel">>): Answer<"book.cancel"> {
        return this.owner.cancel(ctx.params).catch(throwWire);
      },
    },

    /** GET /orders: the caller's orders, newest first: open (default), closed or all; paged. */
    listOrders: {
      ...routeAction("book.listOrders"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.listOrders">>): Answer<"book.listOrders"> {
        return this.desk.listOrders(ctx, currentUser(ctx).id, ctx.params);
      },
    },

    /** GET /markets/:marketId/orderbook: top 10 aggregated levels of the YES or NO view. */
    orderbook: {
      ...routeAction("book.orderbook"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.orderbook">>): Answer<"book.orderbook"> {
        return this.owner.orderbook(ctx.params.marketId, ctx.params.outcome).catch(throwWire);
      },
    },

    /** Internal: a market order (AMM only or routed) inside the market's actor. */
    route: {
      ...internalAction("book.route"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.route">>): Answer<"book.route"> {
        return this.owner.route(ctx, ctx.params).catch(throwWire);
      },
    },

    /** Internal: what `route` would do now, without doing it. */
    quote: {
      ...internalAction("book.quote"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.quote">>): Answer<"book.quote"> {
        return this.owner.quote(ctx.params).catch(throwWire);
      },
    },

    /** Internal: load a market's actor (funds its AMM pool on first sight of an open market). */
    ensureMarket: {
      ...internalAction("book.ensureMarket"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.ensureMarket">>): Answer<"book.ensureMarket"> {
        return this.owner.ensureMarket(ctx.params.marketId).catch(throwWire);
      },
    },

    /** Internal: depth of both views with the book's sequence (socket snapshots). */
    depth: {
      ...internalAction("book.depth"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.depth">>): Answer<"book.depth"> {
        return this.owner.depth(ctx.params.marketId, ctx.params.levels).catch(throwWire);
      },
    },

    /** Internal: best prices per market for live prices (null where the book is empty). */
    topOfBook: {
      ...internalAction("book.topOfBook"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.topOfBook">>): Answer<"book.topOfBook"> {
        return this.owner.topOfMany(ctx, ctx.params.marketIds);
      },
    },

    /** GET /orders/:orderId/queue-position: what rests before the caller's open order at its price. */
    queuePosition: {
      ...routeAction("book.queuePosition"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.queuePosition">>): Answer<"book.queuePosition"> {
        return this.desk.queuePosition(ctx, currentUser(ctx).id, ctx.params.orderId).catch(throwWire);
      },
    },

    /** Internal: a resting order's queue position, answered by the market's owner. */
    queuePositionAt: {
      ...internalAction("book.queuePositionAt"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.queuePositionAt">>): Answer<"book.queuePositionAt"> {
        return this.owner.queuePosition(ctx.params.marketId, ctx.params.orderId).catch(throwWire);
      },
    },

    /** Internal: one market's best prices, answered by its owner. */
    top: {
      ...internalAction("book.top"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.top">>): Answer<"book.top"> {
        return this.owner.top(ctx.params.marketId);
      },
    },

    /** Internal: a market stopped trading (closed, cancelled, resolved): its owner releases every resting order. */
    halt: {
      ...internalAction("book.halt"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.halt">>): Answer<"book.halt"> {
        return this.owner.halt(ctx.params.marketId, ctx.params.status).catch(throwWire);
      },
    },

    /** Internal: the market's own trading mode, applied by its owner (routed there). */
    setTradingMode: {
      ...internalAction("book.setTradingMode"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.setTradingMode">>): Answer<"book.setTradingMode"> {
        const { marketId, mode, reason } = ctx.params;
        return this.owner.setTradingMode(marketId, { mode, reason }).catch(throwWire);
      },
    },

    /** Internal: the exchange-wide trading mode, applied on this node (the catalog calls every engine node). */
    exchangeModeChanged: {
      ...internalAction("book.exchangeModeChanged"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.exchangeModeChanged">>): Answer<"book.exchangeModeChanged"> {
        return this.owner.exchangeModeChanged({ mode: ctx.params.mode, reason: ctx.params.reason }).catch(throwWire);
      },
    },

    /** Internal: what an immediate order of `quantity` would get from the book (mark prices, quotes). */
    exitQuote: {
      ...internalAction("book.exitQuote"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.exitQuote">>): Answer<"book.exitQuote"> {
        return this.owner.exitQuote(ctx.params).catch(throwWire);
      },
    },
  },

  events: {
    // Lifecycle events reach one engine node (balanced); the owner of the market acts on them.
    "market.opened"(this: BookThis, ctx) {
      return call(ctx, "book.ensureMarket", { marketId: ctx.params.marketId }).then(
        () => undefined,
        (err) => this.logger.warn("market.opened", err),
      );
    },
    "market.closed": halt("closed"),
    "market.cancelled": halt("cancelled"),
    "market.resolved": halt("resolved"),
    "market.resolutionFailed": halt("resolution_failed"),
    // Engines joined or left: stop writing at once to the markets this node no longer owns.
    "$node.connected": dropForeignMarkets,
    "$node.disconnected": dropForeignMarkets,
    "$services.changed": dropForeignMarkets,
    /** The ledger's durability watermark: acknowledges this node's commands without a call each. */
    "ledger.durable": {
      handler(this: BookThis, ctx) {
        this.durability.observe(ctx.params.instance, ctx.params.seq);
      },
    },
  },

  created() {
    const cores = bookCoresOn(this.broker, (message) => this.logger.info(message));
    this.registry = cores.registry;
    this.desk = cores.desk;
    this.owner = cores.owner;
    this.durability = cores.durability;
  },

  async stopped() {
    await this.registry.drain();
  },
});

export default BookService;
