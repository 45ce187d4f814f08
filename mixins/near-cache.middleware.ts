import type { Context, Middleware, ServiceBroker } from "moleculer";
import { dropMarketCache } from "./catalog-wiring";

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
