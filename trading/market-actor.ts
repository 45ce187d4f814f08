import { OrderBook } from "../engine/book";
import type { Outcome, Side } from "../engine/types";
import type { FeeSchedule } from "../engine/money";
import type { CancelReasonCode } from "../engine/settlement";
import { poolLiquidityOf, type PoolState } from "../engine/amm";
import type { RoutePlan } from "../engine/router";
import { SerialQueue } from "../lib/serial";
import { NORMAL, strictest, type ExchangeModes, type ModeSetting } from "./trading-modes";
import type {
  BookJournalDoc,
  CommittedRestingOrder,
  IdemKey,
  IdemRecord,
  MarketLease,
  PlaceResult,
  CancelManyResult,
  QuoteSetResult,
  QuoteTerm,
  RouteExecution,
} from "../models/trading";
import { Refusal, refusalCode } from "../engine/refusal";
import type { TradingCode } from "./refusals";
import type { AmendCommand, PlaceCommand, RouteCommand, Settled } from "./commands";
import { idemRecord, splitCommand, type LedgerAck, type LedgerPost } from "./entries";
import type { CommandPlan, MarketView } from "./plan";
import { planPlace } from "./plan-place";
import { planAmend } from "./plan-amend";
import { planCancel, planCancelMany, planHalt, planRelease, type CancelResult } from "./plan-cancel";
import { exitQuote, planFunding, planMarketOrder, planQuote } from "./plan-route";
import { planQuotes } from "./plan-quotes";
import { QuoteSets } from "./quote-sets";

/** Refusals of an entry that changed nothing anywhere: the actor goes on writing. */
const MONEY_REFUSALS: ReadonlySet<string> = new Set([
  "INSUFFICIENT_BALANCE",
  "INSUFFICIENT_SHARES",
  "DUPLICATE_CLIENT_ORDER_ID",
  "IDEMPOTENCY_KEY_REUSED",
  // A market order's race-pool leg refused: the pool moved, or its market ended meanwhile.
  "BOOK_CHANGED",
  "MARKET_NOT_OPEN",
]);

/**
 * A commit's acknowledgement, begun inside the queue's turn (its durability wait is registered
 * before the next command runs, so acknowledgements and publications keep the commands' order)
 * and awaited outside it (the next command does not wait for durability). Boxed so that the turn
 * does not wait for it; its failure is handled where it is awaited.
 */
function acking<T>(promise: Promise<T>): { promise: Promise<T> } {
  promise.catch(() => undefined);
  return { promise };
}

/** Orders read back a page at a time when a book is rebuilt. */
const REBUILD_PAGE = 5000;

/**
 * The ledger's code for a write the store refused whole (a full disk): the command was undone
 * there, nothing executed; the actor resumes from what the ledger holds.
 */
const WRITE_REFUSED = "SERVICE_UNAVAILABLE";

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
  /** Status, AMM funding and trading mode of the market, or null when the catalog does not know it. */
  market(marketId: string): Promise<MarketInfo | null>;
  /** The node's exchange-wide mode and post-only window after the start (trading/trading-modes.ts); none: normal. */
  modes?: ExchangeModes;
  ledger: {
    /** A writer lease for this node; every earlier writer of the market is refused from now on. */
    acquire(marketId: string): Promise<MarketLease & { instance: string }>;
    /** Resting orders in time priority after `afterPrio` (the book as committed). */
    restingOrders(marketId: string, afterPrio: number, limit: number): Promise<CommittedRestingOrder[]>;
    /** The market's lease as committed (once none of its entries waits to be written). */
    lease(marketId: string): Promise<MarketLease>;
    /** Applies the entry (answered once applied in the ledger's memory, not yet durable). */
    post(entry: LedgerPost): Promise<LedgerAck>;
    /**
     * The same with the ledger on this node, in the caller's turn: its answer, its refusal thrown,
     * or undefined when no ledger runs here (nothing posted). Absent: always `post`.
     */
    postNow?(entry: LedgerPost): LedgerAck | undefined;
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
export function marketInfo(m: { status: string; ammLiquidity?: string; tradingMode?: ModeSetting } | null): MarketInfo | null {
  if (!m) return null;
  return { status: m.status, ammLiquidity: poolLiquidityOf(Number(m.ammLiquidity ?? "0")), tradingMode: m.tradingMode ?? NORMAL };
}

export interface MarketInfo {
  status: string;
  ammLiquidity: number;
  /** The market's own trading mode as the operator set it (none: normal). */
  tradingMode?: ModeSetting;
}

/** A command applied in the ledger, on its way to durability. */
export interface Committed {
  doc: BookJournalDoc;
  ack: LedgerAck;
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
  /** Orders being amended: their side and outcome until the amend's entry is published. */
  private readonly amending = new Map<string, { side: Side; outcome: Outcome }>();
  /** The market's own trading mode (the operator's); the exchange-wide one and the reopen window come from the ports. */
  private ownMode: ModeSetting = NORMAL;
  /** Resting orders placed with cancelOnPause. */
  private readonly pauseCancels = new Set<string>();
  /** Each user's resting quote orders (POST /quotes), which their next mass quote replaces. */
  private readonly quoteSets = new QuoteSets();

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

  /** The book as committed at `bookSeq`: the resting orders in time priority, their client order ids, and which cancel on a pause. */
  private static async committedBook(
    marketId: string,
    ports: MarketPorts,
    bookSeq: number,
  ): Promise<{ book: OrderBook; clientIds: Array<[string, string]>; pauseCancels: string[]; quotes: Array<[string, string]> }> {
    const book = new OrderBook(marketId, { startSeq: bookSeq });
    const clientIds: Array<[string, string]> = [];
    const pauseCancels: string[] = [];
    const quotes: Array<[string, string]> = [];
    for (let after = 0; ;) {
      const page = await ports.ledger.restingOrders(marketId, after, REBUILD_PAGE);
      for (const o of page) {
        book.restore(o);
        if (o.clientOrderId) clientIds.push([o.orderId, o.clientOrderId]);
        if (o.cancelOnPause) pauseCancels.push(o.orderId);
        if (o.quote) quotes.push([o.userId, o.orderId]);
      }
      if (page.length < REBUILD_PAGE) break;
      after = page[page.length - 1].seq;
    }
    return { book, clientIds, pauseCancels, quotes };
  }

  /** Take the market's lease (fencing any earlier writer), then rebuild the book as committed. */
  static async load(marketId: string, ports: MarketPorts): Promise<MarketActor> {
    const lease = await ports.ledger.acquire(marketId);
    const { book, clientIds, pauseCancels, quotes } = await MarketActor.committedBook(marketId, ports, lease.bookSeq);
    const actor = new MarketActor(marketId, ports, lease, book);
    for (const [o, c] of clientIds) actor.clientIds.set(o, c);
    for (const o of pauseCancels) actor.pauseCancels.add(o);
    for (const [u, o] of quotes) actor.quoteSets.add(u, o);
    const market = await ports.market(marketId);
    actor.status = market?.status ?? null;
    actor.ownMode = market?.tradingMode ?? NORMAL;
    // The pool is funded by the first actor that sees an open market with AMM liquidity: the
    // journal makes it happen once, whichever node or restart gets there first.
    if (!actor.pool && market && market.status === "open" && market.ammLiquidity > 0) {
      const L = market.ammLiquidity;
      await actor.run(async () => ({ value: undefined, committed: await actor.commitPlan(planFunding(actor.view(), L)) }));
    }
    return actor;
  }

  get epoch(): number {
    return this.lease.epoch;
  }

  clientOrderIdOf(orderId: string): string | null {
    return this.clientIds.get(orderId) ?? null;
  }

  /** An order's side and outcome: from the book, or as it was amended (a fill may have taken it off since). */
  orderSide(orderId: string): { side: Side; outcome: Outcome } | undefined {
    return this.book.getOrder(orderId) ?? this.amending.get(orderId);
  }

  /** Orders that left the book need their client id no more (called once their updates went out). */
  forgetClosed(changes: ReadonlyArray<{ orderId: string; remaining: number }>): void {
    for (const c of changes)
      if (c.remaining === 0) {
        this.clientIds.delete(c.orderId);
        this.pauseCancels.delete(c.orderId);
        this.quoteSets.remove(c.orderId);
      }
    for (const c of changes) this.amending.delete(c.orderId);
  }

  /** The trading mode that applies now: the market's own, the exchange-wide one and the reopen window, the strictest. */
  get tradingMode(): ModeSetting {
    return this.ports.modes ? this.ports.modes.effective(this.ownMode) : this.ownMode;
  }

  /**
   * The operator set the market's own mode (`mode` given) or the exchange-wide one changed (none
   * given). Unless the operators' modes together are normal, resting cancelOnPause orders are
   * cancelled (reason `paused`), in one entry; the answer is how many.
   */
  applyMode(mode?: ModeSetting): Promise<number> {
    return this.run(async () => {
      if (mode) this.ownMode = mode;
      const paused = strictest(this.ownMode, this.ports.modes?.exchangeSetting ?? NORMAL).mode !== "normal";
      if (!paused || this.fenced || this.status !== "open") return { value: 0 };
      const targets = this.book.openOrders().filter((o) => this.pauseCancels.has(o.orderId));
      if (!targets.length) return { value: 0 };
      const plan = planRelease(this.view(), targets, "paused", { type: "cancelMany", userId: "*", reason: "paused" });
      return { value: targets.length, committed: await this.commitPlan(plan) };
    });
  }

  get queueDepth(): number {
    return this.queue.depth;
  }

  /** What the planners read: the market as this actor holds it now. */
  private view(): MarketView {
    const { fees, ammFeeBps, newId } = this.ports;
    const now = new Date().toISOString();
    return {
      marketId: this.marketId,
      book: this.book,
      status: this.status,
      mode: this.tradingMode,
      pool: this.pool,
      fees,
      ammFeeBps,
      newId,
      now,
    };
  }

  /** A new order; with `cmd.idem`, `render` makes the answer journaled under the key. */
  place(cmd: PlaceCommand, render?: (r: PlaceResult) => unknown): Promise<PlaceResult> {
    const idem = cmd.idem && render ? { ...cmd.idem, render } : undefined;
    // Nothing queued and the ledger here: planned and committed in this turn (no queue trip).
    if (this.idle && this.ports.ledger.postNow) {
      try {
        const plan = planPlace(this.view(), cmd);
        const committed = this.commitNow(plan, () => this.placed(plan.value.orderId, cmd), idemRecord(idem, plan.value));
        if (committed) return this.afterCommit(committed).then(() => plan.value);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.run(async () => {
      this.ensureWritable();
      const plan = planPlace(this.view(), cmd);
      const committed = await this.commitPlan(plan, idemRecord(idem, plan.value), () => this.placed(plan.value.orderId, cmd));
      return { value: plan.value, committed };
    });
  }

  /**
   * Several new orders (none with a key) in one turn of the queue, in the order given: each is
   * planned on the book as the ones before it left it and committed as its own entry; a refusal
   * is that order's alone. One durability wait for all of them; each answer or refusal in its place.
   */
  placeMany(cmds: PlaceCommand[]): Promise<Array<Settled<PlaceResult>>> {
    return this.queued(async () => {
      const out: Array<Settled<PlaceResult>> = [];
      const committed: Array<{ at: number; c: Committed }> = [];
      for (const cmd of cmds) {
        try {
          this.ensureWritable();
          const plan = planPlace(this.view(), cmd);
          const c = await this.commitPlan(plan, undefined, () => this.placed(plan.value.orderId, cmd));
          committed.push({ at: out.length, c });
          out.push({ ok: true, value: plan.value });
        } catch (error) {
          out.push({ ok: false, error });
        }
      }
      return { out, committed, acked: acking(this.afterCommits(committed.map((x) => x.c))) };
    }).then(async ({ out, committed, acked }) => {
      const failed = await acked.promise;
      failed.forEach((error, k) => {
        if (error !== undefined) out[committed[k].at] = { ok: false, error };
      });
      return out;
    });
  }

  /** Could a command run now, in the caller's turn (nothing queued or running, the book as the ledger holds it)? */
  get idle(): boolean {
    return this.queue.depth === 0 && !this.stale && !this.fenced;
  }

  /**
   * A new order (no key) planned and committed now, in the caller's turn, when the actor is idle
   * and its ledger answers on this node; acknowledge it with `acknowledge`. Undefined: it cannot
   * run now (nothing changed; queue it). A refusal is thrown, that order's alone.
   */
  placeNow(cmd: PlaceCommand): { value: PlaceResult; committed: Committed } | undefined {
    if (!this.idle || !this.ports.ledger.postNow) return undefined;
    const plan = planPlace(this.view(), cmd);
    const committed = this.commitNow(plan, () => this.placed(plan.value.orderId, cmd));
    return committed && { value: plan.value, committed };
  }

  /** Commits made now (placeNow), acknowledged together: per commit, undefined once durable and published, else its error. */
  acknowledge(list: Committed[]): Promise<unknown[]> {
    return this.afterCommits(list);
  }

  /** A placement applied to the book: what the actor keeps of it. */
  private placed(orderId: string, cmd: PlaceCommand): void {
    if (cmd.clientOrderId) this.clientIds.set(orderId, cmd.clientOrderId);
    if (cmd.cancelOnPause) this.pauseCancels.add(orderId);
  }

  /**
   * A mass quote: the user's previous quote set cancelled and `quotes` placed, in one entry (see
   * planQuotes); with `idem`, `render` makes the answer journaled under the key.
   */
  quotes(
    cmd: { userId: string; quotes: QuoteTerm[]; postOnly: boolean; orderGroupId?: string; idem?: IdemKey },
    render?: (r: QuoteSetResult) => unknown,
  ): Promise<QuoteSetResult> {
    return this.run(async () => {
      this.ensureWritable();
      const { userId } = cmd;
      const plan = planQuotes(this.view(), {
        userId,
        quotes: cmd.quotes,
        postOnly: cmd.postOnly,
        ...(cmd.orderGroupId ? { orderGroupId: cmd.orderGroupId } : {}),
        previous: this.quoteSets.of(userId),
      });
      const idem = cmd.idem && render ? { ...cmd.idem, render } : undefined;
      const committed = await this.commitPlan(plan, idemRecord(idem, plan.value), () => {
        for (const id of plan.value.cancelled) this.quoteSets.remove(id);
        for (const o of plan.value.orders) if (o.remainingQuantity > 0) this.quoteSets.add(userId, o.orderId);
      });
      return { value: plan.value, committed };
    });
  }

  /** DELETE /quotes: the user's quote set in this market cancelled in one entry. */
  cancelQuotes(userId: string): Promise<CancelManyResult> {
    return this.run(async () => {
      this.ensureWritable();
      const plan = planCancelMany(this.view(), userId, this.quoteSets.of(userId), "user");
      if (!plan) return { value: { cancelled: [], releasedAmount: 0 } };
      const committed = await this.commitPlan(plan, undefined, () => {
        for (const id of plan.value.cancelled) this.quoteSets.remove(id);
      });
      return { value: plan.value, committed };
    });
  }

  /**
   * Cancel some or all of a user's resting orders in one entry (cancel-all, a lapsed dead man's
   * switch, expiry); see planCancelMany.
   */
  cancelMany(userId: string | null, orderIds: string[] | null, reason: CancelReasonCode): Promise<CancelManyResult> {
    return this.run(async () => {
      this.ensureWritable();
      const plan = planCancelMany(this.view(), userId, orderIds, reason);
      if (!plan) return { value: { cancelled: [], releasedAmount: 0 } };
      return { value: plan.value, committed: await this.commitPlan(plan) };
    });
  }

  /** Amend a resting order atomically under the same id (see planAmend). */
  amend(cmd: AmendCommand): Promise<PlaceResult> {
    return this.run(async () => {
      this.ensureWritable();
      const plan = planAmend(this.view(), cmd);
      if ("unchanged" in plan) return { value: plan.unchanged };
      // Kept until its entry is published: the public tape tells its fills on its side.
      const o = this.book.getOrder(cmd.orderId);
      if (o) this.amending.set(cmd.orderId, { side: o.side, outcome: o.outcome });
      try {
        return { value: plan.value, committed: await this.commitPlan(plan) };
      } catch (err) {
        this.amending.delete(cmd.orderId);
        throw err;
      }
    });
  }

  /** Price a market order exactly as `route` would execute it now, without executing. */
  quote(cmd: RouteCommand): Promise<RoutePlan<unknown>> {
    return this.queued(async () => planQuote(this.view(), cmd));
  }

  /** A market order filled completely or not at all (see planMarketOrder). */
  route(cmd: RouteCommand): Promise<RouteExecution> {
    return this.run(async () => {
      this.ensureWritable();
      const plan = planMarketOrder(this.view(), cmd);
      return { value: plan.value, committed: await this.commitPlan(plan, idemRecord(cmd.idem, plan.value)) };
    });
  }

  /** Cancel one resting order of `userId`; ORDER_NOT_FOUND for unknown or someone else's. */
  cancel(orderId: string, userId: string, reason: CancelReasonCode = "user"): Promise<CancelResult> {
    return this.run(async () => {
      this.ensureWritable();
      const plan = planCancel(this.view(), orderId, userId, reason);
      return { value: plan.value, committed: await this.commitPlan(plan) };
    });
  }

  /** Market closed, cancelled or resolved: stop matching and release every resting order. */
  halt(status: string): Promise<number> {
    return this.run(async () => {
      this.status = status;
      const plan = this.fenced ? null : planHalt(this.view(), status);
      if (!plan) return { value: 0 };
      return { value: plan.value, committed: await this.commitPlan(plan) };
    });
  }

  /** Resolves when the commands queued so far are done (graceful shutdown). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  setStatus(status: string): void {
    this.status = status;
  }

  /** What selling `quantity` right now would fetch, without executing (see exitQuote in plan-route.ts). */
  exitQuote(outcome: Outcome, quantity: number, side: Side = "SELL", excludeUserId?: string): { filled: number; proceeds: number } {
    return exitQuote(
      { book: this.book, pool: this.pool, fees: this.ports.fees, ammFeeBps: this.ports.ammFeeBps },
      outcome,
      quantity,
      side,
      excludeUserId,
    );
  }

  private ensureWritable(): void {
    if (this.fenced) throw new Refusal<TradingCode>("moved", "MARKET_MOVED", "This market is being served by another engine node; retry");
  }

  /**
   * Commit a planned command: ONE ledger entry under this actor's lease at its next journal
   * position, applied in the ledger's memory at once (so the next command can follow); the plan
   * then changes the book, which must arrive exactly at its `bookSeq` (`onApplied` follows). The
   * caller acknowledges only after `afterCommit` (outside this actor's queue, so commands pipeline
   * while the ledger writes).
   */
  private async commitPlan(plan: CommandPlan<unknown>, idem?: IdemRecord, onApplied?: () => void): Promise<Committed> {
    const { doc, parts } = this.entryOf(plan);
    const ack = await this.postParts(parts, idem);
    return this.applyCommitted(plan, doc, parts.length, ack, onApplied);
  }

  /**
   * commitPlan with the ledger on this node, answering at once (`postNow`): the same entry, checks
   * and book change in this turn, no promise; undefined when no ledger answers here (nothing
   * changed). A refusal is thrown once this actor has taken it as postRefused does (a position
   * refused: the book resumes from the ledger before the next command).
   */
  private commitNow(plan: CommandPlan<unknown>, onApplied?: () => void, idem?: IdemRecord): Committed | undefined {
    const { doc, parts } = this.entryOf(plan);
    const post = this.ports.ledger.postNow;
    if (!post) return undefined;
    let ack: LedgerAck | undefined;
    try {
      for (const entry of this.posts(parts, idem)) {
        ack = post(entry);
        if (!ack) return undefined;
      }
    } catch (err) {
      const code = refusalCode(err);
      if (code === "MARKET_MOVED") {
        // Resumed from the ledger in the queue, before the next command.
        this.stale = true;
        void this.queue.run(() => this.refusedPosition());
      } else if (!MONEY_REFUSALS.has(code ?? "")) this.fenced = true;
      throw err;
    }
    return this.applyCommitted(plan, doc, parts.length, ack as LedgerAck, onApplied);
  }

  /** A planned command's journal entry at this actor's next position, cut into parts when too large. */
  private entryOf(plan: CommandPlan<unknown>): { doc: BookJournalDoc; parts: LedgerPost[] } {
    const doc: BookJournalDoc = {
      marketId: this.marketId,
      seq: this.journalSeq + 1,
      epoch: this.lease.epoch,
      bookSeq: plan.bookSeq,
      node: this.ports.nodeID,
      command: plan.command,
      fills: plan.settlement.fills,
      orders: plan.settlement.orders,
      at: new Date().toISOString(),
    };
    if (plan.pool) doc.pool = { yes: plan.pool.yes, no: plan.pool.no };
    if (plan.amm) doc.amm = plan.amm;
    const parts = splitCommand(doc, plan.settlement, plan.checkAfter ?? 0);
    if (plan.eventPool) parts[parts.length - 1].eventPool = plan.eventPool;
    return { doc, parts };
  }

  /** The ledger took the entry: the book follows, and must arrive exactly at the entry's `bookSeq`. */
  private applyCommitted(
    plan: CommandPlan<unknown>,
    doc: BookJournalDoc,
    parts: number,
    ack: LedgerAck,
    onApplied?: () => void,
  ): Committed {
    this.journalSeq = doc.seq + parts - 1;
    if (plan.pool) this.pool = plan.pool;
    plan.apply(this.book);
    onApplied?.();
    if (this.book.seq !== doc.bookSeq) {
      // The ledger holds the truth: rebuild from it.
      this.fenced = true;
      throw new Refusal<TradingCode>(
        "internal",
        "BOOK_DIVERGED",
        `The book of ${this.marketId} did not execute as previewed; it is rebuilt from the ledger`,
      );
    }
    return { doc, ack };
  }

  /** The entry (or its parts, applied together by the ledger, all or none); the answer's Idempotency-Key goes with the last. */
  /** The entries posted for a command's parts: each named in its group when there are several, the key on the last. */
  private posts(parts: LedgerPost[], idem?: IdemRecord): LedgerPost[] {
    if (parts.length === 1) return idem ? [{ ...parts[0], idem }] : parts;
    const group = `${this.marketId}:${parts[0].book.seq}:${this.lease.epoch}`;
    return parts.map((p, index) => ({
      ...p,
      part: { group, index, count: parts.length },
      ...(index === parts.length - 1 && idem ? { idem } : {}),
    }));
  }

  private async postParts(parts: LedgerPost[], idem?: IdemRecord): Promise<LedgerAck> {
    let ack!: LedgerAck;
    try {
      for (const entry of this.posts(parts, idem)) ack = await this.ports.ledger.post(entry);
    } catch (err) {
      await this.postRefused(err);
      throw err;
    }
    return ack;
  }

  /**
   * A refusal for money changed nothing here or there. A position refused (after a refused commit
   * was undone, or the lease moved): resume from the ledger, which tells which. Anything else (an
   * unknown outcome): this actor never writes again; the service rebuilds it.
   */
  private async postRefused(err: unknown): Promise<void> {
    const code = refusalCode(err);
    if (code === "MARKET_MOVED") await this.refusedPosition();
    else if (!MONEY_REFUSALS.has(code ?? "")) this.fenced = true;
  }

  /**
   * Wait until the commit is durable, then tell the world. Refused and undone (a full disk): the
   * book resumes from the ledger before the next command; an unknown outcome fences this actor.
   */
  private async afterCommit(c: Committed): Promise<void> {
    try {
      await this.ports.ledger.durable(c.ack.seq, c.ack.instance);
    } catch (err) {
      if (refusalCode(err) !== WRITE_REFUSED) {
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
   * Several commits of one turn, acknowledged together: one wait for the last (the watermark
   * passes the earlier ones first) when one ledger process took them all; otherwise, or when that
   * wait fails, each on its own, so that each learns its own outcome. Per commit: undefined once
   * durable and published, else its error.
   */
  private async afterCommits(list: Committed[]): Promise<unknown[]> {
    if (!list.length) return [];
    const last = list[list.length - 1].ack;
    if (list.every((c) => c.ack.instance === last.instance)) {
      const together = await this.ports.ledger.durable(last.seq, last.instance).then(
        () => true,
        () => false,
      );
      if (together) {
        for (const c of list) this.ports.publish(c.doc, this);
        return list.map(() => undefined);
      }
    }
    const out: unknown[] = [];
    for (const c of list)
      out.push(
        await this.afterCommit(c).then(
          () => undefined,
          (err: unknown) => err ?? new Error("not acknowledged"),
        ),
      );
    return out;
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
    const { book, clientIds, pauseCancels, quotes } = await MarketActor.committedBook(
      this.marketId,
      this.ports,
      Math.max(lease.bookSeq, this.book.seq),
    );
    this.book = book;
    this.clientIds.clear();
    for (const [o, c] of clientIds) this.clientIds.set(o, c);
    this.pauseCancels.clear();
    for (const o of pauseCancels) this.pauseCancels.add(o);
    this.quoteSets.clear();
    for (const [u, o] of quotes) this.quoteSets.add(u, o);
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
    return this.queued(async () => {
      const { value, committed } = await task();
      return { value, acked: committed ? acking(this.afterCommit(committed)) : undefined };
    }).then(async ({ value, acked }) => {
      if (acked) await acked.promise;
      return value;
    });
  }
}
