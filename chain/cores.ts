/**
 * The chain's cores wired to one set of ports over the chain service's collections: what the
 * service builds once the chain adapter is open. Each core is unit-tested on its own ports.
 */
import { randomBytes } from "node:crypto";
import { Address } from "@ton/core";
import type { ChainConfig } from "../lib/config";
import { newId } from "../lib/ids";
import type { Stores } from "../lib/store";
import type { ChainIncidentDoc, ChainReconciliation, SettlementBatchDoc, ChainInfo, ChainTxView } from "../models/chain";
import { jettonBalance } from "./operations";
import { txView } from "./tx";
import { addressView, DepositWatcher } from "./deposit-watcher";
import { faucetAmount } from "./faucet";
import type { FaucetAsset } from "./sandbox";
import type { ChainLedger, ChainSide, Clock, EmitChainEvent, Log } from "./ports";
import { reconcileChain } from "./reconciliation";
import { Redemptions } from "./redemptions";
import { SettlementBatcher, type SettlementPorts } from "./settlement-batcher";
import { depositStore, redemptionStore, settlementStore, transferSource, withdrawalStore, type ChainCollections } from "./stores";
import { transfersOf, type TransferView } from "./transfers";
import { Withdrawals } from "./withdrawals";

export interface ChainCorePorts {
  chain: ChainSide;
  stores: Stores<ChainCollections>;
  ledger: ChainLedger;
  emit: EmitChainEvent;
  log: Log;
  config: ChainConfig;
  notifier: SettlementPorts["notifier"];
  metrics: { depositCredited(): void; settlementLag: SettlementPorts["lag"] };
}

const clock: Clock = { now: () => Date.now() };

/** The sandbox's faucet transfer (SandboxChain.faucetSend). */
export type FaucetSend = (asset: FaucetAsset, to: Address, amount: bigint) => Promise<{ txHash: string }>;

export class ChainCores {
  readonly deposits: DepositWatcher;
  readonly withdrawals: Withdrawals;
  readonly redemptions: Redemptions;
  readonly settlement: SettlementBatcher;

  constructor(private readonly p: ChainCorePorts) {
    const { chain, stores, ledger, emit, log, config: c } = p;
    const common = { chain, ledger, emit, log, clock };
    this.deposits = new DepositWatcher({ ...common, store: depositStore(stores), counted: p.metrics.depositCredited });
    this.withdrawals = new Withdrawals({
      ...common,
      store: withdrawalStore(stores),
      newId,
      queryId: () => BigInt("0x" + randomBytes(8).toString("hex")),
      limits: { min: c.withdrawMin, max: c.withdrawMax, dedupMs: c.withdrawDedupMs },
    });
    this.redemptions = new Redemptions({ ...common, store: redemptionStore(stores) });
    this.settlement = new SettlementBatcher({
      ...common,
      store: settlementStore(stores),
      newId,
      notifier: p.notifier,
      lag: p.metrics.settlementLag,
      config: { batchSize: c.settlementBatchSize, minAgeMs: c.settlementMinAgeMs, maxAttempts: c.settlementMaxAttempts },
    });
  }

  /** The deposit watcher over every address, then the withdrawals whose outcome is still open. */
  async watch(): Promise<void> {
    await this.deposits.scanAll();
    await this.withdrawals.reconcile();
  }

  reconcile(): Promise<ChainReconciliation> {
    return reconcileChain({
      ledger: this.p.ledger,
      chain: this.p.chain,
      depositAddresses: async () => (await this.p.stores.depositAddresses.find({})).map((d) => d.address),
      pendingWithdrawals: () => this.withdrawals.pending(),
    });
  }

  transfers(userId: string, type?: TransferView["type"]): Promise<TransferView[]> {
    return transfersOf(
      transferSource(this.p.stores, (u) => this.p.ledger.rewardPayouts(u)),
      userId,
      type,
    );
  }

  /** GET /deposit-address's view of the user's address (allocated before). */
  async addressOf(userId: string): Promise<ReturnType<typeof addressView>> {
    return addressView((await this.p.stores.depositAddresses.findOne({ _id: userId }))!, this.p.chain.port.testnet);
  }

  /** A deposit made on the sandbox (`send` to the user's address), read at once. */
  async sandboxDeposit<T>(userId: string, send: (address: Address) => Promise<T>): Promise<T> {
    const doc = await this.deposits.allocate(userId);
    const out = await send(Address.parseRaw(doc.address));
    await this.p.chain.persist();
    await this.deposits.scanUser(userId);
    return out;
  }

  /**
   * POST /sandbox/faucet: `amount` of `asset` sent by the sandbox (`send`) to the user's deposit
   * address and credited at once like any deposit.
   */
  async faucet(userId: string, asset: FaucetAsset, amount: string, send: FaucetSend) {
    const n = faucetAmount(asset, amount, { maxNano: this.p.config.faucetMaxNano, maxUsdt: BigInt(this.p.config.faucetMaxUsdt) });
    const out = await this.sandboxDeposit(userId, (to) => send(asset, to, n));
    return {
      status: "accepted" as const,
      txHash: out.txHash,
      asset,
      amount: n.toString(),
      address: (await this.addressOf(userId)).address,
    };
  }

  /**
   * The chain's recurring work and its period (ms; 0: off): on the chain's actor, or beside it
   * (`onActor` false: the settlement notices, so a slow or absent notifier never holds the chain up).
   */
  recurring(): Array<{ name: string; ms: number; onActor: boolean; task: () => Promise<unknown> }> {
    const c = this.p.config;
    return [
      { name: "scan", ms: c.depositPollMs, onActor: true, task: () => this.watch() },
      { name: "settle", ms: c.settlementIntervalMs, onActor: true, task: () => this.settlement.round() },
      { name: "notices", ms: c.settlementIntervalMs, onActor: false, task: () => this.settlement.deliverNotices() },
      {
        name: "refunds",
        ms: Math.max(c.settlementIntervalMs, 10_000), // also with settlement off: a cancelled market's refunds
        onActor: true,
        task: () => this.eachPendingRefund((m) => this.redemptions.refundMarket(m)),
      },
    ];
  }

  /** One transaction as the chain has it (hash hex), or null. */
  async transaction(hash: string): Promise<ChainTxView | null> {
    const tx = await this.p.chain.port.findTransaction(hash);
    return tx ? txView(tx) : null;
  }

  /** Canonical USDT (or `minter`'s jetton) held on chain by an owner address (raw or friendly), base units. */
  async jettonBalance(owner: string, minter?: string): Promise<string> {
    return (await jettonBalance(this.p.chain.port, Address.parse(owner), minter ? Address.parse(minter) : undefined)).toString();
  }

  /** Incidents recorded for support: everything that reached a deposit address and was not credited. */
  incidents(userId?: string): Promise<ChainIncidentDoc[]> {
    return this.p.stores.chainIncidents.find(userId ? { userId } : {}, { sort: { at: 1, _id: 1 } });
  }

  /** Settlement batches, oldest first (all, or the one of a transaction). */
  batches(txHash?: string): Promise<SettlementBatchDoc[]> {
    return this.p.stores.settlementBatches.find(txHash ? { txHash } : {}, { sort: { at: 1 } });
  }

  /** The chain's fixed addresses (`foreignMinter`: the sandbox's other jetton). */
  async info(foreignMinter: Address | null): Promise<ChainInfo> {
    const { port, keys } = this.p.chain;
    const [hot, operator, registry] = await Promise.all([keys.wallet("hot"), keys.wallet("operator"), keys.wallet("registry")]);
    return {
      kind: port.kind,
      testnet: port.testnet,
      usdtMinter: port.usdtMinter().toRawString(),
      foreignMinter: foreignMinter ? foreignMinter.toRawString() : null,
      hotWallet: hot.address.toRawString(),
      hotJettonWallet: (await port.jettonWalletAddress(hot.address)).toRawString(),
      operatorWallet: operator.address.toRawString(),
      registry: registry.address.toRawString(),
    };
  }

  /** Every pending refund of a cancelled market, one after the other. */
  async eachPendingRefund(each: (marketId: string) => unknown): Promise<void> {
    for (const m of await this.redemptions.pendingRefunds()) await each(m);
  }
}
