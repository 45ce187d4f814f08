import type { Service, ServiceSchema } from "moleculer";
import { Api } from "grammy";
import { defineService } from "../mixins/service";
import { portCall } from "../mixins/port-call";
import { type ActionResult, type HandlerParams, emit, internalAction, routeAction } from "../contract";
import { configOf } from "../lib/config";
import { throwWire, validationError } from "../lib/errors";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import { page } from "../lib/paging";
import { notificationItem, type NotifierCollections } from "../models/notification";
import { Notifier } from "../notifier/notifier";
import { Delivery, type BotClient } from "../notifier/delivery";
import { notifierStorePorts, outboxOf } from "../notifier/store";
import { retryPolicy } from "../notifier/policy";
import { journalGrowthOf, journalSource, type JournalSource } from "../mixins/journal";

/** Fallback pull and job retry period; broker events only make pulls happen sooner. */
const POLL_MS = 2_000;
/** Scan for due deliveries (restart, expired leases, other instances' retries). */
const DELIVERY_TICK_MS = 1_000;

type GrammySignal = Parameters<Api["sendMessage"]>[3];

function grammyClient(token: string, apiRoot: string): BotClient {
  // grammy's own timeout bounds a hung Bot API; the signal ends a send at shutdown.
  const api = new Api(token, { apiRoot, timeoutSeconds: 10 });
  return { sendMessage: (chatId, text, signal) => api.sendMessage(chatId, text, undefined, signal as unknown as GrammySignal) };
}

/** A timer that does not hold the process open. */
function after(ms: number, fn: () => void): () => void {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
}

type NotifierThis = Service &
  DbState<NotifierCollections> & {
    notifier: Notifier;
    delivery: Delivery | null;
    /** The journal position read up to (the notifier's; tests rewind it). */
    cursor: number;
    timers: NodeJS.Timeout[];
    /** Stops following the shared count of commits (the embedded side node). */
    watching: { stop(): void } | null;
    journal: JournalSource;
  };

const NotifierService = defineService<NotifierThis>({
  name: "notifier",
  mixins: [
    createDbMixin<NotifierCollections>({
      notifications: [{ fields: { userId: 1, createdAt: -1 } }, { fields: { deliverAt: 1 }, sparse: true }],
      notifierCursor: [],
      notifierJobs: [],
      notifierSettings: [],
    }),
  ],

  // Every action's refusal (the core's and its ports') leaves as the broker's error.
  hooks: { error: { "*": (_ctx: AppContext, err: unknown) => throwWire(err) } },

  actions: {
    /** GET /notifications: the caller's, newest first. */
    list: {
      ...routeAction("notifier.list"),
      async handler(this: NotifierThis, ctx: AppContext<HandlerParams<"notifier.list">>): Promise<ActionResult<"notifier.list">> {
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
      ...routeAction("notifier.markRead"),
      async handler(this: NotifierThis, ctx: AppContext<HandlerParams<"notifier.markRead">>): Promise<ActionResult<"notifier.markRead">> {
        const user = currentUser(ctx);
        const { ids, all } = ctx.params;
        if (all !== true && !ids?.length) throw validationError("Give ids (non-empty) or all: true", [{ field: "ids", rule: "required" }]);
        const q: Record<string, unknown> = { userId: user.id, read: false };
        if (all !== true) q._id = { $in: ids };
        const updated = await this.stores.notifications.update(q, { $set: { read: true } }, { multi: true });
        return { updated, unread: await this.stores.notifications.count({ userId: user.id, read: false }) };
      },
    },

    /** GET /account/notification-settings: which kinds the bot pushes to the caller. */
    getSettings: {
      ...routeAction("notifier.getSettings"),
      async handler(
        this: NotifierThis,
        ctx: AppContext<HandlerParams<"notifier.getSettings">>,
      ): Promise<ActionResult<"notifier.getSettings">> {
        return { push: await this.notifier.pushSettings(currentUser(ctx).id) };
      },
    },

    /** PATCH /account/notification-settings: kinds turned on or off; the others keep their setting. */
    setSettings: {
      ...routeAction("notifier.setSettings"),
      async handler(
        this: NotifierThis,
        ctx: AppContext<HandlerParams<"notifier.setSettings">>,
      ): Promise<ActionResult<"notifier.setSettings">> {
        return { push: await this.notifier.setPushSettings(currentUser(ctx).id, ctx.params.push) };
      },
    },

    /**
     * Internal: a settlement batch's outcome (the chain service, until this call succeeds): one
     * notification per owner and market of the batch's trades, however often it is told.
     */
    tradeSettled: {
      ...internalAction("notifier.tradeSettled"),
      async handler(
        this: NotifierThis,
        ctx: AppContext<HandlerParams<"notifier.tradeSettled">>,
      ): Promise<ActionResult<"notifier.tradeSettled">> {
        return { created: await this.notifier.settle(ctx.params) };
      },
    },

    /** Internal: read the journal up to its end and push what is due now (tests, operators). */
    catchUp: {
      ...internalAction("notifier.catchUp"),
      async handler(this: NotifierThis): Promise<ActionResult<"notifier.catchUp">> {
        await this.notifier.pull();
        await this.notifier.runJobs();
        return { cursor: this.notifier.cursor };
      },
    },
  },

  events: {
    // A ledger (re)joining: catch up at once instead of at the next poll.
    "$services.changed"(this: NotifierThis) {
      this.notifier.servicesChanged();
    },
    // Hints only: the journal cursor is the source of truth for fills and money movements. A
    // burst of hints is one pull a moment later (one notifications write per burst, not per fill).
    "ledger.tradeCreated"(this: NotifierThis) {
      this.notifier.pullSoon();
    },
    "ledger.balanceChanged"(this: NotifierThis) {
      this.notifier.pullSoon();
    },
    // A group commit's changes in one message (ledger/changes.ts): the same hint. On the embedded
    // side node the main node's count of commits wakes the notifier instead (see `merged`).
    "ledger.committed"(this: NotifierThis) {
      this.notifier.pullSoon();
    },
    // The engines' orders that ended unfilled: only cancels the user did not make notify.
    async "orders.closed"(this: NotifierThis, ctx) {
      for (const u of ctx.params.updates) await this.notifier.orderUpdated(u);
    },
    "market.resolved"(this: NotifierThis, ctx) {
      return this.notifier.marketResolved(ctx.params);
    },
    "market.cancelled"(this: NotifierThis, ctx) {
      return this.notifier.marketCancelled(ctx.params);
    },
    "market.resolutionProposed"(this: NotifierThis, ctx) {
      return this.notifier.resolutionNotice("resolutionProposed", ctx.params);
    },
    "market.resolutionDisputed"(this: NotifierThis, ctx) {
      return this.notifier.resolutionNotice("resolutionDisputed", ctx.params);
    },
    "order.updated"(this: NotifierThis, ctx) {
      return this.notifier.orderUpdated(ctx.params);
    },
    "chain.withdrawalSent"(this: NotifierThis, ctx) {
      return this.notifier.withdrawalSent(ctx.params);
    },
    "chain.withdrawalFailed"(this: NotifierThis, ctx) {
      return this.notifier.withdrawalFailed(ctx.params);
    },
    "auth.telegramLinked"(this: NotifierThis, ctx) {
      this.notifier.telegramLinked(ctx.params.userId, ctx.params.chatId);
    },
  },

  /** Woken by the shared count of commits, the side node does not have every commit's changes sent to it. */
  merged(this: NotifierThis, schema: ServiceSchema) {
    if (!journalGrowthOf(this.broker) || !schema.events) return;
    schema.events = { ...schema.events };
    delete schema.events["ledger.committed"];
  },

  created() {
    const cfg = configOf(this.broker);
    // The stores open when the service starts: read them at each call.
    const stores = () => this.stores;
    const log = {
      info: (m: string) => this.logger.info(m),
      warn: (m: string, err?: unknown) => (err === undefined ? this.logger.warn(m) : this.logger.warn(m, err)),
    };
    this.delivery = cfg.telegramBotToken
      ? new Delivery({
          bot: grammyClient(cfg.telegramBotToken, cfg.telegramApiRoot),
          outbox: outboxOf(stores),
          policy: retryPolicy(cfg.notifierRetry),
          now: Date.now,
          after,
          log,
        })
      : null;
    const journal = (this.journal = journalSource(this.broker));
    this.notifier = new Notifier({
      ...notifierStorePorts(stores),
      ledger: {
        reachable: () => this.broker.registry.actions.isAvailable("ledger.entriesAfter"),
        entriesAfter: (seq, limit) => journal.entriesAfter(seq, limit),
        holders: (marketId) => portCall(this.broker, "ledger.holders", { marketId }),
      },
      market: (marketId) => portCall(this.broker, "catalog.getMarketInternal", { marketId }),
      user: (userId) => portCall(this.broker, "auth.getUser", { userId }),
      created: (userId, notification) => emit(this.broker, "notifier.created", { userId, notification }),
      delivery: this.delivery,
      now: Date.now,
      after,
      log,
    });
    Object.defineProperty(this, "cursor", { get: () => this.notifier.cursor, set: (seq: number) => (this.notifier.cursor = seq) });
    this.timers = [];
  },

  async started() {
    await this.notifier.start();
    // Catch up, resume fan-outs and pending pushes in the background: starting never waits on
    // the ledger (it may be another node still starting).
    const poll = setInterval(() => {
      void this.notifier.pull();
      void this.notifier.runJobs();
    }, POLL_MS);
    const tick = setInterval(() => void this.delivery?.deliver(), DELIVERY_TICK_MS);
    poll.unref();
    tick.unref();
    this.timers.push(poll, tick);
    const growth = journalGrowthOf(this.broker);
    this.watching = growth ? { stop: growth.watch(() => this.notifier.pullSoon()) } : null;
    void this.notifier.pull();
    void this.notifier.runJobs();
    void this.delivery?.deliver();
  },

  async stopped() {
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.watching?.stop();
    await Promise.all([this.notifier.stop(), this.delivery?.stop()]);
    this.journal.close();
  },
});

export default NotifierService;
