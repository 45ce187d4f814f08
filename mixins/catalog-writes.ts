/**
 * A count of the catalog's writes to its events and markets, shared by the embedded process's two
 * nodes (SIDE_NODE=thread): the side node's catalog adds one after each such write completes, and
 * the main node's copy of the events list (mixins/near-cache.middleware.ts) is good while the count
 * is the one it saw before asking. The count lives in shared memory, so the main node knows of a
 * write before the command that made it answers, without a message per write.
 */
import type { ServiceBroker } from "moleculer";
import type { Collections, Doc, Store, Stores } from "../lib/store";
import type { SharedCount } from "./shared-count";

const counts = new WeakMap<ServiceBroker, SharedCount>();

export function bindCatalogWrites(broker: ServiceBroker, count: SharedCount): void {
  counts.set(broker, count);
}

/** The count this node shares with the other node of its process, if any. */
export function catalogWritesOf(broker: ServiceBroker): SharedCount | undefined {
  return counts.get(broker);
}

/**
 * The same stores, with `onWrite` called once each write to one of `watched` has ended (done or
 * failed: a failed write may have changed something), before its caller goes on.
 */
export function watchWrites<M extends Collections>(
  stores: () => Stores<M>,
  watched: ReadonlyArray<keyof M>,
  onWrite: () => void,
): () => Stores<M> {
  let seen: Stores<M> | undefined;
  let out: Stores<M> | undefined;
  return () => {
    const all = stores();
    if (all !== seen) {
      seen = all;
      out = all && { ...all };
      if (out) for (const name of watched) if (all[name]) out[name] = watchStore(all[name], onWrite);
    }
    return out as Stores<M>;
  };
}

function watchStore<T extends Doc>(s: Store<T>, onWrite: () => void): Store<T> {
  const after = <R>(p: Promise<R>): Promise<R> => p.finally(onWrite);
  return {
    insert: (doc) => after(s.insert(doc)),
    insertMany: (docs) => after(s.insertMany(docs)),
    insertOnce: (doc) => after(s.insertOnce(doc)),
    findOne: (q) => s.findOne(q),
    find: (q, opts) => s.find(q, opts),
    count: (q) => s.count(q),
    update: (q, u, opts) => after(s.update(q, u, opts)),
    remove: (q, opts) => after(s.remove(q, opts)),
    put: (doc) => after(s.put(doc)),
    ...(s.compact ? { compact: () => after((s.compact as () => Promise<void>).call(s)) } : {}),
  };
}
