import type { Middleware, ServiceBroker } from "moleculer";
import { DataDirLock } from "../lib/data-dir";

/**
 * Takes the data dir's lock before anything opens a file in it (the `starting` hook runs before
 * the transporter connects and the services start) and gives it back when the broker stops.
 */
export function createDataDirLock(dir: string): Middleware {
  let lock: DataDirLock | null = null;
  return {
    name: "DataDirLock",
    starting(broker: ServiceBroker) {
      lock = DataDirLock.acquire(dir, broker.nodeID);
    },
    stopped() {
      lock?.release();
      lock = null;
    },
  } as unknown as Middleware;
}
