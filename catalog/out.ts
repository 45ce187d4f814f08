/**
 * Where the catalog's announcements go: every node's cached copy of the market dropped, the
 * market events emitted, the lifecycle broadcast to every gateway. `from` is the request's
 * context (they travel with it) or the broker (the market clock's own changes).
 */
import { broadcast, emit, type Broadcaster, type Emitter } from "../contract/broker-events";
import type { CatalogOut } from "./catalog";

export function catalogOut(from: Emitter & Broadcaster, dropCache: (marketId: string) => Promise<void>): CatalogOut {
  return {
    changed: async (marketId) => {
      await dropCache(marketId);
      broadcast(from, "catalog.marketChanged", { marketId });
    },
    emit: (e) => emit(from, e.name, e.payload),
    lifecycle: (payload) => broadcast(from, "catalog.marketLifecycle", payload),
  };
}
