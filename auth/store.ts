/**
 * The auth core's storage ports over the services' Store interface (NeDB or MongoDB): the
 * queries each port means, written once. `stores` is read at each call (stores open at start).
 */
import type { Stores } from "../lib/store";
import type { SessionDoc, UsedProofDoc, UserDoc } from "../models/user";
import type { AuthPorts } from "./auth";

export type AuthCollections = { users: UserDoc; sessions: SessionDoc; usedProofs: UsedProofDoc };

export function authStorePorts(stores: () => Stores<AuthCollections>): Pick<AuthPorts, "users" | "sessions" | "usedProofs"> {
  const s = stores;
  return {
    users: {
      byId: (_id) => s().users.findOne({ _id }),
      byWallet: (walletAddress) => s().users.findOne({ walletAddress }),
      insertOnce: (user) => s().users.insertOnce(user),
      setTelegram: async (_id, telegram) => void (await s().users.update({ _id }, { $set: { telegram } })),
    },
    sessions: {
      get: (_id) => s().sessions.findOne({ _id }),
      insert: async (session) => void (await s().sessions.insert(session)),
      revokeOnce: async (_id, revokedAt) =>
        (await s().sessions.update({ _id, revokedAt: { $exists: false } }, { $set: { revokedAt } })) > 0,
      revoke: async (_id, revokedAt) => void (await s().sessions.update({ _id }, { $set: { revokedAt } })),
      sweep: async (expiresBefore) => void (await s().sessions.remove({ expiresAt: { $lt: expiresBefore } }, { multi: true })),
    },
    usedProofs: {
      claim: (doc) => s().usedProofs.insertOnce(doc),
      sweep: async (staleBefore) => void (await s().usedProofs.remove({ staleAt: { $lt: staleBefore } }, { multi: true })),
    },
  };
}
