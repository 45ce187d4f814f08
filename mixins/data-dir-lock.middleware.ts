import type { Middleware, ServiceBroker } from "moleculer";
import { DataDirLock, restrictNewFiles } from "../lib/data-dir";

/**
 * Takes the data dir's lock before anything opens a file in it (the `starting` hook runs before
 * the transporter connects and the services start) and gives it back when the broker stops.
 */
export function createDataDirLock(dir: string): Middleware {
  let lock: DataDirLock | null = null;
  return {
    name: "DataDirLock",
    starting(broker: ServiceBroker) {
      // Everything the node writes from here on (stores, chain files, the socket) is the owner's only.
      restrictNewFiles();
      lock = DataDirLock.acquire(dir, broker.nodeID);
    },
    stopped() {
      lock?.release();
      lock = null;
    },
  } as unknown as Middleware;
}
