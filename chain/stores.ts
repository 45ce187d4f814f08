/**
 * The chain service's collections and the cores' store ports over them: the one place where the
 * cores' operations become Mongo-style queries (the same on NeDB and MongoDB).
 */
import type { IndexSpec, Store, Stores } from "../lib/store";
import type {
  ChainIncidentDoc,
  ChainMetaDoc,
  DepositAddressDoc,
  DepositDoc,
  MarketSettlementDoc,
  RedemptionDoc,
  SettlementBatchDoc,
  SettlementItemDoc,
  SettlementNoticeDoc,
  WithdrawalDoc,
  WithdrawalLockDoc,
} from "../models/chain";
import type { DepositStore } from "./deposit-watcher";
import type { MetaStore } from "./ports";
import type { RedemptionStore } from "./redemptions";
import type { SettlementStore } from "./settlement-batcher";
import type { TransferSource } from "./transfers";
import type { WithdrawalStore } from "./withdrawals";

export type ChainCollections = {
  depositAddresses: DepositAddressDoc;
  deposits: DepositDoc;
  chainIncidents: ChainIncidentDoc;
  withdrawals: WithdrawalDoc;
  withdrawalLocks: WithdrawalLockDoc;
  settlementItems: SettlementItemDoc;
  settlementBatches: SettlementBatchDoc;
  settlementNotices: SettlementNoticeDoc;
  redemptions: RedemptionDoc;
  marketSettlements: MarketSettlementDoc;
  chainMeta: ChainMetaDoc;
};

export const CHAIN_INDEXES: { [K in keyof ChainCollections]: IndexSpec[] } = {
  depositAddresses: [
    { fields: { index: 1 }, unique: true },
    { fields: { address: 1 }, unique: true },
  ],
  deposits: [{ fields: { userId: 1 } }],
  chainIncidents: [{ fields: { userId: 1 } }],
  withdrawals: [{ fields: { userId: 1 } }, { fields: { status: 1 } }],
  withdrawalLocks: [],
  settlementItems: [{ fields: { queue: 1 }, sparse: true }],
  settlementBatches: [{ fields: { status: 1 } }, { fields: { txHash: 1 } }],
  settlementNotices: [],
  redemptions: [{ fields: { userId: 1 } }],
  marketSettlements: [{ fields: { status: 1 } }],
  chainMeta: [],
};

const OPEN_WITHDRAWAL = { status: { $in: ["debiting", "submitted"] } };

function metaStore(s: Store<ChainMetaDoc>): MetaStore {
  return {
    get: async (id) => (await s.findOne({ _id: id }))?.value ?? 0,
    set: (id, value) => s.put({ _id: id, value }),
  };
}

export function withdrawalStore(s: Stores<ChainCollections>): WithdrawalStore {
  const w = s.withdrawals;
  const locks = s.withdrawalLocks;
  return {
    get: (id) => w.findOne({ _id: id }),
    insert: async (doc) => void (await w.insert(doc)),
    remove: async (id) => void (await w.remove({ _id: id })),
    update: async (id, set) => void (await w.update({ _id: id }, { $set: set })),
    open: () => w.find(OPEN_WITHDRAWAL),
    lock: (id) => locks.findOne({ _id: id }),
    putLock: (lock) => locks.put(lock),
    releaseLock: async (id, withdrawalId) => void (await locks.remove({ _id: id, withdrawalId })),
  };
}

export function depositStore(s: Stores<ChainCollections>): DepositStore {
  const a = s.depositAddresses;
  return {
    address: (userId) => a.findOne({ _id: userId }),
    addresses: () => a.find({}),
    insertAddress: (doc) => a.insertOnce(doc),
    updateAddress: async (userId, set) => void (await a.update({ _id: userId }, { $set: set })),
    insertDeposit: (doc) => s.deposits.insertOnce(doc),
    insertIncident: (doc) => s.chainIncidents.insertOnce(doc),
    meta: metaStore(s.chainMeta),
  };
}

export function redemptionStore(s: Stores<ChainCollections>): RedemptionStore {
  const m = s.marketSettlements;
  return {
    insertRedemption: (doc) => s.redemptions.insertOnce(doc),
    redemption: (id) => s.redemptions.findOne({ _id: id }),
    settlement: (marketId) => m.findOne({ _id: marketId }),
    insertSettlement: (doc) => m.insertOnce(doc),
    putSettlement: (doc) => m.put(doc),
    pendingSettlements: () => m.find({ status: "pending" }),
  };
}

export function settlementStore(s: Stores<ChainCollections>): SettlementStore {
  const items = s.settlementItems;
  const batches = s.settlementBatches;
  const notices = s.settlementNotices;
  const among = (ids: string[]) => ({ _id: { $in: ids } });
  return {
    items: {
      known: async (ids) => (await items.find(among(ids))).map((i) => i._id),
      insertMany: (docs) => items.insertMany(docs),
      byIds: (ids) => items.find(among(ids)),
      queued: () => items.find({ queue: { $exists: true }, batchId: null }, { sort: { queue: 1 } }),
      assign: async (ids, batchId) => void (await items.update(among(ids), { $set: { batchId } }, { multi: true })),
      confirm: async (ids, txHash) =>
        void (await items.update(among(ids), { $set: { status: "confirmed", txHash }, $unset: { queue: true } }, { multi: true })),
      attemptedAtLeast: (ids, attempts) => items.find({ ...among(ids), attempts: { $gte: attempts } }),
      attemptedBelow: (ids, attempts) => items.find({ ...among(ids), attempts: { $lt: attempts } }, { sort: { queue: 1 } }),
      release: async (ids) => void (await items.update(among(ids), { $inc: { attempts: 1 }, $set: { batchId: null } }, { multi: true })),
      fail: async (ids) => void (await items.update(among(ids), { $set: { status: "failed" }, $unset: { queue: true } }, { multi: true })),
    },
    batches: {
      sending: () => batches.findOne({ status: "sending" }),
      insert: async (batch) => void (await batches.insert(batch)),
      update: async (id, set) => void (await batches.update({ _id: id }, { $set: set })),
    },
    notices: {
      insertOnce: (notice) => notices.insertOnce(notice),
      get: (id) => notices.findOne({ _id: id }),
      oldest: (limit) => notices.find({}, { sort: { at: 1 }, limit }),
      setLedgerDone: async (id) => void (await notices.update({ _id: id }, { $set: { ledgerDone: true } })),
      remove: async (id) => void (await notices.remove({ _id: id })),
    },
    meta: metaStore(s.chainMeta),
  };
}

export function transferSource(s: Stores<ChainCollections>, payouts: TransferSource["payouts"]): TransferSource {
  return {
    payouts,
    deposits: (userId) => s.deposits.find({ userId }),
    incidents: (userId) => s.chainIncidents.find({ userId }),
    withdrawals: (userId) => s.withdrawals.find({ userId }),
  };
}
