import type { Context, Middleware, ServiceBroker } from "moleculer";
import { livePricesOf, openOutcomeIds } from "../catalog/reads";
import { withLiveChances, type EventView } from "../catalog/views";
import { isPage, type Page } from "../lib/paging";
import { catalogWritesOf } from "./catalog-writes";
import { dropMarketCache, liveQuotes } from "./catalog-wiring";
import type { AppContext } from "./context";

/** What a remote action's definition says of its cache (the owner's `cache: { keys, ttl }`). */
interface CachedAction {
  name: string;
  cache?: boolean | { keys?: string[]; ttl?: number };
}

/**
 * The embedded main node's own copies of the side node's cached reads (SIDE_NODE=thread):
 * GET /markets/:id and the internal market read answer here for their cache time instead of
 * crossing to the side node and back on every request. A copy is taken with the side node's cache
 * bypassed, so it is never older than the owner's cache time; a market's copies are dropped when
 * its `catalog.marketChanged` arrives, which the catalog sends before it answers the command that
 * changed it (and the link keeps order): a status change is seen at once, as on one node.
 */
export function createNearCache(): Middleware {
  let broker: ServiceBroker;
  return {
    name: "NearCache",
    created(b: ServiceBroker) {
      broker = b;
    },
    remoteAction(handler: (ctx: Context) => Promise<unknown>, action: CachedAction) {
      if (action.name === "catalog.listEvents") return nearList(broker, handler);
      const cacher = broker.cacher;
      const opts = action.cache;
      if (!cacher || !opts) return handler;
      const keys = typeof opts === "object" ? (opts.keys ?? null) : null;
      const ttl = typeof opts === "object" ? opts.ttl : undefined;
      return async function nearCached(ctx: Context): Promise<unknown> {
        const meta = ctx.meta as Record<string, unknown>;
        if (meta.$cache === false) return handler(ctx);
        const key = cacher.getCacheKey(action.name, ctx.params as object, meta, keys as string[]);
        const kept = await cacher.get(key);
        if (kept != null) return kept;
        meta.$cache = false;
        try {
          const fresh = await handler(ctx);
          await cacher.set(key, fresh, ttl);
          return fresh;
        } finally {
          // The bypass is this call's alone: the caller's own calls keep their caches.
          delete meta.$cache;
        }
      };
    },
    transitMessageHandler(next: (cmd: string, packet: { payload?: { event?: string; data?: { marketId?: unknown } } }) => unknown) {
      return (cmd: string, packet: { payload?: { event?: string; data?: { marketId?: unknown } } }) => {
        const p = packet?.payload;
        if (cmd === "EVENT" && p?.event === "catalog.marketChanged" && typeof p.data?.marketId === "string")
          void dropMarketCache(broker, p.data.marketId);
        return next(cmd, packet);
      };
    },
  } as unknown as Middleware;
}

/** Pages of the events list kept at once (distinct filters, searches and pages); past it they start over. */
const MAX_LISTS = 256;

/**
 * GET /events answered on the main node: each page as the side node's catalog renders it without
 * prices (its chances then the last trades'), kept while the catalog wrote no event or market
 * since it was asked (mixins/catalog-writes.ts: the count is taken before asking, so a write
 * during the read is not missed), and the live prices of its open outcomes put in at each read
 * from this node's router (catalog/views.ts `withLiveChances`), as the catalog would. Without a
 * shared count (no side node) every read goes to the catalog.
 */
function nearList(broker: ServiceBroker, handler: (ctx: Context) => Promise<unknown>): (ctx: Context) => Promise<unknown> {
  const lists = new Map<string, { writes: number; page: Page<EventView> }>();
  const log = { warn: (m: string) => broker.logger.warn(m) };
  return async function nearListed(ctx: Context): Promise<unknown> {
    const writes = catalogWritesOf(broker);
    if (!writes) return handler(ctx);
    const key = JSON.stringify(ctx.params ?? {});
    const count = writes.value();
    let page = lists.get(key)?.writes === count ? lists.get(key)?.page : undefined;
    if (!page) {
      const meta = ctx.meta as Record<string, unknown>;
      meta.$livePrices = false;
      let got: unknown;
      try {
        got = await handler(ctx);
      } finally {
        delete meta.$livePrices;
      }
      if (!isPage(got)) return got;
      page = got as Page<EventView>;
      if (lists.size >= MAX_LISTS) lists.clear();
      lists.set(key, { writes: count, page });
    }
    const live = await livePricesOf(openOutcomeIds(page.items), liveQuotes(ctx as AppContext<unknown>, broker), log);
    return { ...page, items: withLiveChances(page.items, live) };
  };
}
