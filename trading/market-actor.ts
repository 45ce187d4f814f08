import { OrderBook } from "../engine/book";
import type { Order, OrderType, Outcome, RestingOrder, Side } from "../engine/types";
import { cost, formatTick, type FeeSchedule } from "../engine/money";
import type { Posting } from "../engine/accounts";
import { ammLegPostings, placementLock, poolFunding, releasePlacement, releaseResting, settlePlacement, type Settlement, type TradeRecord } from "../engine/settlement";
import { createPool, type PoolState } from "../engine/amm";
import { planAmmOnly, planRoute, type RoutePlan } from "../engine/router";
import { SerialQueue } from "../lib/serial";
import type { BookJournalDoc, BookSnapshotDoc, OrderStatus } from "../models/trading";

/** What the ledger takes from an actor: money postings, optionally with the book command they belong to. */
export interface LedgerPost {
  key: string;
  postings: Posting[];
  lockRef?: { orderId: string; marketId: string };
  closesLocks?: string[];
  trades?: Settlement["trades"];
  book?: BookJournalDoc;
  /** false: answered once applied in the ledger's memory; `sync` waits for the journal write. */
  durable?: boolean;
}

/** A committed command on its way to durability. */
interface Committed {
  doc: BookJournalDoc;
  ledgerSeq: number;
  snapshot?: BookSnapshotDoc;
}

/**
 * Everything an actor needs from the outside world; the book service wires it to the broker. The
 * actor keeps no storage of its own: its journal lives in the ledger's, so a command's book change
 * and its money are one write, and any engine node can rebuild any market.
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
    /** Applies the entry once; a repeated key with another book command fails (a second writer). */
    post(entry: LedgerPost): Promise<{ applied: boolean; seq: number }>;
    /** Resolves once every ledger entry up to `seq` is durable. */
    sync(seq: number): Promise<void>;
    bookEntries(marketId: string, afterSeq: number): Promise<BookJournalDoc[]>;
    pendingLocks(marketId: string): Promise<string[]>;
    releaseLock(orderId: string): Promise<unknown>;
    loadSnapshot(marketId: string): Promise<BookSnapshotDoc | null>;
    saveSnapshot(doc: BookSnapshotDoc): Promise<void>;
  };
  /** Broker events for real time, notifications and price history. */
  publish(doc: BookJournalDoc, actor: MarketActor): void;
}

function negateLock(p: Posting): Posting {
  if (p.kind === "cash") return { ...p, available: -(p.available ?? 0), locked: -(p.locked ?? 0) };
  if (p.kind === "shares") return { ...p, locked: -(p.locked ?? 0) };
  return p;
}

export class TradingError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface PlaceCommand {
  userId: string;
  side: Side;
  outcome: Outcome;
  orderType: OrderType;
  price: number;
  quantity: number;
}

export interface PlaceResult {
  orderId: string;
  status: OrderStatus;
  filledQuantity: number;
  remainingQuantity: number;
  /** Cash paid (BUY) or received gross (SELL) for the filled part, and the fee. */
  totalCost: number;
  fee: number;
  tradeId: string | null;
  fills: Array<{ price: string; quantity: string }>;
  createdAt: string;
}

export interface RouteCommand {
  userId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  /** AMM: the pool only (POST /trade/amm); ROUTE: best of book and pool (POST /trade/market). */
  mode: "AMM" | "ROUTE";
}

export interface RouteExecution {
  tradeId: string;
  venue: RoutePlan["venue"];
  filledQuantity: number;
  totalCost: number;
  fee: number;
  avgPrice: string;
}

/**
 * Commands between book snapshots: at least this many, and at least as many as the book holds,
 * so a deep book is not copied every few commands (snapshot cost stays O(1) per command).
 */
const SNAPSHOT_EVERY = 200;

/**
 * One market's book and its sequencer: the only writer of that market. Commands run one at a
 * time; each is committed as one journal entry (the fencing point) before it is acknowledged,
 * then posted to the ledger under the entry's idempotency key.
 */
export class MarketActor {
  readonly book: OrderBook;
  private readonly queue = new SerialQueue();
  private journalSeq = 0;
  private snapshotSeq = 0;
  status: string | null = null;
  /** The market's AMM pool; null when the market has none. */
  pool: PoolState | null = null;
  /** Set when this node must stop writing (lost ownership or a failed commit). */
  fenced = false;

  private constructor(
    readonly marketId: string,
    private readonly ports: MarketPorts,
    book: OrderBook,
  ) {
    this.book = book;
  }

  /** Rebuild from the latest snapshot and the journal after it, then settle unfinished work. */
  static async load(marketId: string, ports: MarketPorts): Promise<MarketActor> {
    const snap = await ports.ledger.loadSnapshot(marketId);
    const open = new Map<string, RestingOrder>();
    for (const o of snap?.orders ?? []) open.set(o.orderId, { ...o });
    const entries = await ports.ledger.bookEntries(marketId, snap?.seq ?? 0);
    let bookSeq = snap?.bookSeq ?? 0;
    let pool: PoolState | null = snap?.pool ?? null;
    for (const doc of entries) {
      if (doc.pool) pool = doc.pool;
      if (doc.command.type === "place") {
        const o = doc.command.order;
        open.set(o.orderId, { orderId: o.orderId, userId: o.userId, side: o.side, outcome: o.outcome, price: o.price, quantity: o.quantity, remaining: o.quantity, seq: doc.bookSeq });
      }
      for (const ch of doc.orders) {
        const o = open.get(ch.orderId);
        if (!o) continue;
        if (ch.remaining > 0 && (ch.status === "open" || ch.status === "partially_filled")) o.remaining = ch.remaining;
        else open.delete(ch.orderId);
      }
      bookSeq = doc.bookSeq;
    }
    const book = new OrderBook(marketId, { startSeq: bookSeq });
    for (const o of [...open.values()].sort((a, b) => a.seq - b.seq)) book.restore(o);
    const actor = new MarketActor(marketId, ports, book);
    actor.journalSeq = entries.length ? entries[entries.length - 1].seq : (snap?.seq ?? 0);
    actor.snapshotSeq = snap?.seq ?? 0;
    actor.pool = pool;
    const market = await ports.market(marketId);
    actor.status = market?.status ?? null;

    // Placement locks whose order never got committed: the order does not exist, give the money back.
    for (const orderId of await ports.ledger.pendingLocks(marketId)) await ports.ledger.releaseLock(orderId);
    // The pool is funded by the first actor that sees an open market with AMM liquidity: the
    // journal makes it happen once, whichever node or restart gets there first.
    if (!actor.pool && market && market.status === "open" && market.ammLiquidity > 0) {
      const L = market.ammLiquidity;
      await actor.afterCommit(await actor.commit({ type: "ammFund", liquidity: L }, { postings: poolFunding(marketId, L), trades: [], fills: [], orders: [] }, [], createPool(L)));
    }
    if (entries.length) await actor.snapshot();
    return actor;
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  place(cmd: PlaceCommand): Promise<PlaceResult> {
    return this.run(async () => {
      this.ensureWritable();
      if (this.status !== "open") throw new TradingError(400, "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}; orders are not accepted`);
      const createdAt = new Date().toISOString();
      const order: Order = { orderId: this.ports.newId("ord"), userId: cmd.userId, side: cmd.side, outcome: cmd.outcome, price: cmd.price, quantity: cmd.quantity, orderType: cmd.orderType };
      const lockRef = { orderId: order.orderId, marketId: this.marketId };
      // Collateral first: an order the user cannot pay for never touches the book.
      // Applied, not awaited to disk: the entry that uses it is written after it or not at all.
      await this.ports.ledger.post({ key: `lock:${order.orderId}`, postings: placementLock(order, this.marketId, order.userId, this.ports.fees), lockRef, durable: false });

      const events = this.book.place(order);
      const rejected = events.find((e) => e.type === "rejected");
      if (rejected) {
        await this.ports.ledger.post({ key: `unlock:${order.orderId}`, postings: releasePlacement(order, this.marketId, order.userId, this.ports.fees), closesLocks: [order.orderId], durable: false });
        if (rejected.reason === "FOK_NOT_FILLED") throw new TradingError(400, "FOK_NOT_FILLED", "Not enough liquidity to fill the whole FOK order at this price; nothing was executed");
        throw new TradingError(400, "ORDER_REJECTED", `Order rejected: ${rejected.reason}`);
      }
      const s = settlePlacement(this.marketId, order, events, this.ports.fees, this.ports.newId);
      const committed = await this.commit({ type: "place", order: { ...order, createdAt } }, s, [order.orderId]);
      const mine = s.orders.find((o) => o.orderId === order.orderId);
      const takerTrade = s.trades.find((t) => t.role === "taker");
      const fills = events.flatMap((e) => (e.type === "fill" ? [{ price: formatTick(e.takerPrice), quantity: String(e.quantity) }] : []));
      const value: PlaceResult = {
        orderId: order.orderId,
        status: mine?.status ?? "open",
        filledQuantity: takerTrade?.filledQuantity ?? 0,
        remainingQuantity: mine?.remaining ?? 0,
        totalCost: takerTrade?.totalCost ?? 0,
        fee: takerTrade?.fee ?? 0,
        tradeId: takerTrade?.tradeId ?? null,
        fills,
        createdAt,
      };
      return { value, committed };
    });
  }

  /** Plan a market order against the book (other users' orders) and/or the pool. */
  private plan(cmd: RouteCommand): RoutePlan {
    const order = { side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity };
    const r =
      cmd.mode === "AMM"
        ? planAmmOnly(order, this.pool, this.ports.ammFeeBps)
        : planRoute(order, { levels: this.book.sweep(cmd.side, cmd.outcome, cmd.quantity, { excludeUserId: cmd.userId }).levels, takerBps: this.ports.fees.takerBps, pool: this.pool, ammFeeBps: this.ports.ammFeeBps });
    if (!r.ok) {
      if (r.reason === "INSUFFICIENT_LIQUIDITY" && cmd.mode === "AMM" && !this.pool) throw new TradingError(400, "NO_AMM", "This market has no AMM pool");
      throw new TradingError(400, r.reason === "INSUFFICIENT_LIQUIDITY" ? "INSUFFICIENT_LIQUIDITY" : r.reason, `Cannot fill the whole quantity: ${r.reason}`);
    }
    return r;
  }

  /** Price a market order exactly as `route` would execute it now, without executing. */
  quote(cmd: RouteCommand): Promise<RoutePlan> {
    return this.queue.run(async () => {
      if (this.status !== "open") throw new TradingError(400, "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}`);
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
      if (this.status !== "open") throw new TradingError(400, "MARKET_NOT_OPEN", `Market is ${this.status ?? "unknown"}; trades are not accepted`);
      const plan = this.plan(cmd);
      const orderId = this.ports.newId("ord");
      const bookQty = plan.legs.book.reduce((a, l) => a + l.quantity, 0);
      const worst = plan.legs.book.length ? plan.legs.book[plan.legs.book.length - 1].price : 0;
      const bookOrder: Order = { orderId, userId: cmd.userId, side: cmd.side, outcome: cmd.outcome, price: worst, quantity: bookQty, orderType: "FOK" };
      const amm = plan.legs.amm;

      const lock: Posting[] = [];
      if (cmd.side === "BUY") {
        if (bookQty) lock.push(...placementLock(bookOrder, this.marketId, cmd.userId, this.ports.fees));
        if (amm) lock.push({ kind: "cash", account: cmd.userId, available: -(amm.cash + amm.fee), locked: amm.cash + amm.fee });
      } else {
        lock.push({ kind: "shares", account: cmd.userId, marketId: this.marketId, outcome: cmd.outcome, locked: cmd.quantity });
      }
      await this.ports.ledger.post({ key: `lock:${orderId}`, postings: lock, lockRef: { orderId, marketId: this.marketId }, durable: false });

      const s: Settlement = { postings: [], trades: [], fills: [], orders: [] };
      const fillIds: string[] = [];
      let bookCash = 0;
      let bookFee = 0;
      if (bookQty) {
        const events = this.book.place(bookOrder);
        if (events.some((e) => e.type === "rejected")) {
          // Cannot happen while the plan was made inside this command; refuse cleanly if it does.
          await this.ports.ledger.post({ key: `unlock:${orderId}`, postings: lock.map(negateLock), closesLocks: [orderId], durable: false });
          throw new TradingError(409, "BOOK_CHANGED", "The book changed; nothing was executed");
        }
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
      if (amm) {
        s.postings.push(...ammLegPostings(this.marketId, cmd.userId, cmd.side, cmd.outcome, amm));
        fillIds.push(this.ports.newId("fil"));
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
      const committed = await this.commit({ type: "route", orderId, userId: cmd.userId, side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity, mode: cmd.mode }, s, [orderId], amm ? amm.newState : undefined);
      return { value: { tradeId: trade.tradeId, venue: plan.venue, filledQuantity: trade.filledQuantity, totalCost: trade.totalCost, fee: trade.fee, avgPrice: plan.avgPrice }, committed };
    });
  }

  /** Cancel one resting order of `userId`; ORDER_NOT_FOUND for unknown or someone else's. */
  cancel(orderId: string, userId: string): Promise<{ orderId: string; status: "cancelled"; cancelledQuantity: number; releasedAmount: number }> {
    return this.run(async () => {
      this.ensureWritable();
      const events = this.book.cancel(orderId, userId);
      const c = events.find((e) => e.type === "cancelled");
      if (!c || c.type !== "cancelled") throw new TradingError(404, "ORDER_NOT_FOUND", "Order not found");
      const postings = releaseResting(c.side, c.outcome, c.price, c.remaining, this.marketId, c.userId, this.ports.fees);
      const committed = await this.commit({ type: "cancel", orderId, userId }, { postings, trades: [], fills: [], orders: [{ orderId, userId, filledDelta: 0, remaining: 0, status: "cancelled" }] }, []);
      const released = c.side === "BUY" ? (postings[0] as { available: number }).available : 0;
      return { value: { orderId, status: "cancelled" as const, cancelledQuantity: c.remaining, releasedAmount: released }, committed };
    });
  }

  /** Market closed or cancelled: stop matching and release every resting order. */
  halt(status: string, reason: "MARKET_CLOSED"): Promise<number> {
    return this.run(async () => {
      this.status = status;
      if (this.fenced || this.book.size === 0) return { value: 0 };
      const events = this.book.cancelAll(reason);
      const postings: Posting[] = [];
      const orders: BookJournalDoc["orders"] = [];
      for (const e of events) {
        if (e.type !== "cancelled") continue;
        postings.push(...releaseResting(e.side, e.outcome, e.price, e.remaining, this.marketId, e.userId, this.ports.fees));
        orders.push({ orderId: e.orderId, userId: e.userId, filledDelta: 0, remaining: 0, status: "cancelled" });
      }
      const committed = await this.commit({ type: "cancelAll", reason }, { postings, trades: [], fills: [], orders }, []);
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
      const r = planRoute({ side, outcome, quantity }, { levels: this.book.sweep(side, outcome, quantity, { excludeUserId }).levels, takerBps: this.ports.fees.takerBps, pool: this.pool, ammFeeBps: this.ports.ammFeeBps });
      if (r.ok) return { filled: r.filled, proceeds: r.totalCost };
    }
    const sw = this.book.sweep(side, outcome, quantity, { excludeUserId });
    let proceeds = 0;
    for (const l of sw.levels) proceeds += cost(l.quantity, l.price);
    return { filled: sw.filled, proceeds };
  }

  private ensureWritable(): void {
    if (this.fenced) throw new TradingError(503, "MARKET_MOVED", "This market is being served by another engine node; retry");
  }

  /**
   * Commit a command: applied in the ledger at once (so the next command can follow), durable a
   * moment later with the ledger's next group write. The caller acknowledges only after
   * `afterCommit` (outside this actor's queue, so commands pipeline while journal writes happen).
   */
  private async commit(command: BookJournalDoc["command"], s: Settlement, closesLocks: string[], pool?: PoolState): Promise<Committed> {
    const seq = this.journalSeq + 1;
    const doc: BookJournalDoc = {
      _id: `${this.marketId}:${seq}`,
      marketId: this.marketId,
      seq,
      bookSeq: this.book.seq,
      node: this.ports.nodeID,
      command,
      ledgerKey: `book:${this.marketId}:${seq}`,
      postings: s.postings,
      trades: s.trades,
      fills: s.fills,
      orders: s.orders,
      closesLocks,
      at: new Date().toISOString(),
    };
    if (pool) doc.pool = { yes: pool.yes, no: pool.no };
    let ledgerSeq: number;
    try {
      const r = await this.ports.ledger.post({ key: doc.ledgerKey, postings: doc.postings, closesLocks: doc.closesLocks, trades: doc.trades, book: doc, durable: false });
      ledgerSeq = r.seq;
    } catch (err) {
      // Refused (another node wrote this seq) or unknown outcome: memory may be ahead of the
      // journal, so this actor never writes again; the service rebuilds it from the ledger.
      this.fenced = true;
      // The command's placement lock goes back unless the entry did land (then it is closed and
      // this is a no-op; the ledger applies calls in arrival order).
      for (const orderId of closesLocks) await this.ports.ledger.releaseLock(orderId).catch(() => undefined);
      throw err;
    }
    this.journalSeq = seq;
    if (pool) this.pool = pool;
    let snapshot: BookSnapshotDoc | undefined;
    if (this.journalSeq - this.snapshotSeq >= Math.max(SNAPSHOT_EVERY, this.book.size)) {
      // Captured now (exactly the state at this seq), saved once the entry is durable.
      snapshot = this.snapshotDoc();
      this.snapshotSeq = this.journalSeq;
    }
    return { doc, ledgerSeq, snapshot };
  }

  /** Wait until the commit is durable, then tell the world; a failed write fences this actor. */
  private async afterCommit(c: Committed): Promise<void> {
    try {
      await this.ports.ledger.sync(c.ledgerSeq);
    } catch (err) {
      this.fenced = true;
      throw err;
    }
    this.ports.publish(c.doc, this);
    // A snapshot only shortens rebuilds: losing one costs replay time, never data.
    if (c.snapshot) await this.ports.ledger.saveSnapshot(c.snapshot).catch(() => undefined);
  }

  /** Run a command in this actor's queue; its commit (if any) is acknowledged outside the queue. */
  private run<T>(task: () => Promise<{ value: T; committed?: Committed }>): Promise<T> {
    return this.queue.run(task).then(async ({ value, committed }) => {
      if (committed) await this.afterCommit(committed);
      return value;
    });
  }

  private snapshotDoc(): BookSnapshotDoc {
    return { _id: this.marketId, seq: this.journalSeq, bookSeq: this.book.seq, orders: this.book.openOrders().map((o) => ({ ...o })), pool: this.pool };
  }

  private async snapshot(): Promise<void> {
    await this.ports.ledger.saveSnapshot(this.snapshotDoc());
    this.snapshotSeq = this.journalSeq;
  }
}
