/**
 * Deposit crediting: one derivation index (and address) per user, a watcher per address that
 * reads every transaction after its cursor, credits what the deposit rule (./deposits) accepts
 * exactly once (ledger key `deposit:<txHash>`), records everything else as an incident for
 * support, and sweeps credited USDT on to the hot wallet.
 */
import { Address, internal, toNano } from "@ton/core";
import type { ChainIncidentDoc, DepositAddressDoc, DepositDoc } from "../models/chain";
import { classifyDepositTx, refineNotification } from "./deposits";
import { friendlyContract, friendlyWallet } from "./keys";
import { jettonBalance, jettonTransferMessage, transferOutcome } from "./operations";
import {
  errorText,
  LANDING_GRACE_SEC,
  type ChainLedger,
  type ChainSide,
  type Clock,
  type EmitChainEvent,
  type LedgerEntry,
  type Log,
  type MetaStore,
} from "./ports";

/** TON a deposit wallet needs to pay a sweep (external fee + the jetton transfer's attached TON). */
export const SWEEP_MIN_TON = toNano("0.07");
export const SWEEP_TOPUP_TON = toNano("0.1");

export interface DepositStore {
  address(userId: string): Promise<DepositAddressDoc | null>;
  addresses(): Promise<DepositAddressDoc[]>;
  /** Inserts unless the user, the index or the address is taken; false then. */
  insertAddress(doc: DepositAddressDoc): Promise<boolean>;
  updateAddress(userId: string, set: Partial<DepositAddressDoc>): Promise<void>;
  /** Once per transaction hash; false when recorded before. */
  insertDeposit(doc: DepositDoc): Promise<boolean>;
  insertIncident(doc: ChainIncidentDoc): Promise<boolean>;
  meta: MetaStore;
}

export interface DepositPorts {
  ledger: Pick<ChainLedger, "post">;
  store: DepositStore;
  chain: ChainSide;
  clock: Clock;
  emit: EmitChainEvent;
  log: Log;
  /** Counts a deposit credited (metrics). */
  counted(): void;
}

/** The one place a deposit's ledger entry is built: once per on-chain transaction. */
export function depositEntry(userId: string, txHash: string, amount: number): LedgerEntry {
  return {
    key: `deposit:${txHash}`,
    postings: [
      { kind: "cash", account: userId, available: amount },
      { kind: "external", flow: "deposit", amount },
    ],
  };
}

/** GET /deposit-address: friendly forms; the jetton wallet only once something was credited. */
export function addressView(doc: DepositAddressDoc, testnet: boolean) {
  return {
    address: friendlyWallet(Address.parseRaw(doc.address), testnet),
    jettonWalletAddress:
      doc.firstDepositAt && doc.canonicalJettonWallet ? friendlyContract(Address.parseRaw(doc.canonicalJettonWallet), testnet) : null,
    derivationIndex: doc.index,
  };
}

export class DepositWatcher {
  constructor(private readonly p: DepositPorts) {}

  /** One derivation index per user, allocated once; unique indexes keep two nodes from sharing one. */
  async allocate(userId: string): Promise<DepositAddressDoc> {
    const { store } = this.p;
    const existing = await store.address(userId);
    if (existing) return existing;
    let index = await store.meta.get("nextIndex");
    for (let attempt = 0; attempt < 1000; attempt++, index++) {
      const w = await this.p.chain.keys.deposit(index);
      const doc: DepositAddressDoc = {
        _id: userId,
        index,
        address: w.address.toRawString(),
        canonicalJettonWallet: null,
        firstDepositAt: null,
        lastLt: "0",
        needsSweep: false,
        createdAt: new Date(this.p.clock.now()).toISOString(),
      };
      if (await store.insertAddress(doc)) {
        await store.meta.set("nextIndex", index + 1);
        return doc;
      }
      const raced = await store.address(userId);
      if (raced) return raced;
    }
    throw new Error("could not allocate a derivation index");
  }

  /** Every deposit address once; one address failing does not hold up the others. */
  async scanAll(): Promise<void> {
    for (const doc of await this.p.store.addresses()) {
      try {
        await this.scan(doc);
      } catch (err) {
        this.p.log.warn(`deposit scan of ${doc.address} failed:`, errorText(err));
      }
    }
  }

  /** The user's address read now (after the faucet or an injected message). */
  async scanUser(userId: string): Promise<void> {
    await this.scan((await this.p.store.address(userId)) as DepositAddressDoc);
  }

  /**
   * The watcher for one deposit address: every transaction after the cursor is credited (once:
   * ledger key `deposit:<txHash>`) or recorded as an incident, then the cursor moves past it.
   */
  async scan(doc: DepositAddressDoc): Promise<void> {
    const { store, chain } = this.p;
    const { port } = chain;
    const address = Address.parseRaw(doc.address);
    const txs = await port.transactions(address, BigInt(doc.lastLt));
    if (!txs.length && !doc.needsSweep) return;
    if (!doc.canonicalJettonWallet) {
      // What the canonical minter answers for this owner: the only sender a credit is taken from.
      doc.canonicalJettonWallet = (await port.jettonWalletAddress(address)).toRawString();
      await store.updateAddress(doc._id, { canonicalJettonWallet: doc.canonicalJettonWallet });
    }
    const canonicalJettonWallet = Address.parseRaw(doc.canonicalJettonWallet);
    const hot = await chain.keys.wallet("hot");
    for (const tx of txs) {
      let verdict = classifyDepositTx(tx, { depositAddress: address, canonicalJettonWallet, hotWallet: hot.address });
      if (verdict.kind === "suspect")
        verdict = refineNotification(verdict, await port.jettonWalletData(Address.parseRaw(verdict.src)), port.usdtMinter(), address);
      const at = new Date(tx.now * 1000).toISOString();
      if (verdict.kind === "credit") {
        const amount = Number(verdict.amount);
        const posted = await this.p.ledger.post(depositEntry(doc._id, tx.hash, amount));
        await store.insertDeposit({
          _id: tx.hash,
          userId: doc._id,
          amount,
          address: doc.address,
          jettonWallet: doc.canonicalJettonWallet,
          lt: tx.lt,
          at,
        });
        const set: Partial<DepositAddressDoc> = { needsSweep: true };
        if (!doc.firstDepositAt) set.firstDepositAt = doc.firstDepositAt = at;
        doc.needsSweep = true;
        await store.updateAddress(doc._id, set);
        if (posted.applied) {
          this.p.counted();
          this.p.emit("chain.depositCredited", { userId: doc._id, amount: String(amount), txHash: tx.hash });
        }
      } else if (verdict.kind === "incident") {
        const incident: ChainIncidentDoc = {
          _id: tx.hash,
          userId: doc._id,
          address: doc.address,
          kind: verdict.incident,
          src: verdict.src,
          amount: verdict.amount === null ? null : verdict.amount.toString(),
          detail: verdict.detail,
          lt: tx.lt,
          at,
        };
        if (await store.insertIncident(incident)) {
          this.p.log.warn(`deposit incident ${incident.kind} at ${doc.address} (user ${doc._id}): ${incident.detail}`);
          this.p.emit("chain.incident", { userId: doc._id, kind: incident.kind, txHash: tx.hash });
        }
      }
      doc.lastLt = tx.lt;
      await store.updateAddress(doc._id, { lastLt: tx.lt });
    }
    if (doc.needsSweep) {
      try {
        await this.sweep(doc);
      } catch (err) {
        this.p.log.warn(`sweep of ${doc.address} failed (retried on the next scan):`, errorText(err));
      }
    }
  }

  /** Credited USDT goes on to the hot wallet; the hot wallet tops up the deposit wallet's gas first. */
  async sweep(doc: DepositAddressDoc): Promise<void> {
    const { store, chain, clock } = this.p;
    const { port } = chain;
    const address = Address.parseRaw(doc.address);
    const balance = await jettonBalance(port, address);
    if (balance === 0n) {
      await store.updateAddress(doc._id, { needsSweep: false });
      doc.needsSweep = false;
      return;
    }
    if (doc.sweepAfter && clock.now() < doc.sweepAfter) return;
    const hot = await chain.keys.wallet("hot");
    await chain.topUp("hot");
    if ((await port.tonBalance(address)) < SWEEP_MIN_TON) {
      await port.submit(hot, [internal({ to: address, value: SWEEP_TOPUP_TON, bounce: false })]);
      await chain.persist();
      // On a real network the top-up lands later: the sweep happens on a later scan.
      if ((await port.tonBalance(address)) < SWEEP_MIN_TON) return;
    }
    const wallet = await chain.keys.deposit(doc.index);
    const from = Address.parseRaw(doc.canonicalJettonWallet as string);
    const hotJw = await port.jettonWalletAddress(hot.address);
    const sub = await port.submit(wallet, [
      jettonTransferMessage(from, {
        queryId: BigInt(clock.now()),
        amount: balance,
        destination: hot.address,
        responseTo: hot.address,
        notifyTon: 0n,
      }),
    ]);
    await chain.persist();
    const outcome = await transferOutcome(port, wallet.address, sub, from, hotJw);
    if (outcome.status === "failed") throw new Error(outcome.reason);
    if (outcome.status === "delivered") {
      await store.updateAddress(doc._id, { needsSweep: false });
      doc.needsSweep = false;
    } else {
      // Still landing: look again once the message can no longer be executed.
      doc.sweepAfter = (sub.validUntil + LANDING_GRACE_SEC) * 1000;
      await store.updateAddress(doc._id, { sweepAfter: doc.sweepAfter });
    }
  }
}
