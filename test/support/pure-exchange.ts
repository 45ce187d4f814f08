/**
 * MarketActor's money path without I/O: lock -> match -> settle -> ledger, for several markets on one
 * Accounts. Same order of steps and the same engine functions as the market actor's planners
 * (trading/plan-*.ts), so the property tests exercise exactly the arithmetic the server runs.
 */
import { Accounts, isPostingRefusal, type AccountsSnapshot, type Posting, type PostingCode } from "../../engine/accounts";
import { OrderBook } from "../../engine/book";
import type { FeeSchedule } from "../../engine/money";
import { placementLock, releasePlacement, releaseResting, settlePlacement, type Settlement } from "../../engine/settlement";
import type { BookEvent, Order, OrderType, Outcome, Side } from "../../engine/types";

export interface PlaceInput {
  userId: string;
  side: Side;
  outcome: Outcome;
  price: number;
  quantity: number;
  orderType: OrderType;
}

export type PlaceOutcome =
  | { kind: "closed" }
  | { kind: "insufficient"; code: PostingCode }
  | { kind: "rejected"; reason: string }
  | { kind: "accepted"; orderId: string; events: BookEvent[]; settlement: Settlement };

export type CancelOutcome = { kind: "not_found" } | { kind: "cancelled"; remaining: number; postings: Posting[] };

export class PureExchange {
  readonly accounts = new Accounts();
  readonly books = new Map<string, OrderBook>();
  readonly closed = new Set<string>();
  private n = 0;

  constructor(
    readonly fees: FeeSchedule,
    /** Test hook: lets a test corrupt settlements to prove the invariants notice. */
    private readonly tamper: (postings: Posting[]) => Posting[] = (p) => p,
  ) {}

  readonly newId = (prefix: string): string => `${prefix}_${++this.n}`;

  book(marketId: string): OrderBook {
    let b = this.books.get(marketId);
    if (!b) this.books.set(marketId, (b = new OrderBook(marketId)));
    return b;
  }

  deposit(userId: string, amount: number): void {
    this.accounts.apply([
      { kind: "cash", account: userId, available: amount },
      { kind: "external", flow: "deposit", amount },
    ]);
  }

  place(marketId: string, input: PlaceInput): PlaceOutcome {
    if (this.closed.has(marketId)) return { kind: "closed" };
    const order: Order = { orderId: this.newId("ord"), ...input };
    try {
      this.accounts.apply(placementLock(order, marketId, order.userId, this.fees));
    } catch (err) {
      if (isPostingRefusal(err)) return { kind: "insufficient", code: err.code };
      throw err;
    }
    const events = this.book(marketId).place(order);
    const rejected = events.find((e) => e.type === "rejected");
    if (rejected && rejected.type === "rejected") {
      this.accounts.apply(releasePlacement(order, marketId, order.userId, this.fees));
      return { kind: "rejected", reason: rejected.reason };
    }
    const settlement = settlePlacement(marketId, order, events, this.fees, this.newId);
    // The server journals this entry before posting it, so a rejection here would be a lost commit: let it throw.
    this.accounts.apply(this.tamper(settlement.postings));
    return { kind: "accepted", orderId: order.orderId, events, settlement };
  }

  cancel(marketId: string, orderId: string, userId: string): CancelOutcome {
    const events = this.book(marketId).cancel(orderId, userId);
    const c = events.find((e) => e.type === "cancelled");
    if (!c || c.type !== "cancelled") return { kind: "not_found" };
    const postings = releaseResting(c.side, c.outcome, c.price, c.remaining, marketId, c.userId, this.fees);
    this.accounts.apply(postings);
    return { kind: "cancelled", remaining: c.remaining, postings };
  }

  /** Market closed: every resting order is cancelled and releases what it holds (MarketActor.halt). */
  halt(marketId: string): number {
    this.closed.add(marketId);
    const postings: Posting[] = [];
    let n = 0;
    for (const e of this.book(marketId).cancelAll("MARKET_CLOSED")) {
      if (e.type !== "cancelled") continue;
      postings.push(...releaseResting(e.side, e.outcome, e.price, e.remaining, marketId, e.userId, this.fees));
      n++;
    }
    this.accounts.apply(postings);
    return n;
  }

  snapshot(): AccountsSnapshot {
    return this.accounts.snapshot();
  }
}
