/**
 * Settlement batching: every trade of the ledger's journal is taken in once (durable cursor,
 * insert-once by trade id), the oldest pending trades are committed in one operator-wallet
 * transaction whose body carries sha256 of their sorted ids (./settlement), and each batch's
 * outcome is stored as a notice before anything else changes, then told to the ledger (trade read
 * model) and the notifier until both took it. A failed batch puts its trades back at the head of
 * the queue; after `maxAttempts` they fail for good.
 */
import { internal, toNano } from "@ton/core";
import type { SettledTrade, SettlementBatchDoc, SettlementItemDoc, SettlementNoticeDoc } from "../models/chain";
import { errorText, LANDING_GRACE_SEC, type ChainLedger, type ChainSide, type Clock, type Log, type MetaStore } from "./ports";
import { commitmentOf, settlementBody } from "./settlement";
import type { ChainTx } from "./tx";
import { refusalCode } from "../engine/refusal";

/** TON sent with a settlement commitment to the registry address. */
export const COMMIT_TON = toNano("0.001");
/** Journal entries read per page. */
const INTAKE_PAGE = 500;
/** Notices handed over per round. */
const NOTICE_PAGE = 50;

export interface SettlementStore {
  items: {
    /** Which of these trade ids are taken in already. */
    known(ids: string[]): Promise<string[]>;
    insertMany(items: SettlementItemDoc[]): Promise<void>;
    byIds(ids: string[]): Promise<SettlementItemDoc[]>;
    /** Pending trades in no batch, in queue order (oldest first). */
    queued(): Promise<SettlementItemDoc[]>;
    assign(ids: string[], batchId: string): Promise<void>;
    confirm(ids: string[], txHash: string): Promise<void>;
    /** Those of `ids` with at least `attempts` failed attempts. */
    attemptedAtLeast(ids: string[], attempts: number): Promise<SettlementItemDoc[]>;
    /** Those of `ids` with fewer than `attempts` failed attempts, in queue order. */
    attemptedBelow(ids: string[], attempts: number): Promise<SettlementItemDoc[]>;
    /** One more failed attempt each; out of their batch. */
    release(ids: string[]): Promise<void>;
    /** Failed for good: out of the queue. */
    fail(ids: string[]): Promise<void>;
  };
  batches: {
    /** The batch submitted without a known outcome yet, if any. */
    sending(): Promise<SettlementBatchDoc | null>;
    insert(batch: SettlementBatchDoc): Promise<void>;
    update(id: string, set: Partial<SettlementBatchDoc>): Promise<void>;
  };
  notices: {
    insertOnce(notice: SettlementNoticeDoc): Promise<boolean>;
    get(id: string): Promise<SettlementNoticeDoc | null>;
    /** Oldest first. */
    oldest(limit: number): Promise<SettlementNoticeDoc[]>;
    setLedgerDone(id: string): Promise<void>;
    remove(id: string): Promise<void>;
  };
  meta: MetaStore;
}

/** A settlement outcome as the notifier takes it (`notifier.tradeSettled`). */
export interface TradeSettled {
  batchId: string;
  status: SettlementNoticeDoc["status"];
  txHash: string | null;
  trades: SettledTrade[];
}

export interface SettlementPorts {
  ledger: Pick<ChainLedger, "entriesAfter" | "markSettlement">;
  store: SettlementStore;
  chain: ChainSide;
  notifier: {
    /** False while no notifier runs: no call that can only fail. */
    available(): boolean;
    tradeSettled(outcome: TradeSettled): Promise<void>;
  };
  clock: Clock;
  newId(prefix: string): string;
  log: Log;
  /** Seconds from a trade to its confirmation (metrics); trades are read for it only when enabled. */
  lag: { enabled(): boolean; observe(seconds: number): void };
  config: { batchSize: number; minAgeMs: number; maxAttempts: number };
}

export type BatchOutcome = { ok: true; txHash: string } | { ok: false; error: string };

const committed = (tx: ChainTx): BatchOutcome =>
  tx.success && tx.outs.length > 0
    ? { ok: true, txHash: tx.hash }
    : { ok: false, error: `the commitment transaction failed (exit ${tx.exitCode}, action ${tx.actionResult})` };

export class SettlementBatcher {
  /**
   * Pending trades not in a batch, oldest first: the settlement queue in memory (the store holds
   * the same items durably), loaded on first use. A store query sorted the whole backlog every round.
   */
  private queue: Array<{ id: string; at: string }> | null = null;
  private noticing: Promise<void> | null = null;
  private stopping = false;

  constructor(private readonly p: SettlementPorts) {}

  /** New trades from the ledger journal into the settlement queue (durable cursor; insert-once by trade id). */
  async intake(): Promise<void> {
    const { store } = this.p;
    let cursor = await store.meta.get("ledgerCursor");
    for (;;) {
      const entries = await this.p.ledger.entriesAfter(cursor, INTAKE_PAGE);
      if (!entries.length) return;
      const items: SettlementItemDoc[] = entries.flatMap((e) =>
        (e.trades ?? []).map((t) => ({
          _id: t.tradeId,
          userId: t.userId,
          marketId: t.marketId,
          status: "pending" as const,
          attempts: 0,
          batchId: null,
          txHash: null,
          createdAt: e.at,
          queue: `${e.at}|${t.tradeId}`,
        })),
      );
      // One insert for the page; items already taken in (a replay after a crash) are left as they are.
      const known = new Set(await store.items.known(items.map((i) => i._id)));
      const fresh = items.filter((i) => !known.has(i._id) && (known.add(i._id), true));
      await store.items.insertMany(fresh);
      for (const i of fresh) this.queue?.push({ id: i._id, at: i.createdAt });
      cursor = entries[entries.length - 1].seq;
      await store.meta.set("ledgerCursor", cursor);
      if (entries.length < INTAKE_PAGE) return;
    }
  }

  /**
   * One settlement step: resolve the batch in flight, else commit the oldest pending trades in one
   * operator-wallet transaction whose body carries sha256 of their sorted ids.
   */
  async round(): Promise<void> {
    const { store, chain, clock, config } = this.p;
    void this.deliverNotices();
    await this.intake();
    const operator = await chain.keys.wallet("operator");
    const inFlight = await store.batches.sending();
    if (inFlight) {
      // Submitted earlier without a known outcome (the ton adapter, or a restart mid-way).
      const tx = inFlight.msgHash ? await chain.port.findByExternal(operator.address, inFlight.msgHash) : null;
      if (tx) return this.finish(inFlight, committed(tx));
      if (!inFlight.validUntil || clock.now() / 1000 > inFlight.validUntil + LANDING_GRACE_SEC)
        return this.finish(inFlight, { ok: false, error: "the commitment message expired without landing" });
      return;
    }
    // Trades at least the minimum age: a burst of trades lands in one batch.
    const cutoff = new Date(clock.now() - config.minAgeMs).toISOString();
    const queue = await this.pending();
    let n = 0;
    while (n < queue.length && n < config.batchSize && queue[n].at <= cutoff) n++;
    if (!n) return;
    const c = commitmentOf(queue.splice(0, n).map((i) => i.id));
    const batch: SettlementBatchDoc = {
      _id: this.p.newId("stl"),
      tradeIds: c.tradeIds,
      count: c.count,
      root: c.root,
      status: "sending",
      msgHash: null,
      validUntil: null,
      txHash: null,
      error: null,
      at: new Date(clock.now()).toISOString(),
    };
    await store.batches.insert(batch);
    await store.items.assign(c.tradeIds, batch._id);
    const registry = await chain.keys.wallet("registry");
    let sub;
    try {
      await chain.topUp("operator");
      sub = await chain.port.submit(operator, [
        internal({ to: registry.address, value: COMMIT_TON, bounce: false, body: settlementBody(BigInt(clock.now()), batch._id, c) }),
      ]);
    } catch (err) {
      return this.finish(batch, {
        ok: false,
        error: refusalCode(err) === "CHAIN_REJECTED" ? (err as Error).message : `submission failed: ${errorText(err)}`,
      });
    }
    await store.batches.update(batch._id, { msgHash: sub.msgHash, validUntil: sub.validUntil });
    await chain.persist();
    const walletTx = sub.trace?.[0] ?? null;
    if (walletTx) return this.finish(batch, committed(walletTx));
  }

  private async pending(): Promise<Array<{ id: string; at: string }>> {
    this.queue ??= (await this.p.store.items.queued()).map((i) => ({ id: i._id, at: i.createdAt }));
    return this.queue;
  }

  async finish(batch: SettlementBatchDoc, outcome: BatchOutcome): Promise<void> {
    const { store, clock, config, lag } = this.p;
    if (outcome.ok) {
      const notice = await this.noticeOf(batch, "confirmed", batch.tradeIds, outcome.txHash);
      await store.batches.update(batch._id, { status: "confirmed", txHash: outcome.txHash });
      await store.items.confirm(batch.tradeIds, outcome.txHash);
      await this.markLedger(notice);
      const settled = lag.enabled() ? await store.items.byIds(batch.tradeIds) : [];
      for (const it of settled) lag.observe((clock.now() - Date.parse(it.createdAt)) / 1000);
      void this.deliverNotices();
      return;
    }
    this.p.log.warn(`settlement batch ${batch._id} failed: ${outcome.error}`);
    // Trades on their last attempt fail for good with this batch.
    const ids = (await store.items.attemptedAtLeast(batch.tradeIds, config.maxAttempts - 1)).map((i) => i._id);
    const notice = ids.length ? await this.noticeOf(batch, "failed", ids, null) : null;
    await store.batches.update(batch._id, { status: "failed", error: outcome.error });
    await store.items.release(batch.tradeIds);
    // The others go back to the head of the queue, oldest first, for the next batch.
    const retry = await store.items.attemptedBelow(batch.tradeIds, config.maxAttempts);
    this.queue?.unshift(...retry.map((i) => ({ id: i._id, at: i.createdAt })));
    if (!notice) return;
    await store.items.fail(ids);
    await this.markLedger(notice);
    void this.deliverNotices();
  }

  /** Store a settlement outcome for the ledger and the notifier (before anything else changes). */
  private async noticeOf(
    batch: SettlementBatchDoc,
    status: SettlementNoticeDoc["status"],
    tradeIds: string[],
    txHash: string | null,
  ): Promise<SettlementNoticeDoc> {
    const { notices, items } = this.p.store;
    const notice: SettlementNoticeDoc = {
      _id: `${batch._id}:${status}`,
      batchId: batch._id,
      status,
      txHash,
      trades: (await items.byIds(tradeIds)).map((i) => ({ tradeId: i._id, userId: i.userId, marketId: i.marketId })),
      ledgerDone: false,
      at: new Date(this.p.clock.now()).toISOString(),
    };
    // The same batch finished again (a restart resolving it a second time): the stored one stands.
    if (!(await notices.insertOnce(notice))) return (await notices.get(notice._id)) ?? notice;
    return notice;
  }

  /** Tell the ledger about one notice now (the trade read model); a failure is retried by the next delivery. */
  private async markLedger(notice: SettlementNoticeDoc): Promise<void> {
    if (notice.ledgerDone) return;
    try {
      await this.p.ledger.markSettlement(
        notice.trades.map((t) => t.tradeId),
        notice.status,
        notice.txHash,
      );
    } catch (err) {
      this.p.log.info(`settlement ${notice._id}: the ledger did not take it yet (${errorText(err)}); retrying`);
      return;
    }
    notice.ledgerDone = true;
    await this.p.store.notices.setLedgerDone(notice._id);
  }

  /** Single flight: every stored notice to the ledger and the notifier, oldest first; kept until both took it. */
  deliverNotices(): Promise<void> {
    if (this.noticing || this.stopping) return this.noticing ?? Promise.resolve();
    const { store, notifier, log } = this.p;
    const run = async () => {
      for (const notice of await store.notices.oldest(NOTICE_PAGE)) {
        if (this.stopping) return;
        await this.markLedger(notice);
        if (!notice.ledgerDone) return;
        if (!notifier.available()) return;
        try {
          await notifier.tradeSettled({ batchId: notice.batchId, status: notice.status, txHash: notice.txHash, trades: notice.trades });
        } catch (err) {
          log.info(`settlement ${notice._id}: the notifier did not take it yet (${errorText(err)}); retrying`);
          return;
        }
        await store.notices.remove(notice._id);
      }
    };
    const noticing: Promise<void> = run()
      .catch((err) => log.warn("settlement notices failed; retrying", err))
      .finally(() => {
        if (this.noticing === noticing) this.noticing = null;
      });
    this.noticing = noticing;
    return noticing;
  }

  /** No new delivery from now on; resolves when the one running ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.noticing;
  }
}
