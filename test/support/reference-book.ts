/**
 * Naive reference order book used only by property tests to cross-check engine/book.ts.
 * Deliberately slow and literal: a flat array of orders, the domain rules written per outcome
 * (no YES-view trick, no linked lists), and every decision re-derived from scratch.
 */
import type {
  BestPrices,
  BookEvent,
  CancelReason,
  Depth,
  FillKind,
  Order,
  Outcome,
  PriceLevel,
  RejectReason,
  RestingOrder,
  Side,
  SweepOptions,
  SweepResult,
  Tick,
} from "../../engine/types";

/** Can taker (side, outcome, price) trade with this resting order, and how? */
function matchKind(side: Side, outcome: Outcome, price: Tick, r: RestingOrder): FillKind | null {
  if (r.outcome === outcome) {
    if (r.side === side) return null;
    return (side === "BUY" ? r.price <= price : r.price >= price) ? "transfer" : null;
  }
  if (r.side !== side) return null; // opposite outcome and opposite side is the same side of the book
  if (side === "BUY") return price + r.price >= 100 ? "mint" : null;
  return price + r.price <= 100 ? "merge" : null;
}

/** The price the taker pays/receives in its own outcome when trading at the maker's price. */
function takerPriceOf(takerOutcome: Outcome, r: RestingOrder): Tick {
  return r.outcome === takerOutcome ? r.price : 100 - r.price;
}

export class ReferenceBook {
  private orders: RestingOrder[] = [];
  private lastSeq: number;

  constructor(
    readonly marketId: string,
    opts: { startSeq?: number } = {},
  ) {
    this.lastSeq = opts.startSeq ?? 0;
  }

  get seq(): number {
    return this.lastSeq;
  }

  /** Orders the taker could hit now, best for the taker first, then oldest first. */
  private candidates(side: Side, outcome: Outcome, price: Tick): RestingOrder[] {
    return this.orders
      .filter((r) => matchKind(side, outcome, price, r) !== null)
      .sort((a, b) => {
        const pa = takerPriceOf(outcome, a);
        const pb = takerPriceOf(outcome, b);
        if (pa !== pb) return side === "BUY" ? pa - pb : pb - pa;
        return a.seq - b.seq;
      });
  }

  place(o: Order): BookEvent[] {
    const ev: BookEvent[] = [];
    const reject = (reason: RejectReason): BookEvent[] => {
      ev.push({ type: "rejected", seq: ++this.lastSeq, orderId: o.orderId, reason });
      return ev;
    };
    if (
      typeof o.orderId !== "string" ||
      o.orderId === "" ||
      typeof o.userId !== "string" ||
      o.userId === "" ||
      !["BUY", "SELL"].includes(o.side) ||
      !["YES", "NO"].includes(o.outcome) ||
      !["GTC", "GTD", "FOK", "FAK"].includes(o.orderType)
    ) {
      return reject("INVALID_ORDER");
    }
    if (!Number.isInteger(o.price) || o.price < 1 || o.price > 99) return reject("INVALID_PRICE");
    if (!Number.isSafeInteger(o.quantity) || o.quantity <= 0) return reject("INVALID_QUANTITY");
    if (this.orders.some((r) => r.orderId === o.orderId)) return reject("DUPLICATE_ORDER");
    if (o.orderType === "FOK") {
      const avail = this.candidates(o.side, o.outcome, o.price)
        .filter((r) => r.userId !== o.userId)
        .reduce((s, r) => s + r.remaining, 0);
      if (avail < o.quantity) return reject("FOK_NOT_FILLED");
    }
    const acceptSeq = ++this.lastSeq;
    ev.push({ type: "accepted", seq: acceptSeq, orderId: o.orderId });
    let remaining = o.quantity;
    while (remaining > 0) {
      const r = this.candidates(o.side, o.outcome, o.price)[0];
      if (r === undefined) break;
      if (r.userId === o.userId) {
        this.orders = this.orders.filter((x) => x !== r);
        ev.push(this.cancelledEvent(r, "SELF_TRADE"));
        continue;
      }
      const q = Math.min(remaining, r.remaining);
      remaining -= q;
      r.remaining -= q;
      if (r.remaining === 0) this.orders = this.orders.filter((x) => x !== r);
      ev.push({
        type: "fill",
        seq: ++this.lastSeq,
        makerOrderId: r.orderId,
        takerOrderId: o.orderId,
        makerUserId: r.userId,
        takerUserId: o.userId,
        kind: matchKind(o.side, o.outcome, o.price, r) as FillKind,
        quantity: q,
        makerSide: r.side,
        makerOutcome: r.outcome,
        makerPrice: r.price,
        takerSide: o.side,
        takerOutcome: o.outcome,
        takerPrice: takerPriceOf(o.outcome, r),
        makerRemaining: r.remaining,
        takerRemaining: remaining,
      });
    }
    if (remaining > 0 && o.orderType !== "FAK") {
      if (o.orderType === "FOK") throw new Error("reference: FOK left a remainder");
      this.orders.push({
        orderId: o.orderId,
        userId: o.userId,
        side: o.side,
        outcome: o.outcome,
        price: o.price,
        quantity: o.quantity,
        remaining,
        seq: acceptSeq,
      });
      ev.push({ type: "rested", seq: ++this.lastSeq, orderId: o.orderId, remaining });
    }
    return ev;
  }

  /** Lowers a resting order's open quantity in place (its priority kept), as OrderBook.reduce. */
  reduce(orderId: string, userId: string, remaining: number): boolean {
    const o = this.orders.find((r) => r.orderId === orderId);
    if (!o || o.userId !== userId || !(remaining > 0) || remaining >= o.remaining) return false;
    o.quantity -= o.remaining - remaining;
    o.remaining = remaining;
    return true;
  }

  cancel(orderId: string, userId?: string): BookEvent[] {
    const r = this.orders.find((x) => x.orderId === orderId && (userId === undefined || x.userId === userId));
    if (r === undefined) return [{ type: "rejected", seq: ++this.lastSeq, orderId, reason: "UNKNOWN_ORDER" }];
    this.orders = this.orders.filter((x) => x !== r);
    return [this.cancelledEvent(r, "USER")];
  }

  cancelAll(reason: CancelReason = "MARKET_CLOSED"): BookEvent[] {
    const all = [...this.orders].sort((a, b) => a.seq - b.seq);
    this.orders = [];
    return all.map((r) => this.cancelledEvent(r, reason));
  }

  restore(o: RestingOrder): void {
    this.orders.push({ ...o });
    this.lastSeq = Math.max(this.lastSeq, o.seq);
  }

  /** Derived per outcome directly: a NO bid at p is BUY NO p or SELL YES (100-p). */
  depth(outcome: Outcome, levels = 10): Depth {
    const agg = (bid: boolean): PriceLevel[] => {
      const byPrice = new Map<Tick, PriceLevel>();
      for (const r of this.orders) {
        const isBidHere = r.outcome === outcome ? r.side === "BUY" : r.side === "SELL";
        if (isBidHere !== bid) continue;
        const price = r.outcome === outcome ? r.price : 100 - r.price;
        const l = byPrice.get(price) ?? { price, quantity: 0, numOrders: 0 };
        l.quantity += r.remaining;
        l.numOrders += 1;
        byPrice.set(price, l);
      }
      return [...byPrice.values()].sort((a, b) => (bid ? b.price - a.price : a.price - b.price)).slice(0, Math.max(0, levels));
    };
    return { bids: agg(true), asks: agg(false) };
  }

  best(outcome: Outcome): BestPrices {
    const d = this.depth(outcome, 1);
    return { bid: d.bids[0]?.price ?? null, ask: d.asks[0]?.price ?? null };
  }

  sweep(side: Side, outcome: Outcome, quantity: number, opts: SweepOptions = {}): SweepResult {
    const levels: Array<{ price: Tick; quantity: number }> = [];
    let filled = 0;
    const price = opts.limit ?? (side === "BUY" ? 99 : 1);
    for (const r of this.candidates(side, outcome, price)) {
      if (filled >= quantity) break;
      if (r.userId === opts.excludeUserId) continue;
      const q = Math.min(r.remaining, quantity - filled);
      const p = takerPriceOf(outcome, r);
      const last = levels[levels.length - 1];
      if (last !== undefined && last.price === p) last.quantity += q;
      else levels.push({ price: p, quantity: q });
      filled += q;
    }
    return { filled, levels };
  }

  getOrder(orderId: string): RestingOrder | undefined {
    const r = this.orders.find((x) => x.orderId === orderId);
    return r && { ...r };
  }

  openOrders(): RestingOrder[] {
    return this.orders.map((r) => ({ ...r })).sort((a, b) => a.seq - b.seq);
  }

  private cancelledEvent(r: RestingOrder, reason: CancelReason): BookEvent {
    return {
      type: "cancelled",
      seq: ++this.lastSeq,
      orderId: r.orderId,
      userId: r.userId,
      side: r.side,
      outcome: r.outcome,
      price: r.price,
      remaining: r.remaining,
      reason,
    };
  }
}
