/**
 * What becomes a notification, framework-free: the ledger journal read behind a durable cursor,
 * fan-outs to a market's holders stored before they run, and notices other services send
 * (cancels, withdrawals, settlement outcomes). Every notification is stored once by its id, told
 * to sockets, and handed to Telegram delivery when its user has a linked chat. The notifier
 * service wires the ports to the broker and its store.
 */
import type { PositionState } from "../engine/accounts";
import { DEFAULT_CANCEL_YES_PAYOUT, priceOfYesPayout } from "../engine/payout";
import type { LedgerEntryDoc } from "../models/trading";
import type { UserDoc } from "../models/user";
import {
  notificationItem,
  type HolderPositions,
  type NotificationDoc,
  type NotificationItem,
  type NotifierJobDoc,
  type OrderCancelNotice,
  type TradeSettledParams,
  type PushSettings,
} from "../models/notification";
import { draftsFromEntry, marketOf, notificationId, settlementDrafts, type AnyDraft } from "./derive";
import { PUSH_MAX_AGE_MS } from "./policy";
import { DEFAULT_PUSH, mergePush, pushes } from "./push-kinds";
import { render } from "./texts";

/** Journal entries read per call while catching up. */
export const JOURNAL_BATCH = 200;
/** Entries read between cursor writes when none of them notified anybody. */
export const CURSOR_EVERY = 1000;
/** Hints of new fills within this long are one journal pull (and one notifications write). */
export const HINT_COALESCE_MS = 100;
/** Fan-outs resumed per run. */
const JOBS_PER_RUN = 20;
const CHAT_CACHE_MS = 60_000;

/** Cancels that notify, by the order's cancelReason (a user's own cancel and self-trade prevention do not). */
const CANCEL_NOTICE: Record<string, OrderCancelNotice | undefined> = {
  market_closed: "MARKET_CLOSED",
  market_cancelled: "MARKET_CANCELLED",
  market_resolved: "MARKET_RESOLVED",
  expired: "EXPIRED",
  heartbeat: "HEARTBEAT",
  order_group: "ORDER_GROUP",
};

/** `order.updated` as far as the notifier reads it. */
export interface OrderUpdate {
  orderId: string;
  userId: string;
  marketId: string;
  status: string;
  cancelReason?: string | null;
}

export interface WithdrawalSent {
  userId: string;
  withdrawalId: string;
  amount: string;
  txHash?: string | null;
}

export interface WithdrawalFailed {
  userId: string;
  withdrawalId: string;
  amount: string;
  reason?: string;
}

export interface NotifierPorts {
  notifications: {
    /** Those of `ids` already stored. */
    storedIds(ids: string[]): Promise<string[]>;
    /** One write; throws when any of them exists (then each is inserted on its own). */
    insertMany(docs: NotificationDoc[]): Promise<void>;
    /** Insert unless one with its id exists; true when this call inserted it. */
    insertOnce(doc: NotificationDoc): Promise<boolean>;
  };
  /** The durable journal position. */
  cursor: {
    /** The stored position (0 on a fresh store). */
    load(): Promise<number>;
    /** Raise the stored position to `seq` (never lowers it). */
    save(seq: number): Promise<void>;
  };
  /** Which kinds each user has the bot push (absent: every kind, as without the port). */
  settings?: {
    get(userId: string): Promise<PushSettings | null>;
    set(userId: string, push: PushSettings): Promise<void>;
  };
  /** Fan-outs, stored before they run. */
  jobs: {
    insertOnce(job: NotifierJobDoc): Promise<boolean>;
    /** The oldest first. */
    oldest(limit: number): Promise<NotifierJobDoc[]>;
    remove(id: string): Promise<void>;
  };
  ledger: {
    /** Whether the ledger can be asked right now (no call that can only fail). */
    reachable(): boolean;
    entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
    holders(marketId: string): Promise<PositionState[]>;
  };
  /** The catalog's market (title, status); null when unknown. */
  market(marketId: string): Promise<{ title?: string; status?: string } | null>;
  /** The user's profile (its Telegram link); errors propagate. */
  user(userId: string): Promise<UserDoc | null>;
  /** A notification was stored (sockets tell its user). */
  created(userId: string, notification: NotificationItem): void;
  /** Telegram delivery, null when no bot is configured (nothing is queued for pushing then). */
  delivery: { deliver(): Promise<void> } | null;
  /** Epoch ms. */
  now(): number;
  /** Run `fn` after `ms`; returns its cancel. */
  after(ms: number, fn: () => void): () => void;
  log: { info(message: string): void; warn(message: string, err?: unknown): void };
}

export class Notifier {
  /** Journal position read up to (in memory); the stored one may lag behind it. */
  cursor = 0;
  /** The cursor as last written. */
  private storedCursor = 0;
  private stopping = false;
  private pulling: Promise<boolean> | null = null;
  private pullAgain = false;
  private cancelPullSoon: (() => void) | null = null;
  /** Whether the ledger answered: not yet since the start, reachable, or gone since (logged once). */
  private ledger: "starting" | "up" | "away" = "starting";
  private readonly chatIds = new Map<string, { chatId: number | null; at: number }>();
  /** Push settings per user, kept as long as chat ids (another node's change shows within that time). */
  private readonly pushCache = new Map<string, { push: PushSettings | null; at: number }>();
  private readonly titles = new Map<string, string>();

  constructor(private readonly ports: NotifierPorts) {}

  /** Read the stored cursor (the journal is then read on from there). */
  async start(): Promise<void> {
    this.cursor = this.storedCursor = await this.ports.cursor.load();
  }

  /** No more pulls; the running one finishes and the cursor reached is stored. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelPullSoon?.();
    this.cancelPullSoon = null;
    await this.pulling;
    if (this.cursor > this.storedCursor) await this.ports.cursor.save(this.cursor).catch(() => undefined);
  }

  /** A hint of new journal entries: a burst of them is one pull a moment later. */
  pullSoon(): void {
    if (this.cancelPullSoon) return;
    this.cancelPullSoon = this.ports.after(HINT_COALESCE_MS, () => {
      this.cancelPullSoon = null;
      void this.pull();
    });
  }

  /** Services changed: a ledger (re)joining is read at once instead of at the next poll. */
  servicesChanged(): void {
    if (this.ledger !== "up" && this.ports.ledger.reachable()) void this.pull();
  }

  /**
   * Read the journal up to its end; false when it could not (the ledger unreachable, a failure).
   * Single flight: concurrent callers share the running pull, which runs once more if asked meanwhile.
   */
  pull(): Promise<boolean> {
    if (this.pulling) {
      this.pullAgain = true;
      return this.pulling;
    }
    const run = async (): Promise<boolean> => {
      try {
        do {
          this.pullAgain = false;
          // Not before the ledger is reachable (a start, another node restarting): no call that
          // can only fail; a services change and the poll pull as soon as it is.
          if (!this.ports.ledger.reachable()) {
            if (this.ledger === "up") this.ports.log.warn("the ledger is unreachable; journal pulls wait for it");
            if (this.ledger !== "starting") this.ledger = "away";
            return false;
          }
          if (this.ledger === "away") this.ports.log.info("the ledger is reachable again; reading the journal");
          this.ledger = "up";
          await this.pullJournal();
        } while (this.pullAgain && !this.stopping);
        return true;
      } catch (err) {
        this.ports.log.warn("journal pull failed; retrying on the next poll", err);
        return false;
      }
    };
    // Cleared once settled (run() may finish before this assignment when it never awaits).
    const pulling: Promise<boolean> = run().finally(() => {
      if (this.pulling === pulling) this.pulling = null;
    });
    this.pulling = pulling;
    return pulling;
  }

  private async pullJournal(): Promise<void> {
    while (!this.stopping) {
      const entries = await this.ports.ledger.entriesAfter(this.cursor, JOURNAL_BATCH);
      if (!entries.length) return;
      const created = await this.create(entries.flatMap(draftsFromEntry));
      // Advance only after the batch's notifications are stored; a crash in between re-reads it.
      // Entries that notify nobody need no durable cursor each time (re-reading them is harmless).
      const last = entries[entries.length - 1].seq;
      if (created > 0 || last - this.storedCursor >= CURSOR_EVERY) {
        await this.ports.cursor.save(last);
        this.storedCursor = last;
      }
      this.cursor = Math.max(this.cursor, last);
      if (entries.length < JOURNAL_BATCH) return;
    }
  }

  /** Store drafts once each (by id); tell sockets; queue the Telegram push when the user has a link. */
  async create(drafts: AnyDraft[]): Promise<number> {
    const { notifications, delivery } = this.ports;
    const known = new Set(await notifications.storedIds(drafts.map((d) => d.id)));
    const docs: NotificationDoc[] = [];
    for (const d of drafts) {
      if (known.has(d.id)) continue;
      known.add(d.id);
      const { title, body } = render(d, await this.marketTitle(marketOf(d)));
      const fresh = this.ports.now() - Date.parse(d.createdAt) < PUSH_MAX_AGE_MS;
      const linked = delivery && fresh ? await this.chatIdOf(d.userId) : null;
      const chatId = linked !== null && pushes(d.type, await this.pushSettingsOf(d.userId)) ? linked : null;
      const doc: NotificationDoc = {
        _id: d.id,
        userId: d.userId,
        type: d.type,
        title,
        body,
        metadata: d.metadata,
        read: false,
        createdAt: d.createdAt,
        delivered: false,
        delivery: "none",
        attempts: 0,
      };
      if (d.seq !== undefined) doc.seq = d.seq;
      if (chatId !== null) {
        doc.delivery = "pending";
        doc.chatId = chatId;
        doc.deliverAt = this.ports.now();
      }
      docs.push(doc);
    }
    let stored = docs;
    try {
      await notifications.insertMany(docs);
    } catch {
      // Another caller stored one of them meanwhile: one at a time, each at most once.
      stored = [];
      for (const doc of docs) if (await notifications.insertOnce(doc)) stored.push(doc);
    }
    let pending = false;
    for (const doc of stored) {
      pending ||= doc.chatId !== undefined;
      this.ports.created(doc.userId, notificationItem(doc));
    }
    if (pending && delivery) void delivery.deliver();
    return stored.length;
  }

  /** The kinds the bot pushes to this user (every kind until the user chooses). */
  async pushSettings(userId: string): Promise<PushSettings> {
    return (await this.ports.settings?.get(userId)) ?? { ...DEFAULT_PUSH };
  }

  /** Applies a partial choice and returns the whole setting; it holds for notifications created from now on. */
  async setPushSettings(userId: string, change: Partial<PushSettings>): Promise<PushSettings> {
    if (!this.ports.settings) throw new Error("notification settings are not stored here");
    const push = mergePush(await this.ports.settings.get(userId), change);
    await this.ports.settings.set(userId, push);
    this.pushCache.set(userId, { push, at: this.ports.now() });
    return push;
  }

  private async pushSettingsOf(userId: string): Promise<PushSettings | null> {
    if (!this.ports.settings) return null;
    const hit = this.pushCache.get(userId);
    if (hit && this.ports.now() - hit.at < CHAT_CACHE_MS) return hit.push;
    const push = await this.ports.settings.get(userId);
    this.pushCache.set(userId, { push, at: this.ports.now() });
    return push;
  }

  /** A verified Telegram link: pushes go to this chat from now on. */
  telegramLinked(userId: string, chatId: number): void {
    this.chatIds.set(userId, { chatId, at: this.ports.now() });
  }

  /** ORDER_CANCELLED for cancels the user did not make: a market that stopped, an expiry, a lapsed dead man's switch. */
  async orderUpdated(o: OrderUpdate): Promise<void> {
    if ((o.status !== "cancelled" && o.status !== "expired") || !o.userId.startsWith("usr_")) return;
    const reason = o.cancelReason ? CANCEL_NOTICE[o.cancelReason] : await this.closedMarketReason(o.marketId);
    if (!reason) return;
    await this.create([
      {
        id: notificationId("ORDER_CANCELLED", o.orderId),
        userId: o.userId,
        type: "ORDER_CANCELLED",
        createdAt: this.nowIso(),
        metadata: { marketId: o.marketId, orderId: o.orderId, reason },
      },
    ]).catch((err) => this.ports.log.warn("ORDER_CANCELLED notification failed", err));
  }

  /** Withdrawals are debited before they are sent; the chain says how they ended. */
  async withdrawalSent(w: WithdrawalSent): Promise<void> {
    await this.create([
      {
        id: notificationId("WITHDRAWAL_SENT", w.withdrawalId),
        userId: w.userId,
        type: "WITHDRAWAL_SENT",
        createdAt: this.nowIso(),
        metadata: { withdrawalId: w.withdrawalId, amount: String(w.amount), txHash: w.txHash ?? null },
      },
    ]).catch((err) => this.ports.log.warn("WITHDRAWAL_SENT notification failed", err));
  }

  async withdrawalFailed(w: WithdrawalFailed): Promise<void> {
    const reason = String(w.reason ?? "unknown reason").slice(0, 300);
    await this.create([
      {
        id: notificationId("WITHDRAWAL_FAILED", w.withdrawalId),
        userId: w.userId,
        type: "WITHDRAWAL_FAILED",
        createdAt: this.nowIso(),
        metadata: { withdrawalId: w.withdrawalId, amount: String(w.amount), reason },
      },
    ]).catch((err) => this.ports.log.warn("WITHDRAWAL_FAILED notification failed", err));
  }

  /** SETTLEMENT_CONFIRMED / _FAILED: one per user and market of a batch (its trades share the transaction). */
  settle(p: TradeSettledParams): Promise<number> {
    return this.create(settlementDrafts(p.batchId, p.status, p.txHash ?? null, p.trades, this.nowIso()));
  }

  /** MARKET_RESOLVED to every holder of the market, once per market. */
  marketResolved(p: { marketId: string; result: string; conditionId?: string | null }): Promise<void> {
    return this.enqueueJob({
      _id: `resolved:${p.marketId}`,
      kind: "marketResolved",
      marketId: p.marketId,
      result: p.result,
      conditionId: p.conditionId ?? null,
      at: this.nowIso(),
    });
  }

  /** MARKET_CANCELLED to every holder of the market, once per market. */
  marketCancelled(p: { marketId: string; yesPayout: number }): Promise<void> {
    const job: NotifierJobDoc = {
      _id: `cancelled:${p.marketId}`,
      kind: "marketCancelled",
      marketId: p.marketId,
      yesPayout: p.yesPayout,
      at: this.nowIso(),
    };
    return this.enqueueJob(job);
  }

  /** RESOLUTION_PROPOSED / RESOLUTION_DISPUTED to every holder, once per proposal. */
  resolutionNotice(
    kind: "resolutionProposed" | "resolutionDisputed",
    p: { marketId: string; proposedResult: string; proposedAt: string; disputeEndsAt: string },
  ): Promise<void> {
    return this.enqueueJob({
      _id: `${kind}:${p.marketId}:${p.proposedAt}`,
      kind,
      marketId: p.marketId,
      result: p.proposedResult,
      disputeEndsAt: p.disputeEndsAt,
      at: this.nowIso(),
    });
  }

  /** Resume stored fan-outs (a crash, a failed call), oldest first. */
  async runJobs(): Promise<void> {
    for (const job of await this.ports.jobs.oldest(JOBS_PER_RUN)) {
      await this.runJob(job).catch((err) => this.ports.log.warn(`job ${job._id} failed`, err));
    }
  }

  /** A fan-out is stored before it runs, so a crash or a failed call resumes it on the next poll. */
  private async enqueueJob(job: NotifierJobDoc): Promise<void> {
    // Read holders first: the chain's resolution sweep or refund settles them right after.
    const holders = await this.holdersOf(job.marketId).catch(() => undefined);
    const stored: NotifierJobDoc = holders ? { ...job, holders } : job;
    await this.ports.jobs.insertOnce(stored);
    await this.runJob(stored).catch((err) => this.ports.log.warn(`job ${job._id} failed; retrying on the next poll`, err));
  }

  private async runJob(job: NotifierJobDoc): Promise<void> {
    const holders = job.holders ?? (await this.holdersOf(job.marketId));
    const drafts: AnyDraft[] = holders.map(({ userId, positions }): AnyDraft => {
      if (job.kind === "resolutionProposed" || job.kind === "resolutionDisputed") {
        const type = job.kind === "resolutionProposed" ? "RESOLUTION_PROPOSED" : "RESOLUTION_DISPUTED";
        return {
          id: notificationId(type, job.marketId, job.at, userId),
          userId,
          type,
          createdAt: job.at,
          metadata: { marketId: job.marketId, proposedResult: job.result ?? "", disputeEndsAt: job.disputeEndsAt ?? "", positions },
        };
      }
      return job.kind === "marketResolved"
        ? {
            id: notificationId("MARKET_RESOLVED", job.marketId, userId),
            userId,
            type: "MARKET_RESOLVED",
            createdAt: job.at,
            metadata: { marketId: job.marketId, result: job.result ?? "", conditionId: job.conditionId ?? null, positions },
          }
        : {
            id: notificationId("MARKET_CANCELLED", job.marketId, userId),
            userId,
            type: "MARKET_CANCELLED",
            createdAt: job.at,
            metadata: { marketId: job.marketId, price: priceOfYesPayout(job.yesPayout ?? DEFAULT_CANCEL_YES_PAYOUT), positions },
          };
    });
    await this.create(drafts);
    await this.ports.jobs.remove(job._id);
  }

  /** Users' positions in the market, by user (system accounts and empty positions left out). */
  private async holdersOf(marketId: string): Promise<HolderPositions[]> {
    const byUser = new Map<string, HolderPositions["positions"]>();
    for (const p of await this.ports.ledger.holders(marketId)) {
      if (!p.account.startsWith("usr_") || p.quantity <= 0) continue;
      const list = byUser.get(p.account) ?? [];
      list.push({ outcome: p.outcome, quantity: String(p.quantity) });
      byUser.set(p.account, list);
    }
    return [...byUser].map(([userId, positions]) => ({ userId, positions: positions.sort((a, b) => a.outcome.localeCompare(b.outcome)) }));
  }

  /** An update without a reason (an earlier engine): a cancel on a market no longer open is its halt. */
  private async closedMarketReason(marketId: string): Promise<OrderCancelNotice | null> {
    const market = await this.ports.market(marketId).catch(() => null);
    return market?.status === "closed"
      ? "MARKET_CLOSED"
      : market?.status === "cancelled"
        ? "MARKET_CANCELLED"
        : market?.status === "resolved"
          ? "MARKET_RESOLVED"
          : null;
  }

  private async chatIdOf(userId: string): Promise<number | null> {
    const hit = this.chatIds.get(userId);
    if (hit && this.ports.now() - hit.at < CHAT_CACHE_MS) return hit.chatId;
    // Errors propagate: a pull retried later beats a notification silently never pushed.
    const user = await this.ports.user(userId);
    const chatId = typeof user?.telegram?.id === "number" ? user.telegram.id : null;
    this.chatIds.set(userId, { chatId, at: this.ports.now() });
    return chatId;
  }

  private async marketTitle(marketId: string | null): Promise<string | null> {
    if (!marketId) return null;
    const hit = this.titles.get(marketId);
    if (hit) return hit;
    const m = await this.ports.market(marketId).catch(() => null);
    if (m?.title) this.titles.set(marketId, m.title);
    return m?.title ?? null;
  }

  private nowIso(): string {
    return new Date(this.ports.now()).toISOString();
  }
}
