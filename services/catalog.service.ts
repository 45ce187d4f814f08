import { Errors, type Service } from "moleculer";
import { defineService } from "../lib/service";
import { digitsParam, PAGE, pageSizeParam } from "../lib/params";
import { configOf, type AppConfig } from "../lib/config";
import { WriteBatcher } from "../lib/serial";
import { conflict, notFound, validationError } from "../lib/errors";
import { newId } from "../lib/ids";
import { createDbMixin, type DbState, type Query } from "../mixins/db.mixin";
import type { AppContext } from "../mixins/context";
import { page, type Page } from "../gateway/envelope";
import { ILLEGAL_TRANSITION, planTransition, type MarketCommand, type MarketStatus } from "../catalog/lifecycle";
import { conditionIdFor } from "../catalog/condition";
import { canonicalMicroString } from "../engine/money";
import { queryTokens, rankBySearch, searchTextOf, tokensFilter } from "../catalog/search";
import { buildPriceHistory, INTERVALS, printsSince, type Interval, type Outcome } from "../catalog/candles";
import { cleanLivePrice, NO_PRICES, renderEvent, renderInternal, renderMarket } from "../catalog/views";
import { DEMO_EVENTS, DEMO_MARKER_ID, demoEventId, demoImageUrl, demoMarketId } from "../catalog/demo";
import {
  CATEGORIES,
  type CatalogCollections,
  type Category,
  type EventDoc,
  type EventView,
  type LivePrice,
  type LivePricesParams,
  type LivePricesResult,
  type MarketDoc,
  type MarketInternal,
  type MarketOpenedEvent,
  type MarketResult,
  type MarketTradeEvent,
  type MarketView,
  type PrintDoc,
  type PriceHistoryView,
} from "../models/catalog";

/** GET /markets/:id is cached this long (spec: 5 s); status transitions drop the entry at once. */
export const MARKET_CACHE_TTL_SEC = 5;
/** A slow price source must not hold up catalog reads; prices then show as null. */
const LIVE_PRICES_TIMEOUT_MS = 1_000;

// Ids are plain strings of a known alphabet, so an object or operator never reaches the store.
const ID = { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9_-]+$/ };
const PAGE_SIZE = pageSizeParam(20, 100);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const TITLE = { type: "string", trim: true, min: 1, max: 200 };
const TAGS = { type: "array", max: 20, items: { type: "string", trim: true, min: 1, max: 40 } };
const DISPLAY_FIELDS = {
  subtitle: { type: "string", trim: true, max: 500, optional: true },
  category: { type: "enum", values: [...CATEGORIES] },
  subcategory: { type: "string", trim: true, max: 60, optional: true },
  imageUrl: { type: "url", max: 2048, optional: true },
  beginAt: { type: "string", max: 40, pattern: ISO_DATE, optional: true },
  tags: { ...TAGS, optional: true },
  isActive: { type: "boolean", optional: true },
  isLive: { type: "boolean", optional: true },
};

export interface ListEventsParams {
  category: Category | "all";
  page: number;
  pageSize: number;
  search?: string;
}
export interface SearchEventsParams {
  q: string;
  page: number;
  pageSize: number;
}
export interface IdParams {
  id: string;
}
export interface PriceHistoryParams {
  marketId: string;
  outcome: Outcome;
  interval: Interval;
}
export interface NewMarketInput {
  title: string;
  ammLiquidity?: string;
}
export interface CreateEventParams {
  title: string;
  subtitle?: string;
  category: Category;
  subcategory?: string;
  imageUrl?: string;
  externalEventId?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  markets: NewMarketInput[];
}
export interface UpdateEventParams {
  id: string;
  title?: string;
  subtitle?: string;
  category?: Category;
  subcategory?: string;
  imageUrl?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  /** Retitle markets of this event. */
  markets?: Array<{ id: string; title: string }>;
}
export interface ResolveMarketParams {
  id: string;
  result: MarketResult;
}
export interface FailResolutionParams {
  id: string;
  reason?: string;
}

type CatalogThis = Service &
  DbState<CatalogCollections> & {
    cfg: AppConfig;
    /** `market.opened` of seeded markets, held until every local service is up to hear them. */
    pendingOpened: MarketOpenedEvent[];
    loadEvent(id: string): Promise<EventDoc>;
    loadMarket(id: string): Promise<MarketDoc>;
    marketsOf(eventId: string): Promise<MarketDoc[]>;
    livePrices(ctx: AppContext<unknown>, markets: MarketDoc[]): Promise<Record<string, LivePrice>>;
    withLiveMarkets(ctx: AppContext<unknown>, event: EventDoc, markets: MarketDoc[]): Promise<EventView>;
    storeEvent(input: CreateEventParams, ids: { eventId: string; marketIds: string[] }, nowIso: string): Promise<{ event: EventDoc; markets: MarketDoc[]; opened: MarketDoc[] }>;
    transition(ctx: AppContext<unknown>, id: string, command: MarketCommand, result?: MarketResult, reason?: string): Promise<MarketView>;
    dropMarketCache(marketId: string): Promise<void>;
    /** Trade prints are written in batches: one insert and one volume update per market and event. */
    prints: WriteBatcher<MarketTradeEvent>;
    recordTrades(trades: MarketTradeEvent[]): Promise<void>;
    seedDemo(): Promise<void>;
  };

function isoOrThrow(raw: string, field: string): string {
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw validationError("Parameters validation error", [{ field, rule: "date" }]);
  return new Date(ms).toISOString();
}

function uniqueTags(tags: string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

function openedEvent(m: MarketDoc): MarketOpenedEvent {
  return { marketId: m._id, eventId: m.eventId, ammLiquidity: m.ammLiquidity };
}

const CatalogService = defineService<CatalogThis>({
  name: "catalog",
  mixins: [
    createDbMixin<CatalogCollections>({
      events: [{ fields: { isActive: 1, category: 1, beginAt: 1 } }, { fields: { externalEventId: 1 }, unique: true, sparse: true }],
      markets: [{ fields: { eventId: 1, position: 1 } }],
      prints: [{ fields: { marketId: 1, atMs: 1 } }],
      catalogMeta: [],
    }),
  ],

  actions: {
    /** GET /events: published events, soonest `beginAt` first; `markets` is empty in lists. */
    listEvents: {
      params: {
        category: { type: "enum", values: ["all", ...CATEGORIES], optional: true, default: "all" },
        page: PAGE,
        pageSize: PAGE_SIZE,
        search: { type: "string", max: 200, optional: true },
        $$strict: "remove",
      },
      async handler(this: CatalogThis, ctx: AppContext<ListEventsParams>): Promise<Page<EventView>> {
        const { category, page: pageNo, pageSize, search } = ctx.params;
        const query: Query = { isActive: true };
        if (category !== "all") query.category = category;
        // Same matching as /events/search, but a filter: the list keeps its own order.
        const tokens = queryTokens(search ?? "");
        if (tokens.length) Object.assign(query, tokensFilter(tokens));
        const total = await this.stores.events.count(query);
        const skip = (pageNo - 1) * pageSize;
        const docs = skip < total ? await this.stores.events.find(query, { sort: { beginAt: 1, _id: 1 }, skip, limit: pageSize }) : [];
        return page(
          docs.map((e) => renderEvent(e)),
          total,
          pageNo,
          pageSize,
        );
      },
    },

    /** GET /events/search: published events matching every word of `q`, best match first. */
    searchEvents: {
      params: { q: { type: "string", min: 1, max: 200 }, page: PAGE, pageSize: PAGE_SIZE, $$strict: "remove" },
      async handler(this: CatalogThis, ctx: AppContext<SearchEventsParams>): Promise<Page<EventView>> {
        const { q, page: pageNo, pageSize } = ctx.params;
        const tokens = queryTokens(q);
        if (!tokens.length) return page([], 0, pageNo, pageSize);
        const candidates = await this.stores.events.find({ isActive: true, ...tokensFilter(tokens) }, { sort: { beginAt: 1, _id: 1 } });
        const ranked = rankBySearch(candidates, tokens);
        const skip = (pageNo - 1) * pageSize;
        return page(
          ranked.slice(skip, skip + pageSize).map((e) => renderEvent(e)),
          ranked.length,
          pageNo,
          pageSize,
        );
      },
    },

    /** GET /events/:id: the event (published or not) with its markets and their live prices. */
    getEvent: {
      params: { id: ID, $$strict: "remove" },
      async handler(this: CatalogThis, ctx: AppContext<IdParams>): Promise<EventView> {
        const event = await this.loadEvent(ctx.params.id);
        return this.withLiveMarkets(ctx, event, await this.marketsOf(event._id));
      },
    },

    /** GET /markets/:id: one MarketItem with live prices; cached 5 s, dropped on status change. */
    getMarket: {
      params: { id: ID, $$strict: "remove" },
      cache: { keys: ["id"], ttl: MARKET_CACHE_TTL_SEC },
      async handler(this: CatalogThis, ctx: AppContext<IdParams>): Promise<MarketView> {
        const market = await this.loadMarket(ctx.params.id);
        const live = await this.livePrices(ctx, [market]);
        return renderMarket(market, live[market._id]);
      },
    },

    /** GET /markets/:marketId/price-history, built from recorded `market.trade` prints. */
    priceHistory: {
      params: {
        marketId: ID,
        outcome: { type: "enum", values: ["YES", "NO"], optional: true, default: "YES" },
        interval: { type: "enum", values: [...INTERVALS], optional: true, default: "1D" },
        $$strict: "remove",
      },
      async handler(this: CatalogThis, ctx: AppContext<PriceHistoryParams>): Promise<PriceHistoryView> {
        const { marketId, outcome, interval } = ctx.params;
        const market = await this.loadMarket(marketId);
        const nowMs = Date.now();
        const since = printsSince(interval, nowMs);
        const [prints, before] = await Promise.all([
          this.stores.prints.find({ marketId: market._id, atMs: { $gte: since } }, { sort: { atMs: 1, _id: 1 } }),
          this.stores.prints.find({ marketId: market._id, atMs: { $lt: since } }, { sort: { atMs: -1, _id: -1 }, limit: 1 }),
        ]);
        const h = buildPriceHistory({ interval, outcome, nowMs, prints, prior: before[0] ?? null });
        return { marketId: market._id, outcome, interval, ...h };
      },
    },

    /** Internal: the raw market other services act on (book, amm, chain). 404 when unknown. */
    getMarketInternal: {
      visibility: "public",
      params: { marketId: ID },
      cache: { keys: ["marketId"], ttl: MARKET_CACHE_TTL_SEC },
      async handler(this: CatalogThis, ctx: AppContext<{ marketId: string }>): Promise<MarketInternal> {
        return renderInternal(await this.loadMarket(ctx.params.marketId));
      },
    },

    /** Internal: titles of many markets at once (portfolio views); unknown ids are left out. */
    marketTitles: {
      visibility: "public",
      params: { marketIds: { type: "array", max: 500, items: ID } },
      async handler(this: CatalogThis, ctx: AppContext<{ marketIds: string[] }>): Promise<Record<string, { title: string }>> {
        const ids = [...new Set(ctx.params.marketIds)];
        const found = ids.length ? await this.stores.markets.find({ _id: { $in: ids } }) : [];
        return Object.fromEntries(found.map((m) => [m._id, { title: m.title }]));
      },
    },

    /** Operator: a new event with 1..10 open markets. 409 DUPLICATE_EVENT on a reused externalEventId. */
    createEvent: {
      auth: "admin",
      params: {
        title: TITLE,
        ...DISPLAY_FIELDS,
        externalEventId: { type: "string", trim: true, min: 1, max: 128, optional: true },
        markets: {
          type: "array",
          min: 1,
          max: 10,
          items: {
            type: "object",
            strict: "remove",
            props: { title: TITLE, ammLiquidity: { ...digitsParam(15, "micro-USDT"), optional: true } },
          },
        },
        $$strict: "remove",
      },
      async handler(this: CatalogThis, ctx: AppContext<CreateEventParams>): Promise<EventView> {
        const p = ctx.params;
        const titles = p.markets.map((m) => m.title.toLowerCase());
        if (new Set(titles).size !== titles.length) throw validationError("Market titles must differ", [{ field: "markets", rule: "unique" }]);
        const ids = { eventId: newId("evt"), marketIds: p.markets.map(() => newId("mkt")) };
        const { event, markets, opened } = await this.storeEvent(p, ids, new Date().toISOString());
        for (const m of opened) ctx.emit("market.opened", openedEvent(m));
        ctx.meta.$statusCode = 201;
        return this.withLiveMarkets(ctx, event, markets);
      },
    },

    /** Operator: display fields of an event, and market titles. Status changes have their own actions. */
    updateEvent: {
      auth: "admin",
      params: {
        id: ID,
        title: { ...TITLE, optional: true },
        ...DISPLAY_FIELDS,
        category: { ...DISPLAY_FIELDS.category, optional: true },
        markets: { type: "array", optional: true, max: 10, items: { type: "object", strict: "remove", props: { id: ID, title: TITLE } } },
        $$strict: "remove",
      },
      async handler(this: CatalogThis, ctx: AppContext<UpdateEventParams>): Promise<EventView> {
        const { id, markets: retitles, ...fields } = ctx.params;
        const event = await this.loadEvent(id);
        let markets = await this.marketsOf(id);
        for (const r of retitles ?? []) {
          if (!markets.some((m) => m._id === r.id)) throw notFound("Market");
        }
        const now = new Date().toISOString();
        for (const r of retitles ?? []) await this.stores.markets.update({ _id: r.id, eventId: id }, { $set: { title: r.title, updatedAt: now } });
        if (retitles?.length) markets = await this.marketsOf(id);

        const set: Partial<EventDoc> = { updatedAt: now };
        if (fields.title !== undefined) set.title = fields.title;
        if (fields.subtitle !== undefined) set.subtitle = fields.subtitle;
        if (fields.category !== undefined) set.category = fields.category;
        if (fields.subcategory !== undefined) set.subcategory = fields.subcategory;
        if (fields.imageUrl !== undefined) set.imageUrl = fields.imageUrl;
        if (fields.beginAt !== undefined) set.beginAt = isoOrThrow(fields.beginAt, "beginAt");
        if (fields.tags !== undefined) set.tags = uniqueTags(fields.tags);
        if (fields.isActive !== undefined) set.isActive = fields.isActive;
        if (fields.isLive !== undefined) set.isLive = fields.isLive;
        const next: EventDoc = { ...event, ...set, marketTitles: markets.map((m) => m.title) };
        set.marketTitles = next.marketTitles;
        set.searchText = next.searchText = searchTextOf(next);
        await this.stores.events.update({ _id: id }, { $set: set });
        return this.withLiveMarkets(ctx, next, markets);
      },
    },

    /** Operator: stop trading (open -> closed). */
    closeMarket: {
      auth: "admin",
      params: { id: ID, $$strict: "remove" },
      handler(this: CatalogThis, ctx: AppContext<IdParams>): Promise<MarketView> {
        return this.transition(ctx, ctx.params.id, "close");
      },
    },

    /** Operator: void the market (open|closed -> cancelled). */
    cancelMarket: {
      auth: "admin",
      params: { id: ID, $$strict: "remove" },
      handler(this: CatalogThis, ctx: AppContext<IdParams>): Promise<MarketView> {
        return this.transition(ctx, ctx.params.id, "cancel");
      },
    },

    /** Operator: settle the outcome (closed|resolution_failed -> resolved; open passes through closed). */
    resolveMarket: {
      auth: "admin",
      params: { id: ID, result: { type: "enum", values: ["YES", "NO"] }, $$strict: "remove" },
      handler(this: CatalogThis, ctx: AppContext<ResolveMarketParams>): Promise<MarketView> {
        return this.transition(ctx, ctx.params.id, "resolve", ctx.params.result);
      },
    },

    /** Operator or chain: resolution could not be carried out (closed -> resolution_failed); retry with resolveMarket. */
    failResolution: {
      auth: "admin",
      params: { id: ID, reason: { type: "string", max: 500, optional: true }, $$strict: "remove" },
      handler(this: CatalogThis, ctx: AppContext<FailResolutionParams>): Promise<MarketView> {
        return this.transition(ctx, ctx.params.id, "failResolution", undefined, ctx.params.reason);
      },
    },
  },

  events: {
    /** Trade prints for price history and volume; a replayed tradeId changes nothing. */
    "market.trade": {
      params: {
        marketId: ID,
        tradeId: { type: "string", min: 1, max: 128 },
        outcome: { type: "enum", values: ["YES", "NO"] },
        yesPrice: { type: "number", integer: true, min: 1, max: 99 },
        quantity: { type: "number", integer: true, positive: true },
        notional: { type: "number", integer: true, min: 0 },
        at: { type: "string", max: 40, pattern: ISO_DATE },
      },
      async handler(this: CatalogThis, ctx: AppContext<MarketTradeEvent>): Promise<void> {
        await this.prints.add(ctx.params);
      },
    },

    /** Broadcast by whichever catalog node changed a market's status, so every node's cache forgets it. */
    "catalog.marketChanged": {
      params: { marketId: ID },
      async handler(this: CatalogThis, ctx: AppContext<{ marketId: string }>): Promise<void> {
        await this.dropMarketCache(ctx.params.marketId);
      },
    },

    /** Seeded markets are announced once every local service (amm, book) is listening. */
    "$broker.started"(this: CatalogThis): void {
      const pending = this.pendingOpened.splice(0);
      for (const e of pending) this.broker.emit("market.opened", e);
    },
  },

  methods: {
    async loadEvent(this: CatalogThis, id: string): Promise<EventDoc> {
      const e = await this.stores.events.findOne({ _id: id });
      if (!e) throw notFound("Event");
      return e;
    },

    async loadMarket(this: CatalogThis, id: string): Promise<MarketDoc> {
      const m = await this.stores.markets.findOne({ _id: id });
      if (!m) throw notFound("Market");
      return m;
    },

    marketsOf(this: CatalogThis, eventId: string): Promise<MarketDoc[]> {
      return this.stores.markets.find({ eventId }, { sort: { position: 1 } });
    },

    /**
     * Live prices from `router.livePrices` for open markets. Without a router, on its failure, and
     * for markets not trading, every price is null: nothing is made up.
     */
    async livePrices(this: CatalogThis, ctx: AppContext<unknown>, markets: MarketDoc[]): Promise<Record<string, LivePrice>> {
      const ids = markets.filter((m) => m.status === "open").map((m) => m._id);
      const out: Record<string, LivePrice> = {};
      // Asking for an unregistered service would log a warning on every read; moleculer's typings omit hasService.
      const registry = this.broker.registry as unknown as { hasService(fullName: string): boolean };
      if (!ids.length || !registry.hasService("router")) return out;
      try {
        const raw = await ctx.call<LivePricesResult, LivePricesParams>("router.livePrices", { marketIds: ids }, { timeout: LIVE_PRICES_TIMEOUT_MS });
        const byId: Record<string, unknown> = raw && typeof raw === "object" ? raw : {};
        for (const id of ids) out[id] = Object.prototype.hasOwnProperty.call(byId, id) ? cleanLivePrice(byId[id]) : NO_PRICES;
      } catch (err) {
        if (!(err instanceof Errors.ServiceNotFoundError)) this.logger.warn("router.livePrices failed; showing no prices:", (err as Error).message);
      }
      return out;
    },

    async withLiveMarkets(this: CatalogThis, ctx: AppContext<unknown>, event: EventDoc, markets: MarketDoc[]): Promise<EventView> {
      const live = await this.livePrices(ctx, markets);
      return renderEvent(
        event,
        markets.map((m) => renderMarket(m, live[m._id])),
      );
    },

    /**
     * Markets first, the event last: the event is what lists and search show, so a crash midway
     * leaves nothing visible half-made. Inserts are by id, so a repeated seed inserts nothing.
     */
    async storeEvent(this: CatalogThis, input: CreateEventParams, ids: { eventId: string; marketIds: string[] }, nowIso: string) {
      const markets: MarketDoc[] = input.markets.map((m, i) => ({
        _id: ids.marketIds[i],
        eventId: ids.eventId,
        position: i,
        title: m.title,
        status: "open" as MarketStatus,
        result: null,
        outcomes: ["YES", "NO"],
        volume: 0,
        conditionId: conditionIdFor(ids.marketIds[i]),
        ammLiquidity: canonicalMicroString(m.ammLiquidity ?? "0"),
        createdAt: nowIso,
        updatedAt: nowIso,
      }));
      const opened: MarketDoc[] = [];
      for (const m of markets) if (await this.stores.markets.insertOnce(m)) opened.push(m);

      const event: EventDoc = {
        _id: ids.eventId,
        ...(input.externalEventId ? { externalEventId: input.externalEventId } : {}),
        title: input.title,
        subtitle: input.subtitle ?? "",
        category: input.category,
        subcategory: input.subcategory ?? "",
        imageUrl: input.imageUrl ?? "",
        volumeUsd: 0,
        isActive: input.isActive ?? true,
        isLive: input.isLive ?? false,
        beginAt: input.beginAt ? isoOrThrow(input.beginAt, "beginAt") : nowIso,
        tags: uniqueTags(input.tags),
        marketTitles: markets.map((m) => m.title),
        searchText: "",
        createdAt: nowIso,
        updatedAt: nowIso,
      };
      event.searchText = searchTextOf(event);
      if (!(await this.stores.events.insertOnce(event))) {
        if (await this.stores.events.findOne({ _id: event._id })) return { event, markets, opened };
        // Lost a race on the unique externalEventId: take back this attempt's markets.
        await this.stores.markets.remove({ _id: { $in: opened.map((m) => m._id) } }, { multi: true });
        throw conflict("DUPLICATE_EVENT", `An event with externalEventId ${input.externalEventId} exists`);
      }
      return { event, markets, opened };
    },

    /**
     * One status change as a compare-and-set on the status read: of two concurrent commands only
     * one matches; the other re-reads and is judged against the new status.
     */
    async transition(this: CatalogThis, ctx: AppContext<unknown>, id: string, command: MarketCommand, result?: MarketResult, reason?: string): Promise<MarketView> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const market = await this.loadMarket(id);
        const plan = planTransition(market.status, command);
        if (!plan.ok) throw conflict(ILLEGAL_TRANSITION, plan.message);
        const now = new Date().toISOString();
        const set: Partial<MarketDoc> = { status: plan.to, updatedAt: now };
        for (const s of plan.entered) {
          if (s === "closed") set.closedAt = now;
          if (s === "cancelled") set.cancelledAt = now;
          if (s === "resolution_failed") {
            set.resolutionFailedAt = now;
            if (reason) set.resolutionFailureReason = reason;
          }
          if (s === "resolved") {
            set.resolvedAt = now;
            set.result = result ?? null;
          }
        }
        const won = await this.stores.markets.update({ _id: id, status: market.status }, { $set: set });
        if (!won) continue;

        const updated: MarketDoc = { ...market, ...set };
        await this.dropMarketCache(id);
        ctx.broadcast("catalog.marketChanged", { marketId: id });
        for (const s of plan.entered) {
          if (s === "closed") ctx.emit("market.closed", { marketId: id });
          if (s === "cancelled") ctx.emit("market.cancelled", { marketId: id });
          if (s === "resolution_failed") ctx.emit("market.resolutionFailed", { marketId: id });
          if (s === "resolved") ctx.emit("market.resolved", { marketId: id, result: updated.result, conditionId: updated.conditionId });
        }
        return renderMarket(updated);
      }
      throw conflict(ILLEGAL_TRANSITION, "The market changed concurrently; try again");
    },

    async dropMarketCache(this: CatalogThis, marketId: string): Promise<void> {
      await this.broker.cacher?.del([`catalog.getMarket:${marketId}`, `catalog.getMarketInternal:${marketId}`]);
    },

    async recordTrades(this: CatalogThis, trades: MarketTradeEvent[]): Promise<void> {
      const markets = new Map<string, MarketDoc | null>();
      const prints: PrintDoc[] = [];
      for (const t of trades) {
        const atMs = Date.parse(t.at);
        if (!Number.isFinite(atMs)) continue;
        if (!markets.has(t.marketId)) markets.set(t.marketId, await this.stores.markets.findOne({ _id: t.marketId }));
        if (!markets.get(t.marketId)) {
          this.logger.warn(`market.trade for unknown market ${t.marketId} ignored`);
          continue;
        }
        prints.push({ _id: t.tradeId, marketId: t.marketId, outcome: t.outcome, yesPrice: t.yesPrice, quantity: t.quantity, notional: t.notional, at: new Date(atMs).toISOString(), atMs });
      }
      // A replayed tradeId changes nothing (events reach one catalog node each, so no race here).
      const known = new Set((await this.stores.prints.find({ _id: { $in: prints.map((p) => p._id) } })).map((p) => p._id));
      const stored = prints.filter((p) => !known.has(p._id) && (known.add(p._id), true));
      await this.stores.prints.insertMany(stored);
      // Volumes follow the prints; events are at-most-once anyway, so no transaction is pretended here.
      const byMarket = new Map<string, number>();
      const byEvent = new Map<string, number>();
      for (const p of stored) {
        byMarket.set(p.marketId, (byMarket.get(p.marketId) ?? 0) + p.notional);
        const eventId = (markets.get(p.marketId) as MarketDoc).eventId;
        byEvent.set(eventId, (byEvent.get(eventId) ?? 0) + p.notional);
      }
      for (const [id, v] of byMarket) await this.stores.markets.update({ _id: id }, { $inc: { volume: v } });
      for (const [id, v] of byEvent) await this.stores.events.update({ _id: id }, { $inc: { volumeUsd: v } });
    },

    /**
     * The demo catalog, once per data store: a marker document claimed with insertOnce lets one
     * node seed while others skip; deterministic ids make a rerun after a crash complete the job
     * without duplicates.
     */
    async seedDemo(this: CatalogThis): Promise<void> {
      const marker = await this.stores.catalogMeta.findOne({ _id: DEMO_MARKER_ID });
      if (marker?.done) return;
      const nowIso = new Date().toISOString();
      const claimed = await this.stores.catalogMeta.insertOnce({ _id: DEMO_MARKER_ID, done: false, claimedBy: this.broker.nodeID, at: nowIso });
      if (!claimed && !marker) return; // another node claimed it a moment ago and is seeding
      const hour = 3_600_000;
      const base = Math.floor(Date.now() / hour) * hour;
      for (const d of DEMO_EVENTS) {
        const stored = await this.storeEvent(
          {
            title: d.title,
            subtitle: d.subtitle,
            category: d.category,
            subcategory: d.subcategory,
            imageUrl: demoImageUrl(d.slug),
            externalEventId: d.externalEventId,
            beginAt: new Date(base + d.beginInDays * 24 * hour).toISOString(),
            tags: d.tags,
            isActive: d.isActive,
            isLive: d.isLive,
            markets: d.markets,
          },
          { eventId: demoEventId(d.slug), marketIds: d.markets.map((_, i) => demoMarketId(d.slug, i)) },
          nowIso,
        ).catch((err: { type?: string }) => {
          // An operator's event already carries this externalEventId: theirs stays, the demo one is skipped.
          if (err?.type === "DUPLICATE_EVENT") return null;
          throw err;
        });
        if (stored) this.pendingOpened.push(...stored.opened.map(openedEvent));
      }
      await this.stores.catalogMeta.update({ _id: DEMO_MARKER_ID }, { $set: { done: true, at: new Date().toISOString() } });
      this.logger.info(`Demo catalog seeded: ${DEMO_EVENTS.length} events`);
    },
  },

  created() {
    this.cfg = configOf(this.broker);
    this.pendingOpened = [];
    this.prints = new WriteBatcher((trades) => this.recordTrades(trades));
  },

  async started() {
    if (this.cfg.seedDemo) await this.seedDemo();
    // Hot-added after the broker started: nobody will send $broker.started again.
    if (this.broker.started) for (const e of this.pendingOpened.splice(0)) this.broker.emit("market.opened", e);
  },
});

export default CatalogService;
