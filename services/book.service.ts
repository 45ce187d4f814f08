import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import {
  type ActionResult,
  type Answer,
  type HandlerParams,
  type EventPayload,
  broadcast,
  call,
  emit,
  internalAction,
  routeAction,
  rulesOf,
} from "../contract";
import { configOf } from "../lib/config";
import { notFound } from "../lib/errors";
import { throwWire } from "../gateway/faults";
import { currentUser, type AppContext } from "../mixins/context";
import { withIdempotency } from "../mixins/idempotency.middleware";
import { marketOwner, refreshOwners } from "../mixins/market-routing.middleware";
import type { MarketActor } from "../trading/market-actor";
import type { MarketRegistry } from "../trading/market-registry";
import type { OrderDesk } from "../trading/order-desk";
import { BookCores } from "../trading/book-cores";
import { levelView, orderView, topOfBook, type TopOfBook } from "../trading/order-views";
import { tradeView } from "../trading/market-order";
import type { DurabilityWatch } from "../trading/durability";
import { METRIC } from "../lib/metrics";
import { page } from "../lib/paging";
import { Validator } from "../lib/validator";

type BookThis = Service & {
  registry: MarketRegistry<MarketActor>;
  desk: OrderDesk<AppContext>;
  durability: DurabilityWatch;
};

/** Each order of a batch is checked like POST /orders' body. */
const placeCheck = Validator.compile(rulesOf("PlaceOrderRequest")) as (v: unknown) => true | Array<{ field: string; type: string }>;

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
 * MarketActor, publishCommitted).
 */
const BookService = defineService<BookThis>({
  name: "book",

  actions: {
    /** POST /orders: a limit order, GTC, GTD, FOK or FAK, optionally post-only, with a client order id. */
    place: {
      ...routeAction("book.place"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.place">>): Answer<"book.place"> {
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
        const { orderId, userId, price, quantity, postOnly } = ctx.params;
        return this.registry
          .onMarket(ctx.params.marketId, (actor) => actor.amend({ orderId, userId, price, quantity, postOnly }))
          .catch(throwWire);
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
        const { marketId, userId, orderIds, reason } = ctx.params;
        return this.registry.onMarket(marketId, (actor) => actor.cancelMany(userId ?? null, orderIds ?? null, reason)).catch(throwWire);
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
        return this.registry.onMarket(ctx.params.marketId, (actor) => actor.cancel(ctx.params.orderId, ctx.params.userId)).catch(throwWire);
      },
    },

    /** GET /orders: the caller's orders, newest first: open (default), closed or all; paged. */
    listOrders: {
      ...routeAction("book.listOrders"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.listOrders">>): Promise<ActionResult<"book.listOrders">> {
        const { items, total } = await call(ctx, "ledger.orders", { ...ctx.params, userId: currentUser(ctx).id });
        return page(items.map(orderView), total, ctx.params.page, ctx.params.pageSize);
      },
    },

    /** GET /markets/:marketId/orderbook: top 10 aggregated levels of the YES or NO view. */
    orderbook: {
      ...routeAction("book.orderbook"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.orderbook">>): Promise<ActionResult<"book.orderbook">> {
        const actor = await this.registry.existingActor(ctx.params.marketId).catch(throwWire);
        if (!actor) throw notFound("Market");
        return levelView(actor.book.depth(ctx.params.outcome, 10));
      },
    },

    /** Internal: a market order (AMM only or routed) inside the market's actor. */
    route: {
      ...internalAction("book.route"),
      handler(this: BookThis, ctx: AppContext<HandlerParams<"book.route">>): Answer<"book.route"> {
        const { userId, side, outcome, quantity, mode, idem } = ctx.params;
        // The answer (the trade's wire view) is journaled with the trade under the request's key.
        return this.registry
          .onMarket(ctx.params.marketId, (actor) =>
            actor.route({ userId, side, outcome, quantity, mode, ...(idem ? { idem: { ...idem, render: tradeView } } : {}) }),
          )
          .then((r) => {
            if (idem) ctx.meta.idemJournaled = true;
            return r;
          }, throwWire);
      },
    },

    /** Internal: what `route` would do now, without doing it. */
    quote: {
      ...internalAction("book.quote"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.quote">>): Promise<ActionResult<"book.quote">> {
        const { userId, side, outcome, quantity, mode } = ctx.params;
        const plan = await this.registry
          .onMarket(ctx.params.marketId, (actor) => actor.quote({ userId, side, outcome, quantity, mode }))
          .catch(throwWire);
        return { venue: plan.venue, filled: plan.filled, totalCost: plan.totalCost, fee: plan.fee, avgPrice: plan.avgPrice };
      },
    },

    /** Internal: load a market's actor (funds its AMM pool on first sight of an open market). */
    ensureMarket: {
      ...internalAction("book.ensureMarket"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.ensureMarket">>): Promise<ActionResult<"book.ensureMarket">> {
        const actor = await this.registry.existingActor(ctx.params.marketId).catch(throwWire);
        return { loaded: !!actor, pool: actor?.pool ?? null, nodeID: this.broker.nodeID };
      },
    },

    /** Internal: depth of both views with the book's sequence (socket snapshots). */
    depth: {
      ...internalAction("book.depth"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.depth">>): Promise<ActionResult<"book.depth">> {
        const actor = await this.registry.existingActor(ctx.params.marketId).catch(throwWire);
        if (!actor) throw notFound("Market");
        return {
          seq: actor.book.seq,
          yes: levelView(actor.book.depth("YES", ctx.params.levels)),
          no: levelView(actor.book.depth("NO", ctx.params.levels)),
        };
      },
    },

    /** Internal: best prices per market for live prices (null where the book is empty). */
    topOfBook: {
      ...internalAction("book.topOfBook"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.topOfBook">>): Promise<ActionResult<"book.topOfBook">> {
        const out: Record<string, TopOfBook> = {};
        const tops = await Promise.all(ctx.params.marketIds.map((marketId) => call(ctx, "book.top", { marketId }).catch(() => null)));
        ctx.params.marketIds.forEach((id, i) => (out[id] = tops[i] ?? topOfBook(undefined, null)));
        return out;
      },
    },

    /** Internal: one market's best prices, answered by its owner. */
    top: {
      ...internalAction("book.top"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.top">>): Promise<ActionResult<"book.top">> {
        const actor = await this.registry.actorIfServed(ctx.params.marketId);
        return topOfBook(actor?.book, actor?.pool);
      },
    },

    /** Internal: a market stopped trading (closed, cancelled, resolved): its owner releases every resting order. */
    halt: {
      ...internalAction("book.halt"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.halt">>): Promise<ActionResult<"book.halt">> {
        const actor = await this.registry.existingActor(ctx.params.marketId).catch(throwWire);
        if (!actor) return { released: 0 };
        if (ctx.params.status === "resolution_failed") {
          actor.setStatus("resolution_failed");
          return { released: 0 };
        }
        return { released: await actor.halt(ctx.params.status) };
      },
    },

    /** Internal: what an immediate order of `quantity` would get from the book (mark prices, quotes). */
    exitQuote: {
      ...internalAction("book.exitQuote"),
      async handler(this: BookThis, ctx: AppContext<HandlerParams<"book.exitQuote">>): Promise<ActionResult<"book.exitQuote">> {
        const actor = await this.registry.existingActor(ctx.params.marketId).catch(throwWire);
        if (!actor) return { filled: 0, proceeds: 0 };
        return actor.exitQuote(ctx.params.outcome, ctx.params.quantity, ctx.params.side, ctx.params.userId);
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
    "ledger.durable"(this: BookThis, ctx) {
      this.durability.observe(ctx.params.instance, ctx.params.seq);
    },
  },

  created() {
    const broker = this.broker;
    const cfg = configOf(broker);
    const cores = new BookCores<AppContext>({
      nodeID: broker.nodeID,
      fees: { takerBps: cfg.takerFeeBps, makerBps: cfg.makerFeeBps },
      ammFeeBps: cfg.ammFeeBps,
      engines: { ownerOf: (marketId) => marketOwner(broker, marketId), refresh: () => refreshOwners(broker) },
      market: (marketId) => call(broker, "catalog.getMarketInternal", { marketId }),
      ledger: {
        acquire: (marketId, node) => call(broker, "ledger.acquireMarket", { marketId, node }),
        restingOrders: (marketId, afterPrio, limit) => call(broker, "ledger.restingOrders", { marketId, afterPrio, limit }),
        post: (entry) => call(broker, "ledger.post", { ...entry, durable: false }),
        sync: (seq, instance) => call(broker, "ledger.sync", { seq, instance }).then(() => undefined),
      },
      // What a committed command tells the world (trading/publication.ts), dispatched here.
      out: {
        broadcast: (event, payload) => broadcast(broker, event, payload),
        emit: (event, payload) => emit(broker, event, payload),
        count: (metric, labels) => broker.metrics.increment(METRIC[metric], labels),
      },
      measured: (marketId, ms, queueDepth) => {
        broker.metrics.observe(METRIC.commandLatency, ms, { command: "market" });
        broker.metrics.set(METRIC.queueDepth, queueDepth, { marketId });
      },
      log: (message) => this.logger.info(message),
      requests: {
        checkShape: placeCheck,
        placeRemote: (ctx, p) => call(ctx, "book.placeTerms", p),
        journaled: (ctx) => void (ctx.meta.idemJournaled = true),
        withIdempotency: (ctx, idem, run) => withIdempotency(ctx, idem, run).then((r) => r.value),
        order: (ctx, orderId) => call(ctx, "ledger.getOrder", { orderId }),
        amendOrder: (ctx, a) => call(ctx, "book.amendOrder", a),
        openMarketsOf: (ctx, userId) => call(ctx, "ledger.openMarketsOf", { userId }),
        cancelMany: (ctx, marketId, userId, reason) => call(ctx, "book.cancelMany", { marketId, userId, reason }),
        cancel: (ctx, marketId, orderId, userId) => call(ctx, "book.cancel", { marketId, orderId, userId }),
      },
    });
    this.registry = cores.registry;
    this.desk = cores.desk;
    this.durability = cores.durability;
  },

  async stopped() {
    await this.registry.drain();
  },
});

export default BookService;
