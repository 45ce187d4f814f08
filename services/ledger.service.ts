import type { Service } from "moleculer";
import { defineService } from "../lib/service";
import { configOf } from "../lib/config";
import { currentUser, type AppContext } from "../mixins/context";
import { DomainError, notFound, validationError } from "../lib/errors";
import type { Posting, PositionState } from "../engine/accounts";
import { formatAvgPrice, formatMicro } from "../engine/money";
import { tradeRecordView, type TradeRecord } from "../engine/settlement";
import type { RestingOrder } from "../engine/types";
import type { BookJournalDoc, IdemRecord, LedgerEntryDoc, MarketLease, OrderDoc, SettlementRecord, TradeDoc } from "../models/trading";
import { page, type Page } from "../lib/paging";
import { PAGE, pageSizeParam } from "../lib/params";
import { Ledger, LedgerFault, type IdemClaim, type MoneyCheck, type PostOutcome } from "../ledger/ledger";
import { openMoneyStore } from "../ledger/money-store";
import { StoreDamaged, type MoneyStore, type OrderQuery } from "../ledger/store";
import { checkHeartbeat } from "../trading/order-rules";
import { Deadlines } from "../ledger/deadlines";
import { newId } from "../lib/ids";
import { createHash } from "node:crypto";
import { verifyAll, verifyChain, type VerifyReport } from "../ledger/verify";

export interface PostParams {
  key: string;
  postings: Posting[];
  idem?: IdemRecord;
  part?: { group: string; index: number; count: number };
  /** The first n postings are a placement lock that must hold on its own. */
  checkAfter?: number;
  trades?: TradeRecord[];
  book?: BookJournalDoc;
  /** false: answer once applied in memory; the caller waits for durability itself (`sync` or `ledger.durable`). */
  durable?: boolean;
}

export type PostResult = PostOutcome;

export const TRADES_DEFAULT_PAGE_SIZE = 20;
export const TRADES_MAX_PAGE_SIZE = 100;

type LedgerThis = Service & {
  store: MoneyStore;
  ledger: Ledger;
  deadlines: Deadlines;
  /** The contract's status for each kind of ledger refusal. */
  fault(err: unknown): never;
  notifyChanges(batch: LedgerEntryDoc[]): void;
};

const STATUS: Record<LedgerFault["kind"], number> = { rejected: 400, conflict: 409, moved: 503, unavailable: 503, restarted: 503 };
const isUser = (account: string) => account.startsWith("usr_");

export function tradeView(t: TradeDoc) {
  return {
    id: t._id,
    ...tradeRecordView(t),
    settlementStatus: t.settlementStatus,
    settlementTxHash: t.settlementTxHash,
    createdAt: t.createdAt,
  };
}

const LedgerService = defineService<LedgerThis>({
  name: "ledger",

  actions: {
    /**
     * Internal: apply one entry exactly once. A repeated key answers `applied: false` and changes
     * nothing; a refused entry (insufficient funds, a stale market writer) changes nothing and is
     * not journaled. Answered once durable unless `durable: false`.
     */
    post: {
      visibility: "public",
      params: {
        key: { type: "string", min: 1, max: 200 },
        postings: { type: "array", items: "object" },
        checkAfter: { type: "number", integer: true, min: 0, optional: true },
        trades: { type: "array", items: "object", optional: true },
        book: { type: "object", optional: true },
        idem: { type: "object", optional: true },
        part: { type: "object", optional: true, props: { group: "string", index: { type: "number", integer: true, min: 0 }, count: { type: "number", integer: true, min: 2 } } },
        durable: { type: "boolean", optional: true },
      },
      async handler(this: LedgerThis, ctx: AppContext<PostParams>): Promise<PostResult> {
        const { durable, ...entry } = ctx.params;
        let r: PostOutcome;
        try {
          r = this.ledger.post(entry);
        } catch (err) {
          this.fault(err);
        }
        if (durable !== false && r.seq > 0) await this.ledger.waitDurable(r.seq).catch((err) => this.fault(err));
        return r;
      },
    },

    /** Internal: resolves once every entry up to `seq` is durable (of this ledger process, when `instance` is given). */
    sync: {
      visibility: "public",
      params: { seq: { type: "number", integer: true, min: 0 }, instance: { type: "string", optional: true } },
      async handler(this: LedgerThis, ctx: AppContext<{ seq: number; instance?: string }>) {
        await this.ledger.waitDurable(ctx.params.seq, ctx.params.instance).catch((err) => this.fault(err));
        return { durableSeq: this.ledger.durableSeq, instance: this.ledger.instance };
      },
    },

    /** Internal: a market's writer lease for `node` (fences every earlier writer); answered once durable. */
    acquireMarket: {
      visibility: "public",
      params: { marketId: "string", node: "string" },
      async handler(this: LedgerThis, ctx: AppContext<{ marketId: string; node: string }>): Promise<MarketLease & { instance: string }> {
        let r: { lease: MarketLease; seq: number };
        try {
          r = this.ledger.acquire(ctx.params.marketId, ctx.params.node);
        } catch (err) {
          this.fault(err);
        }
        await this.ledger.waitDurable(r.seq).catch((err) => this.fault(err));
        return { ...r.lease, instance: this.ledger.instance };
      },
    },

    /** Internal: a market's lease and journal position as the ledger holds them. */
    lease: {
      visibility: "public",
      params: { marketId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ marketId: string }>): MarketLease {
        return this.ledger.lease(ctx.params.marketId);
      },
    },

    /** Internal: resting orders of a market in time priority, a page at a time (rebuilding its book). */
    restingOrders: {
      visibility: "public",
      params: { marketId: "string", afterPrio: { type: "number", integer: true, min: 0 }, limit: { type: "number", integer: true, min: 1, max: 5000 } },
      handler(this: LedgerThis, ctx: AppContext<{ marketId: string; afterPrio: number; limit: number }>): Promise<RestingOrder[]> {
        return this.store.restingOrders(ctx.params.marketId, ctx.params.afterPrio, ctx.params.limit);
      },
    },

    /** GET /balance */
    balance: {
      auth: "user",
      params: { $$strict: "remove" },
      handler(this: LedgerThis, ctx: AppContext) {
        const b = this.ledger.balance(currentUser(ctx).id);
        return { available: String(b.available), locked: String(b.locked), total: String(b.total) };
      },
    },

    /** GET /positions: open positions with a depth-aware mark price from the book. */
    positions: {
      auth: "user",
      params: { $$strict: "remove" },
      async handler(this: LedgerThis, ctx: AppContext) {
        const user = currentUser(ctx);
        const open = this.ledger.positionsOf(user.id).filter((p) => p.quantity > 0 && !p.settled);
        const markets = await ctx
          .call<Record<string, { title: string; status?: string; result?: string | null }>, { marketIds: string[] }>("catalog.marketTitles", { marketIds: [...new Set(open.map((p) => p.marketId))] })
          .catch(() => ({}) as Record<string, { title: string; status?: string; result?: string | null }>);
        return Promise.all(
          open.map(async (p: PositionState) => {
            const m = markets[p.marketId];
            // A resolved market pays 1.00 per winning share and nothing per losing one: that is its mark.
            const exit =
              m?.status === "resolved" && (m.result === "YES" || m.result === "NO")
                ? { filled: p.quantity, proceeds: m.result === p.outcome ? p.quantity : 0 }
                : await ctx.call<{ filled: number; proceeds: number }, object>("book.exitQuote", { marketId: p.marketId, outcome: p.outcome, quantity: p.quantity, userId: user.id }).catch(() => ({ filled: 0, proceeds: 0 }));
            const markPrice = exit.filled > 0 ? formatAvgPrice(exit.proceeds, exit.filled) : null;
            // unrealizedPnl = (mark - avgEntry) x quantity = mark x q - totalCost, exact in micro-units.
            const unrealized = exit.filled > 0 ? Number((BigInt(exit.proceeds) * BigInt(p.quantity)) / BigInt(exit.filled)) - p.totalCost : null;
            return {
              id: `${p.marketId}:${p.outcome}`,
              marketId: p.marketId,
              outcome: p.outcome,
              quantity: String(p.quantity),
              lockedQuantity: String(p.locked),
              avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity),
              totalCost: String(p.totalCost),
              realizedPnl: String(p.realizedPnl),
              status: p.settled ? "settled" : "open",
              market: { id: p.marketId, title: markets[p.marketId]?.title ?? null },
              markPrice,
              unrealizedPnl: unrealized === null ? null : String(unrealized),
            };
          }),
        );
      },
    },

    /** GET /trades: newest first. */
    listTrades: {
      auth: "user",
      params: {
        page: PAGE,
        pageSize: pageSizeParam(TRADES_DEFAULT_PAGE_SIZE, TRADES_MAX_PAGE_SIZE),
        $$strict: "remove",
      },
      async handler(this: LedgerThis, ctx: AppContext<{ page: number; pageSize: number }>): Promise<Page<ReturnType<typeof tradeView>>> {
        const { page: pageNo, pageSize } = ctx.params;
        const { items, total } = await this.store.trades(currentUser(ctx).id, pageNo, pageSize);
        return page(items.map(tradeView), total, pageNo, pageSize);
      },
    },

    /** GET /trades/:id: only the caller's own trades exist for the caller. */
    getTrade: {
      auth: "user",
      params: { id: { type: "string", min: 1, max: 100 }, $$strict: "remove" },
      async handler(this: LedgerThis, ctx: AppContext<{ id: string }>) {
        const t = await this.store.trade(ctx.params.id);
        if (!t || t.userId !== currentUser(ctx).id) throw notFound("Trade");
        return tradeView(t);
      },
    },

    /** Internal: settlement progress of trades (the chain service), journaled like every fact of the money path. */
    markSettlement: {
      visibility: "public",
      params: { tradeIds: { type: "array", items: "string" }, status: { type: "enum", values: ["confirmed", "failed"] }, txHash: { type: "string", optional: true } },
      async handler(this: LedgerThis, ctx: AppContext<{ tradeIds: string[]; status: SettlementRecord["status"]; txHash?: string }>) {
        const { tradeIds, status, txHash } = ctx.params;
        if (!tradeIds.length) return { updated: 0 };
        const ids = [...tradeIds].sort();
        const key = `settlement:${status}:${txHash ?? "-"}:${ids[0]}:${ids.length}`;
        try {
          const r = this.ledger.post({ key, postings: [], settlement: { tradeIds: ids, status, txHash: txHash ?? null } });
          await this.ledger.waitDurable(r.seq);
        } catch (err) {
          this.fault(err);
        }
        return { updated: ids.length };
      },
    },

    /**
     * Internal (operator API, REPL): the money check. Conservation, and every order's filled + open +
     * cancelled = quantity, every user's locked = what their open orders hold, every market's journal
     * positions contiguous under writer epochs that never go back.
     */
    conservation: {
      visibility: "public",
      handler(this: LedgerThis): Promise<MoneyCheck> {
        return this.ledger.check();
      },
    },

    /** Internal (operator API, REPL): the whole journal's hash chain, replayed and compared with the books and read models. */
    verify: {
      visibility: "public",
      async handler(this: LedgerThis): Promise<VerifyReport> {
        await this.ledger.idle();
        return verifyAll(this.store, { accounts: this.ledger.snapshotAccounts(), leases: this.ledger.leases() });
      },
    },

    /** Internal: raw state of an account (tests, operators, other services). */
    account: {
      visibility: "public",
      params: { account: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ account: string }>) {
        return { balance: this.ledger.balance(ctx.params.account), positions: this.ledger.positionsOf(ctx.params.account) };
      },
    },

    /** Internal: a market's book commands after a journal position, in order (audits, tests). */
    bookEntries: {
      visibility: "public",
      params: { marketId: "string", afterSeq: { type: "number", integer: true, min: 0 }, limit: { type: "number", integer: true, min: 1, max: 10000, optional: true, default: 10000 } },
      async handler(this: LedgerThis, ctx: AppContext<{ marketId: string; afterSeq: number; limit: number }>): Promise<BookJournalDoc[]> {
        await this.ledger.idle();
        return this.store.bookEntries(ctx.params.marketId, ctx.params.afterSeq, ctx.params.limit);
      },
    },

    /** Internal: a user's open orders (GET /orders). */
    openOrders: {
      visibility: "public",
      params: { userId: "string", marketId: { type: "string", optional: true } },
      async handler(this: LedgerThis, ctx: AppContext<{ userId: string; marketId?: string }>): Promise<OrderDoc[]> {
        const { items } = await this.store.orders({ userId: ctx.params.userId, marketId: ctx.params.marketId, status: "open", page: 1, pageSize: 1_000_000 });
        return items;
      },
    },

    /** Internal: a user's orders, newest first, filtered and paged (GET /orders). */
    orders: {
      visibility: "public",
      params: { userId: "string", marketId: { type: "string", optional: true }, status: { type: "enum", values: ["open", "closed", "all"] }, clientOrderId: { type: "string", optional: true }, page: "number", pageSize: "number" },
      handler(this: LedgerThis, ctx: AppContext<OrderQuery>): Promise<{ items: OrderDoc[]; total: number }> {
        return this.store.orders(ctx.params);
      },
    },

    /** Internal: markets where the user has open orders (cancel-all, a lapsed heartbeat). */
    openMarketsOf: {
      visibility: "public",
      params: { userId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ userId: string }>): Promise<string[]> {
        return this.store.openMarketsOf(ctx.params.userId);
      },
    },

    /** Internal (the idempotency layer): the stored answer of an Idempotency-Key, or the right to execute. */
    idemClaim: {
      visibility: "public",
      params: { scope: "string", key: { type: "string", max: 300 }, fingerprint: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ scope: string; key: string; fingerprint: string }>): Promise<IdemClaim> {
        return this.ledger.idemClaim(ctx.params.scope, ctx.params.key, ctx.params.fingerprint).catch((err) => this.fault(err));
      },
    },

    idemRelease: {
      visibility: "public",
      params: { scope: "string", key: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ scope: string; key: string }>) {
        this.ledger.idemRelease(ctx.params.scope, ctx.params.key);
        return { released: true };
      },
    },

    /** Internal: the answer of an idempotent request whose command journaled none (withdrawals, redemptions). */
    idemAnswer: {
      visibility: "public",
      params: { scope: "string", key: "string", fingerprint: "string", status: "number", response: "any" },
      async handler(this: LedgerThis, ctx: AppContext<IdemRecord>) {
        const idem = ctx.params;
        try {
          const r = this.ledger.post({ key: `idem:${idem.scope}:${createHash("sha256").update(idem.key).digest("hex")}`, postings: [], idem });
          await this.ledger.waitDurable(r.seq);
        } catch (err) {
          this.fault(err);
        }
        return { stored: true };
      },
    },

    /**
     * POST /heartbeats: arms (or with 0 disarms) the caller's dead man's switch. Journaled, so a
     * restart keeps it; when no heartbeat comes in time every open order of the caller is cancelled.
     */
    heartbeat: {
      auth: "user",
      params: { timeoutSeconds: { type: "number", integer: true, min: 0, max: 300 }, $$strict: "remove" },
      async handler(this: LedgerThis, ctx: AppContext<{ timeoutSeconds: number }>) {
        const userId = currentUser(ctx).id;
        const t = checkHeartbeat(ctx.params.timeoutSeconds);
        if (!t.ok) throw validationError(t.message, t.fields);
        const deadline = t.value ? new Date(Date.now() + t.value * 1000).toISOString() : null;
        try {
          const r = this.ledger.post({ key: `heartbeat:${userId}:${newId("hb")}`, postings: [], heartbeat: { userId, timeoutSeconds: t.value, deadline } });
          await this.ledger.waitDurable(r.seq);
        } catch (err) {
          this.fault(err);
        }
        return { armed: deadline !== null, expiresAt: deadline };
      },
    },

    /** Internal: one order's read model. */
    getOrder: {
      visibility: "public",
      params: { orderId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ orderId: string }>): Promise<OrderDoc | null> {
        return this.store.order(ctx.params.orderId);
      },
    },

    /** Internal: holders of a market's positions (redemption, refunds, notices). */
    holders: {
      visibility: "public",
      params: { marketId: "string" },
      handler(this: LedgerThis, ctx: AppContext<{ marketId: string }>) {
        return this.ledger.holders(ctx.params.marketId);
      },
    },

    /** Internal: durable journal entries with seq > `seq`, in seq order (durable cursors of the notifier and the chain). */
    entriesAfter: {
      visibility: "public",
      params: { seq: { type: "number", integer: true, min: 0 }, limit: { type: "number", integer: true, min: 1, max: 1000, optional: true, default: 200 } },
      async handler(this: LedgerThis, ctx: AppContext<{ seq: number; limit: number }>): Promise<LedgerEntryDoc[]> {
        return this.ledger.recentAfter(ctx.params.seq, ctx.params.limit) ?? this.store.entriesAfter(ctx.params.seq, ctx.params.limit);
      },
    },
  },

  methods: {
    fault(err: unknown): never {
      if (err instanceof LedgerFault) throw new DomainError(err.message, STATUS[err.kind], err.code);
      throw err;
    },

    /**
     * Broadcast: every gateway pushes to its own sockets; consumers treat these as hints. The
     * durability watermark first (engines acknowledge their orders on it), then one balance and
     * one position update per user per written batch, with the state after it.
     */
    notifyChanges(this: LedgerThis, batch: LedgerEntryDoc[]) {
      this.broker.broadcast("ledger.durable", { instance: this.ledger.instance, seq: batch[batch.length - 1].seq });
      const users = new Set<string>();
      const positions = new Map<string, { userId: string; marketId: string; outcome: "YES" | "NO" }>();
      const trades: TradeRecord[] = [];
      for (const d of batch) {
        for (const p of d.postings) {
          if (p.kind === "cash" && isUser(p.account)) users.add(p.account);
          if (p.kind === "shares" && isUser(p.account)) positions.set(`${p.account}|${p.marketId}|${p.outcome}`, { userId: p.account, marketId: p.marketId, outcome: p.outcome });
        }
        if (d.trades) trades.push(...d.trades);
      }
      for (const userId of users) {
        const b = this.ledger.balance(userId);
        this.broker.broadcast("ledger.balanceChanged", { userId, balance: { available: String(b.available), locked: String(b.locked), total: String(b.total) } });
      }
      for (const { userId, marketId, outcome } of positions.values()) {
        const p = this.ledger.positionsOf(userId).find((x) => x.marketId === marketId && x.outcome === outcome);
        if (p) this.broker.broadcast("ledger.positionChanged", { userId, position: { marketId, outcome, quantity: String(p.quantity), avgEntryPrice: formatAvgPrice(p.totalCost, p.quantity), totalCost: String(p.totalCost), realizedPnl: String(p.realizedPnl) } });
      }
      for (const t of trades) if (isUser(t.userId)) this.broker.broadcast("ledger.tradeCreated", { userId: t.userId, trade: { ...t, totalCostDecimal: formatMicro(t.totalCost) } });
    },
  },

  async started() {
    this.store = await openMoneyStore(configOf(this.broker));
    try {
      this.ledger = await Ledger.open(this.store, {
        committed: (docs) => {
          this.notifyChanges(docs);
          for (const d of docs) {
            const c = d.book?.command;
            if (c?.type === "place" && c.order.expiresAt) this.deadlines?.noteExpiry(c.order.expiresAt);
            if (d.heartbeat) this.deadlines?.heartbeat(d.heartbeat.userId, d.heartbeat.deadline);
          }
        },
      });
      // A changed, missing or reordered entry anywhere stops the start, naming it.
      const chain = await verifyChain(this.store);
      if (!chain.ok) throw new StoreDamaged(`ledger journal: ${chain.problems.slice(0, 5).join("; ")}`);
      const check = await this.ledger.check();
      if (!check.ok) {
        const what = [
          ...check.badOrders.slice(0, 3).map((o) => `order ${o.orderId} holds filled ${o.filled} + open ${o.remaining} + cancelled ${o.cancelled} of ${o.quantity}`),
          ...check.badLocks.slice(0, 3).map((l) => `account ${l.account}${l.marketId ? ` ${l.marketId} ${l.outcome}` : ""} has ${l.locked} locked while its open orders hold ${l.heldByOrders}`),
          ...check.badPositions.slice(0, 3).map((p) => `market ${p.marketId} position ${p.position} ${p.problem}`),
          ...(check.unbalancedMarkets.length ? [`markets whose shares and collateral disagree: ${check.unbalancedMarkets.slice(0, 5).join(", ")}`] : []),
        ];
        if (!what.length) what.push(`conservation does not hold: cash ${check.cash} + collateral ${check.collateral} + fees ${check.fees} != deposits ${check.deposits} - withdrawals ${check.withdrawals} + house ${check.house}`);
        throw new StoreDamaged(`the money store ${this.store.location} does not add up: ${what.join("; ")}`);
      }
      this.logger.info(`ledger: ${this.ledger.lastSeq} journal entries verified in ${chain.ms} ms (${this.store.location})`);
      const broker = this.broker;
      const store = this.store;
      const ledger = this.ledger;
      this.deadlines = new Deadlines({
        now: () => Date.now(),
        dueExpiries: (nowIso, limit) => store.dueExpiries(nowIso, limit),
        nextExpiry: () => store.nextExpiry(),
        heartbeats: () => store.heartbeats(),
        expire: async (marketId, orderIds) => {
          await broker.call("book.cancelMany", { marketId, orderIds, reason: "expired" });
        },
        lapse: async (userId, at) => {
          for (const marketId of await store.openMarketsOf(userId)) await broker.call("book.cancelMany", { marketId, userId, reason: "heartbeat" });
          // Disarmed once it fired, unless a heartbeat re-armed it meanwhile.
          if (this.deadlines.armed(userId) !== at) return;
          const r = ledger.post({ key: `heartbeat:${userId}:${newId("hb")}`, postings: [], heartbeat: { userId, timeoutSeconds: 0, deadline: null } });
          await ledger.waitDurable(r.seq);
        },
        log: (message, err) => this.logger.warn(message, (err as Error)?.message ?? ""),
      });
      // Deadlines that passed while the exchange was down fire now (once the engines answer).
      void this.deadlines.start().catch((err) => this.logger.warn("deadlines could not start", err));
    } catch (err) {
      this.store.close();
      throw err;
    }
  },

  async stopped() {
    this.deadlines?.stop();
    if (!this.ledger) return;
    await this.ledger.idle();
    this.store.close();
  },
});

export default LedgerService;
