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
export function ledgerPoster(broker: ServiceBroker): {
  post(entry: PostParams): Promise<PostOutcome>;
  /** On this node's ledger in the caller's turn (its refusal thrown); undefined when it does not run here. */
  postNow(entry: PostParams): PostOutcome | undefined;
} {
  let here: LedgerHere | null | undefined;
  const postNow = (entry: PostParams): PostOutcome | undefined => {
    if (here === undefined || (here && !here.desk)) here = (broker.getLocalService("ledger") as unknown as LedgerHere | undefined) ?? null;
    return here?.desk && here.postHere ? here.postHere(entry, broker.nodeID) : undefined;
  };
  return {
    postNow,
    post: (entry) => {
      try {
        const now = postNow(entry);
        if (now) return Promise.resolve(now);
      } catch (err) {
        return Promise.reject(err);
      }
      return portCall(broker, "ledger.post", { ...entry, durable: false });
    },
  };
}
