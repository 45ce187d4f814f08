import type { Service } from "moleculer";
import { Api } from "grammy";
import { defineService } from "../lib/service";
import { PAGE, pageSizeParam } from "../lib/params";
import { configOf, type AppConfig } from "../lib/config";
import { validationError } from "../lib/errors";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import { page, type Page } from "../gateway/envelope";
import type { PositionState } from "../engine/accounts";
import type { LedgerEntryDoc } from "../models/trading";
import type { OrderCancelNotice } from "../models/notification";
import type { UserDoc } from "../models/user";
import type { SettledTrade } from "../models/chain";
import { notificationItem, type HolderPositions, type NotificationDoc, type NotificationItem, type NotifierCursorDoc, type NotifierJobDoc } from "../models/notification";
import { draftsFromEntry, marketOf, notificationId, settlementDrafts, type AnyDraft } from "../notifier/derive";
import { render, telegramText } from "../notifier/texts";
import { classifyFailure, DELIVERY_LEASE_MS, nextRetryDelay, PUSH_MAX_AGE_MS, retryPolicy, type RetryPolicy } from "../notifier/policy";

type NotifierCollections = { notifications: NotificationDoc; notifierCursor: NotifierCursorDoc; notifierJobs: NotifierJobDoc };

export const NOTIFICATIONS_DEFAULT_PAGE_SIZE = 20;
export const NOTIFICATIONS_MAX_PAGE_SIZE = 100;
/** Journal entries read per call while catching up. */
const JOURNAL_BATCH = 200;
/** Entries read between cursor writes when none of them notified anybody. */
const CURSOR_EVERY = 1000;
/** Fallback pull and job retry period; broker events only make pulls happen sooner. */
const POLL_MS = 2_000;
/** Cancels that notify, by the order's cancelReason (a user's own cancel and self-trade prevention do not). */
const CANCEL_NOTICE: Record<string, OrderCancelNotice | undefined> = {
  market_closed: "MARKET_CLOSED",
  market_cancelled: "MARKET_CANCELLED",
  market_resolved: "MARKET_RESOLVED",
  expired: "EXPIRED",
  heartbeat: "HEARTBEAT",
};

/** Hints of new fills within this long are one journal pull (and one notifications write). */
const HINT_COALESCE_MS = 100;
/** Scan for due deliveries (restart, expired leases, other instances' retries). */
const DELIVERY_TICK_MS = 1_000;
/** Pushes in flight at once (the Bot API allows about 30 messages per second per bot). */
const MAX_SENDING = 8;
const CHAT_CACHE_MS = 60_000;
const CURSOR_ID = "ledger";

/** A settlement batch's outcome for the trades in it (the chain service's settlement notices). */
export interface TradeSettledParams {
  batchId: string;
  status: "confirmed" | "failed";
  txHash?: string | null;
  trades: SettledTrade[];
}

export interface MarkReadParams {
  ids?: string[];
  all?: boolean;
}

/** The slice of grammy's Api the notifier uses (a stand-in can replace it). */
export interface BotClient {
  sendMessage(chatId: number, text: string, signal: AbortSignal): Promise<unknown>;
}

type GrammySignal = Parameters<Api["sendMessage"]>[3];

function grammyClient(token: string, apiRoot: string): BotClient {
  // grammy's own timeout bounds a hung Bot API; the signal ends a send at shutdown.
  const api = new Api(token, { apiRoot, timeoutSeconds: 10 });
  return { sendMessage: (chatId, text, signal) => api.sendMessage(chatId, text, undefined, signal as unknown as GrammySignal) };
}

type NotifierThis = Service &
  DbState<NotifierCollections> & {
    cfg: AppConfig;
    policy: RetryPolicy;
    bot: BotClient | null;
    cursor: number;
    /** The cursor as last written. */
    storedCursor: number;
    stopping: boolean;
    pulling: Promise<boolean> | null;
    pullAgain: boolean;
    pullTimer: NodeJS.Timeout | null;
    pullSoon(): void;
    closedMarketReason(ctx: AppContext, marketId: string): Promise<OrderCancelNotice | null>;
    /** Whether the ledger answered: not yet since the start, reachable, or gone since (logged once). */
    ledger: "starting" | "up" | "away";
    delivering: Promise<void> | null;
    deliverAgain: boolean;
    sending: Map<AbortController, Promise<void>>;
    timers: Set<NodeJS.Timeout>;
    chatIds: Map<string, { chatId: number | null; at: number }>;
    titles: Map<string, string>;
    /** Read the journal up to its end; false when it could not (the ledger unreachable, a failure). */
    pull(): Promise<boolean>;
    pullJournal(): Promise<void>;
    create(drafts: AnyDraft[]): Promise<number>;
    chatIdOf(userId: string): Promise<number | null>;
    marketTitle(marketId: string | null): Promise<string | null>;
    holdersOf(marketId: string): Promise<HolderPositions[]>;
    enqueueJob(job: NotifierJobDoc): Promise<void>;
    runJobs(): Promise<void>;
    runJob(job: NotifierJobDoc): Promise<void>;
    settle(p: TradeSettledParams): Promise<number>;
    deliver(): Promise<void>;
    deliverDue(): Promise<void>;
    deliverOne(doc: NotificationDoc, signal: AbortSignal): Promise<void>;
    later(ms: number, fn: () => unknown): void;
  };

const NotifierService = defineService<NotifierThis>({
  name: "notifier",
  mixins: [
    createDbMixin<NotifierCollections>({
      notifications: [{ fields: { userId: 1, createdAt: -1 } }, { fields: { deliverAt: 1 }, sparse: true }],
      notifierCursor: [],
      notifierJobs: [],
    }),
  ],

  actions: {
    /** GET /notifications: the caller's, newest first. */
    list: {
      auth: "user",
      params: {
        page: PAGE,
        pageSize: pageSizeParam(NOTIFICATIONS_DEFAULT_PAGE_SIZE, NOTIFICATIONS_MAX_PAGE_SIZE),
        // Only unread ones: pagination.total is then the unread count (a badge needs one small call).
        unread: { type: "boolean", optional: true, convert: true },
        $$strict: "remove",
      },
      async handler(this: NotifierThis, ctx: AppContext<{ page: number; pageSize: number; unread?: boolean }>): Promise<Page<NotificationItem>> {
        const user = currentUser(ctx);
        const { page: pageNo, pageSize } = ctx.params;
        const q: Record<string, unknown> = ctx.params.unread ? { userId: user.id, read: false } : { userId: user.id };
        const [docs, total] = await Promise.all([
          this.stores.notifications.find(q, { sort: { createdAt: -1, seq: -1, _id: -1 }, skip: (pageNo - 1) * pageSize, limit: pageSize }),
          this.stores.notifications.count(q),
        ]);
        return page(docs.map(notificationItem), total, pageNo, pageSize);
      },
    },

    /** POST /notifications/read: {ids} marks those of the caller's, {all: true} every one. */
    markRead: {
      auth: "user",
      params: {
        ids: { type: "array", items: { type: "string", min: 1, max: 200 }, max: 500, optional: true },
        all: { type: "boolean", optional: true },
        $$strict: "remove",
      },
      async handler(this: NotifierThis, ctx: AppContext<MarkReadParams>): Promise<{ updated: number; unread: number }> {
        const user = currentUser(ctx);
        const { ids, all } = ctx.params;
        if (all !== true && !ids?.length) throw validationError("Give ids (non-empty) or all: true", [{ field: "ids", rule: "required" }]);
        const q: Record<string, unknown> = { userId: user.id, read: false };
        if (all !== true) q._id = { $in: ids };
        const updated = await this.stores.notifications.update(q, { $set: { read: true } }, { multi: true });
        return { updated, unread: await this.stores.notifications.count({ userId: user.id, read: false }) };
      },
    },

    /**
     * Internal: a settlement batch's outcome (the chain service, until this call succeeds): one
     * notification per owner and market of the batch's trades, however often it is told.
     */
    tradeSettled: {
      visibility: "public",
      params: {
        batchId: { type: "string", min: 1, max: 100 },
        status: { type: "enum", values: ["confirmed", "failed"] },
        txHash: { type: "string", optional: true, nullable: true },
        trades: { type: "array", min: 1, max: 100_000, items: { type: "object", strict: "remove", props: { tradeId: "string", userId: "string", marketId: "string" } } },
      },
      async handler(this: NotifierThis, ctx: AppContext<TradeSettledParams>) {
        return { created: await this.settle(ctx.params) };
      },
    },

    /** Internal: read the journal up to its end and push what is due now (tests, operators). */
    catchUp: {
      visibility: "public",
      async handler(this: NotifierThis) {
        await this.pull();
        await this.runJobs();
        return { cursor: this.cursor };
      },
    },
  },

  events: {
    // A ledger (re)joining: catch up at once instead of at the next poll.
    "$services.changed"(this: NotifierThis) {
      if (this.ledger !== "up" && this.broker.registry.actions.isAvailable("ledger.entriesAfter")) void this.pull();
    },
    // Hints only: the journal cursor is the source of truth for fills and money movements. A
    // burst of hints is one pull a moment later (one notifications write per burst, not per fill).
    "ledger.tradeCreated"(this: NotifierThis) {
      this.pullSoon();
    },
    "ledger.balanceChanged"(this: NotifierThis) {
      this.pullSoon();
    },
    "market.resolved": {
      handler(this: NotifierThis, ctx: AppContext<{ marketId: string; result: string; conditionId?: string }>) {
        const { marketId, result, conditionId } = ctx.params;
        return this.enqueueJob({ _id: `resolved:${marketId}`, kind: "marketResolved", marketId, result, conditionId: conditionId ?? null, at: new Date().toISOString() });
      },
    },
    "market.cancelled": {
      handler(this: NotifierThis, ctx: AppContext<{ marketId: string }>) {
        return this.enqueueJob({ _id: `cancelled:${ctx.params.marketId}`, kind: "marketCancelled", marketId: ctx.params.marketId, at: new Date().toISOString() });
      },
    },
    "order.updated": {
      async handler(this: NotifierThis, ctx: AppContext<{ orderId: string; userId: string; marketId: string; status: string; cancelReason?: string | null }>) {
        const o = ctx.params;
        if ((o.status !== "cancelled" && o.status !== "expired") || !o.userId.startsWith("usr_")) return;
        // Cancels the user did not make tell why: a market that stopped, an expiry, a lapsed dead man's switch.
        const reason = o.cancelReason ? CANCEL_NOTICE[o.cancelReason] : await this.closedMarketReason(ctx, o.marketId);
        if (!reason) return;
        await this.create([
          { id: notificationId("ORDER_CANCELLED", o.orderId), userId: o.userId, type: "ORDER_CANCELLED", createdAt: new Date().toISOString(), metadata: { marketId: o.marketId, orderId: o.orderId, reason } },
        ]).catch((err) => this.logger.warn("ORDER_CANCELLED notification failed", err));
      },
    },
    // Withdrawals are debited before they are sent; the chain says how they ended.
    "chain.withdrawalSent": {
      handler(this: NotifierThis, ctx: AppContext<{ userId: string; withdrawalId: string; amount: string; txHash?: string | null }>) {
        const w = ctx.params;
        return this.create([
          { id: notificationId("WITHDRAWAL_SENT", w.withdrawalId), userId: w.userId, type: "WITHDRAWAL_SENT", createdAt: new Date().toISOString(), metadata: { withdrawalId: w.withdrawalId, amount: String(w.amount), txHash: w.txHash ?? null } },
        ]).catch((err) => this.logger.warn("WITHDRAWAL_SENT notification failed", err));
      },
    },
    "chain.withdrawalFailed": {
      handler(this: NotifierThis, ctx: AppContext<{ userId: string; withdrawalId: string; amount: string; reason?: string }>) {
        const w = ctx.params;
        return this.create([
          { id: notificationId("WITHDRAWAL_FAILED", w.withdrawalId), userId: w.userId, type: "WITHDRAWAL_FAILED", createdAt: new Date().toISOString(), metadata: { withdrawalId: w.withdrawalId, amount: String(w.amount), reason: String(w.reason ?? "unknown reason").slice(0, 300) } },
        ]).catch((err) => this.logger.warn("WITHDRAWAL_FAILED notification failed", err));
      },
    },
    "auth.telegramLinked": {
      handler(this: NotifierThis, ctx: AppContext<{ userId: string; chatId: number }>) {
        this.chatIds.set(ctx.params.userId, { chatId: ctx.params.chatId, at: Date.now() });
      },
    },
  },

  methods: {
    /** An update without a reason (an earlier engine): a cancel on a market no longer open is its halt. */
    async closedMarketReason(this: NotifierThis, ctx: AppContext, marketId: string): Promise<OrderCancelNotice | null> {
      const market = await ctx.call<{ status: string } | null, { marketId: string }>("catalog.getMarketInternal", { marketId }).catch(() => null);
      return market?.status === "closed" ? "MARKET_CLOSED" : market?.status === "cancelled" ? "MARKET_CANCELLED" : market?.status === "resolved" ? "MARKET_RESOLVED" : null;
    },

    pullSoon(this: NotifierThis) {
      if (this.pullTimer) return;
      this.pullTimer = setTimeout(() => {
        this.pullTimer = null;
        void this.pull();
      }, HINT_COALESCE_MS);
    },

    /** Single flight: concurrent callers share the running pull, which runs once more if asked meanwhile. */
    pull(this: NotifierThis): Promise<boolean> {
      if (this.pulling) {
        this.pullAgain = true;
        return this.pulling;
      }
      const run = async (): Promise<boolean> => {
        try {
          do {
            this.pullAgain = false;
            // Not before the ledger is reachable (a start, another node restarting): no call that
            // can only fail; `$services.changed` and the poll pull as soon as it is.
            if (!this.broker.registry.actions.isAvailable("ledger.entriesAfter")) {
              if (this.ledger === "up") this.logger.warn("the ledger is unreachable; journal pulls wait for it");
              if (this.ledger !== "starting") this.ledger = "away";
              return false;
            }
            if (this.ledger === "away") this.logger.info("the ledger is reachable again; reading the journal");
            this.ledger = "up";
            await this.pullJournal();
          } while (this.pullAgain && !this.stopping);
          return true;
        } catch (err) {
          this.logger.warn("journal pull failed; retrying on the next poll", err);
          return false;
        }
      };
      // Cleared once settled (run() may finish before this assignment when it never awaits).
      const pulling: Promise<boolean> = run().finally(() => {
        if (this.pulling === pulling) this.pulling = null;
      });
      this.pulling = pulling;
      return pulling;
    },

    async pullJournal(this: NotifierThis) {
      while (!this.stopping) {
        const entries = await this.broker.call<LedgerEntryDoc[], { seq: number; limit: number }>("ledger.entriesAfter", { seq: this.cursor, limit: JOURNAL_BATCH });
        if (!entries.length) return;
        const created = await this.create(entries.flatMap(draftsFromEntry));
        // Advance only after the batch's notifications are stored; a crash in between re-reads it.
        // Entries that notify nobody need no durable cursor each time (re-reading them is harmless).
        const last = entries[entries.length - 1].seq;
        if (created > 0 || last - this.storedCursor >= CURSOR_EVERY) {
          await this.stores.notifierCursor.update({ _id: CURSOR_ID, seq: { $lt: last } }, { $set: { seq: last } });
          this.storedCursor = last;
        }
        this.cursor = Math.max(this.cursor, last);
        if (entries.length < JOURNAL_BATCH) return;
      }
    },

    /** Store drafts once each (by id); tell sockets; queue the Telegram push when the user has a link. */
    async create(this: NotifierThis, drafts: AnyDraft[]): Promise<number> {
      let pending = false;
      const known = new Set((await this.stores.notifications.find({ _id: { $in: drafts.map((d) => d.id) } })).map((n) => n._id));
      const docs: NotificationDoc[] = [];
      for (const d of drafts) {
        if (known.has(d.id)) continue;
        known.add(d.id);
        const { title, body } = render(d, await this.marketTitle(marketOf(d)));
        const fresh = Date.now() - Date.parse(d.createdAt) < PUSH_MAX_AGE_MS;
        const chatId = this.bot && fresh ? await this.chatIdOf(d.userId) : null;
        const doc: NotificationDoc = { _id: d.id, userId: d.userId, type: d.type, title, body, metadata: d.metadata, read: false, createdAt: d.createdAt, delivered: false, delivery: "none", attempts: 0 };
        if (d.seq !== undefined) doc.seq = d.seq;
        if (chatId !== null) {
          doc.delivery = "pending";
          doc.chatId = chatId;
          doc.deliverAt = Date.now();
        }
        docs.push(doc);
      }
      let stored = docs;
      try {
        await this.stores.notifications.insertMany(docs);
      } catch {
        // Another caller stored one of them meanwhile: one at a time, each at most once.
        stored = [];
        for (const doc of docs) if (await this.stores.notifications.insertOnce(doc)) stored.push(doc);
      }
      for (const doc of stored) {
        pending ||= doc.chatId !== undefined;
        this.broker.emit("notifier.created", { userId: doc.userId, notification: notificationItem(doc) });
      }
      const created = stored.length;
      if (pending) void this.deliver();
      return created;
    },

    async chatIdOf(this: NotifierThis, userId: string): Promise<number | null> {
      const hit = this.chatIds.get(userId);
      if (hit && Date.now() - hit.at < CHAT_CACHE_MS) return hit.chatId;
      // Errors propagate: a pull retried later beats a notification silently never pushed.
      const user = await this.broker.call<UserDoc | null, { userId: string }>("auth.getUser", { userId });
      const chatId = typeof user?.telegram?.id === "number" ? user.telegram.id : null;
      this.chatIds.set(userId, { chatId, at: Date.now() });
      return chatId;
    },

    async marketTitle(this: NotifierThis, marketId: string | null): Promise<string | null> {
      if (!marketId) return null;
      const hit = this.titles.get(marketId);
      if (hit) return hit;
      const m = await this.broker.call<{ title?: string } | null, { marketId: string }>("catalog.getMarketInternal", { marketId }).catch(() => null);
      if (m?.title) this.titles.set(marketId, m.title);
      return m?.title ?? null;
    },

    async holdersOf(this: NotifierThis, marketId: string): Promise<HolderPositions[]> {
      const holders = await this.broker.call<PositionState[], { marketId: string }>("ledger.holders", { marketId });
      const byUser = new Map<string, HolderPositions["positions"]>();
      for (const p of holders) {
        if (!p.account.startsWith("usr_") || p.quantity <= 0) continue;
        const list = byUser.get(p.account) ?? [];
        list.push({ outcome: p.outcome, quantity: String(p.quantity) });
        byUser.set(p.account, list);
      }
      return [...byUser].map(([userId, positions]) => ({ userId, positions: positions.sort((a, b) => a.outcome.localeCompare(b.outcome)) }));
    },

    /** A fan-out is stored before it runs, so a crash or a failed call resumes it on the next poll. */
    async enqueueJob(this: NotifierThis, job: NotifierJobDoc) {
      // Read holders first: the chain's resolution sweep or refund settles them right after.
      const holders = await this.holdersOf(job.marketId).catch(() => undefined);
      const stored: NotifierJobDoc = holders ? { ...job, holders } : job;
      await this.stores.notifierJobs.insertOnce(stored);
      await this.runJob(stored).catch((err) => this.logger.warn(`job ${job._id} failed; retrying on the next poll`, err));
    },

    async runJobs(this: NotifierThis) {
      for (const job of await this.stores.notifierJobs.find({}, { sort: { at: 1 }, limit: 20 })) {
        await this.runJob(job).catch((err) => this.logger.warn(`job ${job._id} failed`, err));
      }
    },

    async runJob(this: NotifierThis, job: NotifierJobDoc) {
      const holders = job.holders ?? (await this.holdersOf(job.marketId));
      const drafts: AnyDraft[] = holders.map(({ userId, positions }) =>
        job.kind === "marketResolved"
          ? { id: notificationId("MARKET_RESOLVED", job.marketId, userId), userId, type: "MARKET_RESOLVED", createdAt: job.at, metadata: { marketId: job.marketId, result: job.result ?? "", conditionId: job.conditionId ?? null, positions } }
          : { id: notificationId("MARKET_CANCELLED", job.marketId, userId), userId, type: "MARKET_CANCELLED", createdAt: job.at, metadata: { marketId: job.marketId, positions } },
      );
      await this.create(drafts);
      await this.stores.notifierJobs.remove({ _id: job._id });
    },

    /** SETTLEMENT_CONFIRMED / _FAILED: one per user and market of a batch (its trades share the transaction). */
    async settle(this: NotifierThis, p: TradeSettledParams): Promise<number> {
      return this.create(settlementDrafts(p.batchId, p.status, p.txHash ?? null, p.trades, new Date().toISOString()));
    },

    /** Single flight over due deliveries; never awaited by anything on the trading path. */
    deliver(this: NotifierThis): Promise<void> {
      if (!this.bot || this.stopping) return Promise.resolve();
      if (this.delivering) {
        this.deliverAgain = true;
        return this.delivering;
      }
      this.delivering = (async () => {
        try {
          do {
            this.deliverAgain = false;
            await this.deliverDue();
          } while (this.deliverAgain && !this.stopping);
        } catch (err) {
          this.logger.warn("delivery scan failed", err);
        } finally {
          this.delivering = null;
        }
      })();
      return this.delivering;
    },

    /** Claim due pushes up to the send limit; sends run on their own so one slow chat holds one slot. */
    async deliverDue(this: NotifierThis) {
      while (!this.stopping && this.sending.size < MAX_SENDING) {
        const due = await this.stores.notifications.find({ deliverAt: { $lte: Date.now() } }, { sort: { deliverAt: 1 }, limit: MAX_SENDING - this.sending.size });
        if (!due.length) return;
        for (const doc of due) {
          // Claim by moving deliverAt to the end of a lease: one sender per notification across
          // instances, and a sender that dies mid-way is replaced when the lease ends.
          const claimed = await this.stores.notifications.update({ _id: doc._id, deliverAt: doc.deliverAt }, { $set: { deliverAt: Date.now() + DELIVERY_LEASE_MS } });
          if (!claimed) continue;
          const abort = new AbortController();
          const sending = this.deliverOne(doc, abort.signal)
            .catch((err) => this.logger.warn(`push of ${doc._id} failed to record`, err))
            .finally(() => {
              this.sending.delete(abort);
              void this.deliver();
            });
          this.sending.set(abort, sending);
        }
      }
    },

    async deliverOne(this: NotifierThis, doc: NotificationDoc, signal: AbortSignal) {
      const bot = this.bot;
      if (!bot || doc.chatId === undefined) return;
      const attempts = doc.attempts + 1;
      try {
        await bot.sendMessage(doc.chatId, telegramText(doc), signal);
      } catch (err) {
        if (signal.aborted) {
          // Shutting down: hand the push back so the next start sends it without waiting for the lease.
          await this.stores.notifications.update({ _id: doc._id }, { $set: { deliverAt: Date.now() } });
          return;
        }
        const failure = classifyFailure(err);
        const delay = nextRetryDelay(this.policy, attempts, failure);
        if (delay === null) {
          this.logger.warn(`Telegram push of ${doc._id} given up after ${attempts} attempt(s): ${failure.reason}`);
          await this.stores.notifications.update({ _id: doc._id }, { $set: { delivery: "failed", attempts, lastError: failure.reason }, $unset: { deliverAt: true } });
        } else {
          await this.stores.notifications.update({ _id: doc._id }, { $set: { attempts, lastError: failure.reason, deliverAt: Date.now() + delay } });
          this.later(delay, () => this.deliver());
        }
        return;
      }
      await this.stores.notifications.update(
        { _id: doc._id },
        { $set: { delivered: true, delivery: "delivered", attempts, deliveredAt: new Date().toISOString() }, $unset: { deliverAt: true, lastError: true } },
      );
    },

    later(this: NotifierThis, ms: number, fn: () => unknown) {
      if (this.stopping) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        fn();
      }, ms);
      t.unref();
      this.timers.add(t);
    },
  },

  created() {
    this.cfg = configOf(this.broker);
    this.policy = retryPolicy(configOf(this.broker).notifierRetry);
    const token = this.cfg.telegramBotToken;
    this.bot = token ? grammyClient(token, this.cfg.telegramApiRoot) : null;
    this.cursor = 0;
    this.storedCursor = 0;
    this.stopping = false;
    this.pulling = null;
    this.pullAgain = false;
    this.pullTimer = null;
    this.ledger = "starting";
    this.delivering = null;
    this.deliverAgain = false;
    this.sending = new Map();
    this.timers = new Set();
    this.chatIds = new Map();
    this.titles = new Map();
  },

  async started() {
    await this.stores.notifierCursor.insertOnce({ _id: CURSOR_ID, seq: 0 });
    this.cursor = (await this.stores.notifierCursor.findOne({ _id: CURSOR_ID }))?.seq ?? 0;
    this.storedCursor = this.cursor;
    // Catch up, resume fan-outs and pending pushes in the background: starting never waits on
    // the ledger (it may be another node still starting).
    const poll = setInterval(() => {
      void this.pull();
      void this.runJobs();
    }, POLL_MS);
    const tick = setInterval(() => void this.deliver(), DELIVERY_TICK_MS);
    poll.unref();
    tick.unref();
    this.timers.add(poll).add(tick);
    void this.pull();
    void this.runJobs();
    void this.deliver();
  },

  async stopped() {
    this.stopping = true;
    if (this.pullTimer) clearTimeout(this.pullTimer);
    for (const t of this.timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.timers.clear();
    await Promise.all([this.pulling, this.delivering]);
    for (const abort of this.sending.keys()) abort.abort();
    await Promise.all(this.sending.values());
    if (this.cursor > this.storedCursor) await this.stores.notifierCursor.update({ _id: CURSOR_ID, seq: { $lt: this.cursor } }, { $set: { seq: this.cursor } }).catch(() => undefined);
  },
});

export default NotifierService;
