import { randomBytes } from "node:crypto";
import { METRIC } from "../lib/metrics";
import { join } from "node:path";
import { Address, Cell, internal, toNano } from "@ton/core";
import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { SerialQueue } from "../lib/serial";
import { configOf, persistentSecret, type AppConfig, type ChainConfig } from "../lib/config";
import { badRequest, conflict, DomainError, notFound, validationError } from "../lib/errors";
import { newId } from "../lib/ids";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import type { ConservationReport, Posting, PositionState } from "../engine/accounts";
import type { Outcome } from "../engine/types";
import type { LedgerEntryDoc } from "../models/trading";
import type { MarketInternal } from "../models/catalog";
import type { ChainIncidentDoc, ChainMetaDoc, DepositAddressDoc, DepositDoc, MarketSettlementDoc, RedemptionDoc, SettlementBatchDoc, SettlementItemDoc, WithdrawalDoc, WithdrawalLockDoc } from "../models/chain";
import { KeyRing, friendlyContract, friendlyWallet, type DerivedWallet } from "../chain/keys";
import { sharesText, tonLimitText, usdtLimitText, usdtText } from "../lib/units";
import { ChainRejected, type ChainPort, type Submission } from "../chain/port";
import { SandboxChain, type FaucetAsset } from "../chain/sandbox";
import { TonChain } from "../chain/ton";
import { classifyDepositTx, refineNotification } from "../chain/deposits";
import { jettonBalance, jettonTransferMessage, transferOutcome } from "../chain/operations";
import { commitmentOf, settlementBody } from "../chain/settlement";
import { escrowAccount, other, outcomeOfIndexSet, redeemWinner, refundCancelled, resolutionPostings } from "../chain/redemption";
import { txView } from "../chain/tx";
import { AMOUNT } from "../lib/params";

type ChainCollections = {
  depositAddresses: DepositAddressDoc;
  deposits: DepositDoc;
  chainIncidents: ChainIncidentDoc;
  withdrawals: WithdrawalDoc;
  withdrawalLocks: WithdrawalLockDoc;
  settlementItems: SettlementItemDoc;
  settlementBatches: SettlementBatchDoc;
  redemptions: RedemptionDoc;
  marketSettlements: MarketSettlementDoc;
  chainMeta: ChainMetaDoc;
};

export interface WithdrawParams {
  amount: string;
}
export interface RedeemParams {
  marketId: string;
  conditionId: string;
  indexSets: string[];
}
export interface FaucetParams {
  amount: string;
  asset: FaucetAsset;
}
export interface SubmissionResult {
  status: "accepted" | "duplicate" | "failed";
  txHash?: string;
  message: string;
}


/** TON a deposit wallet needs to pay a sweep (external fee + the jetton transfer's attached TON). */
const SWEEP_MIN_TON = toNano("0.07");
const SWEEP_TOPUP_TON = toNano("0.1");
/** TON sent with a settlement commitment to the registry address. */
const COMMIT_TON = toNano("0.001");
/** After a message's validity ends, how long a not-yet-seen transaction is still waited for (indexing lag). */
const LANDING_GRACE_SEC = 30;

type ChainThis = Service &
  DbState<ChainCollections> & {
    cfg: AppConfig;
    ccfg: ChainConfig;
    keys: KeyRing;
    port: ChainPort;
    sandbox: SandboxChain | null;
    queue: SerialQueue;
    /** Settles when the chain is up (the queue's first task). */
    ready: Promise<void>;
    timers: NodeJS.Timeout[];
    busy: Set<string>;
    stopping: boolean;
    hot(): Promise<DerivedWallet>;
    persistChain(): Promise<void>;
    background(name: string, task: () => Promise<unknown>): void;
    onChain<T>(task: () => Promise<T>): Promise<T>;
    allocate(userId: string): Promise<DepositAddressDoc>;
    addressView(doc: DepositAddressDoc): { address: string; jettonWalletAddress: string | null; derivationIndex: number };
    scanAll(): Promise<void>;
    scanAddress(doc: DepositAddressDoc): Promise<void>;
    sweep(doc: DepositAddressDoc): Promise<void>;
    doWithdraw(userId: string, wallet: string, amount: number): Promise<SubmissionResult>;
    failWithdrawal(wd: WithdrawalDoc, reason: string): Promise<void>;
    reconcileWithdrawals(): Promise<void>;
    intakeTrades(): Promise<void>;
    /**
     * Pending trades not in a batch, oldest first: the settlement queue in memory (the store holds
     * the same items durably), loaded on first use. A store query sorted the whole backlog every round.
     */
    settleQueue: Array<{ id: string; at: string }> | null;
    pendingQueue(): Promise<Array<{ id: string; at: string }>>;
    settleRound(): Promise<void>;
    finishBatch(batch: SettlementBatchDoc, outcome: { ok: true; txHash: string } | { ok: false; error: string }): Promise<void>;
    doRedeem(ctx: AppContext<RedeemParams>): Promise<SubmissionResult & { payout?: string }>;
    sweepResolved(marketId: string, result: Outcome): Promise<void>;
    refundMarket(marketId: string): Promise<MarketSettlementDoc | null>;
    getMeta(id: string): Promise<number>;
    setMeta(id: string, value: number): Promise<void>;
    reconcile(): Promise<ChainReconciliation>;
  };

export interface ChainReconciliation {
  ok: boolean;
  /** Ledger: deposits credited and withdrawals debited (micro-USDT). */
  ledgerDeposits: string;
  ledgerWithdrawals: string;
  ledgerNet: string;
  /** Chain: canonical USDT held by the deposit wallets and the hot wallet. */
  depositWallets: string;
  hotWallet: string;
  /** Debited withdrawals not yet out of the hot wallet. */
  pendingWithdrawals: string;
  ledgerConservation: boolean;
}

const HEX32 = /^0x[0-9a-fA-F]{64}$/;

const ChainService = defineService<ChainThis>({
  name: "chain",
  mixins: [
    createDbMixin<ChainCollections>({
      depositAddresses: [{ fields: { index: 1 }, unique: true }, { fields: { address: 1 }, unique: true }],
      deposits: [{ fields: { userId: 1 } }],
      chainIncidents: [{ fields: { userId: 1 } }],
      withdrawals: [{ fields: { userId: 1 } }, { fields: { status: 1 } }],
      withdrawalLocks: [],
      settlementItems: [{ fields: { queue: 1 }, sparse: true }],
      settlementBatches: [{ fields: { status: 1 } }, { fields: { txHash: 1 } }],
      redemptions: [{ fields: { userId: 1 } }],
      marketSettlements: [{ fields: { status: 1 } }],
      chainMeta: [],
    }),
  ],

  actions: {
    /** GET /deposit-address: allocated on first call, the same ever after. */
    depositAddress: {
      auth: "user",
      params: { $$strict: "remove" },
      async handler(this: ChainThis, ctx: AppContext) {
        const userId = currentUser(ctx).id;
        const doc = await this.onChain(() => this.allocate(userId));
        return this.addressView(doc);
      },
    },

    /** POST /withdraw: to the session's wallet only; any other body field is ignored. */
    withdraw: {
      auth: "user",
      params: { amount: AMOUNT, $$strict: "remove" },
      async handler(this: ChainThis, ctx: AppContext<WithdrawParams>): Promise<SubmissionResult> {
        const user = currentUser(ctx);
        const amount = Number(ctx.params.amount);
        const { withdrawMin, withdrawMax } = this.ccfg;
        if (!Number.isSafeInteger(amount) || amount < withdrawMin) throw validationError(`amount must be at least ${usdtLimitText(withdrawMin)}`, [{ field: "amount", rule: "min" }]);
        if (amount > withdrawMax) throw validationError(`amount must be at most ${usdtLimitText(withdrawMax)}`, [{ field: "amount", rule: "max" }]);
        const res = await this.onChain(() => this.doWithdraw(user.id, user.wallet, amount));
        ctx.meta.$statusCode = 202;
        return res;
      },
    },

    /** POST /redeem/:marketId */
    redeem: {
      auth: "user",
      params: {
        marketId: { type: "string", min: 1, max: 64, pattern: /^[A-Za-z0-9_-]+$/ },
        conditionId: { type: "string", pattern: HEX32, messages: { stringPattern: "conditionId must be 0x followed by 64 hex digits" } },
        indexSets: { type: "array", min: 1, max: 2, items: { type: "string", min: 3, max: 66 } },
        $$strict: "remove",
      },
      async handler(this: ChainThis, ctx: AppContext<RedeemParams>) {
        const res = await this.onChain(() => this.doRedeem(ctx));
        ctx.meta.$statusCode = 202;
        return res;
      },
    },

    /** POST /sandbox/faucet: real emulated tokens to the caller's deposit address (sandbox chain only). */
    faucet: {
      auth: "user",
      params: { amount: AMOUNT, asset: { type: "enum", values: ["USDT", "TON", "FOREIGN_USDT"], optional: true, default: "USDT" }, $$strict: "remove" },
      async handler(this: ChainThis, ctx: AppContext<FaucetParams>) {
        const sandbox = this.sandbox;
        if (!sandbox) throw notFound("Sandbox faucet");
        const { asset } = ctx.params;
        const amount = BigInt(ctx.params.amount);
        const max = asset === "TON" ? this.ccfg.faucetMaxNano : BigInt(this.ccfg.faucetMaxUsdt);
        if (amount < 1n) throw validationError("amount must be positive", [{ field: "amount", rule: "min" }]);
        if (amount > max) throw validationError(`amount must be at most ${asset === "TON" ? tonLimitText(max) : usdtLimitText(max)}`, [{ field: "amount", rule: "max" }]);
        const userId = currentUser(ctx).id;
        const out = await this.onChain(async () => {
          const doc = await this.allocate(userId);
          const sent = await sandbox.faucetSend(asset, Address.parseRaw(doc.address), amount);
          await this.persistChain();
          await this.scanAddress((await this.stores.depositAddresses.findOne({ _id: userId })) as DepositAddressDoc);
          return sent;
        });
        ctx.meta.$statusCode = 202;
        return { status: "accepted", txHash: out.txHash, asset, amount: amount.toString(), address: this.addressView((await this.stores.depositAddresses.findOne({ _id: userId })) as DepositAddressDoc).address };
      },
    },

    /** Internal: ledger vs chain (tests, operators): ledger net deposits = deposit wallets + hot wallet - pending withdrawals. */
    reconcile: {
      visibility: "public",
      handler(this: ChainThis): Promise<ChainReconciliation> {
        return this.onChain(() => this.reconcile());
      },
    },

    /** Internal: one transaction as the chain has it (hash hex). */
    transaction: {
      visibility: "public",
      params: { hash: { type: "string", pattern: /^[0-9a-fA-F]{64}$/ } },
      async handler(this: ChainThis, ctx: AppContext<{ hash: string }>) {
        await this.ready;
        const tx = await this.port.findTransaction(ctx.params.hash);
        return tx ? txView(tx) : null;
      },
    },

    /** Internal: canonical USDT held on chain by an owner address (raw or friendly). */
    jettonBalance: {
      visibility: "public",
      params: { owner: { type: "string", min: 3, max: 100 }, minter: { type: "string", optional: true } },
      async handler(this: ChainThis, ctx: AppContext<{ owner: string; minter?: string }>) {
        await this.ready;
        const b = await jettonBalance(this.port, Address.parse(ctx.params.owner), ctx.params.minter ? Address.parse(ctx.params.minter) : undefined);
        return b.toString();
      },
    },

    /** Internal: the chain's fixed addresses and counters. */
    info: {
      visibility: "public",
      async handler(this: ChainThis) {
        await this.ready;
        const [hot, operator, registry] = await Promise.all([this.keys.wallet("hot"), this.keys.wallet("operator"), this.keys.wallet("registry")]);
        return {
          kind: this.port.kind,
          testnet: this.port.testnet,
          usdtMinter: this.port.usdtMinter().toRawString(),
          foreignMinter: this.sandbox ? this.sandbox.foreignMinter().toRawString() : null,
          hotWallet: hot.address.toRawString(),
          hotJettonWallet: (await this.port.jettonWalletAddress(hot.address)).toRawString(),
          operatorWallet: operator.address.toRawString(),
          registry: registry.address.toRawString(),
        };
      },
    },

    /** Internal: incidents recorded for support (everything that reached a deposit address and was not credited). */
    incidents: {
      visibility: "public",
      params: { userId: { type: "string", optional: true } },
      handler(this: ChainThis, ctx: AppContext<{ userId?: string }>) {
        return this.stores.chainIncidents.find(ctx.params.userId ? { userId: ctx.params.userId } : {}, { sort: { at: 1, _id: 1 } });
      },
    },

    /** Internal: settlement batches (tests, operators). */
    batches: {
      visibility: "public",
      params: { txHash: { type: "string", optional: true } },
      handler(this: ChainThis, ctx: AppContext<{ txHash?: string }>) {
        return this.stores.settlementBatches.find(ctx.params.txHash ? { txHash: ctx.params.txHash } : {}, { sort: { at: 1 } });
      },
    },

    /** Internal: run the deposit watcher and the settlement batcher now instead of at their next tick. */
    tick: {
      visibility: "public",
      async handler(this: ChainThis) {
        await this.onChain(() => this.scanAll());
        await this.onChain(() => this.settleRound());
        return true;
      },
    },

    /** Internal (sandbox only): an internal message from a contract outside the exchange to a user's deposit address. */
    sandboxInject: {
      visibility: "public",
      params: { userId: "string", value: AMOUNT, body: { type: "string", optional: true } },
      async handler(this: ChainThis, ctx: AppContext<{ userId: string; value: string; body?: string }>) {
        const sandbox = this.sandbox;
        if (!sandbox) throw notFound("Sandbox");
        return this.onChain(async () => {
          const doc = await this.allocate(ctx.params.userId);
          const out = await sandbox.injectFromOutsider(Address.parseRaw(doc.address), BigInt(ctx.params.value), ctx.params.body ? Cell.fromBase64(ctx.params.body) : null);
          await this.persistChain();
          await this.scanAddress((await this.stores.depositAddresses.findOne({ _id: doc._id })) as DepositAddressDoc);
          return { txHash: out.txHash, from: sandbox.outsiderAddress().toRawString() };
        });
      },
    },
  },

  events: {
    "market.resolved": {
      handler(this: ChainThis, ctx: AppContext<{ marketId: string; result: Outcome | null }>) {
        const { marketId, result } = ctx.params;
        if (result !== "YES" && result !== "NO") return;
        this.background(`resolve:${marketId}`, () => this.sweepResolved(marketId, result));
      },
    },
    "market.cancelled": {
      async handler(this: ChainThis, ctx: AppContext<{ marketId: string }>) {
        const { marketId } = ctx.params;
        await this.stores.marketSettlements.insertOnce({ _id: marketId, kind: "refund", status: "pending", refunds: [], at: new Date().toISOString() });
        this.background(`refund:${marketId}`, () => this.refundMarket(marketId));
      },
    },
  },

  methods: {
    hot(this: ChainThis) {
      return this.keys.wallet("hot");
    },

    /** Resolves once the sandbox chain's state is on disk (nothing to write on a real network). */
    async persistChain(this: ChainThis) {
      await this.sandbox?.persist();
    },

    /** Run a task on the actor once the chain is up (every chain operation goes through here). */
    onChain<T>(this: ChainThis, task: () => Promise<T>): Promise<T> {
      return this.queue.run(async () => {
        await this.ready;
        return task();
      });
    },

    /** Queue a task on the actor unless the same one is already waiting; failures are logged. */
    background(this: ChainThis, name: string, task: () => Promise<unknown>) {
      if (this.busy.has(name) || this.stopping) return;
      this.busy.add(name);
      this.onChain(task)
        .catch((err) => this.logger.warn(`chain ${name} failed:`, (err as Error)?.message ?? err))
        .finally(() => this.busy.delete(name));
    },

    async getMeta(this: ChainThis, id: string) {
      return (await this.stores.chainMeta.findOne({ _id: id }))?.value ?? 0;
    },

    async setMeta(this: ChainThis, id: string, value: number) {
      await this.stores.chainMeta.put({ _id: id, value });
    },

    /** One derivation index per user, allocated once; unique indexes keep two nodes from sharing one. */
    async allocate(this: ChainThis, userId: string): Promise<DepositAddressDoc> {
      const existing = await this.stores.depositAddresses.findOne({ _id: userId });
      if (existing) return existing;
      let index = await this.getMeta("nextIndex");
      for (let attempt = 0; attempt < 1000; attempt++, index++) {
        const w = await this.keys.deposit(index);
        const doc: DepositAddressDoc = { _id: userId, index, address: w.address.toRawString(), canonicalJettonWallet: null, firstDepositAt: null, lastLt: "0", needsSweep: false, createdAt: new Date().toISOString() };
        if (await this.stores.depositAddresses.insertOnce(doc)) {
          await this.setMeta("nextIndex", index + 1);
          return doc;
        }
        const raced = await this.stores.depositAddresses.findOne({ _id: userId });
        if (raced) return raced;
      }
      throw new Error("could not allocate a derivation index");
    },

    addressView(this: ChainThis, doc: DepositAddressDoc) {
      const testnet = this.port.testnet;
      return {
        address: friendlyWallet(Address.parseRaw(doc.address), testnet),
        jettonWalletAddress: doc.firstDepositAt && doc.canonicalJettonWallet ? friendlyContract(Address.parseRaw(doc.canonicalJettonWallet), testnet) : null,
        derivationIndex: doc.index,
      };
    },

    async scanAll(this: ChainThis) {
      const docs = await this.stores.depositAddresses.find({});
      for (const doc of docs) {
        try {
          await this.scanAddress(doc);
        } catch (err) {
          this.logger.warn(`deposit scan of ${doc.address} failed:`, (err as Error)?.message ?? err);
        }
      }
      await this.reconcileWithdrawals();
    },

    /**
     * The watcher for one deposit address: every transaction after the cursor is credited (once:
     * ledger key `deposit:<txHash>`) or recorded as an incident, then the cursor moves past it.
     */
    async scanAddress(this: ChainThis, doc: DepositAddressDoc) {
      const address = Address.parseRaw(doc.address);
      const txs = await this.port.transactions(address, BigInt(doc.lastLt));
      if (!txs.length && !doc.needsSweep) return;
      if (!doc.canonicalJettonWallet) {
        // What the canonical minter answers for this owner: the only sender a credit is taken from.
        doc.canonicalJettonWallet = (await this.port.jettonWalletAddress(address)).toRawString();
        await this.stores.depositAddresses.update({ _id: doc._id }, { $set: { canonicalJettonWallet: doc.canonicalJettonWallet } });
      }
      const canonicalJettonWallet = Address.parseRaw(doc.canonicalJettonWallet);
      const hot = await this.hot();
      for (const tx of txs) {
        let verdict = classifyDepositTx(tx, { depositAddress: address, canonicalJettonWallet, hotWallet: hot.address });
        if (verdict.kind === "suspect") verdict = refineNotification(verdict, await this.port.jettonWalletData(Address.parseRaw(verdict.src)), this.port.usdtMinter(), address);
        const at = new Date(tx.now * 1000).toISOString();
        if (verdict.kind === "credit") {
          const amount = Number(verdict.amount);
          const posted = (await this.broker.call("ledger.post", {
            key: `deposit:${tx.hash}`,
            postings: [
              { kind: "cash", account: doc._id, available: amount },
              { kind: "external", flow: "deposit", amount },
            ] satisfies Posting[],
          })) as { applied: boolean };
          await this.stores.deposits.insertOnce({ _id: tx.hash, userId: doc._id, amount, address: doc.address, jettonWallet: doc.canonicalJettonWallet, lt: tx.lt, at });
          const set: Partial<DepositAddressDoc> = { needsSweep: true };
          if (!doc.firstDepositAt) set.firstDepositAt = doc.firstDepositAt = at;
          doc.needsSweep = true;
          await this.stores.depositAddresses.update({ _id: doc._id }, { $set: set });
          if (posted.applied) this.broker.metrics.increment(METRIC.deposits);
          if (posted.applied) this.broker.emit("chain.depositCredited", { userId: doc._id, amount: String(amount), txHash: tx.hash });
        } else if (verdict.kind === "incident") {
          const incident: ChainIncidentDoc = { _id: tx.hash, userId: doc._id, address: doc.address, kind: verdict.incident, src: verdict.src, amount: verdict.amount === null ? null : verdict.amount.toString(), detail: verdict.detail, lt: tx.lt, at };
          if (await this.stores.chainIncidents.insertOnce(incident)) {
            this.logger.warn(`deposit incident ${incident.kind} at ${doc.address} (user ${doc._id}): ${incident.detail}`);
            this.broker.emit("chain.incident", { userId: doc._id, kind: incident.kind, txHash: tx.hash });
          }
        }
        doc.lastLt = tx.lt;
        await this.stores.depositAddresses.update({ _id: doc._id }, { $set: { lastLt: tx.lt } });
      }
      if (doc.needsSweep) {
        try {
          await this.sweep(doc);
        } catch (err) {
          this.logger.warn(`sweep of ${doc.address} failed (retried on the next scan):`, (err as Error)?.message ?? err);
        }
      }
    },

    /** Credited USDT goes on to the hot wallet; the hot wallet tops up the deposit wallet's gas first. */
    async sweep(this: ChainThis, doc: DepositAddressDoc) {
      const address = Address.parseRaw(doc.address);
      const balance = await jettonBalance(this.port, address);
      if (balance === 0n) {
        await this.stores.depositAddresses.update({ _id: doc._id }, { $set: { needsSweep: false } });
        doc.needsSweep = false;
        return;
      }
      if (doc.sweepAfter && Date.now() < doc.sweepAfter) return;
      const hot = await this.hot();
      await this.sandbox?.topUpHot();
      if ((await this.port.tonBalance(address)) < SWEEP_MIN_TON) {
        await this.port.submit(hot, [internal({ to: address, value: SWEEP_TOPUP_TON, bounce: false })]);
        await this.persistChain();
        // On a real network the top-up lands later: the sweep happens on a later scan.
        if ((await this.port.tonBalance(address)) < SWEEP_MIN_TON) return;
      }
      const wallet = await this.keys.deposit(doc.index);
      const from = Address.parseRaw(doc.canonicalJettonWallet as string);
      const hotJw = await this.port.jettonWalletAddress(hot.address);
      const sub = await this.port.submit(wallet, [jettonTransferMessage(from, { queryId: BigInt(Date.now()), amount: balance, destination: hot.address, responseTo: hot.address, notifyTon: 0n })]);
      await this.persistChain();
      const outcome = await transferOutcome(this.port, wallet.address, sub, from, hotJw);
      if (outcome.status === "failed") throw new Error(outcome.reason);
      if (outcome.status === "delivered") {
        await this.stores.depositAddresses.update({ _id: doc._id }, { $set: { needsSweep: false } });
        doc.needsSweep = false;
      } else {
        // Still landing: look again once the message can no longer be executed.
        doc.sweepAfter = (sub.validUntil + LANDING_GRACE_SEC) * 1000;
        await this.stores.depositAddresses.update({ _id: doc._id }, { $set: { sweepAfter: doc.sweepAfter } });
      }
    },

    /**
     * Debit first (journaled), then the hot wallet's jetton transfer to the session wallet; a
     * transfer that cannot be made reverses the debit. Identical requests (same user, same amount)
     * while one is in flight or within the dedup window are duplicates.
     */
    async doWithdraw(this: ChainThis, userId: string, wallet: string, amount: number): Promise<SubmissionResult> {
      const now = Date.now();
      const lockId = `${userId}:${amount}`;
      const lock = await this.stores.withdrawalLocks.findOne({ _id: lockId });
      if (lock) {
        const prior = await this.stores.withdrawals.findOne({ _id: lock.withdrawalId });
        const inFlight = prior && (prior.status === "debiting" || prior.status === "submitted");
        if (inFlight || (prior && prior.status !== "failed" && lock.until > now)) {
          return { status: "duplicate", ...(prior?.txHash ? { txHash: prior.txHash } : {}), message: `An identical withdrawal of ${usdtText(amount)} was ${inFlight ? "submitted moments ago and is in flight" : "accepted within the last " + Math.round(this.ccfg.withdrawDedupMs / 1000) + " s"}; nothing new was sent` };
        }
      }
      let destination: Address;
      try {
        destination = Address.parseRaw(wallet);
      } catch {
        throw badRequest("INVALID_WALLET", "The session's wallet address cannot receive jettons");
      }
      const id = newId("wd");
      const wd: WithdrawalDoc = { _id: id, userId, amount, destination: destination.toRawString(), status: "debiting", queryId: BigInt("0x" + randomBytes(8).toString("hex")).toString(), msgHash: null, txHash: null, message: null, validUntil: null, createdAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString() };
      await this.stores.withdrawals.insert(wd);
      try {
        await this.broker.call("ledger.post", {
          key: `withdraw:${id}`,
          postings: [
            { kind: "cash", account: userId, available: -amount },
            { kind: "external", flow: "withdrawal", amount },
          ] satisfies Posting[],
        });
      } catch (err) {
        // Refused (insufficient balance): nothing was debited. Any other failure leaves the record
        // `debiting` for reconciliation, which settles whether the debit happened.
        if (err instanceof DomainError && err.code === 400) await this.stores.withdrawals.remove({ _id: id });
        throw err;
      }
      await this.stores.withdrawalLocks.put({ _id: lockId, withdrawalId: id, until: now + this.ccfg.withdrawDedupMs });

      const hot = await this.hot();
      let sub: Submission;
      try {
        await this.sandbox?.topUpHot();
        const hotJw = await this.port.jettonWalletAddress(hot.address);
        const destJw = await this.port.jettonWalletAddress(destination);
        sub = await this.port.submit(hot, [jettonTransferMessage(hotJw, { queryId: BigInt(wd.queryId), amount: BigInt(amount), destination, responseTo: hot.address, comment: `withdrawal ${id}` })]);
        // Recorded before the chain's state is written: after a crash in between, reconciliation
        // looks the message up and, not finding it past its validity, reverses the debit.
        await this.stores.withdrawals.update({ _id: id }, { $set: { status: "submitted", msgHash: sub.msgHash, txHash: sub.txHash, validUntil: sub.validUntil, updatedAt: new Date().toISOString() } });
        await this.persistChain();
        const outcome = await transferOutcome(this.port, hot.address, sub, hotJw, destJw);
        if (outcome.status === "failed") {
          await this.failWithdrawal({ ...wd, txHash: outcome.txHash }, outcome.reason);
          return { status: "failed", ...(outcome.txHash ? { txHash: outcome.txHash } : {}), message: `Withdrawal failed on chain: ${outcome.reason}; ${usdtText(amount)} returned to your available balance` };
        }
        const txHash = outcome.txHash ?? sub.msgHash;
        if (outcome.status === "delivered") {
          await this.stores.withdrawals.update({ _id: id }, { $set: { status: "sent", txHash, updatedAt: new Date().toISOString() } });
          this.broker.emit("chain.withdrawalSent", { userId, withdrawalId: id, amount: String(amount), txHash });
        }
        return { status: "accepted", txHash, message: `Withdrawal of ${usdtText(amount)} to ${destination.toRawString()} ${outcome.status === "delivered" ? "sent" : "submitted"}` };
      } catch (err) {
        if (!(err instanceof ChainRejected)) {
          // Before submission (a get-method failed): certainly not sent. After it the outcome is
          // unknown and reconciliation decides, so only reverse what never left.
          const cur = await this.stores.withdrawals.findOne({ _id: id });
          if (cur?.status === "submitted") {
            this.logger.warn(`withdrawal ${id}: outcome unknown, left to reconciliation:`, (err as Error)?.message);
            return { status: "accepted", txHash: cur.txHash ?? cur.msgHash ?? undefined, message: `Withdrawal of ${usdtText(amount)} submitted` };
          }
        }
        const reason = err instanceof ChainRejected ? err.message : `the transfer could not be submitted (${(err as Error)?.message ?? err})`;
        await this.failWithdrawal(wd, reason);
        return { status: "failed", message: `Withdrawal could not be submitted: ${reason}; ${usdtText(amount)} returned to your available balance` };
      }
    },

    async failWithdrawal(this: ChainThis, wd: WithdrawalDoc, reason: string) {
      await this.broker.call("ledger.post", {
        key: `withdraw-reversal:${wd._id}`,
        postings: [
          { kind: "cash", account: wd.userId, available: wd.amount },
          { kind: "external", flow: "withdrawal", amount: -wd.amount },
        ] satisfies Posting[],
      });
      await this.stores.withdrawals.update({ _id: wd._id }, { $set: { status: "failed", message: reason, txHash: wd.txHash, updatedAt: new Date().toISOString() } });
      await this.stores.withdrawalLocks.remove({ _id: `${wd.userId}:${wd.amount}`, withdrawalId: wd._id });
      this.broker.emit("chain.withdrawalFailed", { userId: wd.userId, withdrawalId: wd._id, amount: String(wd.amount), reason });
    },

    /** Withdrawals whose outcome was not known at once (the `ton` adapter, or a crash mid-way). */
    async reconcileWithdrawals(this: ChainThis) {
      const open = await this.stores.withdrawals.find({ status: { $in: ["debiting", "submitted"] } });
      if (!open.length) return;
      const hot = await this.hot();
      const hotJw = await this.port.jettonWalletAddress(hot.address);
      const nowSec = Math.floor(Date.now() / 1000);
      for (const wd of open) {
        if (wd.status === "debiting") {
          // Interrupted between the debit and the submission (every request runs on this actor, so
          // none is in progress now): nothing was sent. Re-posting the debit under its key is a
          // no-op when it was applied and applies it when it was not; then the reversal undoes it.
          try {
            await this.broker.call("ledger.post", { key: `withdraw:${wd._id}`, postings: [{ kind: "cash", account: wd.userId, available: -wd.amount }, { kind: "external", flow: "withdrawal", amount: wd.amount }] satisfies Posting[] });
          } catch (err) {
            if (err instanceof DomainError && err.code === 400) {
              await this.stores.withdrawals.update({ _id: wd._id }, { $set: { status: "failed", message: "interrupted before the debit", updatedAt: new Date().toISOString() } });
              await this.stores.withdrawalLocks.remove({ _id: `${wd.userId}:${wd.amount}`, withdrawalId: wd._id });
              continue;
            }
            throw err;
          }
          await this.failWithdrawal(wd, "interrupted before submission");
          continue;
        }
        const destJw = await this.port.jettonWalletAddress(Address.parseRaw(wd.destination));
        const outcome = await transferOutcome(this.port, hot.address, { msgHash: wd.msgHash as string, txHash: wd.txHash, trace: null, validUntil: wd.validUntil ?? 0 }, hotJw, destJw);
        if (outcome.status === "delivered") {
          await this.stores.withdrawals.update({ _id: wd._id }, { $set: { status: "sent", txHash: outcome.txHash, updatedAt: new Date().toISOString() } });
          this.broker.emit("chain.withdrawalSent", { userId: wd.userId, withdrawalId: wd._id, amount: String(wd.amount), txHash: outcome.txHash });
        } else if (outcome.status === "failed") {
          await this.failWithdrawal({ ...wd, txHash: outcome.txHash }, outcome.reason);
        } else if (!outcome.txHash && wd.validUntil !== null && nowSec > wd.validUntil + LANDING_GRACE_SEC) {
          await this.failWithdrawal(wd, "the hot wallet's message expired without landing on chain");
        }
      }
    },

    /** New trades from the ledger journal into the settlement queue (durable cursor; insert-once by trade id). */
    async intakeTrades(this: ChainThis) {
      let cursor = await this.getMeta("ledgerCursor");
      for (;;) {
        const entries = (await this.broker.call("ledger.entriesAfter", { seq: cursor, limit: 500 })) as LedgerEntryDoc[];
        if (!entries.length) return;
        const items: SettlementItemDoc[] = entries.flatMap((e) => (e.trades ?? []).map((t) => ({ _id: t.tradeId, userId: t.userId, marketId: t.marketId, status: "pending" as const, attempts: 0, batchId: null, txHash: null, createdAt: e.at, queue: `${e.at}|${t.tradeId}` })));
        // One insert for the page; items already taken in (a replay after a crash) are left as they are.
        const known = new Set((await this.stores.settlementItems.find({ _id: { $in: items.map((i) => i._id) } })).map((i) => i._id));
        const fresh = items.filter((i) => !known.has(i._id) && (known.add(i._id), true));
        await this.stores.settlementItems.insertMany(fresh);
        for (const i of fresh) this.settleQueue?.push({ id: i._id, at: i.createdAt });
        cursor = entries[entries.length - 1].seq;
        await this.setMeta("ledgerCursor", cursor);
        if (entries.length < 500) return;
      }
    },

    /**
     * One settlement step: resolve the batch in flight, else commit the oldest pending trades in one
     * operator-wallet transaction whose body carries sha256 of their sorted ids.
     */
    async settleRound(this: ChainThis) {
      await this.intakeTrades();
      const operator = await this.keys.wallet("operator");
      const inFlight = await this.stores.settlementBatches.findOne({ status: "sending" });
      if (inFlight) {
        // Submitted earlier without a known outcome (the ton adapter, or a restart mid-way).
        const tx = inFlight.msgHash ? await this.port.findByExternal(operator.address, inFlight.msgHash) : null;
        if (tx) return this.finishBatch(inFlight, tx.success && tx.outs.length > 0 ? { ok: true, txHash: tx.hash } : { ok: false, error: `the commitment transaction failed (exit ${tx.exitCode}, action ${tx.actionResult})` });
        if (!inFlight.validUntil || Date.now() / 1000 > inFlight.validUntil + LANDING_GRACE_SEC) return this.finishBatch(inFlight, { ok: false, error: "the commitment message expired without landing" });
        return;
      }
      // Trades at least the minimum age: a burst of trades lands in one batch.
      const cutoff = new Date(Date.now() - this.ccfg.settlementMinAgeMs).toISOString();
      const queue = await this.pendingQueue();
      let n = 0;
      while (n < queue.length && n < this.ccfg.settlementBatchSize && queue[n].at <= cutoff) n++;
      if (!n) return;
      const c = commitmentOf(queue.splice(0, n).map((i) => i.id));
      const batch: SettlementBatchDoc = { _id: newId("stl"), tradeIds: c.tradeIds, count: c.count, root: c.root, status: "sending", msgHash: null, validUntil: null, txHash: null, error: null, at: new Date().toISOString() };
      await this.stores.settlementBatches.insert(batch);
      await this.stores.settlementItems.update({ _id: { $in: c.tradeIds } }, { $set: { batchId: batch._id } }, { multi: true });
      const registry = await this.keys.wallet("registry");
      let sub: Submission;
      try {
        await this.sandbox?.topUpOperator();
        sub = await this.port.submit(operator, [internal({ to: registry.address, value: COMMIT_TON, bounce: false, body: settlementBody(BigInt(Date.now()), batch._id, c) })]);
      } catch (err) {
        return this.finishBatch(batch, { ok: false, error: err instanceof ChainRejected ? err.message : `submission failed: ${(err as Error)?.message ?? err}` });
      }
      await this.stores.settlementBatches.update({ _id: batch._id }, { $set: { msgHash: sub.msgHash, validUntil: sub.validUntil } });
      await this.persistChain();
      const walletTx = sub.trace?.[0] ?? null;
      if (walletTx) return this.finishBatch(batch, walletTx.success && walletTx.outs.length > 0 ? { ok: true, txHash: walletTx.hash } : { ok: false, error: `the commitment transaction failed (exit ${walletTx.exitCode}, action ${walletTx.actionResult})` });
    },

    async pendingQueue(this: ChainThis) {
      if (!this.settleQueue) {
        const items = await this.stores.settlementItems.find({ queue: { $exists: true }, batchId: null }, { sort: { queue: 1 } });
        this.settleQueue = items.map((i) => ({ id: i._id, at: i.createdAt }));
      }
      return this.settleQueue;
    },

    async finishBatch(this: ChainThis, batch: SettlementBatchDoc, outcome: { ok: true; txHash: string } | { ok: false; error: string }) {
      if (outcome.ok) {
        await this.stores.settlementBatches.update({ _id: batch._id }, { $set: { status: "confirmed", txHash: outcome.txHash } });
        await this.stores.settlementItems.update({ _id: { $in: batch.tradeIds } }, { $set: { status: "confirmed", txHash: outcome.txHash }, $unset: { queue: true } }, { multi: true });
        await this.broker.call("ledger.markSettlement", { tradeIds: batch.tradeIds, status: "confirmed", txHash: outcome.txHash });
        const settledItems = this.broker.metrics.isEnabled() ? await this.stores.settlementItems.find({ _id: { $in: batch.tradeIds } }) : [];
        for (const it of settledItems) this.broker.metrics.observe(METRIC.settlementLag, (Date.now() - Date.parse(it.createdAt)) / 1000);
        this.broker.emit("trade.settled", { tradeIds: batch.tradeIds, status: "confirmed", txHash: outcome.txHash, batchId: batch._id });
        return;
      }
      this.logger.warn(`settlement batch ${batch._id} failed: ${outcome.error}`);
      await this.stores.settlementBatches.update({ _id: batch._id }, { $set: { status: "failed", error: outcome.error } });
      await this.stores.settlementItems.update({ _id: { $in: batch.tradeIds } }, { $inc: { attempts: 1 }, $set: { batchId: null } }, { multi: true });
      const exhausted = await this.stores.settlementItems.find({ _id: { $in: batch.tradeIds }, attempts: { $gte: this.ccfg.settlementMaxAttempts } });
      // The others go back to the head of the queue, oldest first, for the next batch.
      const retry = await this.stores.settlementItems.find({ _id: { $in: batch.tradeIds }, attempts: { $lt: this.ccfg.settlementMaxAttempts } }, { sort: { queue: 1 } });
      this.settleQueue?.unshift(...retry.map((i) => ({ id: i._id, at: i.createdAt })));
      if (!exhausted.length) return;
      const ids = exhausted.map((i) => i._id);
      await this.stores.settlementItems.update({ _id: { $in: ids } }, { $set: { status: "failed" }, $unset: { queue: true } }, { multi: true });
      await this.broker.call("ledger.markSettlement", { tradeIds: ids, status: "failed" });
      this.broker.emit("trade.settled", { tradeIds: ids, status: "failed", txHash: null, batchId: batch._id, error: outcome.error });
    },

    async doRedeem(this: ChainThis, ctx: AppContext<RedeemParams>) {
      const userId = currentUser(ctx).id;
      const { marketId, conditionId, indexSets } = ctx.params;
      const selected = new Set<Outcome>();
      indexSets.forEach((s, i) => {
        const o = outcomeOfIndexSet(s);
        if (!o) throw validationError(`indexSets[${i}] must be "0x1" (YES) or "0x2" (NO)`, [{ field: `indexSets[${i}]`, rule: "indexSet" }]);
        if (selected.has(o)) throw validationError("indexSets must not repeat an outcome", [{ field: "indexSets", rule: "unique" }]);
        selected.add(o);
      });
      const market = (await ctx.call("catalog.getMarketInternal", { marketId })) as MarketInternal;
      if (market.conditionId.toLowerCase() !== conditionId.toLowerCase()) throw badRequest("CONDITION_MISMATCH", "conditionId does not match this market's condition");
      const redemptionId = `${userId}:${marketId}`;
      const mine = ((await this.broker.call("ledger.account", { account: userId })) as { positions: PositionState[] }).positions.filter((p) => p.marketId === marketId);

      if (market.status === "cancelled") {
        await this.stores.marketSettlements.insertOnce({ _id: marketId, kind: "refund", status: "pending", refunds: [], at: new Date().toISOString() });
        const done = await this.refundMarket(marketId);
        if (!done || done.status !== "done") throw conflict("REFUND_PENDING", "The market's refund is not done yet (orders still hold shares); try again shortly");
        const mineRefund = done.refunds.find((r) => r.account === userId);
        if (!mineRefund && !mine.length) throw badRequest("NO_POSITION", "You hold no position in this market");
        if (!(await this.stores.redemptions.insertOnce({ _id: redemptionId, userId, marketId, kind: "refund", payout: mineRefund?.amount ?? 0, ledgerKey: `refund:${marketId}`, at: new Date().toISOString() }))) {
          return { status: "duplicate", message: "This market's refund was already acknowledged; nothing new was paid" };
        }
        return { status: "accepted", payout: String(mineRefund?.amount ?? 0), message: `Market cancelled: your positions were refunded at cost, ${usdtText(mineRefund?.amount ?? 0)} credited to your available balance` };
      }
      if (market.status !== "resolved" || (market.result !== "YES" && market.result !== "NO")) throw badRequest("MARKET_NOT_RESOLVED", `Only resolved markets can be redeemed; this market is ${market.status}`);

      const winner = market.result;
      const loser = other(winner);
      const win = mine.find((p) => p.outcome === winner);
      const q = win ? win.quantity : 0;
      if (selected.has(winner) && q > 0) {
        if (win && win.locked > 0) throw conflict("SHARES_LOCKED", "Some of your winning shares are held by open orders; cancel them first");
        const holders = (await this.broker.call("ledger.holders", { marketId })) as PositionState[];
        const postings: Posting[] = [...resolutionPostings(marketId, winner, holders), ...redeemWinner(marketId, userId, winner, q)];
        const key = `redeem:${userId}:${marketId}`;
        let res: { applied: boolean };
        try {
          res = (await this.broker.call("ledger.post", { key, postings })) as { applied: boolean };
        } catch (err) {
          if ((err as { type?: string }).type === "INSUFFICIENT_SHARES") throw conflict("RESOLUTION_PENDING", "Losing shares of this market are still held by open orders; try again shortly");
          throw err;
        }
        await this.stores.redemptions.insertOnce({ _id: redemptionId, userId, marketId, kind: "redeem", payout: q, ledgerKey: key, at: new Date().toISOString() });
        if (!res.applied) return { status: "duplicate", message: "These positions were already redeemed; nothing new was paid" };
        this.broker.emit("chain.redeemed", { userId, marketId, payout: String(q) });
        return { status: "accepted", payout: String(q), message: `Redeemed ${sharesText(q)} ${winner} shares for ${usdtText(q)}` };
      }
      if (await this.stores.redemptions.findOne({ _id: redemptionId })) return { status: "duplicate", message: "These positions were already redeemed; nothing new was paid" };
      const lost = mine.find((p) => p.outcome === loser);
      if (selected.has(loser) && lost) throw badRequest("LOSING_POSITION", `The market resolved ${winner}: ${loser} shares pay nothing${lost.quantity > 0 ? "" : " (your position was settled at 0)"}`);
      if (!mine.length) throw badRequest("NO_POSITION", "You hold no position in this market");
      throw badRequest("NO_POSITION", `You hold no ${[...selected].join(" or ")} shares of this market to redeem`);
    },

    /**
     * At resolution: losing positions settle at 0 (into the market's escrow), so GET /positions
     * drops them, and the AMM pool's winning inventory is redeemed into its cash. Whatever orders
     * still held is carried by the next redemption's entry instead.
     */
    async sweepResolved(this: ChainThis, marketId: string, result: Outcome) {
      const holders = (await this.broker.call("ledger.holders", { marketId })) as PositionState[];
      const postings = resolutionPostings(marketId, result, holders);
      if (!postings.length) return;
      await this.broker.call("ledger.post", { key: `resolve:${marketId}`, postings }).catch((err: { type?: string }) => {
        if (err?.type !== "INSUFFICIENT_SHARES") throw err;
        this.logger.info(`resolution of ${marketId}: shares still locked by orders; the first redemption settles the rest`);
      });
    },

    /** Refund a cancelled market's positions at cost, once (`refund:<marketId>`). Null while orders still hold shares. */
    async refundMarket(this: ChainThis, marketId: string) {
      const cur = await this.stores.marketSettlements.findOne({ _id: marketId });
      if (cur?.status === "done") return cur;
      const holders = ((await this.broker.call("ledger.holders", { marketId })) as PositionState[]).filter((h) => h.account !== escrowAccount(marketId));
      const report = (await this.broker.call("ledger.conservation")) as ConservationReport;
      let plan;
      try {
        plan = refundCancelled(marketId, holders, report.fees);
      } catch (err) {
        this.logger.info(`refund of ${marketId} postponed: ${(err as Error).message}`);
        return null;
      }
      if (plan.postings.length) await this.broker.call("ledger.post", { key: `refund:${marketId}`, postings: plan.postings });
      const doc: MarketSettlementDoc = { _id: marketId, kind: "refund", status: "done", refunds: plan.refunds, at: new Date().toISOString() };
      await this.stores.marketSettlements.put(doc);
      this.broker.emit("chain.refunded", { marketId, refunds: plan.refunds.map((r) => ({ account: r.account, amount: String(r.amount) })), difference: String(plan.difference) });
      return doc;
    },

    async reconcile(this: ChainThis): Promise<ChainReconciliation> {
      const report = (await this.broker.call("ledger.conservation")) as ConservationReport;
      let deposits = 0n;
      for (const d of await this.stores.depositAddresses.find({})) deposits += await jettonBalance(this.port, Address.parseRaw(d.address));
      const hot = await jettonBalance(this.port, (await this.hot()).address);
      let pending = 0n;
      for (const w of await this.stores.withdrawals.find({ status: { $in: ["debiting", "submitted"] } })) pending += BigInt(w.amount);
      const net = BigInt(report.deposits) - BigInt(report.withdrawals);
      return {
        ok: net === deposits + hot - pending,
        ledgerDeposits: String(report.deposits),
        ledgerWithdrawals: String(report.withdrawals),
        ledgerNet: net.toString(),
        depositWallets: deposits.toString(),
        hotWallet: hot.toString(),
        pendingWithdrawals: pending.toString(),
        ledgerConservation: report.ok,
      };
    },
  },

  created(this: ChainThis) {
    this.cfg = configOf(this.broker);
    this.ccfg = this.cfg.ton;
    this.queue = new SerialQueue();
    this.timers = [];
    this.busy = new Set();
    this.stopping = false;
    this.settleQueue = null;
  },

  /**
   * The chain comes up in the background (the sandbox's genesis takes about a second) so the node
   * starts at once; every action and timer waits for it.
   */
  started(this: ChainThis) {
    const { dataDir } = this.cfg;
    const secret = this.ccfg.masterSecret ?? (dataDir === ":memory:" ? randomBytes(32).toString("hex") : persistentSecret(dataDir, "chainMasterSecret"));
    this.keys = new KeyRing(secret);
    const log = (msg: string) => this.logger.info(msg);
    if (this.cfg.chain === "sandbox") {
      this.sandbox = new SandboxChain({ keys: this.keys, testnet: this.ccfg.testnet, dir: dataDir === ":memory:" ? null : join(dataDir, "chain"), operatorNano: this.ccfg.sandboxOperatorNano, log });
      this.port = this.sandbox;
    } else {
      if (!this.ccfg.usdtMinter) throw new Error("USDT_MINTER is required with CHAIN=ton");
      this.sandbox = null;
      this.port = new TonChain({ keys: this.keys, testnet: this.ccfg.testnet, endpoint: this.ccfg.endpoint, apiKey: this.ccfg.apiKey, usdtMinter: Address.parse(this.ccfg.usdtMinter), confirmTimeoutMs: this.ccfg.confirmTimeoutMs, log });
    }
    const port = this.port;
    // The actor's first task: nothing else runs on the chain before it is up and caught up.
    this.ready = this.queue.run(async () => {
      await port.start();
      await this.scanAll().catch((err) => this.logger.warn("initial deposit scan failed:", (err as Error)?.message));
    });
    this.ready.catch((err) => this.logger.error("the chain could not start:", err));
    this.ready
      .then(async () => {
        for (const m of await this.stores.marketSettlements.find({ status: "pending" })) this.background(`refund:${m._id}`, () => this.refundMarket(m._id));
      })
      .catch(() => undefined);
    const every = (ms: number, name: string, task: () => Promise<unknown>) => {
      if (ms > 0) this.timers.push(setInterval(() => this.background(name, task), ms));
    };
    every(this.ccfg.depositPollMs, "scan", () => this.scanAll());
    every(this.ccfg.settlementIntervalMs, "settle", () => this.settleRound());
    every(Math.max(this.ccfg.settlementIntervalMs, 10_000), "refunds", async () => {
      for (const m of await this.stores.marketSettlements.find({ status: "pending" })) await this.refundMarket(m._id);
    });
  },

  async stopped(this: ChainThis) {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    await this.ready?.catch(() => undefined);
    await this.queue.drain();
    await this.port?.stop();
  },
});

export default ChainService;
