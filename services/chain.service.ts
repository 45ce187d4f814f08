/**
 * The chain service: a Moleculer shell over the chain's cores (chain/): deposits
 * (DepositWatcher), withdrawals (Withdrawals), redemption and refunds (Redemptions) and
 * settlement (SettlementBatcher), all run on one actor (ChainActor) once the chain adapter is up.
 */
import { Cell } from "@ton/core";
import type { Service, ServiceBroker } from "moleculer";
import { METRIC } from "../lib/metrics";
import { defineService } from "../mixins/service";
import { type ActionResult, type HandlerParams, emit, internalAction, routeAction } from "../contract";
import { configOf, type AppConfig, type ChainConfig } from "../lib/config";
import { notFound } from "../lib/errors";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import type { ChainReconciliation, SubmissionResult } from "../models/chain";
import { page } from "../lib/paging";
import { throwWire, wireError } from "../lib/errors";
import { Refusal } from "../engine/refusal";
import { portCall } from "../mixins/port-call";
import { KeyRing } from "../chain/keys";
import type { ChainPort } from "../chain/port";
import type { SandboxChain } from "../chain/sandbox";
import { openChain } from "../chain/adapter";
import { ChainActor } from "../chain/actor";
import { ChainCores } from "../chain/cores";
import type { ChainLedger, Log } from "../chain/ports";
import { CHAIN_INDEXES, type ChainCollections } from "../chain/stores";
import { addressView } from "../chain/deposit-watcher";
import { journalSource, type JournalSource } from "../mixins/journal";

type ChainThis = Service &
  DbState<ChainCollections> & {
    cfg: AppConfig;
    ccfg: ChainConfig;
    port: ChainPort;
    sandbox: SandboxChain | null;
    actor: ChainActor;
    timers: NodeJS.Timeout[];
    /** Set once started (the chain adapter open). */
    cores: ChainCores;
    journal?: JournalSource;
  };

/** The ledger's actions as the cores' port (the journal from `journal`). */
function ledgerOf(broker: ServiceBroker, journal: JournalSource): ChainLedger {
  return {
    post: (entry) => portCall(broker, "ledger.post", entry),
    positions: async (account) => (await portCall(broker, "ledger.account", { account })).positions,
    holders: (marketId) => portCall(broker, "ledger.holders", { marketId }),
    conservation: () => portCall(broker, "ledger.conservation"),
    markSettlement: async (tradeIds, status, txHash) =>
      void (await portCall(broker, "ledger.markSettlement", txHash ? { tradeIds, status, txHash } : { tradeIds, status })),
    entriesAfter: (seq, limit) => journal.entriesAfter(seq, limit),
    rewardPayouts: (userId) => portCall(broker, "ledger.rewardPayouts", { userId }),
  };
}

const ChainService = defineService<ChainThis>({
  name: "chain",

  // Every action's refusal (the cores' and their ports') leaves as the broker's error.
  hooks: { error: { "*": (_ctx: AppContext, err: unknown) => throwWire(err) } },
  mixins: [createDbMixin<ChainCollections>(CHAIN_INDEXES)],

  actions: {
    /** GET /transfers: the caller's deposits (credited or not, with the reason) and withdrawals, newest first. */
    transfers: {
      ...routeAction("chain.transfers"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.transfers">>): Promise<ActionResult<"chain.transfers">> {
        const { type, page: pageNo, pageSize } = ctx.params;
        const all = await this.cores.transfers(currentUser(ctx).id, type);
        return page(all.slice((pageNo - 1) * pageSize, pageNo * pageSize), all.length, pageNo, pageSize);
      },
    },

    /** GET /deposit-address: allocated on first call, the same ever after. */
    depositAddress: {
      ...routeAction("chain.depositAddress"),
      async handler(
        this: ChainThis,
        ctx: AppContext<HandlerParams<"chain.depositAddress">>,
      ): Promise<ActionResult<"chain.depositAddress">> {
        const doc = await this.actor.run(() => this.cores.deposits.allocate(currentUser(ctx).id));
        return addressView(doc, this.port.testnet);
      },
    },

    /** POST /withdraw: to the session's wallet only; any other body field is ignored. */
    withdraw: {
      ...routeAction("chain.withdraw"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.withdraw">>): Promise<ActionResult<"chain.withdraw">> {
        const user = currentUser(ctx);
        const amount = Number(ctx.params.amount);
        const { withdrawals } = this.cores;
        // 202 Accepted, also for a replay of the key after the first answer was lost.
        const key = ctx.meta.idem ? { ...ctx.meta.idem, status: 202 } : undefined;
        const res = await Promise.resolve()
          .then(() => withdrawals.checkAmount(amount))
          .then(() => this.actor.run(() => withdrawals.withdraw(user.id, user.wallet, amount, key)))
          .catch(throwWire);
        ctx.meta.$statusCode = 202;
        return res;
      },
    },

    /** Internal: a withdrawal's answer from its record (the Idempotency-Key replay of POST /withdraw). */
    withdrawalAnswer: {
      ...internalAction("chain.withdrawalAnswer"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.withdrawalAnswer">>): Promise<SubmissionResult> {
        const answer = await this.cores.withdrawals.answerOf(ctx.params.withdrawalId);
        if (!answer)
          throw wireError(
            new Refusal("unavailable", "SERVICE_UNAVAILABLE", "This withdrawal's outcome is being settled; retry shortly", {
              retryAfter: 2,
            }),
          );
        return answer;
      },
    },

    /** POST /redeem/:marketId */
    redeem: {
      ...routeAction("chain.redeem"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.redeem">>): Promise<ActionResult<"chain.redeem">> {
        const req = { userId: currentUser(ctx).id, ...ctx.params };
        const market = (marketId: string) => portCall(ctx, "catalog.getMarketInternal", { marketId });
        const key = ctx.meta.idem ? { ...ctx.meta.idem, status: 202 } : undefined;
        const res = await this.actor.run(() => this.cores.redemptions.redeem(req, market, key)).catch(throwWire);
        ctx.meta.$statusCode = 202;
        return res;
      },
    },

    /** POST /sandbox/faucet: real emulated tokens to the caller's deposit address (sandbox chain only). */
    faucet: {
      ...routeAction("chain.faucet"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.faucet">>): Promise<ActionResult<"chain.faucet">> {
        const sandbox = this.sandbox;
        if (!sandbox) throw notFound("Sandbox faucet");
        const { asset, amount } = ctx.params;
        const send = sandbox.faucetSend.bind(sandbox);
        const res = await this.actor.run(() => this.cores.faucet(currentUser(ctx).id, asset, amount, send)).catch(throwWire);
        ctx.meta.$statusCode = 202;
        return res;
      },
    },

    /** Internal: ledger vs chain (tests, operators): ledger net deposits = deposit wallets + hot wallet - pending withdrawals. */
    reconcile: {
      ...internalAction("chain.reconcile"),
      handler(this: ChainThis): Promise<ChainReconciliation> {
        return this.actor.run(() => this.cores.reconcile());
      },
    },

    /** Internal: one transaction as the chain has it (hash hex). */
    transaction: {
      ...internalAction("chain.transaction"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.transaction">>): Promise<ActionResult<"chain.transaction">> {
        await this.actor.ready;
        return this.cores.transaction(ctx.params.hash);
      },
    },

    /** Internal: canonical USDT held on chain by an owner address (raw or friendly). */
    jettonBalance: {
      ...internalAction("chain.jettonBalance"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.jettonBalance">>): Promise<string> {
        await this.actor.ready;
        return this.cores.jettonBalance(ctx.params.owner, ctx.params.minter);
      },
    },

    /** Internal: the chain's fixed addresses. */
    info: {
      ...internalAction("chain.info"),
      async handler(this: ChainThis): Promise<ActionResult<"chain.info">> {
        await this.actor.ready;
        return this.cores.info(this.sandbox ? this.sandbox.foreignMinter() : null);
      },
    },

    /** Internal: incidents recorded for support (everything that reached a deposit address and was not credited). */
    incidents: {
      ...internalAction("chain.incidents"),
      handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.incidents">>): Promise<ActionResult<"chain.incidents">> {
        return this.cores.incidents(ctx.params.userId);
      },
    },

    /** Internal: settlement batches (tests, operators). */
    batches: {
      ...internalAction("chain.batches"),
      handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.batches">>): Promise<ActionResult<"chain.batches">> {
        return this.cores.batches(ctx.params.txHash);
      },
    },

    /** Internal: run the deposit watcher and the settlement batcher now instead of at their next tick. */
    tick: {
      ...internalAction("chain.tick"),
      async handler(this: ChainThis): Promise<true> {
        await this.actor.run(() => this.cores.watch());
        await this.actor.run(() => this.cores.settlement.round());
        return true;
      },
    },

    /** Internal (sandbox only): an internal message from a contract outside the exchange to a user's deposit address. */
    sandboxInject: {
      ...internalAction("chain.sandboxInject"),
      async handler(this: ChainThis, ctx: AppContext<HandlerParams<"chain.sandboxInject">>): Promise<ActionResult<"chain.sandboxInject">> {
        const sandbox = this.sandbox;
        if (!sandbox) throw notFound("Sandbox");
        const { userId, value, body } = ctx.params;
        const out = await this.actor.run(() =>
          this.cores.sandboxDeposit(userId, (to) => sandbox.injectFromOutsider(to, BigInt(value), body ? Cell.fromBase64(body) : null)),
        );
        return { txHash: out.txHash, from: sandbox.outsiderAddress().toRawString() };
      },
    },
  },

  events: {
    // A notifier or ledger (re)joining: hand over the settlement outcomes it missed at once.
    "$services.changed"(this: ChainThis) {
      void this.cores?.settlement.deliverNotices();
    },
    "market.resolved": {
      async handler(this: ChainThis, ctx) {
        const { marketId, result, yesPayout } = ctx.params;
        // SPLIT pays every holder at 0.50 a share from the market's collateral, as a cancel does.
        if (result === "SPLIT") {
          await this.cores.redemptions.cancelled(marketId, yesPayout ?? 500_000);
          this.actor.background(`refund:${marketId}`, () => this.cores.redemptions.refundMarket(marketId));
          return;
        }
        if (result !== "YES" && result !== "NO") return;
        // One step of a mutually exclusive event: `event.resolved` settles its markets in one entry.
        if (ctx.params.eventStep) return;
        this.actor.background(`resolve:${marketId}`, () => this.cores.redemptions.sweepResolved(marketId, result));
      },
    },
    "event.resolved": {
      async handler(this: ChainThis, ctx) {
        const { eventId, markets } = ctx.params;
        this.actor.background(`resolve-event:${eventId}`, () =>
          this.cores.redemptions.sweepEventResolved(
            eventId,
            markets.map((m) => ({ marketId: m.marketId, result: m.result })),
          ),
        );
      },
    },
    "market.cancelled": {
      async handler(this: ChainThis, ctx) {
        const { marketId, yesPayout } = ctx.params;
        await this.cores.redemptions.cancelled(marketId, yesPayout);
        this.actor.background(`refund:${marketId}`, () => this.cores.redemptions.refundMarket(marketId));
      },
    },
  },

  created(this: ChainThis) {
    this.cfg = configOf(this.broker);
    this.ccfg = this.cfg.ton;
    this.timers = [];
    this.actor = new ChainActor(this.logger);
  },

  /**
   * The chain comes up in the background (the sandbox's genesis takes about a second) so the node
   * starts at once; every action and timer waits for it.
   */
  started(this: ChainThis) {
    const { ccfg, broker, actor } = this;
    // loadConfig settles it for a node that runs the chain (MASTER_SECRET or the data dir's).
    if (!ccfg.masterSecret)
      throw new Error("no chain master secret: set MASTER_SECRET (loadConfig gives one to every node whose SERVICES include chain)");
    const chain = openChain(this.cfg.chain, ccfg, new KeyRing(ccfg.masterSecret), this.cfg.dataDir, (msg) => this.logger.info(msg));
    this.port = chain.port;
    this.sandbox = chain.sandbox;
    const cores = (this.cores = new ChainCores({
      chain: chain.side,
      stores: this.stores,
      ledger: ledgerOf(broker, (this.journal = journalSource(broker))),
      config: ccfg,
      emit: (event, payload) => emit(broker, event, payload),
      log: this.logger as Log,
      notifier: {
        available: () => broker.registry.actions.isAvailable("notifier.tradeSettled"),
        tradeSettled: async (o) => void (await portCall(broker, "notifier.tradeSettled", o)),
      },
      metrics: {
        depositCredited: () => void broker.metrics.increment(METRIC.deposits),
        settlementLag: { enabled: () => broker.metrics.isEnabled(), observe: (s) => void broker.metrics.observe(METRIC.settlementLag, s) },
      },
    }));
    const { redemptions } = cores;
    // The actor's first task: nothing else runs on the chain before it is up and caught up.
    const ready = actor.start(async () => {
      await chain.port.start();
      await cores.watch().catch((err) => this.logger.warn("initial deposit scan failed:", (err as Error)?.message));
    });
    ready.catch((err) => this.logger.error("the chain could not start:", err));
    ready
      .then(() => cores.eachPendingRefund((m) => actor.background(`refund:${m}`, () => redemptions.refundMarket(m))))
      .catch(() => undefined);
    for (const { name, ms, onActor, task } of cores.recurring())
      if (ms > 0) this.timers.push(setInterval(() => (onActor ? actor.background(name, task) : void task()), ms));
  },

  async stopped(this: ChainThis) {
    this.actor.close();
    for (const t of this.timers) clearInterval(t);
    await this.cores?.settlement.stop();
    await this.actor.drain();
    await this.port?.stop();
    this.journal?.close();
  },
});

export default ChainService;
