import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { configOf } from "../lib/config";
import { newId } from "../lib/ids";
import { DomainError, notFound, validationError } from "../lib/errors";
import { currentUser, type AppContext } from "../mixins/context";
import { MarketActor, TradingError, type CancelManyResult, type IdemRequest, type MarketPorts, type PlaceResult } from "../trading/market-actor";
import { checkOrder, checkPriceAndQuantity, MAX_BATCH, type OrderTerms, type PlaceOrderParams } from "../trading/order-rules";
import { levelView, orderView, placeView, poolYesPrice, type PlaceView, type TopOfBook } from "../trading/order-views";
import type { CancelReasonCode } from "../engine/settlement";
import { DurabilityWatch } from "../trading/durability";
import { marketOwner, refreshOwners } from "../mixins/market-routing.middleware";
import { cost, formatAvgPrice, formatTick, isLotQuantity, LOT, priceToTick } from "../engine/money";
import type { Depth, OrderType, Outcome, Side } from "../engine/types";
import { METRIC } from "../lib/metrics";
import { PAGE, pageSizeParam, POSITIVE_SAFE_INTEGER } from "../lib/params";
import { page } from "../lib/paging";
import { Validator } from "../lib/validator";
import { withIdempotency } from "../mixins/idempotency.middleware";
import { tradeView } from "../trading/market-order";
import type { MarketLease, OrderDoc } from "../models/trading";

export interface RouteParams {
  marketId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  mode: "AMM" | "ROUTE";
}



type BookThis = Service & {
  actors: Map<string, Promise<MarketActor>>;
  ports: MarketPorts;
  durability: DurabilityWatch;
  actor(marketId: string): Promise<MarketActor>;
  existingActor(marketId: string): Promise<MarketActor | null>;
  onMarket<T>(marketId: string, fn: (actor: MarketActor) => Promise<T>): Promise<T>;
  placeOne(ctx: AppContext, p: PlaceOrderParams, idem?: { scope: string; key: string; fingerprint: string }): Promise<PlaceView>;
  owns(marketId: string): boolean;
  dropForeignMarkets(): void;
  stopping?: boolean;
};

const ID = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9_:-]+$/ } as const;

export const ORDERS_DEFAULT_PAGE_SIZE = 100;
export const ORDERS_MAX_PAGE_SIZE = 500;

/** POST /orders' body: one schema for the order endpoint and each order of a batch. */
const PLACE_PARAMS = {
  marketId: ID,
  side: { type: "enum", values: ["BUY", "SELL"] },
  outcome: { type: "enum", values: ["YES", "NO"] },
  orderType: { type: "enum", values: ["GTC", "GTD", "FOK", "FAK"] },
  price: { type: "number", min: 0.01, max: 0.99 },
  quantity: POSITIVE_SAFE_INTEGER,
  expiresAt: { type: "string", max: 40, optional: true },
  postOnly: { type: "boolean", optional: true },
  clientOrderId: { type: "string", max: 200, optional: true },
} as const;
const placeCheck = Validator.compile({ ...PLACE_PARAMS, $$strict: "remove" }) as (v: unknown) => true | Array<{ field: string; type: string }>;

/** Market actions are routed to the market's owner by MarketRouting (mixins/market-routing.middleware.ts). */



const BookService = defineService<BookThis>({
  name: "book",

  actions: {
    /** POST /orders: a limit order, GTC, GTD, FOK or FAK, optionally post-only, with a client order id. */
    place: {
      auth: "user",
      idempotent: true,
      params: { ...PLACE_PARAMS, $$strict: "remove" },
      handler(this: BookThis, ctx: AppContext<PlaceOrderParams>) {
        return this.placeOne(ctx, ctx.params, ctx.meta.idem);
      },
    },

    /** Internal: place on the market's owner (a batch's orders, each standing alone). */
    placeTerms: {
      visibility: "public",
      params: { marketId: ID, userId: "string", terms: "object", idem: { type: "object", optional: true } },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; userId: string; terms: OrderTerms; idem?: { scope: string; key: string; fingerprint: string } }>): Promise<PlaceView> {
        const { terms: t, userId, idem } = ctx.params;
        const render = (r: PlaceResult) => placeView(t, r);
        const r = await this.onMarket(t.marketId, (actor) =>
          actor.place({ userId, side: t.side, outcome: t.outcome, orderType: t.orderType, price: t.price, quantity: t.quantity, expiresAt: t.expiresAt, postOnly: t.postOnly, clientOrderId: t.clientOrderId, idem: idem ? ({ ...idem, render } as IdemRequest<PlaceResult>) : undefined }),
        );
        // The answer is journaled with the command: the idempotency layer need not store it again.
        if (idem) ctx.meta.idemJournaled = true;
        return render(r);
      },
    },

    /** POST /orders/batch: up to 20 orders, each standing alone; the answers in request order. */
    placeBatch: {
      auth: "user",
      idempotent: true,
      params: { orders: { type: "array", min: 1, max: MAX_BATCH, items: "object" }, $$strict: "remove" },
      async handler(this: BookThis, ctx: AppContext<{ orders: PlaceOrderParams[] }>) {
        const results = [];
        for (let i = 0; i < ctx.params.orders.length; i++) {
          const body = ctx.params.orders[i];
          const check = placeCheck(body);
          if (check !== true) {
            results.push({ ok: false, error: { code: "VALIDATION_ERROR", message: "Parameters validation error", fields: check.map((c) => ({ field: `orders[${i}].${c.field}`, rule: c.type })) } });
            continue;
          }
          // Each order of an idempotent batch has its own key, so a retry after a crash places
          // only the ones that did not land the first time.
          const idem = ctx.meta.idem ? { ...ctx.meta.idem, key: `${ctx.meta.idem.key}#${i}` } : undefined;
          try {
            const order = idem ? (await withIdempotency(ctx, idem, () => this.placeOne(ctx, body, idem))).value : await this.placeOne(ctx, body);
            results.push({ ok: true, order });
          } catch (err) {
            const e = err as { type?: string; message?: string; data?: { fields?: unknown } };
            results.push({ ok: false, error: { code: e.type ?? "INTERNAL_ERROR", message: e.message ?? "failed", ...(e.data?.fields ? { fields: e.data.fields } : {}) } });
          }
        }
        return results;
      },
    },

    /** PATCH /orders/:orderId: atomic amend under the same id (a lower quantity keeps priority). */
    amend: {
      auth: "user",
      params: {
        orderId: { type: "string", min: 1, max: 64 },
        price: { type: "number", min: 0.01, max: 0.99, optional: true },
        quantity: { ...POSITIVE_SAFE_INTEGER, optional: true },
        $$strict: "remove",
      },
      async handler(this: BookThis, ctx: AppContext<{ orderId: string; price?: number; quantity?: number }>) {
        const user = currentUser(ctx);
        const { orderId, price, quantity } = ctx.params;
        if (price === undefined && quantity === undefined) throw validationError("Give price, quantity or both", [{ field: "price", rule: "required" }]);
        const pq = checkPriceAndQuantity(price, quantity);
        if (!pq.ok) throw validationError(pq.message, pq.fields);
        const o = await ctx.call<OrderDoc | null, { orderId: string }>("ledger.getOrder", { orderId });
        if (!o || o.userId !== user.id || o.remaining <= 0) throw notFound("Order", "ORDER_NOT_FOUND");
        const r = await ctx.call<PlaceResult, object>("book.amendOrder", { marketId: o.marketId, orderId, userId: user.id, price: pq.value.tick, quantity: pq.value.quantity, postOnly: o.postOnly });
        const terms: OrderTerms = { marketId: o.marketId, side: o.side, outcome: o.outcome, orderType: o.orderType, price: pq.value.tick ?? o.price, quantity: o.filledQuantity + r.filledQuantity + r.remainingQuantity, postOnly: o.postOnly, ...(o.clientOrderId ? { clientOrderId: o.clientOrderId } : {}), ...(o.expiresAt ? { expiresAt: o.expiresAt } : {}) };
        return { ...placeView(terms, r), filledQuantity: String(o.filledQuantity + r.filledQuantity), createdAt: o.createdAt, updatedAt: r.createdAt };
      },
    },

    /** Internal: the amend inside the market's actor. */
    amendOrder: {
      visibility: "public",
      params: { marketId: ID, orderId: "string", userId: "string", price: { type: "number", optional: true }, quantity: { type: "number", optional: true }, postOnly: { type: "boolean", optional: true } },
      handler(this: BookThis, ctx: AppContext<{ marketId: string; orderId: string; userId: string; price?: number; quantity?: number; postOnly?: boolean }>): Promise<PlaceResult> {
        const { orderId, userId, price, quantity, postOnly } = ctx.params;
        return this.onMarket(ctx.params.marketId, (actor) => actor.amend({ orderId, userId, price, quantity, postOnly }));
      },
    },

    /** DELETE /orders: every open order of the caller (in one market, with `marketId`). */
    cancelAll: {
      auth: "user",
      params: { marketId: { ...ID, optional: true }, $$strict: "remove" },
      async handler(this: BookThis, ctx: AppContext<{ marketId?: string }>) {
        const user = currentUser(ctx);
        const markets = ctx.params.marketId ? [ctx.params.marketId] : await ctx.call<string[], { userId: string }>("ledger.openMarketsOf", { userId: user.id });
        const cancelled: string[] = [];
        let released = 0;
        for (const marketId of markets) {
          const r = await ctx.call<CancelManyResult, object>("book.cancelMany", { marketId, userId: user.id, reason: "user" });
          cancelled.push(...r.cancelled);
          released += r.releasedAmount;
        }
        return { cancelled, releasedAmount: String(released) };
      },
    },

    /** Internal: cancel a user's resting orders, or given ones (expiry), in one entry on the market's owner. */
    cancelMany: {
      visibility: "public",
      params: { marketId: ID, userId: { type: "string", optional: true }, orderIds: { type: "array", items: "string", optional: true }, reason: { type: "enum", values: ["user", "expired", "heartbeat"] } },
      handler(this: BookThis, ctx: AppContext<{ marketId: string; userId?: string; orderIds?: string[]; reason: CancelReasonCode }>): Promise<CancelManyResult> {
        const { marketId, userId, orderIds, reason } = ctx.params;
        return this.onMarket(marketId, (actor) => actor.cancelMany(userId ?? null, orderIds ?? null, reason));
      },
    },

    /** DELETE /orders/:orderId */
    cancelOrder: {
      auth: "user",
      params: { orderId: { type: "string", min: 1, max: 64 }, $$strict: "remove" },
      async handler(this: BookThis, ctx: AppContext<{ orderId: string }>) {
        const user = currentUser(ctx);
        const o = await ctx.call<OrderDoc | null, { orderId: string }>("ledger.getOrder", { orderId: ctx.params.orderId });
        if (!o || o.userId !== user.id || (o.status !== "open" && o.status !== "partially_filled")) throw notFound("Order", "ORDER_NOT_FOUND");
        // The owner of the market's book does the cancel (sharded by marketId in a cluster).
        // Routed to the owner of the market's book.
        const r = await ctx.call<{ orderId: string; status: string; cancelledQuantity: number; releasedAmount: number }, object>("book.cancel", { marketId: o.marketId, orderId: o._id, userId: user.id });
        // Amounts as digit strings, like every quantity and money field of the contract.
        return { orderId: r.orderId, status: r.status, cancelledQuantity: String(r.cancelledQuantity), releasedAmount: String(r.releasedAmount) };
      },
    },

    /** Internal: cancel inside the market's actor. */
    cancel: {
      visibility: "public",
      params: { marketId: ID, orderId: "string", userId: "string" },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; orderId: string; userId: string }>) {
        return this.onMarket(ctx.params.marketId, (actor) => actor.cancel(ctx.params.orderId, ctx.params.userId));
      },
    },

    /** GET /orders: the caller's orders, newest first: open (default), closed or all; paged. */
    listOrders: {
      auth: "user",
      params: {
        marketId: { ...ID, optional: true },
        status: { type: "enum", values: ["open", "closed", "all"], optional: true, default: "open" },
        clientOrderId: { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9._:-]+$/, optional: true },
        page: PAGE,
        pageSize: pageSizeParam(ORDERS_DEFAULT_PAGE_SIZE, ORDERS_MAX_PAGE_SIZE),
        $$strict: "remove",
      },
      async handler(this: BookThis, ctx: AppContext<{ marketId?: string; status: "open" | "closed" | "all"; clientOrderId?: string; page: number; pageSize: number }>) {
        const { items, total } = await ctx.call<{ items: OrderDoc[]; total: number }, object>("ledger.orders", { ...ctx.params, userId: currentUser(ctx).id });
        return page(items.map(orderView), total, ctx.params.page, ctx.params.pageSize);
      },
    },

    /** GET /markets/:marketId/orderbook: top 10 aggregated levels of the YES or NO view. */
    orderbook: {
      params: { marketId: ID, outcome: { type: "enum", values: ["YES", "NO"], optional: true, default: "YES" }, $$strict: "remove" },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; outcome: Outcome }>) {
        const actor = await this.existingActor(ctx.params.marketId);
        if (!actor) throw notFound("Market");
        return levelView(actor.book.depth(ctx.params.outcome, 10));
      },
    },

    /** Internal: a market order (AMM only or routed) inside the market's actor. */
    route: {
      visibility: "public",
      params: { marketId: ID, userId: "string", side: { type: "enum", values: ["BUY", "SELL"] }, outcome: { type: "enum", values: ["YES", "NO"] }, quantity: { type: "number", integer: true, positive: true }, mode: { type: "enum", values: ["AMM", "ROUTE"] }, idem: { type: "object", optional: true } },
      async handler(this: BookThis, ctx: AppContext<RouteParams & { idem?: { scope: string; key: string; fingerprint: string } }>) {
        const { userId, side, outcome, quantity, mode, idem } = ctx.params;
        // The answer (the trade's wire view) is journaled with the trade under the request's key.
        const r = await this.onMarket(ctx.params.marketId, (actor) => actor.route({ userId, side, outcome, quantity, mode, ...(idem ? { idem: { ...idem, render: tradeView } } : {}) }));
        if (idem) ctx.meta.idemJournaled = true;
        return r;
      },
    },

    /** Internal: what `route` would do now, without doing it. */
    quote: {
      visibility: "public",
      params: { marketId: ID, userId: "string", side: { type: "enum", values: ["BUY", "SELL"] }, outcome: { type: "enum", values: ["YES", "NO"] }, quantity: { type: "number", integer: true, positive: true }, mode: { type: "enum", values: ["AMM", "ROUTE"] } },
      async handler(this: BookThis, ctx: AppContext<RouteParams>) {
        const { userId, side, outcome, quantity, mode } = ctx.params;
        const plan = await this.onMarket(ctx.params.marketId, (actor) => actor.quote({ userId, side, outcome, quantity, mode }));
        return { venue: plan.venue, filled: plan.filled, totalCost: plan.totalCost, fee: plan.fee, avgPrice: plan.avgPrice };
      },
    },

    /** Internal: load a market's actor (funds its AMM pool on first sight of an open market). */
    ensureMarket: {
      visibility: "public",
      params: { marketId: ID },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string }>) {
        const actor = await this.existingActor(ctx.params.marketId);
        return { loaded: !!actor, pool: actor?.pool ?? null, nodeID: this.broker.nodeID };
      },
    },

    /** Internal: depth of both views with the book's sequence (socket snapshots). */
    depth: {
      visibility: "public",
      params: { marketId: ID, levels: { type: "number", optional: true, default: 10 } },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; levels: number }>) {
        const actor = await this.existingActor(ctx.params.marketId);
        if (!actor) throw notFound("Market");
        return { seq: actor.book.seq, yes: levelView(actor.book.depth("YES", ctx.params.levels)), no: levelView(actor.book.depth("NO", ctx.params.levels)) };
      },
    },

    /** Internal: best prices per market for live prices (null where the book is empty). */
    topOfBook: {
      visibility: "public",
      params: { marketIds: { type: "array", items: "string", max: 200 } },
      async handler(this: BookThis, ctx: AppContext<{ marketIds: string[] }>) {
        const out: Record<string, TopOfBook> = {};
        const tops = await Promise.all(ctx.params.marketIds.map((marketId) => ctx.call<TopOfBook, { marketId: string }>("book.top", { marketId }).catch(() => null)));
        ctx.params.marketIds.forEach((id, i) => (out[id] = tops[i] ?? { yesBid: null, yesAsk: null, ammYes: null }));
        return out;
      },
    },

    /** Internal: one market's best prices, answered by its owner. */
    top: {
      visibility: "public",
      params: { marketId: ID },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string }>): Promise<TopOfBook> {
        const actor = await this.existingActor(ctx.params.marketId).catch(() => null);
        const b = actor?.book.best("YES");
        return { yesBid: b?.bid ?? null, yesAsk: b?.ask ?? null, ammYes: actor?.pool ? poolYesPrice(actor.pool) : null };
      },
    },

    /** Internal: a market stopped trading (closed, cancelled, resolved): its owner releases every resting order. */
    halt: {
      visibility: "public",
      params: { marketId: ID, status: "string" },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; status: string }>) {
        const actor = await this.existingActor(ctx.params.marketId);
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
      visibility: "public",
      params: { marketId: ID, outcome: { type: "enum", values: ["YES", "NO"] }, quantity: { type: "number", integer: true, min: 0 }, side: { type: "enum", values: ["BUY", "SELL"], optional: true, default: "SELL" }, userId: { type: "string", optional: true } },
      async handler(this: BookThis, ctx: AppContext<{ marketId: string; outcome: Outcome; quantity: number; side: Side; userId?: string }>) {
        const actor = await this.existingActor(ctx.params.marketId);
        if (!actor) return { filled: 0, proceeds: 0 };
        return actor.exitQuote(ctx.params.outcome, ctx.params.quantity, ctx.params.side, ctx.params.userId);
      },
    },
  },

  events: {
    // Lifecycle events reach one engine node (balanced); the owner of the market acts on them.
    "market.opened"(this: BookThis, ctx: AppContext<{ marketId: string }>) {
      return ctx.call("book.ensureMarket", { marketId: ctx.params.marketId }).then(() => undefined, (err) => this.logger.warn("market.opened", err));
    },
    "market.closed"(this: BookThis, ctx: AppContext<{ marketId: string }>) {
      return ctx.call("book.halt", { marketId: ctx.params.marketId, status: "closed" });
    },
    "market.cancelled"(this: BookThis, ctx: AppContext<{ marketId: string }>) {
      return ctx.call("book.halt", { marketId: ctx.params.marketId, status: "cancelled" });
    },
    "market.resolved"(this: BookThis, ctx: AppContext<{ marketId: string }>) {
      return ctx.call("book.halt", { marketId: ctx.params.marketId, status: "resolved" });
    },
    "market.resolutionFailed"(this: BookThis, ctx: AppContext<{ marketId: string }>) {
      return ctx.call("book.halt", { marketId: ctx.params.marketId, status: "resolution_failed" });
    },
    // Engines joined or left: stop writing at once to the markets this node no longer owns.
    "$node.connected"(this: BookThis) {
      this.dropForeignMarkets();
    },
    "$node.disconnected"(this: BookThis) {
      this.dropForeignMarkets();
    },
    "$services.changed"(this: BookThis) {
      this.dropForeignMarkets();
    },
    /** The ledger's durability watermark: acknowledges this node's commands without a call each. */
    "ledger.durable"(this: BookThis, ctx: AppContext<{ instance: string; seq: number }>) {
      this.durability.observe(ctx.params.instance, ctx.params.seq);
    },
  },

  methods: {
    /** The market's actor: its lease taken and its book rebuilt from the ledger on first use (also after a move). */
    actor(this: BookThis, marketId: string): Promise<MarketActor> {
      let p = this.actors.get(marketId);
      if (!p) {
        // Only the owner in this node's view takes a market (the ledger arbitrates between views).
        if (!this.owns(marketId)) return Promise.reject(new DomainError(`Market ${marketId} is served by another engine node; retry`, 503, "MARKET_MOVED"));
        p = MarketActor.load(marketId, this.ports);
        this.actors.set(marketId, p);
        p.catch(() => this.actors.delete(marketId));
      }
      return p.then((a) => {
        if (a.fenced) {
          // Lost the lease, or a commit's outcome is unknown: rebuild from what the ledger holds.
          if (this.actors.get(marketId) === p) this.actors.delete(marketId);
          return this.actor(marketId);
        }
        return a;
      });
    },

    /** Is this node the market's owner among the engines it sees? */
    owns(this: BookThis, marketId: string): boolean {
      const owner = marketOwner(this.broker, marketId);
      return owner === null || owner === this.broker.nodeID;
    },

    /** Stop writing at once to markets that moved to another node; their new owner takes the lease. */
    dropForeignMarkets(this: BookThis) {
      refreshOwners(this.broker);
      for (const [marketId, p] of this.actors) {
        if (this.owns(marketId)) continue;
        this.actors.delete(marketId);
        p.then((a) => {
          a.fenced = true;
        }).catch(() => undefined);
        this.logger.info(`market ${marketId} moved to another engine node`);
      }
    },

    /** Like actor(), but only for markets the catalog knows. */
    async existingActor(this: BookThis, marketId: string): Promise<MarketActor | null> {
      const actor = await this.actor(marketId);
      if (actor.status === null) {
        this.actors.delete(marketId);
        return null;
      }
      return actor;
    },

    /** One order: its rules checked here, then placed by the market's owner. */
    async placeOne(this: BookThis, ctx: AppContext, p: PlaceOrderParams, idem?: { scope: string; key: string; fingerprint: string }): Promise<PlaceView> {
      const user = currentUser(ctx);
      const checked = checkOrder(p, Date.now());
      if (!checked.ok) throw validationError(checked.message, checked.fields);
      const view = await ctx.call<PlaceView, object>("book.placeTerms", { marketId: p.marketId, userId: user.id, terms: checked.value, ...(idem ? { idem } : {}) });
      if (idem) ctx.meta.idemJournaled = true;
      return view;
    },

    /**
     * Run a command on a market's actor. A command refused because the market moved ran nowhere:
     * the caller (MarketRouting) retries it on the owner. Trading errors of the pure actor become
     * domain errors with the spec's envelope.
     */
    async onMarket<T>(this: BookThis, marketId: string, fn: (actor: MarketActor) => Promise<T>): Promise<T> {
      const actor = await this.existingActor(marketId);
      if (!actor) throw notFound("Market");
      const t0 = process.hrtime.bigint();
      try {
        return await fn(actor);
      } catch (err) {
        if (err instanceof TradingError) throw new DomainError(err.message, err.status, err.code);
        throw err;
      } finally {
        this.broker.metrics.observe(METRIC.commandLatency, Number(process.hrtime.bigint() - t0) / 1e6, { command: "market" });
        this.broker.metrics.set(METRIC.queueDepth, actor.queueDepth, { marketId });
      }
    },
  },

  created() {
    this.actors = new Map();
    this.durability = new DurabilityWatch(async (seq, instance) => {
      await this.broker.call("ledger.sync", { seq, instance });
    });
  },

  started() {
    const cfg = configOf(this.broker);
    const broker = this.broker;
    this.ports = {
      fees: { takerBps: cfg.takerFeeBps, makerBps: cfg.makerFeeBps },
      ammFeeBps: cfg.ammFeeBps,
      newId,
      nodeID: broker.nodeID,
      async market(marketId) {
        // A catalog that is down is not "no such market": that error goes up as 503.
        const m = await broker.call<{ status: string; ammLiquidity?: string } | null, { marketId: string }>("catalog.getMarketInternal", { marketId });
        if (!m) return null;
        const L = Number(m.ammLiquidity ?? "0");
        // Funding is whole lots like every quantity; a remainder below one lot is not used.
        return { status: m.status, ammLiquidity: Number.isSafeInteger(L) ? L - (L % LOT) : 0 };
      },
      ledger: {
        acquire: (marketId) => broker.call<MarketLease & { instance: string }, object>("ledger.acquireMarket", { marketId, node: broker.nodeID }),
        restingOrders: (marketId, afterPrio, limit) => broker.call("ledger.restingOrders", { marketId, afterPrio, limit }),
        post: (entry) => broker.call("ledger.post", { ...entry, durable: false }),
        durable: (seq, instance) => this.durability.wait(seq, instance),
      },
      publish(doc, actor) {
        const best = actor.book.best("YES");
        // Real-time events go to every gateway (broadcast); the price print to one catalog (emit).
        broker.broadcast("book.changed", { marketId: doc.marketId, seq: actor.book.seq, yes: levelView(actor.book.depth("YES", 10)) });
        broker.broadcast("market.pricesChanged", { marketId: doc.marketId, yesBid: best.bid, yesAsk: best.ask, ammYes: actor.pool ? poolYesPrice(actor.pool) : null });
        const kind = doc.command.type === "place" ? "limit" : doc.command.type === "route" ? doc.command.mode.toLowerCase() : null;
        if (kind) broker.metrics.increment(METRIC.orders, { kind, result: "accepted" });
        for (const f of doc.fills) broker.metrics.increment(METRIC.fills, { kind: f.kind });
        if (doc.pool && doc.command.type === "route") broker.metrics.increment(METRIC.fills, { kind: "amm" });
        for (const f of doc.fills) {
          const notional = cost(f.quantity, f.yesPrice);
          broker.emit("market.trade", { marketId: doc.marketId, tradeId: f.fillId, outcome: "YES", yesPrice: f.yesPrice, quantity: f.quantity, notional, at: doc.at });
        }
        if (doc.amm) {
          // Every venue prints: the pool's execution at its average price to the cent (candles are
          // in cents), its notional in YES terms like a book fill's.
          const a = doc.amm;
          const ticks = Math.min(99, Math.max(1, Math.round((a.cash * 100) / a.quantity)));
          const yesPrice = a.outcome === "YES" ? ticks : 100 - ticks;
          broker.emit("market.trade", { marketId: doc.marketId, tradeId: a.fillId, outcome: "YES", yesPrice, quantity: a.quantity, notional: a.outcome === "YES" ? a.cash : a.quantity - a.cash, at: doc.at });
        }
        for (const c of doc.orders) {
          broker.broadcast("order.updated", {
            orderId: c.orderId,
            userId: c.userId,
            marketId: doc.marketId,
            status: c.status,
            remainingQuantity: String(c.remaining),
            filledDelta: String(c.filledDelta),
            clientOrderId: actor.clientOrderIdOf(c.orderId),
            cancelReason: c.reason ?? null,
          });
        }
        actor.forgetClosed(doc.orders);
      },
    };
  },

  async stopped() {
    this.stopping = true;
    // Let every actor finish the command it is running (graceful drain).
    await Promise.all([...this.actors.values()].map((p) => p.then((a) => a.drain()).catch(() => undefined)));
  },
});

export default BookService;
