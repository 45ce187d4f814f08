import type { ServiceBroker } from "moleculer";
import { newId } from "../../lib/ids";
import { DurabilityWatch } from "../../trading/durability";
import type { MarketPorts } from "../../trading/market-actor";
import type { MarketLease } from "../../models/trading";

/**
 * A market actor's ports as the book service wires them, each one of the ledger service's actions
 * on `broker`, for engine node `node`: no fees, every market open without a pool, nothing published.
 */
export function marketPortsOverLedger(broker: ServiceBroker, node: string): MarketPorts {
  const watch = new DurabilityWatch(async (seq, instance) => {
    await broker.call("ledger.sync", { seq, instance });
  }, 10);
  return {
    fees: { takerBps: 0, makerBps: 0 },
    ammFeeBps: 0,
    newId,
    nodeID: node,
    market: async () => ({ status: "open", ammLiquidity: 0 }),
    ledger: {
      acquire: (m) => broker.call<MarketLease & { instance: string }, object>("ledger.acquireMarket", { marketId: m, node }),
      restingOrders: (m, afterPrio, limit) => broker.call("ledger.restingOrders", { marketId: m, afterPrio, limit }),
      lease: (m) => broker.call("ledger.lease", { marketId: m }),
      post: (entry) => broker.call("ledger.post", { ...entry, durable: false }),
      durable: (seq, instance) => watch.wait(seq, instance),
    },
    publish: () => undefined,
  };
}
