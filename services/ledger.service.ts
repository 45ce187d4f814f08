import type { Service } from "moleculer";
import { defineService } from "../mixins/service";
import { portCall } from "../mixins/port-call";
import {
  type ActionResult,
  type Answer,
  type HandlerParams,
  type PostParams,
  broadcast,
  call,
  durableGroup,
  emit,
  emitDurable,
  internalAction,
  routeAction,
} from "../contract";
import { configOf } from "../lib/config";
import { currentUser, type AppContext } from "../mixins/context";
import { throwWire, wireError } from "../lib/errors";
import { GatheredChanges } from "../ledger/changes";
import { LedgerCores } from "../ledger/ledger-cores";
import type { LedgerDesk } from "../ledger/desk";
import { openMoneyStore } from "../ledger/money-store";
import { positionsView } from "../ledger/positions";
import { convertPositions, type ConversionPorts } from "../ledger/conversions";
import { newId } from "../lib/ids";
import { METRIC } from "../lib/metrics";
import {
  eventPoolPrices,
  eventPoolPricesAround,
  eventPoolPrint,
  eventPoolQuote,
  eventPoolSnapshot,
  eventPoolTrade,
  eventPoolView,
  type EventPoolPorts,
} from "../ledger/event-pools";
import type { PostOutcome, RouteExecution, TopOfBook, VerifyReport } from "../models/trading";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { MarketClock } from "../catalog/clock";
import { dayOf, RewardsDesk, type RewardCollections } from "../ledger/rewards";
import type { RestingOrder } from "../engine/types";
import { isRefusal } from "../engine/refusal";
import { OrderGroups, type GroupCancel } from "../trading/order-groups";
import { reopenSetting, strictest } from "../trading/trading-modes";
import { CATALOG_FACTS_TTL_MS, CatalogFacts } from "../mixins/catalog-facts";

type LedgerThis = Service &
  DbState<RewardCollections> & {
    cores?: LedgerCores;
    /** The event groups `ledger.durable` is heard under now (read again when services change). */
    durableGroups?: Set<string> | null;
    /** The cores' requests (set once started). */
    desk: LedgerDesk;
    /** Liquidity rewards and maker rebates (ledger/rewards.ts), run by `rewardClock`. */
    rewards: RewardsDesk;
    rewardClock?: MarketClock;
    /** Order groups (trading/order-groups.ts) and the market of each of their open orders. */
    groups: OrderGroups;
    groupMarkets: Map<string, string>;
    cancelGroup(c: GroupCancel): Promise<void>;
    /** End of the post-only window after this start (ms since the epoch; 0: none), as the engines keep it. */
    reopenUntil: number;
    postHere(entry: PostParams, fromNode: string): PostOutcome;
    loadGroups(): Promise<void>;
    finishCancel(c: GroupCancel): Promise<void>;
    groupsStopped?: boolean;
    /** The catalog's facts as the live prices read them (kept, forgotten on `catalog.marketChanged`). */
    catalogFacts: CatalogFacts;
    /** Races whose prices are about to be published (ledger/event-pools.ts): once per burst of changes. */
    racesRepricing: Set<string>;
    repriceRace(ctx: AppContext, eventId: string, marketId: string): void;
  };

/** How long a race's outcome changes are gathered before its prices are published. */
const RACE_REPRICE_MS = 50;

/** The event pools' ports on this ledger and the caller's context (the catalog's facts). */
function poolPorts(svc: LedgerThis, ctx: AppContext): EventPoolPorts {
  const ledger = svc.desk.ledger;
  return {
    market: (marketId) => portCall(ctx, "catalog.getMarketInternal", { marketId }),
    event: (eventId) => portCall(ctx, "catalog.getEventInternal", { eventId }),
    balance: (account) => ledger.balance(account),
    positionsOf: (account) => ledger.positionsOf(account),
    post: (entry) => ledger.post(entry),
    waitDurable: (seq) => ledger.waitDurable(seq),
    // The exchange-wide mode and the post-only window after a start: a pool trade is a taker's as an AMM trade is.
    exchangeMode: async () => strictest(await portCall(ctx, "catalog.exchangeMode"), reopenSetting(svc.reopenUntil, Date.now())),
    feeBps: configOf(svc.broker).ammFeeBps,
    newId,
  };
}

/**
 * After a trade against an event's pool: its print for the catalog's price history, and the new
 * prices of every market of the event (the pool moved them all, the books did not) for the
 * sockets. Best effort, after the answer: a failure costs a push, never the trade.
 */
async function publishEventPoolTrade(
  svc: LedgerThis,
  ctx: AppContext<HandlerParams<"ledger.eventPoolRoute">>,
  r: RouteExecution,
): Promise<void> {
  try {
    // Counted as the actor counts a market order's pool leg: the order by its mode, one AMM fill.
    svc.broker.metrics.increment(METRIC.orders, { kind: ctx.params.mode.toLowerCase(), result: "accepted" });
    svc.broker.metrics.increment(METRIC.fills, { kind: "amm" });
    emit(ctx, "market.trade", eventPoolPrint(ctx.params, r, new Date().toISOString()));
    await publishEventPoolPrices(svc, ctx, ctx.params.marketId);
  } catch (err) {
    svc.logger.warn(`event pool trade ${r.tradeId}: prices not published: ${(err as Error).message}`);
  }
}

/** The new prices of every market of this market's race (its pool moved them all) for the sockets. */
async function publishEventPoolPrices(svc: LedgerThis, ctx: AppContext, marketId: string): Promise<void> {
  const pooled = await eventPoolPricesAround(poolPorts(svc, ctx), marketId);
  const ids = Object.keys(pooled);
  if (!ids.length) return;
  const top = await portCall(ctx, "book.topOfBook", { marketIds: ids }).catch(() => ({}) as Record<string, TopOfBook | undefined>);
  for (const id of ids)
    broadcast(ctx, "market.pricesChanged", {
      marketId: id,
      yesBid: top[id]?.yesBid ?? null,
      yesAsk: top[id]?.yesAsk ?? null,
      ammYes: pooled[id],
    });
}

/**
 * The money path's single writer: a shell over the ledger's cores (ledger/ledger-cores.ts). Its
 * refusals are the core's Refusals, handed to the broker with their status (lib/errors.ts).
 */
const LedgerService = defineService<LedgerThis>({
  name: "ledger",
  mixins: [
    createDbMixin<RewardCollections>({
      rewardTerms: [],
      rewardScores: [{ fields: { day: 1, marketId: 1 } }],
      rewardFills: [{ fields: { day: 1, marketId: 1 } }],
      rewardEarnings: [{ fields: { day: 1, userId: 1 } }, { fields: { userId: 1 } }],
      rewardMeta: [],
    }),
  ],

  actions: {
    /** POST /order-groups */
    createOrderGroup: {
      ...routeAction("ledger.createOrderGroup"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.createOrderGroup">>): Answer<"ledger.createOrderGroup"> {
        return this.groups.create(currentUser(ctx).id, ctx.params).catch(throwWire);
      },
    },

    /** GET /order-groups */
    listOrderGroups: {
      ...routeAction("ledger.listOrderGroups"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.listOrderGroups">>): Answer<"ledger.listOrderGroups"> {
        return this.groups.list(currentUser(ctx).id);
      },
    },

    /** POST /order-groups/:id/reset */
    resetOrderGroup: {
      ...routeAction("ledger.resetOrderGroup"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.resetOrderGroup">>): Answer<"ledger.resetOrderGroup"> {
        return this.groups.reset(ctx.params.id, currentUser(ctx).id).catch(throwWire);
      },
    },

    /** DELETE /order-groups/:id: the group goes, its open orders are cancelled. */
    deleteOrderGroup: {
      ...routeAction("ledger.deleteOrderGroup"),
      async handler(
        this: LedgerThis,
        ctx: AppContext<HandlerParams<"ledger.deleteOrderGroup">>,
      ): Promise<ActionResult<"ledger.deleteOrderGroup">> {
        const gone = await this.groups.remove(ctx.params.id, currentUser(ctx).id).catch(throwWire);
        await this.cancelGroup(gone);
        return { orderGroupId: gone.orderGroupId, cancelled: gone.orderIds };
      },
    },

    /** Internal: may a new order name this group? */
    orderGroupAdmit: {
      ...internalAction("ledger.orderGroupAdmit"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.orderGroupAdmit">>): Answer<"ledger.orderGroupAdmit"> {
        this.groups.admit(ctx.params.orderGroupId, ctx.params.userId);
        return true;
      },
    },

    /** Internal: a placed order joins its group; a fill at once may trigger it. */
    orderGroupJoin: {
      ...internalAction("ledger.orderGroupJoin"),
      async handler(
        this: LedgerThis,
        ctx: AppContext<HandlerParams<"ledger.orderGroupJoin">>,
      ): Promise<ActionResult<"ledger.orderGroupJoin">> {
        const { orderGroupId, orderId, marketId, open, filled } = ctx.params;
        if (open) this.groupMarkets.set(orderId, marketId);
        const t = await this.groups.join(orderGroupId, orderId, open, filled);
        // Answered once the cancel went through, or retried behind the answer (an engine moving).
        if (t) await this.cancelGroup(t).catch(() => void this.finishCancel(t));
        return true;
      },
    },

    /** POST /admin/markets/:id/rewards: a market's liquidity reward terms. */
    setRewardTerms: {
      ...routeAction("ledger.setRewardTerms"),
      async handler(
        this: LedgerThis,
        ctx: AppContext<HandlerParams<"ledger.setRewardTerms">>,
      ): Promise<ActionResult<"ledger.setRewardTerms">> {
        const { id, ...terms } = ctx.params;
        await this.rewards.setTerms(id, terms).catch(throwWire);
        return (
          (await this.rewards.markets()).find((m) => m.marketId === id) ?? {
            marketId: id,
            dailyPool: "0",
            maxSpread: terms.maxSpread,
            minSize: terms.minSize,
          }
        );
      },
    },

    /** POST /admin/rewards/fund: house money into the rewards account. */
    fundRewards: {
      ...routeAction("ledger.fundRewards"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.fundRewards">>): Answer<"ledger.fundRewards"> {
        return this.rewards.fund(Number(ctx.params.amount)).catch(throwWire);
      },
    },

    /** GET /rewards/markets (public). */
    rewardMarkets: {
      ...routeAction("ledger.rewardMarkets"),
      handler(this: LedgerThis): Answer<"ledger.rewardMarkets"> {
        return this.rewards.markets();
      },
    },

    /** GET /rewards/earnings?date= */
    rewardEarnings: {
      ...routeAction("ledger.rewardEarnings"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.rewardEarnings">>): Answer<"ledger.rewardEarnings"> {
        return this.rewards.earnings(currentUser(ctx).id, ctx.params.date);
      },
    },

    /** Internal: the rewards and rebates paid to a user (GET /transfers). */
    rewardPayouts: {
      ...internalAction("ledger.rewardPayouts"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.rewardPayouts">>): Answer<"ledger.rewardPayouts"> {
        return this.rewards.payouts(ctx.params.userId);
      },
    },

    /** GET /orders/:orderId/scoring */
    orderScoring: {
      ...routeAction("ledger.orderScoring"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.orderScoring">>): Answer<"ledger.orderScoring"> {
        return this.rewards.orderScoring(currentUser(ctx).id, ctx.params.orderId).catch(throwWire);
      },
    },

    /**
     * Internal: apply one entry exactly once. A repeated key answers `applied: false` and changes
     * nothing; a refused entry (insufficient funds, a stale market writer) changes nothing and is
     * not journaled. Answered once durable unless `durable: false`.
     */
    post: {
      ...internalAction("ledger.post"),
      async handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.post">>): Promise<ActionResult<"ledger.post">> {
        const { durable, ...entry } = ctx.params;
        let answer: ActionResult<"ledger.post">;
        try {
          answer = await this.desk.post(entry, durable);
        } catch (err) {
          throw wireError(err);
        }
        // The caller waits for the watermark: it is sent to that node (ledger/changes.ts WatermarkAudience).
        if (durable === false && ctx.nodeID) this.cores?.posted(ctx.nodeID, answer.seq, answer.instance);
        return answer;
      },
    },

    /** POST /events/:id/convert: the holder's NO positions across a mutually exclusive event (ledger/conversions.ts). */
    convert: {
      ...routeAction("ledger.convert"),
      async handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.convert">>): Promise<ActionResult<"ledger.convert">> {
        const userId = currentUser(ctx).id;
        const idem = ctx.meta.idem ? { ...ctx.meta.idem, status: 200 } : undefined;
        const ports: ConversionPorts = {
          event: (eventId) => portCall(ctx, "catalog.getEventInternal", { eventId }),
          positionsOf: (account) => this.desk.ledger.positionsOf(account),
          post: (entry) => Promise.resolve(this.desk.post(entry)),
          feeBps: configOf(this.broker).conversionFeeBps,
          newId: () => newId("cnv"),
        };
        const { id: eventId, ...body } = ctx.params;
        const answer = await convertPositions(ports, { userId, eventId, ...body }, idem).catch(throwWire);
        if (idem) ctx.meta.idemJournaled = true;
        return answer;
      },
    },

    /** Internal: a market order against the pool of the market's event (ledger/event-pools.ts); null: none. */
    eventPoolRoute: {
      ...internalAction("ledger.eventPoolRoute"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPoolRoute">>): Answer<"ledger.eventPoolRoute"> {
        return eventPoolTrade(poolPorts(this, ctx), ctx.params)
          .then((r) => {
            if (r && ctx.params.idem) ctx.meta.idemJournaled = true;
            if (r) void publishEventPoolTrade(this, ctx, r);
            return r;
          })
          .catch(throwWire);
      },
    },

    /** Internal: what that order would cost now; null: the market's event has no pool. */
    eventPoolQuote: {
      ...internalAction("ledger.eventPoolQuote"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPoolQuote">>): Answer<"ledger.eventPoolQuote"> {
        return eventPoolQuote(poolPorts(this, ctx), ctx.params).catch(throwWire);
      },
    },

    /** Internal: an event's pool and its prices (operators, tests); null: the event has none. */
    eventPool: {
      ...internalAction("ledger.eventPool"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPool">>): Answer<"ledger.eventPool"> {
        return eventPoolView(poolPorts(this, ctx), ctx.params.eventId).catch(throwWire);
      },
    },

    /** Internal: the pool of a market's race as its actor routes a market order against it; null: none. */
    eventPoolSnapshot: {
      ...internalAction("ledger.eventPoolSnapshot"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPoolSnapshot">>): Answer<"ledger.eventPoolSnapshot"> {
        return eventPoolSnapshot(poolPorts(this, ctx), ctx.params.marketId).catch(throwWire);
      },
    },

    /** Internal: a market order moved a race's pool: its markets' new prices to the sockets (best effort). */
    eventPoolPublish: {
      ...internalAction("ledger.eventPoolPublish"),
      async handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPoolPublish">>): Promise<boolean> {
        await publishEventPoolPrices(this, ctx, ctx.params.marketId).catch((err: Error) =>
          this.logger.warn(`race pool prices of ${ctx.params.marketId} not published: ${err.message}`),
        );
        return true;
      },
    },

    /** Internal: the event pools' YES prices of these markets (the router's live prices). */
    eventPoolPrices: {
      ...internalAction("ledger.eventPoolPrices"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.eventPoolPrices">>): Answer<"ledger.eventPoolPrices"> {
        const p = poolPorts(this, ctx);
        const facts = this.catalogFacts;
        // Read on every listing: the catalog's facts as kept here, not asked per market.
        const read: EventPoolPorts = {
          ...p,
          market: (id) => facts.market(id, () => p.market(id)),
          event: (id) => facts.event(id, () => p.event(id)),
        };
        return eventPoolPrices(read, ctx.params.marketIds).catch(throwWire);
      },
    },

    /** Internal: resolves once every entry up to `seq` is durable (of this ledger process, when `instance` is given). */
    sync: {
      ...internalAction("ledger.sync"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.sync">>): Answer<"ledger.sync"> {
        return this.desk.sync(ctx.params.seq, ctx.params.instance).catch(throwWire);
      },
    },

    /** Internal: a market's writer lease for `node` (fences every earlier writer); answered once durable. */
    acquireMarket: {
      ...internalAction("ledger.acquireMarket"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.acquireMarket">>): Answer<"ledger.acquireMarket"> {
        return this.desk.acquire(ctx.params.marketId, ctx.params.node).catch(throwWire);
      },
    },

    /** Internal: a market's lease and journal position as committed (once none of its entries waits to be written). */
    lease: {
      ...internalAction("ledger.lease"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.lease">>): Answer<"ledger.lease"> {
        return this.desk.committedLease(ctx.params.marketId).catch(throwWire);
      },
    },

    /** Internal: resting orders of a market in time priority, a page at a time (rebuilding its book). */
    restingOrders: {
      ...internalAction("ledger.restingOrders"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.restingOrders">>): Answer<"ledger.restingOrders"> {
        return this.desk.store.restingOrders(ctx.params.marketId, ctx.params.afterPrio, ctx.params.limit);
      },
    },

    /** GET /balance */
    balance: {
      ...routeAction("ledger.balance"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.balance">>): Answer<"ledger.balance"> {
        return this.desk.balance(currentUser(ctx).id);
      },
    },

    /** GET /positions: open positions with a depth-aware mark price from the book. */
    positions: {
      ...routeAction("ledger.positions"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.positions">>): Answer<"ledger.positions"> {
        const userId = currentUser(ctx).id;
        return positionsView(
          userId,
          this.desk.ledger.positionsOf(userId),
          {
            titles: (marketIds) => portCall(ctx, "catalog.marketTitles", { marketIds }).catch(() => ({})),
            exitQuote: (p) => portCall(ctx, "book.exitQuote", p).catch(() => ({ filled: 0, proceeds: 0 })),
          },
          ctx.params.status,
        );
      },
    },

    /** GET /trades: newest first. */
    listTrades: {
      ...routeAction("ledger.listTrades"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.listTrades">>): Answer<"ledger.listTrades"> {
        return this.desk.trades(currentUser(ctx).id, ctx.params.page, ctx.params.pageSize);
      },
    },

    /** GET /trades/:id: only the caller's own trades exist for the caller. */
    getTrade: {
      ...routeAction("ledger.getTrade"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.getTrade">>): Answer<"ledger.getTrade"> {
        return this.desk.trade(currentUser(ctx).id, ctx.params.id).catch(throwWire);
      },
    },

    /** Internal: settlement progress of trades (the chain service), journaled like every fact of the money path. */
    markSettlement: {
      ...internalAction("ledger.markSettlement"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.markSettlement">>): Answer<"ledger.markSettlement"> {
        return this.desk.markSettlement(ctx.params.tradeIds, ctx.params.status, ctx.params.txHash).catch(throwWire);
      },
    },

    /**
     * Internal (operator API, REPL): the money check. Conservation, and every order's filled + open +
     * cancelled = quantity, every user's locked = what their open orders hold, every market's journal
     * positions contiguous under writer epochs that never go back.
     */
    conservation: {
      ...internalAction("ledger.conservation"),
      handler(this: LedgerThis): Answer<"ledger.conservation"> {
        return this.desk.ledger.check();
      },
    },

    /** Internal (operator API, REPL): the whole journal's hash chain, replayed and compared with the books and read models. */
    verify: {
      ...internalAction("ledger.verify"),
      handler(this: LedgerThis): Promise<VerifyReport> {
        return this.desk.verify();
      },
    },

    /** Internal: an operator action, journaled (the gateway's operator routes call it after each change). */
    recordAudit: {
      ...internalAction("ledger.recordAudit"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.recordAudit">>): Answer<"ledger.recordAudit"> {
        return this.desk.audit(ctx.params).catch(throwWire);
      },
    },

    /** GET /admin/audit: operator actions, newest first, paged. */
    auditLog: {
      ...routeAction("ledger.auditLog"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.auditLog">>): Answer<"ledger.auditLog"> {
        return this.desk.auditLog(ctx.params.page, ctx.params.pageSize);
      },
    },

    /** Internal: raw state of an account (tests, operators, other services). */
    account: {
      ...internalAction("ledger.account"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.account">>): Answer<"ledger.account"> {
        return this.desk.account(ctx.params.account);
      },
    },

    /** Internal: a market's book commands after a journal position, in order (audits, tests). */
    bookEntries: {
      ...internalAction("ledger.bookEntries"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.bookEntries">>): Answer<"ledger.bookEntries"> {
        return this.desk.bookEntries(ctx.params.marketId, ctx.params.afterSeq, ctx.params.limit);
      },
    },

    /** Internal: a user's open orders (GET /orders). */
    openOrders: {
      ...internalAction("ledger.openOrders"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.openOrders">>): Answer<"ledger.openOrders"> {
        return this.desk.openOrders(ctx.params.userId, ctx.params.marketId);
      },
    },

    /** Internal: a user's orders, newest first, filtered and paged (GET /orders). */
    orders: {
      ...internalAction("ledger.orders"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.orders">>): Answer<"ledger.orders"> {
        return this.desk.store.orders(ctx.params);
      },
    },

    /** Internal: markets where the user has open orders (cancel-all, a lapsed heartbeat). */
    openMarketsOf: {
      ...internalAction("ledger.openMarketsOf"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.openMarketsOf">>): Answer<"ledger.openMarketsOf"> {
        return this.desk.store.openMarketsOf(ctx.params.userId);
      },
    },

    /** Internal (the idempotency layer): the stored answer of an Idempotency-Key, or the right to execute. */
    idemClaim: {
      ...internalAction("ledger.idemClaim"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.idemClaim">>): Answer<"ledger.idemClaim"> {
        return this.desk.ledger.idemClaim(ctx.params.scope, ctx.params.key, ctx.params.fingerprint).catch(throwWire);
      },
    },

    idemRelease: {
      ...internalAction("ledger.idemRelease"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.idemRelease">>): Answer<"ledger.idemRelease"> {
        this.desk.ledger.idemRelease(ctx.params.scope, ctx.params.key);
        return { released: true };
      },
    },

    /** Internal: the answer of an idempotent request whose command journaled none (withdrawals, redemptions). */
    idemAnswer: {
      ...internalAction("ledger.idemAnswer"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.idemAnswer">>): Answer<"ledger.idemAnswer"> {
        return this.desk.storeAnswer(ctx.params).catch(throwWire);
      },
    },

    /**
     * POST /heartbeats: arms (or with 0 disarms) the caller's dead man's switch. Journaled, so a
     * restart keeps it; when no heartbeat comes in time every open order of the caller is cancelled.
     */
    heartbeat: {
      ...routeAction("ledger.heartbeat"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.heartbeat">>): Answer<"ledger.heartbeat"> {
        return this.desk.heartbeat(currentUser(ctx).id, ctx.params.timeoutSeconds).catch(throwWire);
      },
    },

    /** Internal: one order's read model. */
    getOrder: {
      ...internalAction("ledger.getOrder"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.getOrder">>): Answer<"ledger.getOrder"> {
        return this.desk.store.order(ctx.params.orderId);
      },
    },

    /** Internal: holders of a market's positions (redemption, refunds, notices). */
    holders: {
      ...internalAction("ledger.holders"),
      handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.holders">>): Answer<"ledger.holders"> {
        return this.desk.ledger.holders(ctx.params.marketId);
      },
    },

    /** Internal: durable journal entries with seq > `seq`, in seq order (durable cursors of the notifier and the chain). */
    entriesAfter: {
      ...internalAction("ledger.entriesAfter"),
      async handler(this: LedgerThis, ctx: AppContext<HandlerParams<"ledger.entriesAfter">>): Promise<ActionResult<"ledger.entriesAfter">> {
        return this.desk.entriesAfter(ctx.params.seq, ctx.params.limit);
      },
    },
  },

  events: {
    /** A market's status changed on the catalog: its kept facts are asked again. */
    "catalog.marketChanged"(this: LedgerThis, ctx: AppContext<{ marketId: string }>) {
      this.catalogFacts.forget(ctx.params.marketId);
    },
    // Fills of grouped orders count in their group's window; a group at its limit cancels its orders.
    async "book.published"(this: LedgerThis, ctx) {
      for (const e of ctx.params.events) {
        if (e.name !== "order.updated") continue;
        const o = e.payload;
        const open = o.status === "open" || o.status === "partially_filled";
        const delta = Number(o.filledDelta);
        const t = delta > 0 ? await this.groups.filled(o.orderId, delta, open) : null;
        if (!open) {
          this.groups.left(o.orderId);
          this.groupMarkets.delete(o.orderId);
        }
        if (t) void this.finishCancel(t);
      }
    },
    "$services.changed"(this: LedgerThis) {
      this.durableGroups = null;
    },
    // A race's outcomes changed (one added, one resolved or cancelled): its pool re-prices every other market.
    "market.opened"(this: LedgerThis, ctx) {
      if (ctx.params.eventId) this.repriceRace(ctx, ctx.params.eventId, ctx.params.marketId);
    },
    "catalog.marketLifecycle"(this: LedgerThis, ctx) {
      const { marketId, status } = ctx.params;
      if (status !== "resolved" && status !== "cancelled") return;
      void portCall(ctx, "catalog.getMarketInternal", { marketId })
        .then((m) => m.eventId && this.repriceRace(ctx, m.eventId, marketId))
        .catch((err: Error) => this.logger.warn(`race prices after ${marketId} ${status} not published: ${err.message}`));
    },
  },

  methods: {
    /**
     * The pool's prices of a race's markets to the sockets, as after a pool trade; changes arriving
     * together (an event's markets opened at once, a race resolved in one step) publish once.
     */
    repriceRace(this: LedgerThis, ctx: AppContext, eventId: string, marketId: string): void {
      if (this.racesRepricing.has(eventId)) return;
      this.racesRepricing.add(eventId);
      setTimeout(() => {
        this.racesRepricing.delete(eventId);
        publishEventPoolPrices(this, ctx, marketId).catch((err: Error) =>
          this.logger.warn(`race prices of event ${eventId} not published: ${err.message}`),
        );
      }, RACE_REPRICE_MS).unref();
    },

    /**
     * `ledger.post` for a market actor on this node (mixins/local-ledger.ts): the action's answer
     * before durability, and the watermark sent to that node, without a broker call per order.
     */
    postHere(this: LedgerThis, entry: PostParams, fromNode: string): PostOutcome {
      const answer = this.desk.post(entry, false) as PostOutcome;
      this.cores?.posted(fromNode, answer.seq, answer.instance);
      return answer;
    },

    /**
     * The order groups as the money store keeps them. What a crash interrupted (a trigger whose
     * orders are still open) is finished in the background, once the markets' owners answer.
     */
    async loadGroups(this: LedgerThis): Promise<void> {
      const store = this.desk.store;
      const cancels = await this.groups.load({
        groups: () => store.orderGroups(),
        openOrders: async () => {
          const open = await store.groupOrders();
          for (const o of open) this.groupMarkets.set(o.orderId, o.marketId);
          return open;
        },
        fills: (userId, orderGroupId, after) => store.groupFills(userId, orderGroupId, after),
      });
      for (const c of cancels) void this.finishCancel(c);
    },

    /**
     * A trigger's cancel, retried until the markets' owners take it (an engine moving, a start
     * before the engines): a kill switch whose orders stayed open would be worse than none.
     * Still open at the next start, a triggered group's orders are cancelled then (OrderGroups.load).
     */
    async finishCancel(this: LedgerThis, c: GroupCancel): Promise<void> {
      // Two minutes at most (a refusal that does not pass, a market gone); a restart tries again.
      for (let attempt = 1; attempt <= 240 && !this.groupsStopped; attempt++) {
        try {
          await this.cancelGroup(c);
          return;
        } catch (err) {
          if (attempt === 1 || attempt === 240)
            this.logger.warn(
              `order group ${c.orderGroupId}: cancelling its orders failed${attempt === 1 ? ", retrying" : "; left to the next start"}`,
              (err as Error)?.message,
            );
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    },

    /** A group's open orders cancelled at once, per market (reason order_group). */
    async cancelGroup(this: LedgerThis, c: GroupCancel): Promise<void> {
      const byMarket = new Map<string, string[]>();
      for (const id of c.orderIds) {
        const m = this.groupMarkets.get(id);
        if (!m) continue;
        byMarket.set(m, [...(byMarket.get(m) ?? []), id]);
      }
      await Promise.all(
        [...byMarket].map(async ([marketId, orderIds]) => {
          await call(this.broker, "book.cancelMany", { marketId, userId: c.userId, orderIds, reason: "order_group" });
          for (const id of orderIds) this.groupMarkets.delete(id);
        }),
      );
    },
  },

  created() {
    this.catalogFacts = new CatalogFacts(CATALOG_FACTS_TTL_MS);
    this.groupMarkets = new Map();
    this.racesRepricing = new Set();
    this.groups = new OrderGroups({
      now: Date.now,
      newId,
      // Journaled like a heartbeat: no money, kept in the hash chain and projected by the store.
      record: async (orderGroup) => {
        await this.desk.post({ key: `group:${orderGroup.orderGroupId}:${orderGroup.kind}:${newId("gev")}`, postings: [], orderGroup });
      },
      warn: (message) => this.logger.warn(message),
    });
  },

  async started() {
    const broker = this.broker;
    this.reopenUntil = configOf(broker).reopenPostOnlyMs > 0 ? Date.now() + configOf(broker).reopenPostOnlyMs : 0;
    this.cores = await LedgerCores.open(await openMoneyStore(configOf(broker)), {
      // One broadcast per group commit: every gateway pushes to its own sockets (ledger/changes.ts decides what).
      out: new GatheredChanges({
        durable: (payload) => broadcast(broker, "ledger.durable", payload),
        committed: (payload) => broadcast(broker, "ledger.committed", payload),
      }),
      // The watermark to the engines waiting on it; to every engine when one of them does not listen
      // under its own group (a node of an earlier version, in a rolling upgrade).
      durableTo: (payload, nodes) => {
        const groups = (this.durableGroups ??= new Set(broker.getEventGroups("ledger.durable")));
        if (nodes.every((node) => groups.has(durableGroup(node)))) emitDurable(broker, payload, nodes);
        else broadcast(broker, "ledger.durable", payload);
      },
      cancelMany: async (marketId, which, reason) => {
        await portCall(broker, "book.cancelMany", { marketId, ...which, reason });
      },
      log: {
        info: (message) => this.logger.info(message),
        warn: (message, detail) => (detail === undefined ? this.logger.warn(message) : this.logger.warn(message, detail)),
      },
    });
    this.desk = this.cores.desk;
    this.cores.startDeadlines();
    await this.loadGroups();
    const cfg = configOf(broker);
    const bootMs = Date.now();
    const clockAt = cfg.rewards.clockAtMs;
    const desk = this.desk;
    this.rewards = new RewardsDesk({
      stores: () => this.stores,
      resting: async (marketId) => {
        const out: RestingOrder[] = [];
        for (let after = -1; ;) {
          const page = await desk.store.restingOrders(marketId, after, 1_000);
          out.push(...page);
          if (page.length < 1_000) return out;
          after = page[page.length - 1].seq;
        }
      },
      entriesAfter: (seq, limit) => desk.store.entriesAfter(seq, limit),
      entryByKey: async (key) => {
        const seq = desk.store.keySeq(key);
        return seq === null ? null : ((await desk.store.entriesAfter(seq - 1, 1))[0] ?? null);
      },
      post: async (entry) => desk.post(entry),
      available: (account) => desk.ledger.balance(account).available,
      feeBalance: () => desk.ledger.feeBalance(),
      order: (orderId) => desk.store.order(orderId),
      marketExists: (marketId) =>
        portCall(broker, "catalog.getMarketInternal", { marketId }).then(
          () => true,
          (err: unknown) => (isRefusal(err) && err.kind === "not_found" ? false : Promise.reject(err)),
        ),
      rebateBps: cfg.makerRebateBps,
      newId,
      // The day boundary's clock: real time, or REWARDS_CLOCK_AT running from this start.
      now: clockAt === undefined ? Date.now : () => clockAt + (Date.now() - bootMs),
      dayOfEntry: (at) => (clockAt === undefined ? at.slice(0, 10) : dayOf(Date.parse(at) + clockAt - bootMs)),
      warn: (message) => this.logger.warn(message),
    });
    this.rewardClock = new MarketClock(
      () => this.rewards.tick(),
      cfg.rewards.tickMs,
      (m) => this.logger.warn(`rewards ${m}`),
    );
    this.rewardClock.start();
  },

  async stopped() {
    this.groupsStopped = true;
    await this.rewardClock?.stop();
    await this.cores?.close();
  },
});

export default LedgerService;
