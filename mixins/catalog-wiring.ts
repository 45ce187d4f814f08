/**
 * The catalog's cores on the broker (catalog/cores.ts): their ports filled with broker calls, the
 * market caches this node keeps, where announcements go and the core's refusals as the broker's
 * errors. Broker glue only: what they mean is decided in catalog/.
 */
import type { LoggerInstance, ServiceBroker } from "moleculer";
import type { CatalogOut } from "../catalog/catalog";
import { catalogCores } from "../catalog/cores";
import { catalogOut } from "../catalog/out";
import type { QuoteSource } from "../catalog/reads";
import { ID_PARAM, ISO_DATE_PATTERN } from "../contract";
import { configOf } from "../lib/config";
import { newId } from "../lib/ids";
import type { Stores } from "../lib/store";
import type { CatalogCollections } from "../models/catalog";
import type { AppContext } from "./context";
import { nullWhenAbsent } from "./optional-service";
import { portCall } from "./port-call";

/** A slow price source must not hold up catalog reads; prices then show as null. */
const LIVE_PRICES_TIMEOUT_MS = 1_000;

/** What a `market.trade` print must carry before the catalog records it. */
export const MARKET_TRADE_PARAMS = {
  marketId: ID_PARAM,
  tradeId: { type: "string", min: 1, max: 128 },
  outcome: { type: "enum", values: ["YES", "NO"] },
  yesPrice: { type: "number", integer: true, min: 1, max: 99 },
  quantity: { type: "number", integer: true, positive: true },
  notional: { type: "number", integer: true, min: 0 },
  takerSide: { type: "enum", values: ["BUY", "SELL"], optional: true },
  takerOutcome: { type: "enum", values: ["YES", "NO"], optional: true },
  at: { type: "string", max: 40, pattern: new RegExp(ISO_DATE_PATTERN) },
};

export function catalogCoresOn(broker: ServiceBroker, stores: () => Stores<CatalogCollections>, logger: LoggerInstance) {
  const cfg = configOf(broker);
  return catalogCores({
    stores,
    newId,
    nodeID: broker.nodeID,
    positions: async (userId) => (await portCall(broker, "ledger.account", { account: userId })).positions,
    windowMs: cfg.resolutionDisputeWindowMs,
    clockMs: cfg.resolutionClockMs,
    clockOut: catalogOut(broker, (marketId) => dropMarketCache(broker, marketId)),
    now: Date.now,
    log: { info: (m: string) => logger.info(m), warn: (m: string) => logger.warn(m) },
  });
}

/** This node's cached copies of a market (GET /markets/:id and the internal read). */
export async function dropMarketCache(broker: ServiceBroker, marketId: string): Promise<void> {
  await broker.cacher?.del([`catalog.getMarket:${marketId}`, `catalog.getMarketInternal:${marketId}`]);
}

/** A command's announcements travel with its request: caches dropped on every node, then the market events. */
export function requestOut(ctx: AppContext<unknown>, broker: ServiceBroker): CatalogOut {
  return catalogOut(ctx, (marketId) => dropMarketCache(broker, marketId));
}

/** `router.livePrices` in this request; null without a router (asking would log a warning on every read). */
export function liveQuotes(ctx: AppContext<unknown>, broker: ServiceBroker): QuoteSource {
  // moleculer's typings omit hasService.
  const registry = broker.registry as unknown as { hasService(fullName: string): boolean };
  return async (marketIds) => {
    if (!registry.hasService("router")) return null;
    return nullWhenAbsent(portCall(ctx, "router.livePrices", { marketIds }, { timeout: LIVE_PRICES_TIMEOUT_MS }));
  };
}
