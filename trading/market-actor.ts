import { OrderBook } from "../engine/book";
import type { BookEvent, Order, OrderType, Outcome, Side } from "../engine/types";
import { cost, formatTick, type FeeSchedule } from "../engine/money";
import type { Posting } from "../engine/accounts";
import {
  ammLegPostings,
  placementLock,
  poolFunding,
  releaseResting,
  restingHolds,
  settlePlacement,
  type CancelReasonCode,
  type Settlement,
  type TradeRecord,
} from "../engine/settlement";
import { createPool, poolLiquidityOf, type PoolState } from "../engine/amm";
import { planAmmOnly, planRoute, type RoutePlan } from "../engine/router";
import { SerialQueue } from "../lib/serial";
import { Fault, type FaultKind } from "../lib/fault";
import type {
  BookCommand,
  BookJournalDoc,
  CommittedRestingOrder,
  IdemKey,
  IdemRecord,
  MarketLease,
  OrderStatus,
  PlaceResult,
  CancelManyResult,
  RouteExecution,
  RouteRequest,
} from "../models/trading";

/** What the ledger takes from an actor: one entry per command (or per part of one), its money and its book command together. */
export interface LedgerPost {
  key: string;
  postings: Posting[];
  /** The first n postings are the placement lock (it must hold on its own). */
  checkAfter?: number;
  trades?: TradeRecord[];
  book: BookJournalDoc;
  /** The answer to the request's Idempotency-Key, journaled with the command. */
  idem?: IdemRecord;
  part?: { group: string; index: number; count: number };
}

/** A request's Idempotency-Key: its answer is rendered from the command's result and journaled with it. */
export interface IdemRequest<T> extends IdemKey {
  render(value: T): unknown;
}

export interface LedgerAck {
  applied: boolean;
  seq: number;
  instance: string;
}

/** Orders read back a page at a time when a book is rebuilt. */
const REBUILD_PAGE = 5000;

/**
 * The ledger's code for a write the store refused whole (a full disk): the command was undone
 * there, nothing executed; the actor resumes from what the ledger holds.
 */
export const WRITE_REFUSED = "SERVICE_UNAVAILABLE";

/** The code of a refusal: `type` on a broker error, `code` on a core's own. */
function codeOf(err: unknown): string | undefined {
  const e = err as { type?: unknown; code?: unknown } | null;
  return typeof e?.type === "string" ? e.type : typeof e?.code === "string" ? e.code : undefined;
}

/**
 * Everything an actor needs from the outside world; the book service wires it to the broker. The
 * actor keeps no storage of its own: its journal lives in the ledger's, so a command's book change
 * and its money are one entry, and any engine node can rebuild any market.
 */
export interface MarketPorts {
  fees: FeeSchedule;
  /** The AMM's LP fee in basis points of the cash traded. */
  ammFeeBps: number;
  newId(prefix: string): string;
  /** This node's id, recorded on every journal entry it writes. */
  nodeID: string;
  /** Status and AMM funding of the market, or null when the catalog does not know it. */
  market(marketId: string): Promise<{ status: string; ammLiquidity: number } | null>;
  ledger: {
    /** A writer lease for this node; every earlier writer of the market is refused from now on. */
    acquire(marketId: string): Promise<MarketLease & { instance: string }>;
    /** Resting orders in time priority after `afterPrio` (the book as committed). */
    restingOrders(marketId: string, afterPrio: number, limit: number): Promise<CommittedRestingOrder[]>;
    /** The market's lease as committed (once none of its entries waits to be written). */
    lease(marketId: string): Promise<MarketLease>;
    /** Applies the entry (answered once applied in the ledger's memory, not yet durable). */
    post(entry: LedgerPost): Promise<LedgerAck>;
    /** Resolves once the entry `seq` of ledger process `instance` is durable. */
    durable(seq: number, instance: string): Promise<void>;
  };
  /** Broker events for real time, notifications and price history. */
  publish(doc: BookJournalDoc, actor: MarketActor): void;
}

/**
 * A market as the catalog describes it, as the actor takes it: its status, and its AMM funding in
 * whole lots like every quantity (a remainder below one lot is not used); null for an unknown one.
 */
export function marketInfo(m: { status: string; ammLiquidity?: string } | null): { status: string; ammLiquidity: number } | null {
  if (!m) return null;
  return { status: m.status, ammLiquidity: poolLiquidityOf(Number(m.ammLiquidity ?? "0")) };
}

/** A refusal of the actor, by kind and code; the shell hands it on (gateway/faults.ts gives it its status). */
export class TradingError extends Fault {
  constructor(kind: FaultKind, code: string, message: string) {
    super(kind, code, message);
    this.name = "TradingError";
  }
}

export interface PlaceCommand {
  userId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  price: number;
  quantity: number;
  /** GTD: when the rest is cancelled (ISO); the scheduler fires it, the order only carries it. */
  expiresAt?: string;
  postOnly?: boolean;
  clientOrderId?: string;
  idem?: IdemRequest<PlaceResult>;
}

export interface AmendCommand {
  orderId: string;
  userId: string;
  /** New limit (tick) and new open remainder; at least one differs from the order's. */
  price?: number;
  quantity?: number;
  /** The order's own post-only flag: the new terms must not cross either. */
  postOnly?: boolean;
}

export interface RouteCommand extends Omit<RouteRequest, "marketId" | "idem"> {
  idem?: IdemRequest<RouteExecution>;
}

/** A command applied in the ledger, on its way to durability. */
interface Committed {
  doc: BookJournalDoc;
  ack: LedgerAck;
}

/** The AMM leg of a route as printed (price history and volume count every venue). */
export interface AmmPrint {
  fillId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  cash: number;
}

/**
 * One market's book and its sequencer: the only writer of that market while it holds the
 * market's lease. Commands run one at a time; each is checked on a preview of the book, committed
 * as ONE ledger entry (the placement lock, the fills and the book command together, under the
 * lease), and only then applied to the book. The next command runs while the entry is being
 * written; a command is acknowledged once its entry is durable.
 */
export class MarketActor {
  /** Replaced whole when the actor resumes from the ledger (resync). */
  book: OrderBook;
  private readonly queue = new SerialQueue();
  private journalSeq: number;
  status: string | null = null;
  /** The market's AMM pool; null when the market has none. */
  pool: PoolState | null;
  /** Set when this node must stop writing (lost the lease, or a commit's outcome is unknown). */
  fenced = false;
  /**
   * Set when a commit of this actor was refused and undone in the ledger (or a position it wrote
   * was refused): the book is ahead of the ledger, and is rebuilt from it before the next command.
   */
  stale = false;
  /** Client order ids of resting orders (every update of an order names it). */
  private readonly clientIds = new Map<string, string>();

  private constructor(
    readonly marketId: string,
    private readonly ports: MarketPorts,
    private readonly lease: MarketLease & { instance: string },
    book: OrderBook,
  ) {
    this.book = book;
    this.journalSeq = lease.seq;
    this.pool = lease.pool ? { yes: lease.pool.yes, no: lease.pool.no } : null;
  }

  /** The book as committed at `bookSeq`: the resting orders in time priority, and their client order ids. */
  private static async committedBook(
    marketId: string,
    ports: MarketPorts,
    bookSeq: number,
  ): Promise<{ book: OrderBook; clientIds: Array<[string, string]> }> {
    const book = new OrderBook(marketId, { startSeq: bookSeq });
    const clientIds: Array<[string, string]> = [];
    for (let after = 0; ;) {
      const page = await ports.ledger.restingOrders(marketId, after, REBUILD_PAGE);
      for (const o of page) {
        book.restore(o);
        if (o.clientOrderId) clientIds.push([o.orderId, o.clientOrderId]);
      }
      if (page.length < REBUILD_PAGE) break;
      after = page[page.length - 1].seq;
    }
    return { book, clientIds };
  }

  /** Take the market's lease (fencing any earlier writer), then rebuild the book as committed. */
  static async load(marketId: string, ports: MarketPorts): Promise<MarketActor> {
    const lease = await ports.ledger.acquire(marketId);
    const { book, clientIds } = await MarketActor.committedBook(marketId, ports, lease.bookSeq);
    const actor = new MarketActor(marketId, ports, lease, book);
    for (const [o, c] of clientIds) actor.clientIds.set(o, c);
    const market = await ports.market(marketId);
    actor.status = market?.status ?? null;
    // The pool is funded by the first actor that sees an open market with AMM liquidity: the
    // journal makes it happen once, whichever node or restart gets there first.
    if (!actor.pool && market && market.status === "open" && market.ammLiquidity > 0) {
      const L = market.ammLiquidity;
      await actor.run(async () => ({
        value: undefined,
        committed: await actor.commit(
          { type: "ammFund", liquidity: L },
          { postings: poolFunding(marketId, L), trades: [], fills: [], orders: [] },
          { bookSeq: book.seq, pool: createPool(L) },
        ),
      }));
    }
    return actor;
  }

  get epoch(): number {
    return this.lease.epoch;
  }

  clientOrderIdOf(orderId: string): string | null {
    return this.clientIds.get(orderId) ?? null;
  }

  /** Orders that left the book need their client id no more (called once their updates went out). */
  forgetClosed(changes: ReadonlyArray<{ orderId: string; remaining: number }>): void {
    for (const c of changes) if (c.remaining === 0) this.clientIds.delete(c.orderId);
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  place(cmd: PlaceCommand): Promise<PlaceResult> {
    return this.run(async () => {
      this.ensureWritable();
      if (this.status !== "open")
        throw new TradingError("rejected", "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}; orders are not accepted`);
      const createdAt = new Date().toISOString();
      const order: Order = {
        orderId: this.ports.newId("ord"),
        userId: cmd.userId,
        side: cmd.side,
        outcome: cmd.outcome,
        price: cmd.price,
        quantity: cmd.quantity,
        orderType: cmd.orderType,
      };
      // A post-only order only adds liquidity: meeting anything resting at once refuses it whole.
      if (cmd.postOnly && this.book.crosses(order))
        throw new TradingError("rejected", "POST_ONLY_WOULD_CROSS", "A post-only order may not execute at once; nothing was placed");
      // Matched on a preview first: the book changes only once the ledger took the money.
      const events = this.book.preview(order);
      const rejected = events.find((e) => e.type === "rejected");
      if (rejected && rejected.type === "rejected") {
        if (rejected.reason === "FOK_NOT_FILLED")
          throw new TradingError(
            "rejected",
            "FOK_NOT_FILLED",
            "Not enough liquidity to fill the whole FOK order at this price; nothing was executed",
          );
        throw new TradingError("rejected", "ORDER_REJECTED", `Order rejected: ${rejected.reason}`);
      }
      const lock = placementLock(order, this.marketId, order.userId, this.ports.fees);
      const s = settlePlacement(this.marketId, order, events, this.ports.fees, this.ports.newId);
      const mine = s.orders.find((o) => o.orderId === order.orderId);
      const takerTrade = s.trades.find((t) => t.role === "taker");
      const filled = takerTrade?.filledQuantity ?? 0;
      const value: PlaceResult = {
        orderId: order.orderId,
        status: mine?.status ?? "open",
        filledQuantity: filled,
        remainingQuantity: mine?.remaining ?? 0,
        cancelledQuantity: mine && mine.status === "cancelled" ? order.quantity - filled : 0,
        totalCost: takerTrade?.totalCost ?? 0,
        fee: takerTrade?.fee ?? 0,
        tradeId: takerTrade?.tradeId ?? null,
        fills: events.flatMap((e) => (e.type === "fill" ? [{ price: formatTick(e.takerPrice), quantity: String(e.quantity) }] : [])),
        createdAt,
      };
      const placed = {
        ...order,
        createdAt,
        prio: events[0].seq,
        ...(cmd.clientOrderId ? { clientOrderId: cmd.clientOrderId } : {}),
        ...(cmd.expiresAt ? { expiresAt: cmd.expiresAt } : {}),
        ...(cmd.postOnly ? { postOnly: true } : {}),
      };
      const committed = await this.commit(
        { type: "place", order: placed },
        { ...s, postings: [...lock, ...s.postings] },
        {
          bookSeq: events[events.length - 1].seq,
          checkAfter: lock.length,
          idem: idemRecord(cmd.idem, value),
          onApplied: () => {
            this.book.place(order);
            if (cmd.clientOrderId) this.clientIds.set(order.orderId, cmd.clientOrderId);
          },
        },
      );
      return { value, committed };
    });
  }

  /**
   * Cancel some or all of a user's resting orders in one entry (cancel-all, a lapsed dead man's
   * switch, expiry). `orderIds` null: every one of the user's; ids not resting (or not the user's)
   * are skipped. Nothing to cancel changes nothing.
   */
  cancelMany(userId: string | null, orderIds: string[] | null, reason: CancelReasonCode): Promise<CancelManyResult> {
    return this.run(async () => {
      this.ensureWritable();
      const wanted = orderIds ? new Set(orderIds) : null;
      const targets = this.book.openOrders().filter((o) => (userId === null || o.userId === userId) && (!wanted || wanted.has(o.orderId)));
      if (!targets.length) return { value: { cancelled: [], releasedAmount: 0 } };
      const postings: Posting[] = [];
      const orders: BookJournalDoc["orders"] = [];
      const status = reason === "expired" ? ("expired" as const) : ("cancelled" as const);
      let released = 0;
      for (const o of targets) {
        const p = releaseResting(o.side, o.outcome, o.price, o.remaining, this.marketId, o.userId, this.ports.fees);
        postings.push(...p);
        if (o.side === "BUY") released += (p[0] as { available?: number }).available ?? 0;
        orders.push({ orderId: o.orderId, userId: o.userId, filledDelta: 0, remaining: 0, status, holds: 0, reason });
      }
      const committed = await this.commit(
        { type: "cancelMany", userId: userId ?? "*", reason },
        { postings, trades: [], fills: [], orders },
        {
          bookSeq: this.book.seq + targets.length,
          onApplied: () => {
            for (const o of targets) this.book.cancel(o.orderId, o.userId);
          },
        },
      );
      return { value: { cancelled: targets.map((o) => o.orderId), releasedAmount: released }, committed };
    });
  }

  /**
   * Amend a resting order atomically under the same id: a lower quantity at the same price keeps
   * its time priority; a new price or a higher quantity is a cancel and a new placement (which may
   * execute at once, like any new order). Checked like a new order; refused, nothing changes.
   */
  amend(cmd: AmendCommand): Promise<PlaceResult> {
    return this.run(async () => {
      this.ensureWritable();
      if (this.status !== "open")
        throw new TradingError("rejected", "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}; orders cannot be amended`);
      const o = this.book.getOrder(cmd.orderId);
      if (!o || o.userId !== cmd.userId) throw new TradingError("not_found", "ORDER_NOT_FOUND", "Order not found");
      const price = cmd.price ?? o.price;
      const remaining = cmd.quantity ?? o.remaining;
      const filledBefore = o.quantity - o.remaining;
      const createdAt = new Date().toISOString();
      const base = { orderId: o.orderId, createdAt, fills: [], tradeId: null, totalCost: 0, fee: 0, cancelledQuantity: 0 };
      if (price === o.price && remaining === o.remaining) {
        return {
          value: {
            ...base,
            status: filledBefore ? "partially_filled" : "open",
            filledQuantity: 0,
            remainingQuantity: remaining,
          } as PlaceResult,
        };
      }
      if (price === o.price && remaining < o.remaining) {
        // Down in place: priority kept, the difference released.
        const release = releaseResting(o.side, o.outcome, o.price, o.remaining, this.marketId, o.userId, this.ports.fees);
        // What the smaller rest holds, taken back: exactly a resting order's hold (no taker fee).
        const hold = releaseResting(o.side, o.outcome, o.price, remaining, this.marketId, o.userId, this.ports.fees).map(negate);
        const status: OrderStatus = filledBefore ? "partially_filled" : "open";
        const committed = await this.commit(
          { type: "amend", orderId: o.orderId, userId: o.userId, price, quantity: remaining, keepsPriority: true },
          {
            postings: [...release, ...hold],
            trades: [],
            fills: [],
            orders: [
              {
                orderId: o.orderId,
                userId: o.userId,
                filledDelta: 0,
                remaining,
                status,
                holds: restingHolds(o.side, o.price, remaining, this.ports.fees),
                quantity: filledBefore + remaining,
              },
            ],
          },
          { bookSeq: this.book.seq, onApplied: () => this.book.reduce(o.orderId, o.userId, remaining) },
        );
        return { value: { ...base, status, filledQuantity: 0, remainingQuantity: remaining }, committed };
      }
      // Priority lost: the old rest is cancelled and the new terms placed under the same id.
      const order: Order = {
        orderId: o.orderId,
        userId: o.userId,
        side: o.side,
        outcome: o.outcome,
        price,
        quantity: remaining,
        orderType: "GTC",
      };
      if (cmd.postOnly && this.book.crosses(order, o.orderId))
        throw new TradingError(
          "rejected",
          "POST_ONLY_WOULD_CROSS",
          "The amended post-only order would execute at once; the order stands unchanged",
        );
      const events = this.book.preview(order, { replacing: true });
      const rejected = events.find((e) => e.type === "rejected");
      if (rejected && rejected.type === "rejected")
        throw new TradingError("rejected", "ORDER_REJECTED", `Amend rejected: ${rejected.reason}`);
      const release = releaseResting(o.side, o.outcome, o.price, o.remaining, this.marketId, o.userId, this.ports.fees);
      const lock = placementLock(order, this.marketId, o.userId, this.ports.fees);
      // The first event is the old rest's cancel (accounted for above); the rest is a new placement.
      const s = settlePlacement(this.marketId, order, events.slice(1), this.ports.fees, this.ports.newId);
      const mine = s.orders.find((c) => c.orderId === o.orderId);
      if (mine) {
        const filled = filledBefore + mine.filledDelta;
        mine.quantity = filledBefore + remaining;
        mine.price = price;
        mine.prio = events[1].seq;
        if (mine.status === "open" && filled > 0) mine.status = "partially_filled";
      }
      const takerTrade = s.trades.find((t) => t.role === "taker");
      const committed = await this.commit(
        { type: "amend", orderId: o.orderId, userId: o.userId, price, quantity: remaining, keepsPriority: false },
        { ...s, postings: [...release, ...lock, ...s.postings] },
        {
          bookSeq: events[events.length - 1].seq,
          checkAfter: release.length + lock.length,
          onApplied: () => {
            this.book.cancel(o.orderId, o.userId);
            this.book.place(order);
            // The order keeps its fills: its size is what it filled before plus its new rest.
            this.book.setQuantity(o.orderId, filledBefore + remaining);
          },
        },
      );
      return {
        value: {
          ...base,
          status: mine?.status ?? "open",
          filledQuantity: takerTrade?.filledQuantity ?? 0,
          remainingQuantity: mine?.remaining ?? 0,
          totalCost: takerTrade?.totalCost ?? 0,
          fee: takerTrade?.fee ?? 0,
          tradeId: takerTrade?.tradeId ?? null,
          fills: events.flatMap((e) => (e.type === "fill" ? [{ price: formatTick(e.takerPrice), quantity: String(e.quantity) }] : [])),
        },
        committed,
      };
    });
  }

  /** Plan a market order against the book (other users' orders) and/or the pool. */
  private plan(cmd: RouteCommand): RoutePlan {
    const order = { side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity };
    const r =
      cmd.mode === "AMM"
        ? planAmmOnly(order, this.pool, this.ports.ammFeeBps)
        : planRoute(order, {
            levels: this.book.sweep(cmd.side, cmd.outcome, cmd.quantity, { excludeUserId: cmd.userId }).levels,
            takerBps: this.ports.fees.takerBps,
            pool: this.pool,
            ammFeeBps: this.ports.ammFeeBps,
          });
    if (!r.ok) {
      if (r.reason === "INSUFFICIENT_LIQUIDITY" && cmd.mode === "AMM" && !this.pool)
        throw new TradingError("rejected", "NO_AMM", "This market has no AMM pool");
      throw new TradingError(
        "rejected",
        r.reason === "INSUFFICIENT_LIQUIDITY" ? "INSUFFICIENT_LIQUIDITY" : r.reason,
        `Cannot fill the whole quantity: ${r.reason}`,
      );
    }
    return r;
  }

  /** Price a market order exactly as `route` would execute it now, without executing. */
  quote(cmd: RouteCommand): Promise<RoutePlan> {
    return this.queued(async () => {
      if (this.status !== "open") throw new TradingError("rejected", "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}`);
      return this.plan(cmd);
    });
  }

  /**
   * A market order filled completely or not at all: the book leg runs as a FOK at the plan's
   * worst book price, the AMM leg against the pool, both inside this one command, so either every
   * leg is applied (one journal entry, one ledger entry) or none is.
   */
  route(cmd: RouteCommand): Promise<RouteExecution> {
    return this.run(async () => {
      this.ensureWritable();
      if (this.status !== "open")
        throw new TradingError("rejected", "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}; trades are not accepted`);
      const plan = this.plan(cmd);
      const orderId = this.ports.newId("ord");
      const bookQty = plan.legs.book.reduce((a, l) => a + l.quantity, 0);
      const worst = plan.legs.book.length ? plan.legs.book[plan.legs.book.length - 1].price : 0;
      const bookOrder: Order = {
        orderId,
        userId: cmd.userId,
        side: cmd.side,
        outcome: cmd.outcome,
        price: worst,
        quantity: bookQty,
        orderType: "FOK",
      };
      const amm = plan.legs.amm;

      const lock: Posting[] = [];
      if (cmd.side === "BUY") {
        if (bookQty) lock.push(...placementLock(bookOrder, this.marketId, cmd.userId, this.ports.fees));
        if (amm) lock.push({ kind: "cash", account: cmd.userId, available: -(amm.cash + amm.fee), locked: amm.cash + amm.fee });
      } else {
        lock.push({ kind: "shares", account: cmd.userId, marketId: this.marketId, outcome: cmd.outcome, locked: cmd.quantity });
      }

      const s: Settlement = { postings: [...lock], trades: [], fills: [], orders: [] };
      const fillIds: string[] = [];
      let bookCash = 0;
      let bookFee = 0;
      let events: BookEvent[] = [];
      if (bookQty) {
        events = this.book.preview(bookOrder);
        // Cannot happen while the plan was made inside this command; refuse cleanly if it does.
        if (events.some((e) => e.type === "rejected"))
          throw new TradingError("conflict", "BOOK_CHANGED", "The book changed; nothing was executed");
        const bs = settlePlacement(this.marketId, bookOrder, events, this.ports.fees, this.ports.newId);
        const taker = bs.trades.find((t) => t.role === "taker");
        bookCash = taker?.totalCost ?? 0;
        bookFee = taker?.fee ?? 0;
        fillIds.push(...(taker?.fillIds ?? []));
        s.postings.push(...bs.postings);
        s.trades.push(...bs.trades.filter((t) => t.role !== "taker"));
        s.fills.push(...bs.fills);
        s.orders.push(...bs.orders.filter((o) => o.orderId !== orderId));
      }
      let ammPrint: AmmPrint | undefined;
      if (amm) {
        s.postings.push(...ammLegPostings(this.marketId, cmd.userId, cmd.side, cmd.outcome, amm));
        const fillId = this.ports.newId("fil");
        fillIds.push(fillId);
        ammPrint = { fillId, side: cmd.side, outcome: cmd.outcome, quantity: amm.quantity, cash: amm.cash };
      }
      const trade: TradeRecord = {
        tradeId: this.ports.newId("trd"),
        userId: cmd.userId,
        marketId: this.marketId,
        orderId,
        side: cmd.side,
        outcome: cmd.outcome,
        venue: plan.venue,
        role: "taker",
        filledQuantity: plan.filled,
        totalCost: bookCash + (amm?.cash ?? 0),
        fee: bookFee + (amm?.fee ?? 0),
        fillIds,
      };
      s.trades.push(trade);
      const value: RouteExecution = {
        tradeId: trade.tradeId,
        venue: plan.venue,
        filledQuantity: trade.filledQuantity,
        totalCost: trade.totalCost,
        fee: trade.fee,
        avgPrice: plan.avgPrice,
      };
      const committed = await this.commit(
        { type: "route", orderId, userId: cmd.userId, side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity, mode: cmd.mode },
        s,
        {
          idem: idemRecord(cmd.idem, value),
          bookSeq: events.length ? events[events.length - 1].seq : this.book.seq,
          checkAfter: lock.length,
          pool: amm ? amm.newState : undefined,
          amm: ammPrint,
          onApplied: () => {
            if (bookQty) this.book.place(bookOrder);
          },
        },
      );
      return { value, committed };
    });
  }

  /** Cancel one resting order of `userId`; ORDER_NOT_FOUND for unknown or someone else's. */
  cancel(
    orderId: string,
    userId: string,
    reason: CancelReasonCode = "user",
  ): Promise<{ orderId: string; status: "cancelled"; cancelledQuantity: number; releasedAmount: number }> {
    return this.run(async () => {
      this.ensureWritable();
      const o = this.book.getOrder(orderId);
      if (!o || o.userId !== userId) throw new TradingError("not_found", "ORDER_NOT_FOUND", "Order not found");
      const postings = releaseResting(o.side, o.outcome, o.price, o.remaining, this.marketId, o.userId, this.ports.fees);
      const committed = await this.commit(
        { type: "cancel", orderId, userId },
        {
          postings,
          trades: [],
          fills: [],
          orders: [{ orderId, userId, filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason }],
        },
        {
          bookSeq: this.book.seq + 1,
          onApplied: () => this.book.cancel(orderId, userId),
        },
      );
      const released = o.side === "BUY" ? ((postings[0] as { available?: number }).available ?? 0) : 0;
      return { value: { orderId, status: "cancelled" as const, cancelledQuantity: o.remaining, releasedAmount: released }, committed };
    });
  }

  /** Market closed, cancelled or resolved: stop matching and release every resting order. */
  halt(status: string): Promise<number> {
    return this.run(async () => {
      this.status = status;
      if (this.fenced || this.book.size === 0) return { value: 0 };
      const reason: CancelReasonCode =
        status === "cancelled" ? "market_cancelled" : status === "resolved" ? "market_resolved" : "market_closed";
      const postings: Posting[] = [];
      const orders: BookJournalDoc["orders"] = [];
      for (const o of this.book.openOrders()) {
        postings.push(...releaseResting(o.side, o.outcome, o.price, o.remaining, this.marketId, o.userId, this.ports.fees));
        orders.push({ orderId: o.orderId, userId: o.userId, filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason });
      }
      const committed = await this.commit(
        { type: "cancelAll", reason },
        { postings, trades: [], fills: [], orders },
        {
          bookSeq: this.book.seq + orders.length,
          onApplied: () => this.book.cancelAll("MARKET_CLOSED"),
        },
      );
      return { value: orders.length, committed };
    });
  }

  /** Resolves when the commands queued so far are done (graceful shutdown). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  setStatus(status: string): void {
    this.status = status;
  }

  /**
   * What selling `quantity` right now would fetch, without executing: through the router (book
   * and pool) when it can take it all, else the part the book alone can absorb.
   */
  exitQuote(outcome: Outcome, quantity: number, side: Side = "SELL", excludeUserId?: string): { filled: number; proceeds: number } {
    if (this.pool && quantity > 0) {
      const r = planRoute(
        { side, outcome, quantity },
        {
          levels: this.book.sweep(side, outcome, quantity, { excludeUserId }).levels,
          takerBps: this.ports.fees.takerBps,
          pool: this.pool,
          ammFeeBps: this.ports.ammFeeBps,
        },
      );
      if (r.ok) return { filled: r.filled, proceeds: r.totalCost };
    }
    const sw = this.book.sweep(side, outcome, quantity, { excludeUserId });
    let proceeds = 0;
    for (const l of sw.levels) proceeds += cost(l.quantity, l.price);
    return { filled: sw.filled, proceeds };
  }

  private ensureWritable(): void {
    if (this.fenced) throw new TradingError("moved", "MARKET_MOVED", "This market is being served by another engine node; retry");
  }

  /**
   * Commit a command: ONE ledger entry under this actor's lease at its next journal position,
   * applied in the ledger's memory at once (so the next command can follow); `onApplied` then
   * changes the book, which must arrive exactly at `bookSeq`. The caller acknowledges only after
   * `afterCommit` (outside this actor's queue, so commands pipeline while the ledger writes).
   */
  private async commit(
    command: BookCommand,
    s: Settlement,
    opts: { bookSeq: number; checkAfter?: number; pool?: PoolState; amm?: AmmPrint; idem?: IdemRecord; onApplied?: () => void },
  ): Promise<Committed> {
    const seq = this.journalSeq + 1;
    const doc: BookJournalDoc = {
      marketId: this.marketId,
      seq,
      epoch: this.lease.epoch,
      bookSeq: opts.bookSeq,
      node: this.ports.nodeID,
      command,
      fills: s.fills,
      orders: s.orders,
      at: new Date().toISOString(),
    };
    if (opts.pool) doc.pool = { yes: opts.pool.yes, no: opts.pool.no };
    if (opts.amm) doc.amm = opts.amm;
    const parts = splitCommand(doc, s, opts.checkAfter ?? 0);
    let ack!: LedgerAck;
    try {
      if (parts.length === 1) {
        ack = await this.ports.ledger.post({
          key: `book:${this.marketId}:${seq}`,
          postings: s.postings,
          checkAfter: opts.checkAfter || undefined,
          trades: s.trades,
          book: doc,
          ...(opts.idem ? { idem: opts.idem } : {}),
        });
      } else {
        // One command, several bounded entries: the ledger applies them together, all or none.
        const group = `${this.marketId}:${seq}:${this.lease.epoch}`;
        for (let i = 0; i < parts.length; i++) {
          const last = i === parts.length - 1;
          ack = await this.ports.ledger.post({
            ...parts[i],
            part: { group, index: i, count: parts.length },
            ...(last && opts.idem ? { idem: opts.idem } : {}),
          });
        }
      }
    } catch (err) {
      // A refusal for money changed nothing here or there. A position refused (after a refused
      // commit was undone, or the lease moved): resume from the ledger, which tells which. Anything
      // else (an unknown outcome): this actor never writes again; the service rebuilds it.
      const code = codeOf(err);
      if (code === "MARKET_MOVED") await this.refusedPosition();
      else if (
        code !== "INSUFFICIENT_BALANCE" &&
        code !== "INSUFFICIENT_SHARES" &&
        code !== "DUPLICATE_CLIENT_ORDER_ID" &&
        code !== "IDEMPOTENCY_KEY_REUSED"
      )
        this.fenced = true;
      throw err;
    }
    this.journalSeq = seq + parts.length - 1;
    if (opts.pool) this.pool = opts.pool;
    opts.onApplied?.();
    if (this.book.seq !== doc.bookSeq) {
      // The ledger holds the truth: rebuild from it.
      this.fenced = true;
      throw new TradingError(
        "internal",
        "BOOK_DIVERGED",
        `The book of ${this.marketId} did not execute as previewed; it is rebuilt from the ledger`,
      );
    }
    return { doc, ack };
  }

  /**
   * Wait until the commit is durable, then tell the world. Refused and undone (a full disk): the
   * book resumes from the ledger before the next command; an unknown outcome fences this actor.
   */
  private async afterCommit(c: Committed): Promise<void> {
    try {
      await this.ports.ledger.durable(c.ack.seq, c.ack.instance);
    } catch (err) {
      if (codeOf(err) !== WRITE_REFUSED) {
        this.fenced = true;
        throw err;
      }
      this.stale = true;
      // Back to the ledger's book before the refusal is answered (a failed resync: the next command's).
      await this.queued(async () => undefined).catch(() => undefined);
      throw err;
    }
    this.ports.publish(c.doc, this);
  }

  /**
   * A journal position this actor wrote was refused: its lease went to another writer (fenced), or
   * its refused commits were undone (stale: it resumes from the ledger). Not knowing which: fenced.
   */
  private async refusedPosition(): Promise<void> {
    this.stale = true;
    await this.resync().catch(() => {
      // The ledger did not say: as if moved.
      this.fenced = true;
    });
  }

  /**
   * Back to what the ledger holds, under the same lease: the book, the pool and the journal
   * position as committed (the refused commands are undone there). A lease that is no longer this
   * actor's fences it instead. Runs in the queue, so no command of this actor is on its way.
   */
  private async resync(): Promise<void> {
    const lease = await this.ports.ledger.lease(this.marketId);
    if (lease.epoch !== this.lease.epoch) {
      this.fenced = true;
      return;
    }
    // Book seqs never go back: an update published with a seq the undone commands had taken is
    // not followed by updates the gateways would take for older ones.
    const { book, clientIds } = await MarketActor.committedBook(this.marketId, this.ports, Math.max(lease.bookSeq, this.book.seq));
    this.book = book;
    this.clientIds.clear();
    for (const [o, c] of clientIds) this.clientIds.set(o, c);
    this.journalSeq = lease.seq;
    this.pool = lease.pool ? { yes: lease.pool.yes, no: lease.pool.no } : null;
    this.stale = false;
  }

  /** A task in this actor's queue, on a book as the ledger holds it. */
  private queued<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      if (this.stale && !this.fenced) await this.resync();
      return task();
    });
  }

  /** Run a command in this actor's queue; its commit (if any) is acknowledged outside the queue. */
  private run<T>(task: () => Promise<{ value: T; committed?: Committed }>): Promise<T> {
    return this.queued(task).then(async ({ value, committed }) => {
      if (committed) await this.afterCommit(committed);
      return value;
    });
  }
}

/** Fills, trades or order changes per journal entry at most: a command over this is split. */
export const MAX_PER_ENTRY = 500;

/**
 * A command's entry, or its parts when it is too large for one: the arrays cut into consecutive
 * slices, so the placement lock (the first postings) is in the first part and the taker's own
 * settlement (the last postings, trade and order change) in the last, which carries the command;
 * each part holds on its own when the journal is replayed entry by entry.
 */
export function splitCommand(doc: BookJournalDoc, s: Settlement, checkAfter: number): LedgerPost[] {
  const n = Math.max(s.fills.length, s.trades.length, s.orders.length);
  const count = Math.ceil(n / MAX_PER_ENTRY);
  if (count <= 1)
    return [
      { key: `book:${doc.marketId}:${doc.seq}`, postings: s.postings, checkAfter: checkAfter || undefined, trades: s.trades, book: doc },
    ];
  // Boundaries of part i: [at(i), at(i + 1)); the first part holds at least `least` items.
  const cut = (len: number, i: number, least = 0) => (i === 0 ? 0 : i === count ? len : Math.max(least, Math.floor((len * i) / count)));
  const slice = <T>(a: T[], i: number, least = 0): T[] => a.slice(cut(a.length, i, least), cut(a.length, i + 1, least));
  const parts: LedgerPost[] = [];
  for (let i = 0; i < count; i++) {
    const last = i === count - 1;
    // The lock must be whole in the first part (it is checked there).
    const postings = slice(s.postings, i, checkAfter);
    const book: BookJournalDoc = {
      ...doc,
      seq: doc.seq + i,
      command: last ? doc.command : { type: "part", of: doc.seq + count - 1 },
      fills: slice(s.fills, i),
      orders: slice(s.orders, i),
    };
    if (!last) {
      delete book.pool;
      delete book.amm;
    }
    parts.push({
      key: `book:${doc.marketId}:${doc.seq + i}`,
      postings,
      checkAfter: i === 0 && checkAfter ? checkAfter : undefined,
      trades: slice(s.trades, i),
      book,
    });
  }
  return parts;
}

/** The journaled answer of an idempotent request: the first answer, to be replayed as it was. */
function idemRecord<T>(idem: IdemRequest<T> | undefined, value: T): IdemRecord | undefined {
  return idem ? { scope: idem.scope, key: idem.key, fingerprint: idem.fingerprint, status: 200, response: idem.render(value) } : undefined;
}

/** The opposite movement of a posting's available and locked parts (a release turned into a hold). */
function negate(p: Posting): Posting {
  if (p.kind === "cash") return { ...p, available: -(p.available ?? 0), locked: -(p.locked ?? 0) };
  if (p.kind === "shares") return { ...p, locked: -(p.locked ?? 0) };
  return p;
}
