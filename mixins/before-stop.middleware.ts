import type { Middleware, Service, ServiceBroker } from "moleculer";

/**
 * Lets a service finish its own background work while every service still runs: Moleculer stops
 * all services at once, so a service whose `stopped` waits for a call in flight would leave the
 * callee waiting on it (and warning so) or already gone. A service with a `beforeBrokerStop()`
 * method gets it called, and awaited, when the broker starts stopping.
 */
type StoppableService = Service & { beforeBrokerStop?: () => Promise<void> };

const windingDown = new WeakSet<ServiceBroker>();

/**
 * Every service's `beforeBrokerStop()`, awaited, while the broker still serves. A node joined to
 * others runs it before `broker.stop()`: Moleculer withdraws a stopping node's services from the
 * other nodes before its `stopping` hook, so background work whose calls come back to this node
 * (the demo maker's trades ask the catalog) must end first.
 */
export async function windDown(broker: ServiceBroker): Promise<void> {
  windingDown.add(broker);
  await Promise.all((broker.services as StoppableService[]).map((s) => s.beforeBrokerStop?.()));
}

/** Background work ends at its next step once the broker winds down or stops. */
export function stopRequested(broker: ServiceBroker): boolean {
  return broker.stopping || windingDown.has(broker);
}

export const BeforeStop: Middleware = {
  stopping(broker: ServiceBroker) {
    return windDown(broker);
  },
};
