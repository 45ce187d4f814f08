import type { Middleware, Service, ServiceBroker } from "moleculer";

/**
 * Lets a service finish its own background work while every service still runs: Moleculer stops
 * all services at once, so a service whose `stopped` waits for a call in flight would leave the
 * callee waiting on it (and warning so) or already gone. A service with a `beforeBrokerStop()`
 * method gets it called, and awaited, when the broker starts stopping.
 */
type StoppableService = Service & { beforeBrokerStop?: () => Promise<void> };

export const BeforeStop: Middleware = {
  async stopping(broker: ServiceBroker) {
    await Promise.all((broker.services as StoppableService[]).map((s) => s.beforeBrokerStop?.()));
  },
};
