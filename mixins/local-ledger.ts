import type { ServiceBroker } from "moleculer";
import type { PostParams } from "../contract";
import type { PostOutcome } from "../models/trading";
import { portCall } from "./port-call";

/** What the ledger service offers a caller on its own node (services/ledger.service.ts). */
interface LedgerHere {
  desk?: unknown;
  postHere?(entry: PostParams, fromNode: string): PostOutcome;
}

/**
 * `ledger.post` answered before durability (the caller waits on the watermark): on this node's
 * ledger when it runs here, else over the broker. The entry is built by a planner, not a client,
 * so the local call skips what a broker call adds to every order (a context, the middlewares, the
 * parameter check); the refusals are the same Refusals the port gets back from a broker call.
 */
export function ledgerPoster(broker: ServiceBroker): (entry: PostParams) => Promise<PostOutcome> {
  let here: LedgerHere | null | undefined;
  return (entry) => {
    if (here === undefined || (here && !here.desk)) here = (broker.getLocalService("ledger") as unknown as LedgerHere | undefined) ?? null;
    if (here?.desk && here.postHere) {
      try {
        return Promise.resolve(here.postHere(entry, broker.nodeID));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return portCall(broker, "ledger.post", { ...entry, durable: false });
  };
}
