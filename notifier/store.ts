/**
 * The notifier cores' storage ports over the services' Store interface (NeDB or MongoDB): the
 * queries each port means, written once. `stores` is read at each call (stores open at start).
 */
import type { Stores } from "../lib/store";
import type { NotifierCollections } from "../models/notification";
import type { Outbox } from "./delivery";
import type { NotifierPorts } from "./notifier";

/** The journal cursor's document. */
const CURSOR_ID = "ledger";

export function notifierStorePorts(
  stores: () => Stores<NotifierCollections>,
): Pick<NotifierPorts, "notifications" | "cursor" | "jobs" | "settings"> {
  const s = stores;
  return {
    notifications: {
      storedIds: async (ids) => (await s().notifications.find({ _id: { $in: ids } })).map((n) => n._id),
      insertMany: (docs) => s().notifications.insertMany(docs),
      insertOnce: (doc) => s().notifications.insertOnce(doc),
    },
    cursor: {
      load: async () => {
        await s().notifierCursor.insertOnce({ _id: CURSOR_ID, seq: 0 });
        return (await s().notifierCursor.findOne({ _id: CURSOR_ID }))?.seq ?? 0;
      },
      save: async (seq) => void (await s().notifierCursor.update({ _id: CURSOR_ID, seq: { $lt: seq } }, { $set: { seq } })),
    },
    settings: {
      get: async (userId) => (await s().notifierSettings.findOne({ _id: userId }))?.push ?? null,
      set: async (userId, push) => {
        const updatedAt = new Date().toISOString();
        if (!(await s().notifierSettings.insertOnce({ _id: userId, push, updatedAt })))
          await s().notifierSettings.update({ _id: userId }, { $set: { push, updatedAt } });
      },
    },
    jobs: {
      insertOnce: (job) => s().notifierJobs.insertOnce(job),
      oldest: (limit) => s().notifierJobs.find({}, { sort: { at: 1 }, limit }),
      remove: async (_id) => void (await s().notifierJobs.remove({ _id })),
    },
  };
}

/** The pending pushes: notifications whose `deliverAt` is set. */
export function outboxOf(stores: () => Stores<NotifierCollections>): Outbox {
  const set = async (_id: string, update: Record<string, unknown>) => void (await stores().notifications.update({ _id }, update));
  return {
    due: (nowMs, limit) => stores().notifications.find({ deliverAt: { $lte: nowMs } }, { sort: { deliverAt: 1 }, limit }),
    claim: async (_id, deliverAt, leaseUntil) =>
      (await stores().notifications.update({ _id, deliverAt }, { $set: { deliverAt: leaseUntil } })) > 0,
    delivered: (id, attempts, deliveredAt) =>
      set(id, { $set: { delivered: true, delivery: "delivered", attempts, deliveredAt }, $unset: { deliverAt: true, lastError: true } }),
    retryLater: (id, attempts, lastError, retryAt) => set(id, { $set: { attempts, lastError, deliverAt: retryAt } }),
    giveUp: (id, attempts, lastError) => set(id, { $set: { delivery: "failed", attempts, lastError }, $unset: { deliverAt: true } }),
    handBack: (id, at) => set(id, { $set: { deliverAt: at } }),
  };
}
