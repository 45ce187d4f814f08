import type { Service } from "moleculer";
import { defineService } from "../mixins/service";
import { type ActionName, type ActionResult, type HandlerParams, ID_PARAM, call, emit, internalAction, routeAction } from "../contract";
import { configOf } from "../lib/config";
import { Validator } from "../lib/validator";
import type { WriteBatcher } from "../lib/serial";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import { page } from "../lib/paging";
import { renderDispute, renderEventInternal, renderInternal, renderMarket } from "../catalog/views";
import type { Catalog, CatalogOut } from "../catalog/catalog";
import type { ResolutionProcess } from "../catalog/process";
import type { MarketClock } from "../catalog/clock";
import type { CatalogReads, QuoteSource } from "../catalog/reads";
import type { CatalogCollections, FailResolutionParams, MarketOpenedEvent, MarketTradeEvent } from "../models/catalog";
import type { MarketView } from "../catalog/views";
import type { TradingModes } from "../catalog/trading-mode";
import { engineNodes } from "../mixins/market-routing.middleware";
import { nullWhenAbsent } from "../mixins/optional-service";
import { runDemoMaker } from "../mixins/demo-maker";
import { MARKET_TRADE_PARAMS, catalogCoresOn, dropMarketCache, liveQuotes, requestOut } from "../mixins/catalog-wiring";
import { throwWire } from "../lib/errors";
import { catalogWritesOf, watchWrites } from "../mixins/catalog-writes";

/** A print of `market.trades`, checked as `market.trade`'s params are. */
const checkPrint = Validator.compile(MARKET_TRADE_PARAMS) as (v: unknown) => true | unknown[];

/** GET /markets/:id is cached this long (spec: 5 s); status transitions drop the entry at once. */
export const MARKET_CACHE_TTL_SEC = 5;

/** A handler's context and reply, typed from the contract. */
type Ctx<A extends ActionName> = AppContext<HandlerParams<A>>;
type Reply<A extends ActionName> = Promise<ActionResult<A>>;

type CatalogThis = Service &
  DbState<CatalogCollections> & {
    catalog: Catalog;
    /** Proposals, disputes, finalization and the market clock (close times, windows that end). */
    process: ResolutionProcess;
    clock: MarketClock;
    reads: CatalogReads;
    /** `market.opened` of seeded markets, held until every local service is up to hear them. */
    pendingOpened: MarketOpenedEvent[];
    /** Trade prints are written in batches: one insert and one volume update per market and event. */
    prints: WriteBatcher<MarketTradeEvent>;
    out(ctx: AppContext<unknown>): CatalogOut;
    quotes(ctx: AppContext<unknown>): QuoteSource;
    begin(): void;
    beforeBrokerStop(): Promise<void>;
    /** Trading modes (catalog/trading-mode.ts). */
    modes: TradingModes;
    /** The demo maker's run, awaited at stop. */
    makerRun: Promise<void> | null;
  };

const CatalogService = defineService<CatalogThis>({
  name: "catalog",
  mixins: [
    createDbMixin<CatalogCollections>({
      events: [{ fields: { isActive: 1, category: 1, beginAt: 1 } }, { fields: { externalEventId: 1 }, unique: true, sparse: true }],
      markets: [{ fields: { eventId: 1, position: 1 } }],
      prints: [{ fields: { marketId: 1, atMs: 1 } }],
      catalogMeta: [],
      tradingModes: [],
      disputes: [{ fields: { marketId: 1, proposedAt: 1 } }],
    }),
  ],

  hooks: { error: { "*": (_ctx: AppContext, err: unknown) => throwWire(err) } },

  actions: {
    /** GET /events: published events, soonest `beginAt` first; `markets` is empty in lists. */
    listEvents: {
      ...routeAction("catalog.listEvents"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.listEvents">): Reply<"catalog.listEvents"> {
        const { items, total } = await this.reads.listEvents(ctx.params, this.quotes(ctx));
        return page(items, total, ctx.params.page, ctx.params.pageSize);
      },
    },

    /** GET /events/search: published events matching every word of `q`, best match first. */
    searchEvents: {
      ...routeAction("catalog.searchEvents"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.searchEvents">): Reply<"catalog.searchEvents"> {
        const { items, total } = await this.reads.searchEvents(ctx.params, this.quotes(ctx));
        return page(items, total, ctx.params.page, ctx.params.pageSize);
      },
    },

    /** GET /events/:id: the event (published or not) with its markets and their live prices. */
    getEvent: {
      ...routeAction("catalog.getEvent"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.getEvent">): Reply<"catalog.getEvent"> {
        return this.reads.eventView(await this.catalog.event(ctx.params.id), this.quotes(ctx));
      },
    },

    /** GET /markets/:id: one MarketItem with live prices; cached 5 s, dropped on status change. */
    getMarket: {
      ...routeAction("catalog.getMarket"),
      cache: { keys: ["id"], ttl: MARKET_CACHE_TTL_SEC },
      async handler(this: CatalogThis, ctx: Ctx<"catalog.getMarket">): Reply<"catalog.getMarket"> {
        return this.reads.marketView(await this.catalog.market(ctx.params.id), this.quotes(ctx));
      },
    },

    /** GET /markets/:marketId/price-history, built from recorded `market.trade` prints. */
    priceHistory: {
      ...routeAction("catalog.priceHistory"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.priceHistory">): Reply<"catalog.priceHistory"> {
        const { marketId, outcome, interval } = ctx.params;
        return this.reads.priceHistory(await this.catalog.market(marketId), outcome, interval);
      },
    },

    /** GET /markets/:marketId/trades, newest first, from the recorded prints. */
    marketTrades: {
      ...routeAction("catalog.marketTrades"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.marketTrades">): Reply<"catalog.marketTrades"> {
        return this.reads.marketTrades(await this.catalog.market(ctx.params.marketId), ctx.params.limit);
      },
    },

    /** Internal: the raw market other services act on (book, amm, chain). 404 when unknown. */
    getMarketInternal: {
      ...internalAction("catalog.getMarketInternal"),
      cache: { keys: ["marketId"], ttl: MARKET_CACHE_TTL_SEC },
      async handler(this: CatalogThis, ctx: Ctx<"catalog.getMarketInternal">): Reply<"catalog.getMarketInternal"> {
        return renderInternal(await this.catalog.market(ctx.params.marketId));
      },
    },

    /** Internal: an event's facts and its markets' (conversion, the event's AMM). 404 when unknown. */
    getEventInternal: {
      ...internalAction("catalog.getEventInternal"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.getEventInternal">): Reply<"catalog.getEventInternal"> {
        const { event, markets } = await this.catalog.eventWithMarkets(ctx.params.eventId);
        return renderEventInternal(event, markets);
      },
    },

    /** Internal: titles of many markets at once (portfolio views); unknown ids are left out. */
    marketTitles: {
      ...internalAction("catalog.marketTitles"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.marketTitles">): Reply<"catalog.marketTitles"> {
        return this.reads.marketTitles(ctx.params.marketIds);
      },
    },

    /** Operator: a new event with 1..10 open markets. 409 DUPLICATE_EVENT on a reused externalEventId. */
    createEvent: {
      ...routeAction("catalog.createEvent"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.createEvent">): Reply<"catalog.createEvent"> {
        const { event, markets } = await this.catalog.createEvent(ctx.params, this.out(ctx));
        ctx.meta.$statusCode = 201;
        return this.reads.eventView(event, this.quotes(ctx), markets);
      },
    },

    /** Operator: a new outcome market of an open mutually exclusive event (409 EVENT_NOT_OPEN when none of its markets is open). */
    addOutcome: {
      ...routeAction("catalog.addOutcome"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.addOutcome">): Reply<"catalog.addOutcome"> {
        const { id, title, outcomeLabel } = ctx.params;
        const m = await this.catalog.addOutcome(id, title, outcomeLabel, this.out(ctx));
        ctx.meta.$statusCode = 201;
        return this.reads.marketView(m, this.quotes(ctx));
      },
    },

    /** Operator: a mutually exclusive event resolved as one step (the winner YES, every other undecided market NO). */
    resolveEvent: {
      ...routeAction("catalog.resolveEvent"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.resolveEvent">): Reply<"catalog.resolveEvent"> {
        const { event, markets } = await this.process.resolveEvent(ctx.params.id, ctx.params.winnerMarketId, this.out(ctx));
        return this.reads.eventView(event, this.quotes(ctx), markets);
      },
    },

    /** Operator: propose the winner of a mutually exclusive event; undisputed, it finalizes as one step. */
    proposeEvent: {
      ...routeAction("catalog.proposeEvent"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.proposeEvent">): Reply<"catalog.proposeEvent"> {
        const { id, winnerMarketId, note } = ctx.params;
        const { event, markets } = await this.process.proposeEvent(id, winnerMarketId, note || null, this.out(ctx));
        return this.reads.eventView(event, this.quotes(ctx), markets);
      },
    },

    /** Operator: display fields of an event, and market titles. Status changes have their own actions. */
    updateEvent: {
      ...routeAction("catalog.updateEvent"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.updateEvent">): Reply<"catalog.updateEvent"> {
        const { event, markets } = await this.catalog.updateEvent(ctx.params);
        return this.reads.eventView(event, this.quotes(ctx), markets);
      },
    },

    /** Operator: stop trading (open -> closed). */
    closeMarket: {
      ...routeAction("catalog.closeMarket"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.closeMarket">): Promise<MarketView> {
        return renderMarket(await this.catalog.transition(ctx.params.id, "close", this.out(ctx)));
      },
    },

    /** Operator: void the market (open|closed -> cancelled); it pays YES `price` and NO the rest from its own collateral. */
    cancelMarket: {
      ...routeAction("catalog.cancelMarket"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.cancelMarket">): Promise<MarketView> {
        return renderMarket(await this.catalog.transition(ctx.params.id, "cancel", this.out(ctx), { price: ctx.params.price }));
      },
    },

    /** Operator: settle the outcome now, no window (closed|resolution_failed -> resolved; open passes through closed). */
    resolveMarket: {
      ...routeAction("catalog.resolveMarket"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.resolveMarket">): Promise<MarketView> {
        return renderMarket(await this.process.resolve(ctx.params.id, ctx.params.result, this.out(ctx)));
      },
    },

    /** Operator: propose a result; it finalizes by itself when its dispute window ends undisputed. */
    proposeResolution: {
      ...routeAction("catalog.proposeResolution"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.proposeResolution">): Promise<MarketView> {
        const { id, result, note } = ctx.params;
        return renderMarket(await this.process.propose(id, result, note || null, this.out(ctx)));
      },
    },

    /** Operator: end a pending proposal with this result (amended when it differs). */
    finalizeResolution: {
      ...routeAction("catalog.finalizeResolution"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.finalizeResolution">): Promise<MarketView> {
        return renderMarket(await this.process.finalize(ctx.params.id, ctx.params.result, this.out(ctx)));
      },
    },

    /** A holder disputes the pending proposal: automatic finalization then waits for the operator. */
    dispute: {
      ...routeAction("catalog.dispute"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.dispute">): Reply<"catalog.dispute"> {
        const { id, reason } = ctx.params;
        const m = await this.process.dispute(id, currentUser(ctx).id, reason, this.out(ctx));
        ctx.meta.$statusCode = 201;
        return renderDispute(m, reason);
      },
    },

    /**
     * Operator: a market's own trading mode. Stored first (a restart or a new owner reads it),
     * then applied by the market's owner before the answer; with no engine up it applies on load.
     */
    setTradingMode: {
      ...routeAction("catalog.setTradingMode"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.setTradingMode">): Reply<"catalog.setTradingMode"> {
        const { id, mode, reason } = ctx.params;
        const m = await this.modes.changeMarket(id, mode, reason, this.out(ctx), (marketId, s) =>
          nullWhenAbsent(call(ctx, "book.setTradingMode", { marketId, mode: s.mode, reason: s.reason })),
        );
        return renderMarket(m);
      },
    },

    /** Operator: the exchange-wide trading mode, stored, then applied by every engine node before the answer. */
    setExchangeTradingMode: {
      ...routeAction("catalog.setExchangeTradingMode"),
      async handler(this: CatalogThis, ctx: Ctx<"catalog.setExchangeTradingMode">): Reply<"catalog.setExchangeTradingMode"> {
        return this.modes.changeExchange(ctx.params.mode, ctx.params.reason, ({ mode, reason }) =>
          Promise.all(engineNodes(this.broker).map((nodeID) => call(ctx, "book.exchangeModeChanged", { mode, reason }, { nodeID }))),
        );
      },
    },

    /** Internal: the exchange-wide trading mode as stored (an engine node asks once, then hears each change). */
    exchangeMode: {
      ...internalAction("catalog.exchangeMode"),
      handler(this: CatalogThis): Reply<"catalog.exchangeMode"> {
        return this.modes.exchange();
      },
    },

    /** Operator or chain: resolution could not be carried out (closed -> resolution_failed); retry with resolveMarket. */
    failResolution: {
      auth: "admin",
      params: { id: ID_PARAM, reason: { type: "string", max: 500, optional: true }, $$strict: "remove" },
      async handler(this: CatalogThis, ctx: AppContext<FailResolutionParams>): Promise<MarketView> {
        const { id, reason } = ctx.params;
        return renderMarket(await this.catalog.transition(id, "failResolution", this.out(ctx), { reason }));
      },
    },
  },

  events: {
    /** Trade prints for price history and volume; a replayed tradeId changes nothing. */
    "market.trade": {
      params: MARKET_TRADE_PARAMS,
      async handler(this: CatalogThis, ctx): Promise<void> {
        await this.prints.add(ctx.params);
      },
    },

    /** The prints of the commands an engine acknowledged together; each checked alone (junk is dropped, the rest recorded). */
    "market.trades": {
      params: { prints: { type: "array", items: "object" } },
      async handler(this: CatalogThis, ctx): Promise<void> {
        const good = ctx.params.prints.filter((print) => checkPrint(print) === true);
        if (good.length < ctx.params.prints.length)
          this.logger.warn(`market.trades: ${ctx.params.prints.length - good.length} malformed prints ignored`);
        await this.prints.addAll(good);
      },
    },

    /** Broadcast by whichever catalog node changed a market's status, so every node's cache forgets it. */
    "catalog.marketChanged": {
      params: { marketId: ID_PARAM },
      async handler(this: CatalogThis, ctx): Promise<void> {
        await dropMarketCache(this.broker, ctx.params.marketId);
      },
    },

    /** Seeded markets are announced once every local service (amm, book) is listening. */
    "$broker.started"(this: CatalogThis): void {
      this.begin();
    },
  },

  methods: {
    /** The demo maker's calls end while the services they reach still run (mixins/before-stop.middleware.ts). */
    async beforeBrokerStop(this: CatalogThis): Promise<void> {
      await this.makerRun;
    },

    /** Once every local service listens: seeded markets announced, then the clock (deadlines passed while down too). */
    begin(this: CatalogThis): void {
      const seeded = this.pendingOpened.length > 0;
      for (const e of this.pendingOpened.splice(0)) emit(this.broker, "market.opened", e);
      this.clock.start();
      // The demo's markets open at their own prices, through a trader's paths (sandbox chain only).
      if (seeded) this.makerRun = runDemoMaker(this.broker, () => this.stores, this.logger);
    },

    out(this: CatalogThis, ctx: AppContext<unknown>): CatalogOut {
      return requestOut(ctx, this.broker);
    },

    quotes(this: CatalogThis, ctx: AppContext<unknown>): QuoteSource {
      // The main node's copy of a list asks without prices: it puts its own live prices in (near-cache.middleware.ts).
      if ((ctx.meta as { $livePrices?: boolean }).$livePrices === false) return async () => null;
      return liveQuotes(ctx, this.broker);
    },
  },

  created() {
    // The main node's copy of the events list is good while no event or market was written since.
    const stores = watchWrites(
      () => this.stores,
      ["events", "markets"],
      () => catalogWritesOf(this.broker)?.bump(),
    );
    Object.assign(this, catalogCoresOn(this.broker, stores, this.logger));
    this.pendingOpened = [];
    this.makerRun = null;
  },

  async started() {
    if (configOf(this.broker).seedDemo) this.pendingOpened.push(...(await this.catalog.seedDemo()));
    // Hot-added after the broker started: nobody will send $broker.started again.
    if (this.broker.started) this.begin();
  },

  async stopped() {
    await this.clock.stop();
    await this.makerRun;
  },
});

export default CatalogService;
