/**
 * The auth core's storage ports over the services' Store interface (NeDB or MongoDB): the
 * queries each port means, written once. `stores` is read at each call (stores open at start).
 */
import type { Stores } from "../lib/store";
import type { SessionDoc, UsedProofDoc, UserDoc } from "../models/user";
import type { AuthPorts } from "./auth";

export type AuthCollections = { users: UserDoc; sessions: SessionDoc; usedProofs: UsedProofDoc };

export function authStorePorts(stores: () => Stores<AuthCollections>): Pick<AuthPorts, "users" | "sessions" | "usedProofs" | "compact"> {
  const s = stores;
  return {
    users: {
      byId: (_id) => s().users.findOne({ _id }),
      byWallet: (walletAddress) => s().users.findOne({ walletAddress }),
      insertOnce: (user) => s().users.insertOnce(user),
      setTelegram: async (_id, telegram) => void (await s().users.update({ _id }, { $set: { telegram } })),
      setTier: async (_id, tier) => void (await s().users.update({ _id }, { $set: { tier } })),
      withTier: async () =>
        (await s().users.find({ tier: { $exists: true, $ne: "default" } })).map((u) => ({ userId: u._id, tier: u.tier as string })),
    },
    sessions: {
      get: (_id) => s().sessions.findOne({ _id }),
      insert: async (session) => void (await s().sessions.insert(session)),
      ofUser: (userId) => s().sessions.find({ userId }),
      remove: async (ids) => void (ids.length && (await s().sessions.remove({ _id: { $in: ids } }, { multi: true }))),
      revokeOnce: async (_id, revokedAt) =>
        (await s().sessions.update({ _id, revokedAt: { $exists: false } }, { $set: { revokedAt } })) > 0,
      revoke: async (_id, revokedAt) => void (await s().sessions.update({ _id }, { $set: { revokedAt } })),
      sweep: (expiresBefore) => s().sessions.remove({ expiresAt: { $lt: expiresBefore } }, { multi: true }),
    },
    usedProofs: {
      claim: (doc) => s().usedProofs.insertOnce(doc),
      sweep: (staleBefore) => s().usedProofs.remove({ staleAt: { $lt: staleBefore } }, { multi: true }),
    },
    // Removals are only appended to an embedded store's file: rewrite it without them.
    compact: async () => {
      await s().sessions.compact?.();
      await s().usedProofs.compact?.();
    },
  };
}
