/**
 * Pure matching core for one binary market: no I/O, no framework, deterministic.
 *
 * Everything is kept in the YES view: BUY YES t and SELL NO (100-t) are bids at YES tick t,
 * SELL YES t and BUY NO (100-t) are asks at YES tick t. With only 99 ticks, levels live in
 * fixed arrays indexed by tick; each level is an intrusive FIFO list so cancel is O(1).
 */
import type {
  BestPrices,
  BookEvent,
  CancelReason,
  Depth,
  Order,
  OrderBookOptions,
  Outcome,
  PriceLevel,
  RejectReason,
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

class Node {
  orderId: string;
  userId: string;
  side: Side;
  outcome: Outcome;
  price: Tick;
  quantity: number;
  remaining: number;
  seq: number;
  isBid: boolean;
  tick: number;
  prev: Node | null;
  next: Node | null;

  constructor(
    orderId: string,
    userId: string,
    side: Side,
    outcome: Outcome,
    price: Tick,
    quantity: number,
    remaining: number,
    seq: number,
    isBid: boolean,
    tick: number,
  ) {
    this.orderId = orderId;
    this.userId = userId;
    this.side = side;
    this.outcome = outcome;
    this.price = price;
    this.quantity = quantity;
    this.remaining = remaining;
    this.seq = seq;
    this.isBid = isBid;
    this.tick = tick;
    this.prev = null;
    this.next = null;
  }
}

class Level {
  head: Node | null = null;
  tail: Node | null = null;
  quantity = 0;
  count = 0;
}

function makeLevels(): Level[] {
  const levels: Level[] = new Array(NO_ASK + 1);
  for (let i = 0; i <= NO_ASK; i++) levels[i] = new Level();
  return levels;
}

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

function snapshot(n: Node): RestingOrder {
  return {
    orderId: n.orderId,
    userId: n.userId,
    side: n.side,
    outcome: n.outcome,
    price: n.price,
    quantity: n.quantity,
    remaining: n.remaining,
    seq: n.seq,
  };
}

export class OrderBook {
  readonly marketId: string;
  private lastSeq: number;
  /** Indexed by YES tick; 0 and 100 are unused sentinels. */
  private readonly bids: Level[] = makeLevels();
  private readonly asks: Level[] = makeLevels();
  private bestBid = NO_BID;
  private bestAsk = NO_ASK;
  private readonly orders = new Map<string, Node>();

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
    return this.orders.size;
  }

  place(order: Order): BookEvent[] {
    const events: BookEvent[] = [];
    const reason = this.validate(order);
    if (reason !== null) {
      const orderId = order != null && typeof order.orderId === "string" ? order.orderId : "";
      events.push({ type: "rejected", seq: ++this.lastSeq, orderId, reason });
      return events;
    }
    const { orderId, userId, side, outcome, price, quantity } = order;
    const isBid = yesIsBid(side, outcome);
    const tick = outcome === "YES" ? price : 100 - price;

    // FOK must be decided before anything mutates: a reject leaves even the taker's own orders alone.
    if (order.orderType === "FOK" && this.available(isBid, tick, quantity, userId) < quantity) {
      events.push({ type: "rejected", seq: ++this.lastSeq, orderId, reason: "FOK_NOT_FILLED" });
      return events;
    }

    const acceptSeq = ++this.lastSeq;
    events.push({ type: "accepted", seq: acceptSeq, orderId });
    const remaining = this.match(events, order, isBid, tick);
    if (remaining > 0) {
      // Only GTC gets here: a FOK that passed the check always fills completely.
      const node = new Node(orderId, userId, side, outcome, price, quantity, remaining, acceptSeq, isBid, tick);
      this.append(node);
      events.push({ type: "rested", seq: ++this.lastSeq, orderId, remaining });
    }
    return events;
  }

  cancel(orderId: string, userId?: string): BookEvent[] {
    const node = this.orders.get(orderId);
    // Another user's order answers exactly like an unknown one so ids cannot be probed.
    if (node === undefined || (userId !== undefined && node.userId !== userId)) {
      return [{ type: "rejected", seq: ++this.lastSeq, orderId, reason: "UNKNOWN_ORDER" }];
    }
    this.remove(node);
    return [this.cancelledEvent(node, "USER")];
  }

  /** Cancels every resting order in arrival (seq) order, e.g. at market close. */
  cancelAll(reason: CancelReason = "MARKET_CLOSED"): BookEvent[] {
    const nodes = Array.from(this.orders.values()).sort((a, b) => a.seq - b.seq);
    const events: BookEvent[] = new Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) events[i] = this.cancelledEvent(nodes[i], reason);
    // Dropping the whole structure beats unlinking node by node.
    for (let t = 0; t <= NO_ASK; t++) {
      this.bids[t] = new Level();
      this.asks[t] = new Level();
    }
    this.orders.clear();
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
    if (this.orders.has(orderId)) throw new Error(`restore: duplicate order ${orderId}`);
    const isBid = yesIsBid(side, outcome);
    const tick = outcome === "YES" ? price : 100 - price;
    if (isBid ? tick >= this.bestAsk : tick <= this.bestBid) throw new Error(`restore: ${orderId} would cross the book`);

    const node = new Node(orderId, userId, side, outcome, price, quantity, remaining, seq, isBid, tick);
    const level = (isBid ? this.bids : this.asks)[tick];
    // Walk back from the tail: restores normally arrive in seq order, making this O(1).
    let after = level.tail;
    while (after !== null && after.seq > seq) after = after.prev;
    node.prev = after;
    node.next = after === null ? level.head : after.next;
    if (node.next === null) level.tail = node;
    else node.next.prev = node;
    if (after === null) level.head = node;
    else after.next = node;
    this.addToLevel(level, node);
    // Later events must never reuse a restored seq.
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  depth(outcome: Outcome, levels = 10): Depth {
    const n = Math.floor(levels);
    const yesBids = this.collect(this.bids, this.bestBid, -1, n, false);
    const yesAsks = this.collect(this.asks, this.bestAsk, 1, n, false);
    if (outcome === "YES") return { bids: yesBids, asks: yesAsks };
    // NO view mirrors: a YES ask at t is a NO bid at 100-t and vice versa.
    return { bids: this.collect(this.asks, this.bestAsk, 1, n, true), asks: this.collect(this.bids, this.bestBid, -1, n, true) };
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
    const levels = isBid ? this.asks : this.bids;
    const step = isBid ? 1 : -1;
    let need = quantity;
    for (let t = isBid ? this.bestAsk : this.bestBid; need > 0 && t >= MIN_TICK && t <= MAX_TICK; t += step) {
      if (isBid ? t > limit : t < limit) break;
      const level = levels[t];
      if (level.count === 0) continue;
      const take = exclude === undefined ? Math.min(level.quantity, need) : this.takeFromLevel(level, need, exclude);
      if (take === 0) continue;
      result.levels.push({ price: outcome === "YES" ? t : 100 - t, quantity: take });
      result.filled += take;
      need -= take;
    }
    return result;
  }

  getOrder(orderId: string): RestingOrder | undefined {
    const node = this.orders.get(orderId);
    return node === undefined ? undefined : snapshot(node);
  }

  /** Snapshots of all resting orders, in arrival (seq) order. */
  openOrders(): RestingOrder[] {
    return Array.from(this.orders.values(), snapshot).sort((a, b) => a.seq - b.seq);
  }

  /** Full structural self-check (O(n)); returns problems found, empty when consistent. For tests and debugging. */
  checkIntegrity(): string[] {
    const problems: string[] = [];
    let seen = 0;
    let bestBid = NO_BID;
    let bestAsk = NO_ASK;
    for (const isBid of [true, false]) {
      const levels = isBid ? this.bids : this.asks;
      for (let t = 0; t <= NO_ASK; t++) {
        const level = levels[t];
        let qty = 0;
        let count = 0;
        let prev: Node | null = null;
        for (let node = level.head; node !== null; node = node.next) {
          const where = `${isBid ? "bid" : "ask"}@${t} ${node.orderId}`;
          if (node.prev !== prev) problems.push(`${where}: broken prev link`);
          if (prev !== null && prev.seq >= node.seq) problems.push(`${where}: seq not increasing`);
          if (node.tick !== t || node.isBid !== isBid) problems.push(`${where}: on wrong level`);
          if (this.orders.get(node.orderId) !== node) problems.push(`${where}: not indexed`);
          if (!(node.remaining > 0 && node.remaining <= node.quantity)) problems.push(`${where}: bad remaining`);
          qty += node.remaining;
          count++;
          prev = node;
        }
        if (level.tail !== prev) problems.push(`${isBid ? "bid" : "ask"}@${t}: bad tail`);
        if (level.quantity !== qty || level.count !== count) problems.push(`${isBid ? "bid" : "ask"}@${t}: aggregate mismatch`);
        seen += count;
        if (count > 0 && (t < MIN_TICK || t > MAX_TICK)) problems.push(`order on sentinel level ${t}`);
        if (count > 0 && isBid && t > bestBid) bestBid = t;
        if (count > 0 && !isBid && t < bestAsk) bestAsk = t;
      }
    }
    if (seen !== this.orders.size) problems.push(`index holds ${this.orders.size} orders, levels ${seen}`);
    if (bestBid !== this.bestBid || bestAsk !== this.bestAsk) problems.push("best pointers stale");
    if (this.bestBid >= this.bestAsk) problems.push("book crossed");
    return problems;
  }

  // --- internals ---

  private validate(o: Order): RejectReason | null {
    if (o == null || typeof o !== "object") return "INVALID_ORDER";
    if (!isNonEmptyString(o.orderId) || !isNonEmptyString(o.userId)) return "INVALID_ORDER";
    if (!isValidSide(o.side) || !isValidOutcome(o.outcome) || (o.orderType !== "GTC" && o.orderType !== "FOK")) {
      return "INVALID_ORDER";
    }
    if (!isTick(o.price)) return "INVALID_PRICE";
    if (!isValidQuantity(o.quantity)) return "INVALID_QUANTITY";
    // Only live ids are known here; lifetime uniqueness of ids is the service's job.
    if (this.orders.has(o.orderId)) return "DUPLICATE_ORDER";
    return null;
  }

  /** Fills the taker against the opposite side; returns its unfilled remainder. */
  private match(events: BookEvent[], taker: Order, isBid: boolean, tick: number): number {
    const levels = isBid ? this.asks : this.bids;
    const takerId = taker.orderId;
    const takerUser = taker.userId;
    const takerSide = taker.side;
    const takerOutcome = taker.outcome;
    let remaining = taker.quantity;
    while (remaining > 0) {
      const best = isBid ? this.bestAsk : this.bestBid;
      // Sentinels make an empty side never cross (tick is 1..99).
      if (isBid ? best > tick : best < tick) break;
      const level = levels[best];
      let node = level.head;
      while (node !== null && remaining > 0) {
        const next: Node | null = node.next;
        if (node.userId === takerUser) {
          this.remove(node);
          events.push(this.cancelledEvent(node, "SELF_TRADE"));
        } else {
          const q = remaining < node.remaining ? remaining : node.remaining;
          remaining -= q;
          node.remaining -= q;
          level.quantity -= q;
          if (node.remaining === 0) this.remove(node);
          const sameOutcome = node.outcome === takerOutcome;
          events.push({
            type: "fill",
            seq: ++this.lastSeq,
            makerOrderId: node.orderId,
            takerOrderId: takerId,
            makerUserId: node.userId,
            takerUserId: takerUser,
            // Opposite outcomes on opposite YES-view sides means both BUY (mint) or both SELL (merge).
            kind: sameOutcome ? "transfer" : takerSide === "BUY" ? "mint" : "merge",
            quantity: q,
            makerSide: node.side,
            makerOutcome: node.outcome,
            makerPrice: node.price,
            takerSide,
            takerOutcome,
            takerPrice: sameOutcome ? node.price : 100 - node.price,
            makerRemaining: node.remaining,
            takerRemaining: remaining,
          });
        }
        node = next;
      }
    }
    return remaining;
  }

  /** Quantity an order could take up to its limit, ignoring excludeUser's orders; stops early at `want`. */
  private available(isBid: boolean, tick: number, want: number, excludeUser: string): number {
    const levels = isBid ? this.asks : this.bids;
    const step = isBid ? 1 : -1;
    const start = isBid ? this.bestAsk : this.bestBid;
    // Aggregates give an upper bound without touching orders: rejects most unfillable FOKs in O(levels).
    let upper = 0;
    for (let t = start; upper < want && (isBid ? t <= tick : t >= tick); t += step) upper += levels[t].quantity;
    if (upper < want) return upper;
    let sum = 0;
    for (let t = start; sum < want && (isBid ? t <= tick : t >= tick); t += step) {
      const level = levels[t];
      if (level.count !== 0) sum += this.takeFromLevel(level, want - sum, excludeUser);
    }
    return sum;
  }

  /** Up to `need` from one level, skipping excludeUser's orders. */
  private takeFromLevel(level: Level, need: number, excludeUser: string): number {
    let sum = 0;
    for (let node = level.head; node !== null && sum < need; node = node.next) {
      if (node.userId !== excludeUser) sum += node.remaining;
    }
    return sum < need ? sum : need;
  }

  private append(node: Node): void {
    const level = (node.isBid ? this.bids : this.asks)[node.tick];
    node.prev = level.tail;
    node.next = null;
    if (level.tail === null) level.head = node;
    else level.tail.next = node;
    level.tail = node;
    this.addToLevel(level, node);
  }

  /** Bookkeeping shared by append and restore once the node is linked in. */
  private addToLevel(level: Level, node: Node): void {
    level.quantity += node.remaining;
    level.count++;
    this.orders.set(node.orderId, node);
    if (node.isBid) {
      if (node.tick > this.bestBid) this.bestBid = node.tick;
    } else if (node.tick < this.bestAsk) this.bestAsk = node.tick;
  }

  private remove(node: Node): void {
    const level = (node.isBid ? this.bids : this.asks)[node.tick];
    if (node.prev === null) level.head = node.next;
    else node.prev.next = node.next;
    if (node.next === null) level.tail = node.prev;
    else node.next.prev = node.prev;
    // Keep node.next intact: the match loop has already read it, and nothing else follows it.
    node.prev = null;
    level.quantity -= node.remaining;
    level.count--;
    this.orders.delete(node.orderId);
    if (level.count !== 0) return;
    // At most 98 cheap steps, and only when a best level empties.
    if (node.isBid) {
      if (node.tick === this.bestBid) {
        let t = node.tick - 1;
        while (t > NO_BID && this.bids[t].count === 0) t--;
        this.bestBid = t;
      }
    } else if (node.tick === this.bestAsk) {
      let t = node.tick + 1;
      while (t < NO_ASK && this.asks[t].count === 0) t++;
      this.bestAsk = t;
    }
  }

  private cancelledEvent(node: Node, reason: CancelReason): BookEvent {
    return {
      type: "cancelled",
      seq: ++this.lastSeq,
      orderId: node.orderId,
      userId: node.userId,
      side: node.side,
      outcome: node.outcome,
      price: node.price,
      remaining: node.remaining,
      reason,
    };
  }

  private collect(levels: Level[], from: number, step: 1 | -1, n: number, mirror: boolean): PriceLevel[] {
    const out: PriceLevel[] = [];
    for (let t = from; out.length < n && t >= MIN_TICK && t <= MAX_TICK; t += step) {
      const level = levels[t];
      if (level.count !== 0) out.push({ price: mirror ? 100 - t : t, quantity: level.quantity, numOrders: level.count });
    }
    return out;
  }
}
