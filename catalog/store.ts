/**
 * The catalog core's storage ports over the services' Store interface (NeDB or MongoDB): the
 * queries each port means, written once. `stores` is read at each call (stores open at start).
 */
import type { Stores } from "../lib/store";
import type { CatalogCollections } from "../models/catalog";
import type { CatalogPorts } from "./catalog";
import type { ProcessPorts } from "./process";
import type { CatalogReadPorts, EventFilter } from "./reads";
import { tokensFilter } from "./search";

/** Published events of the filter, as a store query. */
function eventQuery(f: EventFilter): Record<string, unknown> {
  const q: Record<string, unknown> = { isActive: true };
  if (f.category) q.category = f.category;
  if (f.tokens.length) Object.assign(q, tokensFilter(f.tokens));
  return q;
}

export function catalogStorePorts(
  stores: () => Stores<CatalogCollections>,
): Pick<CatalogPorts, "events" | "markets" | "prints" | "meta"> & Pick<ProcessPorts, "disputes"> {
  const s = stores;
  return {
    events: {
      get: (_id) => s().events.findOne({ _id }),
      insertOnce: (doc) => s().events.insertOnce(doc),
      update: async (_id, set) => void (await s().events.update({ _id }, { $set: set })),
      addVolume: async (_id, v) => void (await s().events.update({ _id }, { $inc: { volumeUsd: v } })),
      decide: async (_id, decision) => (await s().events.update({ _id, decision: { $exists: false } }, { $set: { decision } })) > 0,
    },
    markets: {
      get: (_id) => s().markets.findOne({ _id }),
      ofEvent: (eventId) => s().markets.find({ eventId }, { sort: { position: 1 } }),
      insertOnce: (doc) => s().markets.insertOnce(doc),
      removeMany: async (ids) => void (await s().markets.remove({ _id: { $in: ids } }, { multi: true })),
      retitle: async (_id, eventId, title, updatedAt) => void (await s().markets.update({ _id, eventId }, { $set: { title, updatedAt } })),
      setIfStatus: async (_id, status, set, resolution) => {
        const q: Record<string, unknown> = { _id, status };
        // Missing and null resolutions alike (markets stored before resolutions existed have none).
        if (resolution === null) q["resolution.proposedAt"] = { $exists: false };
        else if (resolution) for (const [k, v] of Object.entries(resolution)) q[`resolution.${k}`] = v;
        return (await s().markets.update(q, { $set: set })) > 0;
      },
      edit: async (_id, eventId, set) => void (await s().markets.update({ _id, eventId }, { $set: set })),
      due: (nowIso) =>
        s().markets.find({
          $or: [
            { status: "open", closeTime: { $lte: nowIso } },
            {
              status: "closed",
              "resolution.finalizedAt": null,
              "resolution.disputed": false,
              "resolution.disputeEndsAt": { $lte: nowIso },
            },
          ],
        }),
      traded: async (_id, v, yesPrice, atMs) => {
        const latest = await s().markets.update(
          { _id, $or: [{ lastTradeAtMs: { $exists: false } }, { lastTradeAtMs: { $lte: atMs } }] },
          { $inc: { volume: v }, $set: { lastYesPrice: yesPrice, lastTradeAtMs: atMs } },
        );
        // A later trade is recorded already: the volume alone.
        if (!latest) await s().markets.update({ _id }, { $inc: { volume: v } });
      },
    },
    prints: {
      storedIds: async (ids) => (await s().prints.find({ _id: { $in: ids } })).map((p) => p._id),
      insertMany: (docs) => s().prints.insertMany(docs),
    },
    disputes: {
      insertOnce: (doc) => s().disputes.insertOnce(doc),
      count: (marketId, proposedAt) => s().disputes.count({ marketId, proposedAt }),
    },
    meta: {
      get: (_id) => s().catalogMeta.findOne({ _id }),
      insertOnce: (doc) => s().catalogMeta.insertOnce(doc),
      markDone: async (_id, at) => void (await s().catalogMeta.update({ _id }, { $set: { done: true, at } })),
    },
  };
}

export function catalogReadPorts(stores: () => Stores<CatalogCollections>): Pick<CatalogReadPorts, "events" | "markets" | "prints"> {
  const s = stores;
  return {
    events: {
      count: (f) => s().events.count(eventQuery(f)),
      list: (f, range) => s().events.find(eventQuery(f), { sort: { beginAt: 1, _id: 1 }, ...range }),
    },
    markets: {
      ofEvent: (eventId) => s().markets.find({ eventId }, { sort: { position: 1 } }),
      ofEvents: (eventIds) => s().markets.find({ eventId: { $in: eventIds } }, { sort: { eventId: 1, position: 1 } }),
      byIds: (ids) => s().markets.find({ _id: { $in: ids } }),
    },
    prints: {
      since: (marketId, sinceMs) => s().prints.find({ marketId, atMs: { $gte: sinceMs } }, { sort: { atMs: 1, _id: 1 } }),
      lastBefore: async (marketId, sinceMs) =>
        (await s().prints.find({ marketId, atMs: { $lt: sinceMs } }, { sort: { atMs: -1, _id: -1 }, limit: 1 }))[0] ?? null,
      latest: (marketId, limit) => s().prints.find({ marketId }, { sort: { atMs: -1, _id: -1 }, limit }),
    },
  };
}
