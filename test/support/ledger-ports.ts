import type { ServiceBroker } from "moleculer";
import { newId } from "../../lib/ids";
import { DurabilityWatch } from "../../trading/durability";
import type { MarketPorts } from "../../trading/market-actor";
import type { MarketLease } from "../../models/trading";
import type { Ledger } from "../../ledger/ledger";
import type { MoneyStore } from "../../ledger/store";
import { NORMAL } from "../../trading/trading-modes";

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

/**
 * A market actor's ports straight on a Ledger and its store in this process (engine node "eng"):
 * each market open in normal trading, no fees unless given, ids counted from 1, and each entry's
 * closed orders forgotten once published. `overrides` replace any of these.
 */
export function marketPortsOnLedger(
  ledger: Ledger,
  store: Pick<MoneyStore, "restingOrders">,
  overrides: Partial<Omit<MarketPorts, "ledger">> = {},
): MarketPorts {
  let ids = 0;
  return {
    fees: { takerBps: 0, makerBps: 0 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${String(++ids).padStart(6, "0")}`,
    nodeID: "eng",
    market: async () => ({ status: "open", ammLiquidity: 0, tradingMode: NORMAL }),
    ledger: {
      acquire: async (m) => {
        const r = ledger.acquire(m, "eng");
        await ledger.waitDurable(r.seq);
        return { ...r.lease, instance: ledger.instance };
      },
      restingOrders: (m, after, limit) => store.restingOrders(m, after, limit),
      lease: async (m) => ledger.lease(m),
      post: async (e) => ledger.post(e),
      durable: (seq, instance) => ledger.waitDurable(seq, instance),
    },
    publish: (doc, actor) => actor.forgetClosed(doc.orders),
    ...overrides,
  };
}
