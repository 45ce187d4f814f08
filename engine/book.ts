/**
 * Pure matching core for one binary market: no I/O, no framework, deterministic.
 *
 * Everything is kept in the YES view: BUY YES t and SELL NO (100-t) are bids at YES tick t,
 * SELL YES t and BUY NO (100-t) are asks at YES tick t. With only 99 ticks, levels live in
 * fixed arrays indexed by tick; each level is an intrusive FIFO list so cancel is O(1).
 *
 * Resting orders are rows of one Float64Array (a slab with a free list) addressed by integer
 * slot, and an open-addressing table maps orderId -> slot. A deep book is then a few flat arrays
 * instead of 200,000 objects and a Map the GC must trace and rehash. Events are made by a few
 * protected factories, so a caller that reads them before the next command can reuse them
 * (bench/lib/reusing-book.ts) without a second matching loop. preview() is the same placement
 * run dry: one walk (match) decides both what would happen and what does.
 */
import type {
  AcceptedEvent,
  BestPrices,
  BookEvent,
  CancelledEvent,
  CancelReason,
  Depth,
  FillEvent,
  Order,
  OrderBookOptions,
  Outcome,
  PriceLevel,
  QueuePosition,
  RejectedEvent,
  RejectReason,
  RestedEvent,
  RestingOrder,
  Side,
  SweepOptions,
  SweepResult,
  Tick,
} from "./types";

import { isTick, MAX_TICK, MIN_TICK } from "./money";

export type * from "./types";

/** Sentinels for "no bid" / "no ask" so the cross test needs no null check. */
const NO_BID = 0;
const NO_ASK = 100;

/** Level index: bids at YES tick t are level t, asks level ASKS + t (0..100 each, sentinels included). */
const ASKS = 101;
const LEVELS = 2 * ASKS;

/** One order = one row of ROW doubles (64 bytes, about one cache line). */
const ROW = 8;
const REMAINING = 0;
const QUANTITY = 1;
const SEQ = 2;
const PREV = 3;
/** Next in the level's FIFO; for a free slot, the next free slot. */
const NEXT = 4;
/** Level index | SELL_BIT | NO_BIT: side, outcome and price follow from it. */
const META = 5;
/** hashId(orderId), so the id table can be maintained without rehashing strings. */
const HASH = 6;
const SELL_BIT = 1 << 8;
const NO_BIT = 1 << 9;
const LEVEL_MASK = 0xff;

const NONE = -1;
const MIN_SLOTS = 16;

function isValidSide(s: unknown): s is Side {
  return s === "BUY" || s === "SELL";
}
function isValidOutcome(o: unknown): o is Outcome {
  return o === "YES" || o === "NO";
}
function isValidQuantity(q: unknown): q is number {
  return typeof q === "number" && Number.isSafeInteger(q) && q > 0;
}
function isNonEmptyString(s: unknown): s is string {
  return typeof s === "string" && s.length > 0;
}

/** True when the order sits on the YES-view bid side. */
function yesIsBid(side: Side, outcome: Outcome): boolean {
  return (side === "BUY") === (outcome === "YES");
}

/**
 * FNV-1a with a murmur finaliser, for the orderId table. Ids are minted by the service, not
 * chosen by users, so no flooding defence is needed.
 */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

// Event factories: every event of a type is created here, so reused and fresh ones share one
// shape and one key order (consumers and tests compare them serialised).
export function newFill(): FillEvent {
  return {
    type: "fill",
    seq: 0,
    makerOrderId: "",
    takerOrderId: "",
    makerUserId: "",
    takerUserId: "",
    kind: "transfer",
    quantity: 0,
    makerSide: "BUY",
    makerOutcome: "YES",
    makerPrice: 0,
    takerSide: "BUY",
    takerOutcome: "YES",
    takerPrice: 0,
    makerRemaining: 0,
    takerRemaining: 0,
  };
}
export function newCancelled(): CancelledEvent {
  return { type: "cancelled", seq: 0, orderId: "", userId: "", side: "BUY", outcome: "YES", price: 0, remaining: 0, reason: "USER" };
}
function accepted(seq: number, orderId: string): AcceptedEvent {
  return { type: "accepted", seq, orderId };
}
function rested(seq: number, orderId: string, remaining: number): RestedEvent {
  return { type: "rested", seq, orderId, remaining };
}
function rejected(seq: number, orderId: string, reason: RejectReason): RejectedEvent {
  return { type: "rejected", seq, orderId, reason };
}

export class OrderBook {
  readonly marketId: string;
  private lastSeq: number;

  // --- levels, indexed by level (see ASKS); tick 0 and 100 are unused sentinels ---
  private readonly levelHead = new Int32Array(LEVELS).fill(NONE);
  private readonly levelTail = new Int32Array(LEVELS).fill(NONE);
  private readonly levelQuantity = new Float64Array(LEVELS);
  private readonly levelCount = new Int32Array(LEVELS);
  private bestBid = NO_BID;
  private bestAsk = NO_ASK;

  // --- order slab ---
  private rows = new Float64Array(MIN_SLOTS * ROW);
  private orderIds: string[] = new Array<string>(MIN_SLOTS).fill("");
  private userIds: string[] = new Array<string>(MIN_SLOTS).fill("");
  private capacity = MIN_SLOTS;
  /** Slots ever handed out; slots >= used have never held an order. */
  private used = 0;
  private freeHead = NONE;
  private count = 0;

  // --- orderId -> slot: linear probing, pairs [slot + 1 (0 = empty), hash], load <= 1/2 ---
  private idTable = new Int32Array(4 * MIN_SLOTS);
  private idMask = 2 * MIN_SLOTS - 1;

  // --- events of the running command: the first eventCount entries (the array is reused) ---
  protected readonly events: BookEvent[] = [];
  private eventCount = 0;
  /** Set while preview() runs a placement that only makes its events. */
  private dryRun = false;
  /** Where events go: `events`, or a dry run's own array. */
  private sink: BookEvent[] = this.events;

  constructor(marketId: string, opts: OrderBookOptions = {}) {
    const startSeq = opts.startSeq ?? 0;
    if (!Number.isSafeInteger(startSeq) || startSeq < 0) throw new RangeError(`invalid startSeq ${String(startSeq)}`);
    this.marketId = marketId;
    this.lastSeq = startSeq;
  }

  /** Last emitted seq. */
  get seq(): number {
    return this.lastSeq;
  }

  get size(): number {
    return this.count;
  }

  place(order: Order): BookEvent[] {
    return this.events.slice(0, this.execPlace(order));
  }

  cancel(orderId: string, userId?: string): BookEvent[] {
    return this.events.slice(0, this.execCancel(orderId, userId));
  }

  /**
   * The events place(order) would return right now, without changing the book. A caller gets the
   * taker's money approved on these (one ledger entry per command) before anything moves, then
   * places for real: the book is deterministic, so place() then returns the same events.
   * `replacing`: the resting order of that id is cancelled first (amend), then this one is placed.
   * It runs the placement itself as a dry run, so the two can never disagree.
   */
  preview(order: Order, opts: { replacing?: boolean } = {}): BookEvent[] {
    const lastSeq = this.lastSeq;
    const out: BookEvent[] = [];
    this.dryRun = true;
    this.sink = out;
    try {
      this.runPlace(order, opts.replacing === true);
      return out;
    } finally {
      this.dryRun = false;
      this.sink = this.events;
      this.lastSeq = lastSeq;
    }
  }

  /**
   * Would `order` meet any resting order at once (its own user's included)? A post-only order is
   * refused then: it is meant to add liquidity only. `ignore` is an order being replaced.
   */
  crosses(order: Pick<Order, "side" | "outcome" | "price">, ignore?: string): boolean {
    const isBid = yesIsBid(order.side, order.outcome);
    const tick = order.outcome === "YES" ? order.price : 100 - order.price;
    const best = isBid ? this.bestAsk : this.bestBid;
    if (isBid ? best > tick : best < tick) return false;
    if (ignore === undefined) return true;
    // Only the replaced order in the way does not count.
    const skip = this.findSlot(ignore, hashId(ignore));
    const base = isBid ? ASKS : 0;
    const step = isBid ? 1 : -1;
    for (let t = best; isBid ? t <= tick : t >= tick; t += step) {
      for (let slot = this.levelHead[base + t]; slot !== NONE; slot = this.rows[slot * ROW + NEXT] | 0) if (slot !== skip) return true;
    }
    return false;
  }

  /**
   * An independent copy: the same resting orders, priorities and event clock. A command of several
   * steps (a mass quote) runs on it first, so its events are known before the book itself moves.
   */
  copy(): OrderBook {
    const b = new OrderBook(this.marketId, { startSeq: this.lastSeq });
    b.levelHead.set(this.levelHead);
    b.levelTail.set(this.levelTail);
    b.levelQuantity.set(this.levelQuantity);
    b.levelCount.set(this.levelCount);
    b.bestBid = this.bestBid;
    b.bestAsk = this.bestAsk;
    b.rows = this.rows.slice();
    b.orderIds = this.orderIds.slice();
    b.userIds = this.userIds.slice();
    b.capacity = this.capacity;
    b.used = this.used;
    b.freeHead = this.freeHead;
    b.count = this.count;
    b.idTable = this.idTable.slice();
    b.idMask = this.idMask;
    return b;
  }

  /**
   * Sets a resting order's size (filled so far + open), as views and restores report it; matching
   * never reads it. An amend that replaces an order places only its open part.
   */
  setQuantity(orderId: string, quantity: number): boolean {
    const slot = typeof orderId === "string" ? this.findSlot(orderId, hashId(orderId)) : NONE;
    if (slot === NONE || !isValidQuantity(quantity) || quantity < this.rows[slot * ROW + REMAINING]) return false;
    this.rows[slot * ROW + QUANTITY] = quantity;
    return true;
  }

  /**
   * Lowers a resting order's open quantity in place, keeping its time priority (amend down).
   * Returns false for an unknown order, another user's, or a quantity not below the current one.
   */
  reduce(orderId: string, userId: string, remaining: number): boolean {
    const slot = typeof orderId === "string" ? this.findSlot(orderId, hashId(orderId)) : NONE;
    if (slot === NONE || this.userIds[slot] !== userId || !isValidQuantity(remaining)) return false;
    const r = slot * ROW;
    const cur = this.rows[r + REMAINING];
    if (remaining >= cur) return false;
    this.rows[r + REMAINING] = remaining;
    // The original quantity shrinks by the same amount, so filled = quantity - remaining holds.
    this.rows[r + QUANTITY] -= cur - remaining;
    this.levelQuantity[(this.rows[r + META] | 0) & LEVEL_MASK] -= cur - remaining;
    return true;
  }

  /** Runs a placement: its events are the first n of `events`, n returned, until the next command. */
  protected execPlace(order: Order): number {
    return this.runPlace(order, false);
  }

  /**
   * A placement, after the cancel of the resting order it replaces when `replacing`. The checks
   * come first, in this order, and refuse it before anything moves; a dry run only makes events.
   */
  private runPlace(order: Order, replacing: boolean): number {
    this.eventCount = 0;
    const orderId = order != null && typeof order.orderId === "string" ? order.orderId : "";
    const hash = hashId(orderId);
    const replaced = replacing ? this.findSlot(orderId, hash) : NONE;
    if (replacing && (replaced === NONE || this.userIds[replaced] !== order.userId)) return this.refuse(orderId, "UNKNOWN_ORDER");
    const invalid = this.validate(order);
    if (invalid !== null) return this.refuse(orderId, invalid);
    // Only live ids are known here; lifetime uniqueness of ids is the service's job.
    if (!replacing && this.findSlot(orderId, hash) !== NONE) return this.refuse(orderId, "DUPLICATE_ORDER");
    const isBid = yesIsBid(order.side, order.outcome);
    const tick = order.outcome === "YES" ? order.price : 100 - order.price;
    // FOK is decided before anything mutates: a reject leaves even the taker's own orders alone.
    // A replaced order is the taker's own, so this count of others' liquidity never includes it.
    if (order.orderType === "FOK" && this.available(isBid, tick, order.quantity, order.userId) < order.quantity)
      return this.refuse(orderId, "FOK_NOT_FILLED");

    if (replaced !== NONE) {
      this.emitCancelled(replaced, "USER");
      if (!this.dryRun) this.removeSlot(replaced);
    }
    const acceptSeq = ++this.lastSeq;
    this.emit(this.dryRun ? accepted(acceptSeq, orderId) : this.acceptedEvent(acceptSeq, orderId));
    // Most orders rest without crossing: no walk to set up then.
    const crosses = isBid ? this.bestAsk <= tick : this.bestBid >= tick;
    const remaining = crosses ? this.match(order, isBid, tick, replaced) : order.quantity;
    if (remaining > 0 && order.orderType !== "FAK") {
      // Only GTC/GTD get here: a FOK that passed the check always fills completely.
      if (!this.dryRun) this.linkAtTail(this.newSlot(order, isBid, tick, remaining, acceptSeq, hash));
      const seq = ++this.lastSeq;
      this.emit(this.dryRun ? rested(seq, orderId, remaining) : this.restedEvent(seq, orderId, remaining));
    }
    return this.eventCount;
  }

  private refuse(orderId: string, reason: RejectReason): number {
    this.emitRejected(orderId, reason);
    return this.eventCount;
  }

  /** Runs a cancel; same contract as execPlace. */
  protected execCancel(orderId: string, userId?: string): number {
    this.eventCount = 0;
    const slot = typeof orderId === "string" ? this.findSlot(orderId, hashId(orderId)) : NONE;
    // Another user's order answers exactly like an unknown one so ids cannot be probed.
    if (slot === NONE || (userId !== undefined && this.userIds[slot] !== userId)) {
      this.emitRejected(orderId, "UNKNOWN_ORDER");
      return this.eventCount;
    }
    this.emitCancelled(slot, "USER");
    this.removeSlot(slot);
    return this.eventCount;
  }

  /** Cancels every resting order in arrival (seq) order, e.g. at market close. */
  cancelAll(reason: CancelReason = "MARKET_CLOSED"): BookEvent[] {
    const slots = this.slotsBySeq();
    const events: BookEvent[] = new Array(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const e = newCancelled();
      this.writeCancelled(e, slots[i], reason, ++this.lastSeq);
      events[i] = e;
    }
    // Dropping the whole structure beats unlinking order by order; a closed market's book also
    // gives back the slab it grew to.
    this.levelHead.fill(NONE);
    this.levelTail.fill(NONE);
    this.levelQuantity.fill(0);
    this.levelCount.fill(0);
    this.rows = new Float64Array(MIN_SLOTS * ROW);
    this.orderIds = new Array<string>(MIN_SLOTS).fill("");
    this.userIds = new Array<string>(MIN_SLOTS).fill("");
    this.capacity = MIN_SLOTS;
    this.idTable = new Int32Array(4 * MIN_SLOTS);
    this.idMask = 2 * MIN_SLOTS - 1;
    this.used = 0;
    this.freeHead = NONE;
    this.count = 0;
    this.bestBid = NO_BID;
    this.bestAsk = NO_ASK;
    return events;
  }

  /**
   * Re-inserts a persisted open order without matching, at its seq position within the level.
   * Throws on input that could only come from corrupted state (a valid book never holds it).
   */
  restore(order: RestingOrder): void {
    const { orderId, userId, side, outcome, price, quantity, remaining, seq } = order;
    if (!isNonEmptyString(orderId) || !isNonEmptyString(userId) || !isValidSide(side) || !isValidOutcome(outcome)) {
      throw new TypeError(`restore: malformed order ${String(orderId)}`);
    }
    if (!isTick(price)) throw new RangeError(`restore: invalid price for ${orderId}`);
    if (!isValidQuantity(quantity) || !isValidQuantity(remaining) || remaining > quantity) {
      throw new RangeError(`restore: invalid quantity/remaining for ${orderId}`);
    }
    if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`restore: invalid seq for ${orderId}`);
    const hash = hashId(orderId);
    if (this.findSlot(orderId, hash) !== NONE) throw new Error(`restore: duplicate order ${orderId}`);
    const isBid = yesIsBid(side, outcome);
    const tick = outcome === "YES" ? price : 100 - price;
    if (isBid ? tick >= this.bestAsk : tick <= this.bestBid) throw new Error(`restore: ${orderId} would cross the book`);

    const slot = this.newSlot(order, isBid, tick, remaining, seq, hash);
    const rows = this.rows;
    const level = (isBid ? 0 : ASKS) + tick;
    // Walk back from the tail: restores normally arrive in seq order, making this O(1).
    let after = this.levelTail[level];
    while (after !== NONE && rows[after * ROW + SEQ] > seq) after = rows[after * ROW + PREV] | 0;
    const next = after === NONE ? this.levelHead[level] : rows[after * ROW + NEXT] | 0;
    rows[slot * ROW + PREV] = after;
    rows[slot * ROW + NEXT] = next;
    if (next === NONE) this.levelTail[level] = slot;
    else rows[next * ROW + PREV] = slot;
    if (after === NONE) this.levelHead[level] = slot;
    else rows[after * ROW + NEXT] = slot;
    this.addToLevel(level, slot);
    // Later events must never reuse a restored seq.
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  depth(outcome: Outcome, levels = 10): Depth {
    const n = Math.floor(levels);
    const yesBids = this.collect(0, this.bestBid, -1, n, false);
    const yesAsks = this.collect(ASKS, this.bestAsk, 1, n, false);
    if (outcome === "YES") return { bids: yesBids, asks: yesAsks };
    // NO view mirrors: a YES ask at t is a NO bid at 100-t and vice versa.
    return { bids: this.collect(ASKS, this.bestAsk, 1, n, true), asks: this.collect(0, this.bestBid, -1, n, true) };
  }

  best(outcome: Outcome): BestPrices {
    const bid = this.bestBid === NO_BID ? null : this.bestBid;
    const ask = this.bestAsk === NO_ASK ? null : this.bestAsk;
    if (outcome === "YES") return { bid, ask };
    return { bid: ask === null ? null : 100 - ask, ask: bid === null ? null : 100 - bid };
  }

  /** What an immediate order would take right now, without mutating. Prices in the order's own outcome. */
  sweep(side: Side, outcome: Outcome, quantity: number, opts: SweepOptions = {}): SweepResult {
    const result: SweepResult = { filled: 0, levels: [] };
    if (!(quantity > 0)) return result;
    const isBid = yesIsBid(side, outcome);
    const limit = opts.limit === undefined ? (isBid ? MAX_TICK : MIN_TICK) : outcome === "YES" ? opts.limit : 100 - opts.limit;
    const exclude = opts.excludeUserId;
    const base = isBid ? ASKS : 0;
    const step = isBid ? 1 : -1;
    let need = quantity;
    for (let t = isBid ? this.bestAsk : this.bestBid; need > 0 && t >= MIN_TICK && t <= MAX_TICK; t += step) {
      if (isBid ? t > limit : t < limit) break;
      const level = base + t;
      if (this.levelCount[level] === 0) continue;
      const take = exclude === undefined ? Math.min(this.levelQuantity[level], need) : this.takeFromLevel(level, need, exclude);
      if (take === 0) continue;
      result.levels.push({ price: outcome === "YES" ? t : 100 - t, quantity: take });
      result.filled += take;
      need -= take;
    }
    return result;
  }

  getOrder(orderId: string): RestingOrder | undefined {
    const slot = typeof orderId === "string" ? this.findSlot(orderId, hashId(orderId)) : NONE;
    return slot === NONE ? undefined : this.snapshot(slot);
  }

  /**
   * What rests before a resting order at its level: a walk back from it to the level's head,
   * O(orders ahead) and nothing else (the level's FIFO is in time order; both outcomes at one
   * YES tick share it, as they match). Undefined for an order not resting here.
   */
  queuePosition(orderId: string): QueuePosition | undefined {
    const slot = typeof orderId === "string" ? this.findSlot(orderId, hashId(orderId)) : NONE;
    if (slot === NONE) return undefined;
    const rows = this.rows;
    let quantityAhead = 0;
    let ordersAhead = 0;
    for (let s = rows[slot * ROW + PREV]; s !== NONE; s = rows[s * ROW + PREV]) {
      quantityAhead += rows[s * ROW + REMAINING];
      ordersAhead++;
    }
    return { price: priceOf(rows[slot * ROW + META] | 0), quantityAhead, ordersAhead };
  }

  /** Snapshots of all resting orders, in arrival (seq) order. */
  openOrders(): RestingOrder[] {
    return this.slotsBySeq().map((slot) => this.snapshot(slot));
  }

  /** Full structural self-check (O(n)); returns problems found, empty when consistent. For tests and debugging. */
  checkIntegrity(): string[] {
    const problems: string[] = [];
    const rows = this.rows;
    let seen = 0;
    let bestBid = NO_BID;
    let bestAsk = NO_ASK;
    for (let level = 0; level < LEVELS; level++) {
      const isBid = level < ASKS;
      const t = isBid ? level : level - ASKS;
      const name = `${isBid ? "bid" : "ask"}@${t}`;
      let qty = 0;
      let count = 0;
      let prev = NONE;
      for (let slot = this.levelHead[level]; slot !== NONE; slot = rows[slot * ROW + NEXT] | 0) {
        const r = slot * ROW;
        const where = `${name} ${this.orderIds[slot]}`;
        if (slot < 0 || slot >= this.used || count > this.count) {
          problems.push(`${where}: bad slot ${slot}`);
          break;
        }
        if ((rows[r + PREV] | 0) !== prev) problems.push(`${where}: broken prev link`);
        if (prev !== NONE && rows[prev * ROW + SEQ] >= rows[r + SEQ]) problems.push(`${where}: seq not increasing`);
        if ((rows[r + META] & LEVEL_MASK) !== level) problems.push(`${where}: on wrong level`);
        if (this.findSlot(this.orderIds[slot], hashId(this.orderIds[slot])) !== slot) problems.push(`${where}: not indexed`);
        if (rows[r + HASH] !== hashId(this.orderIds[slot])) problems.push(`${where}: stale hash`);
        if (!(rows[r + REMAINING] > 0 && rows[r + REMAINING] <= rows[r + QUANTITY])) problems.push(`${where}: bad remaining`);
        qty += rows[r + REMAINING];
        count++;
        prev = slot;
      }
      if (this.levelTail[level] !== prev) problems.push(`${name}: bad tail`);
      if (this.levelQuantity[level] !== qty || this.levelCount[level] !== count) problems.push(`${name}: aggregate mismatch`);
      seen += count;
      if (count > 0 && (t < MIN_TICK || t > MAX_TICK)) problems.push(`order on sentinel level ${t}`);
      if (count > 0 && isBid && t > bestBid) bestBid = t;
      if (count > 0 && !isBid && t < bestAsk) bestAsk = t;
    }
    if (seen !== this.count) problems.push(`book counts ${this.count} orders, levels ${seen}`);
    let indexed = 0;
    for (let b = 0; b <= this.idMask; b++) if (this.idTable[2 * b] !== 0) indexed++;
    if (indexed !== this.count) problems.push(`id table holds ${indexed} orders, book ${this.count}`);
    let free = 0;
    for (let slot = this.freeHead; slot !== NONE && free <= this.used; slot = rows[slot * ROW + NEXT] | 0) free++;
    if (free + this.count !== this.used) problems.push(`slab leaks: ${free} free + ${this.count} live != ${this.used} used`);
    if (bestBid !== this.bestBid || bestAsk !== this.bestAsk) problems.push("best pointers stale");
    if (this.bestBid >= this.bestAsk) problems.push("book crossed");
    return problems;
  }

  // --- internals ---

  private validate(o: Order): RejectReason | null {
    if (o == null || typeof o !== "object") return "INVALID_ORDER";
    if (!isNonEmptyString(o.orderId) || !isNonEmptyString(o.userId)) return "INVALID_ORDER";
    if (
      !isValidSide(o.side) ||
      !isValidOutcome(o.outcome) ||
      (o.orderType !== "GTC" && o.orderType !== "GTD" && o.orderType !== "FOK" && o.orderType !== "FAK")
    ) {
      return "INVALID_ORDER";
    }
    if (!isTick(o.price)) return "INVALID_PRICE";
    if (!isValidQuantity(o.quantity)) return "INVALID_QUANTITY";
    return null;
  }

  /**
   * The one price-time walk: the taker against the opposite side from the best level to its limit,
   * each level in arrival order, the taker's own resting orders cancelled on the way (self-trade
   * prevention); returns the unfilled remainder. A dry run makes the same events and moves
   * nothing. `skip` is a resting order passed over (the one a preview replaces), else NONE.
   */
  private match(taker: Order, isBid: boolean, tick: number, skip: number): number {
    // Matching only frees slots, never grows the slab, so `rows` stays valid throughout.
    const rows = this.rows;
    const dry = this.dryRun;
    const base = isBid ? ASKS : 0;
    const step = isBid ? 1 : -1;
    const takerUser = taker.userId;
    let remaining = taker.quantity;
    // Sentinels make an empty side never cross (tick is 1..99).
    for (let t = isBid ? this.bestAsk : this.bestBid; remaining > 0 && (isBid ? t <= tick : t >= tick); t += step) {
      const level = base + t;
      let slot = this.levelHead[level];
      while (slot !== NONE && remaining > 0) {
        const r = slot * ROW;
        // Read before the slot may be freed.
        const next = rows[r + NEXT] | 0;
        if (slot === skip) {
          // Already cancelled by the replacement.
        } else if (this.userIds[slot] === takerUser) {
          this.emitCancelled(slot, "SELF_TRADE");
          if (!dry) this.removeSlot(slot);
        } else {
          const makerRemaining = rows[r + REMAINING];
          const q = remaining < makerRemaining ? remaining : makerRemaining;
          remaining -= q;
          this.emitFill(slot, taker, q, remaining, makerRemaining - q);
          if (!dry) {
            rows[r + REMAINING] = makerRemaining - q;
            this.levelQuantity[level] -= q;
            if (makerRemaining === q) this.removeSlot(slot);
          }
        }
        slot = next;
      }
    }
    return remaining;
  }

  /** Quantity an order could take up to its limit, ignoring excludeUser's orders; stops early at `want`. */
  private available(isBid: boolean, tick: number, want: number, excludeUser: string): number {
    const base = isBid ? ASKS : 0;
    const step = isBid ? 1 : -1;
    const start = isBid ? this.bestAsk : this.bestBid;
    // Aggregates give an upper bound without touching orders: rejects most unfillable FOKs in O(levels).
    let upper = 0;
    for (let t = start; upper < want && (isBid ? t <= tick : t >= tick); t += step) upper += this.levelQuantity[base + t];
    if (upper < want) return upper;
    let sum = 0;
    for (let t = start; sum < want && (isBid ? t <= tick : t >= tick); t += step) {
      if (this.levelCount[base + t] !== 0) sum += this.takeFromLevel(base + t, want - sum, excludeUser);
    }
    return sum;
  }

  /** Up to `need` from one level, skipping excludeUser's orders. */
  private takeFromLevel(level: number, need: number, excludeUser: string): number {
    const rows = this.rows;
    let sum = 0;
    for (let slot = this.levelHead[level]; slot !== NONE && sum < need; slot = rows[slot * ROW + NEXT] | 0) {
      if (this.userIds[slot] !== excludeUser) sum += rows[slot * ROW + REMAINING];
    }
    return sum < need ? sum : need;
  }

  /** Takes a slot (free list first, growing the slab if full), fills its row and indexes its id. */
  private newSlot(order: Order | RestingOrder, isBid: boolean, tick: number, remaining: number, seq: number, hash: number): number {
    let slot = this.freeHead;
    if (slot !== NONE) this.freeHead = this.rows[slot * ROW + NEXT] | 0;
    else {
      if (this.used === this.capacity) this.grow();
      slot = this.used++;
    }
    const rows = this.rows;
    const r = slot * ROW;
    rows[r + REMAINING] = remaining;
    rows[r + QUANTITY] = order.quantity;
    rows[r + SEQ] = seq;
    rows[r + PREV] = NONE;
    rows[r + NEXT] = NONE;
    rows[r + META] = (isBid ? 0 : ASKS) + tick + (order.side === "SELL" ? SELL_BIT : 0) + (order.outcome === "NO" ? NO_BIT : 0);
    rows[r + HASH] = hash;
    this.orderIds[slot] = order.orderId;
    this.userIds[slot] = order.userId;
    this.count++;
    if (2 * this.count > this.idMask) this.growIdTable();
    this.indexSlot(slot, hash);
    return slot;
  }

  private grow(): void {
    const capacity = 2 * this.capacity;
    const rows = new Float64Array(capacity * ROW);
    rows.set(this.rows);
    this.rows = rows;
    for (let i = this.capacity; i < capacity; i++) {
      this.orderIds.push("");
      this.userIds.push("");
    }
    this.capacity = capacity;
  }

  private linkAtTail(slot: number): void {
    const rows = this.rows;
    const level = (rows[slot * ROW + META] | 0) & LEVEL_MASK;
    const tail = this.levelTail[level];
    rows[slot * ROW + PREV] = tail;
    if (tail === NONE) this.levelHead[level] = slot;
    else rows[tail * ROW + NEXT] = slot;
    this.levelTail[level] = slot;
    this.addToLevel(level, slot);
  }

  /** Bookkeeping shared by linkAtTail and restore once the slot is linked in. */
  private addToLevel(level: number, slot: number): void {
    this.levelQuantity[level] += this.rows[slot * ROW + REMAINING];
    this.levelCount[level]++;
    if (level < ASKS) {
      if (level > this.bestBid) this.bestBid = level;
    } else if (level - ASKS < this.bestAsk) this.bestAsk = level - ASKS;
  }

  /** Unlinks, unindexes and frees a slot. The match loop has already read its NEXT. */
  private removeSlot(slot: number): void {
    const rows = this.rows;
    const r = slot * ROW;
    const level = (rows[r + META] | 0) & LEVEL_MASK;
    const prev = rows[r + PREV] | 0;
    const next = rows[r + NEXT] | 0;
    if (prev === NONE) this.levelHead[level] = next;
    else rows[prev * ROW + NEXT] = next;
    if (next === NONE) this.levelTail[level] = prev;
    else rows[next * ROW + PREV] = prev;
    this.levelQuantity[level] -= rows[r + REMAINING];
    const left = --this.levelCount[level];

    this.unindexSlot(slot, rows[r + HASH] | 0);
    // Drop the id strings so a freed slot keeps nothing alive.
    this.orderIds[slot] = "";
    this.userIds[slot] = "";
    rows[r + NEXT] = this.freeHead;
    this.freeHead = slot;
    this.count--;

    if (left !== 0) return;
    // At most 98 cheap steps, and only when a best level empties.
    if (level < ASKS) {
      if (level === this.bestBid) {
        let t = level - 1;
        while (t > NO_BID && this.levelCount[t] === 0) t--;
        this.bestBid = t;
      }
    } else if (level - ASKS === this.bestAsk) {
      let t = level - ASKS + 1;
      while (t < NO_ASK && this.levelCount[ASKS + t] === 0) t++;
      this.bestAsk = t;
    }
  }

  private findSlot(orderId: string, hash: number): number {
    const table = this.idTable;
    const mask = this.idMask;
    for (let b = hash & mask; ; b = (b + 1) & mask) {
      const entry = table[2 * b];
      if (entry === 0) return NONE;
      if (table[2 * b + 1] === hash && this.orderIds[entry - 1] === orderId) return entry - 1;
    }
  }

  private indexSlot(slot: number, hash: number): void {
    const table = this.idTable;
    const mask = this.idMask;
    let b = hash & mask;
    while (table[2 * b] !== 0) b = (b + 1) & mask;
    table[2 * b] = slot + 1;
    table[2 * b + 1] = hash;
  }

  /** Backward-shift delete: no tombstones, so lookups never slow down under churn. */
  private unindexSlot(slot: number, hash: number): void {
    const table = this.idTable;
    const mask = this.idMask;
    let hole = hash & mask;
    while (table[2 * hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let b = (hole + 1) & mask; table[2 * b] !== 0; b = (b + 1) & mask) {
      // An entry may fill the hole if the hole lies on its probe path from its home bucket.
      const home = table[2 * b + 1] & mask;
      if (((b - home) & mask) >= ((b - hole) & mask)) {
        table[2 * hole] = table[2 * b];
        table[2 * hole + 1] = table[2 * b + 1];
        hole = b;
      }
    }
    table[2 * hole] = 0;
    table[2 * hole + 1] = 0;
  }

  private growIdTable(): void {
    const old = this.idTable;
    this.idTable = new Int32Array(2 * old.length);
    this.idMask = old.length - 1;
    for (let b = 0; b < old.length; b += 2) if (old[b] !== 0) this.indexSlot(old[b] - 1, old[b + 1]);
  }

  /** Live slots in arrival (seq) order. */
  private slotsBySeq(): number[] {
    const slots: number[] = [];
    const rows = this.rows;
    for (let level = 0; level < LEVELS; level++) {
      for (let slot = this.levelHead[level]; slot !== NONE; slot = rows[slot * ROW + NEXT] | 0) slots.push(slot);
    }
    return slots.sort((a, b) => rows[a * ROW + SEQ] - rows[b * ROW + SEQ]);
  }

  private snapshot(slot: number): RestingOrder {
    const r = slot * ROW;
    const meta = this.rows[r + META] | 0;
    return {
      orderId: this.orderIds[slot],
      userId: this.userIds[slot],
      side: meta & SELL_BIT ? "SELL" : "BUY",
      outcome: meta & NO_BIT ? "NO" : "YES",
      price: priceOf(meta),
      quantity: this.rows[r + QUANTITY],
      remaining: this.rows[r + REMAINING],
      seq: this.rows[r + SEQ],
    };
  }

  // Event objects: new ones the caller may keep. A subclass may hand out reused ones instead.
  protected acceptedEvent(seq: number, orderId: string): AcceptedEvent {
    return accepted(seq, orderId);
  }

  protected restedEvent(seq: number, orderId: string, remaining: number): RestedEvent {
    return rested(seq, orderId, remaining);
  }

  protected rejectedEvent(seq: number, orderId: string, reason: RejectReason): RejectedEvent {
    return rejected(seq, orderId, reason);
  }

  protected fillEvent(): FillEvent {
    return newFill();
  }

  protected cancelledEvent(): CancelledEvent {
    return newCancelled();
  }

  private emit(e: BookEvent): void {
    const sink = this.sink;
    const n = this.eventCount++;
    if (n < sink.length) sink[n] = e;
    else sink.push(e);
  }

  // A dry run's events are the caller's to keep, so they are always new objects.
  private emitRejected(orderId: string, reason: RejectReason): void {
    const seq = ++this.lastSeq;
    this.emit(this.dryRun ? rejected(seq, orderId, reason) : this.rejectedEvent(seq, orderId, reason));
  }

  private emitCancelled(slot: number, reason: CancelReason): void {
    const e = this.dryRun ? newCancelled() : this.cancelledEvent();
    this.writeCancelled(e, slot, reason, ++this.lastSeq);
    this.emit(e);
  }

  private writeCancelled(e: CancelledEvent, slot: number, reason: CancelReason, seq: number): void {
    const r = slot * ROW;
    const meta = this.rows[r + META] | 0;
    e.seq = seq;
    e.orderId = this.orderIds[slot];
    e.userId = this.userIds[slot];
    e.side = meta & SELL_BIT ? "SELL" : "BUY";
    e.outcome = meta & NO_BIT ? "NO" : "YES";
    e.price = priceOf(meta);
    e.remaining = this.rows[r + REMAINING];
    e.reason = reason;
  }

  private emitFill(slot: number, taker: Order, quantity: number, takerRemaining: number, makerRemaining: number): void {
    const e = this.dryRun ? newFill() : this.fillEvent();
    this.writeFill(e, slot, taker, quantity, takerRemaining, makerRemaining, ++this.lastSeq);
    this.emit(e);
  }

  private writeFill(
    e: FillEvent,
    slot: number,
    taker: Order,
    quantity: number,
    takerRemaining: number,
    makerRemaining: number,
    seq: number,
  ): void {
    const meta = this.rows[slot * ROW + META] | 0;
    const makerOutcome: Outcome = meta & NO_BIT ? "NO" : "YES";
    const makerPrice = priceOf(meta);
    const sameOutcome = makerOutcome === taker.outcome;
    e.seq = seq;
    e.makerOrderId = this.orderIds[slot];
    e.takerOrderId = taker.orderId;
    e.makerUserId = this.userIds[slot];
    e.takerUserId = taker.userId;
    // Opposite outcomes on opposite YES-view sides means both BUY (mint) or both SELL (merge).
    e.kind = sameOutcome ? "transfer" : taker.side === "BUY" ? "mint" : "merge";
    e.quantity = quantity;
    e.makerSide = meta & SELL_BIT ? "SELL" : "BUY";
    e.makerOutcome = makerOutcome;
    e.makerPrice = makerPrice;
    e.takerSide = taker.side;
    e.takerOutcome = taker.outcome;
    e.takerPrice = sameOutcome ? makerPrice : 100 - makerPrice;
    e.makerRemaining = makerRemaining;
    e.takerRemaining = takerRemaining;
  }

  private collect(base: number, from: number, step: 1 | -1, n: number, mirror: boolean): PriceLevel[] {
    const out: PriceLevel[] = [];
    for (let t = from; out.length < n && t >= MIN_TICK && t <= MAX_TICK; t += step) {
      const level = base + t;
      if (this.levelCount[level] !== 0)
        out.push({ price: mirror ? 100 - t : t, quantity: this.levelQuantity[level], numOrders: this.levelCount[level] });
    }
    return out;
  }
}

/** The order's limit in its own outcome, from its row's META. */
function priceOf(meta: number): Tick {
  const level = meta & LEVEL_MASK;
  const tick = level < ASKS ? level : level - ASKS;
  return meta & NO_BIT ? 100 - tick : tick;
}
