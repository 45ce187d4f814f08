/**
 * The catalog's cores made once per service: writes, the resolution process, reads, the market
 * clock, the trading modes and the gathering of trade prints, on the store's ports and the few
 * facts the shell supplies (node, positions, config, where the clock's own changes are announced).
 */
import { WriteBatcher } from "../lib/serial";
import type { Stores } from "../lib/store";
import type { CatalogCollections, MarketTradeEvent } from "../models/catalog";
import { Catalog, type CatalogOut } from "./catalog";
import { MarketClock } from "./clock";
import { ResolutionProcess } from "./process";
import { holdsShares } from "./resolution";
import { CatalogReads } from "./reads";
import { EXCHANGE_MODE_ID, TradingModes } from "./trading-mode";
import { catalogReadPorts, catalogStorePorts } from "./store";

/**
 * Prints arriving within this long are one insert and one volume update per market and event
 * (each NeDB write appends to its file: opened, written, closed). Price history and volumes lag
 * the trades by at most this much.
 */
export const PRINTS_GATHER_MS = 500;

export interface CatalogDeps {
  stores: () => Stores<CatalogCollections>;
  newId(prefix: string): string;
  nodeID: string;
  /** The user's positions in the ledger (a dispute is a holder's). */
  positions(userId: string): Promise<ReadonlyArray<{ marketId: string; quantity: number }>>;
  /** RESOLUTION_DISPUTE_WINDOW_MS and RESOLUTION_CLOCK_MS. */
  windowMs: number;
  clockMs: number;
  /** Where the clock's own changes (closes, finalizations) are announced. */
  clockOut: CatalogOut;
  now(): number;
  log: { info(message: string): void; warn(message: string): void };
}

export function catalogCores(d: CatalogDeps) {
  const { now, log } = d;
  const catalog = new Catalog({ ...catalogStorePorts(d.stores), newId: d.newId, nodeID: d.nodeID, now, log });
  const process = new ResolutionProcess(catalog, {
    ...catalogStorePorts(d.stores),
    holds: async (userId, marketId) => holdsShares(await d.positions(userId), marketId),
    windowMs: d.windowMs,
    now,
    log,
  });
  const reads = new CatalogReads({ ...catalogReadPorts(d.stores), now, log });
  const clock = new MarketClock(() => process.runDeadlines(d.clockOut), d.clockMs, log.warn);
  const modes = new TradingModes({
    market: (_id) => d.stores().markets.findOne({ _id }),
    setMarketMode: async (_id, set) => void (await d.stores().markets.update({ _id }, { $set: set })),
    exchange: () => d.stores().tradingModes.findOne({ _id: EXCHANGE_MODE_ID }),
    setExchange: (doc) => d.stores().tradingModes.put(doc),
    now,
  });
  // Trade prints are written in batches: one insert and one volume update per market and event.
  const prints = new WriteBatcher<MarketTradeEvent>((trades) => catalog.recordTrades(trades), PRINTS_GATHER_MS);
  return { catalog, process, reads, clock, modes, prints };
}
