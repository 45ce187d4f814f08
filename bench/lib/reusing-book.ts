/**
 * The order book with nothing allocated per command: its events live in objects the book reuses,
 * valid until the next command (what a caller that reads them at once could use). Only the
 * engine benchmark runs it; the exchange uses OrderBook's place/cancel, whose events are new.
 */
import { newCancelled, newFill, OrderBook } from "../../engine/book";
import type {
  AcceptedEvent,
  BookEvent,
  CancelledEvent,
  FillEvent,
  Order,
  RejectedEvent,
  RejectReason,
  RestedEvent,
} from "../../engine/types";

/** Event objects of one type, reused from command to command. */
class EventPool<T> {
  private readonly items: T[] = [];
  private used = 0;

  constructor(private readonly create: () => T) {}

  take(): T {
    const i = this.used++;
    if (i === this.items.length) this.items.push(this.create());
    return this.items[i];
  }

  reset(): void {
    this.used = 0;
  }
}

export class ReusingOrderBook extends OrderBook {
  private readonly fills = new EventPool(newFill);
  private readonly cancels = new EventPool(newCancelled);
  private readonly accepted: AcceptedEvent = { type: "accepted", seq: 0, orderId: "" };
  private readonly rested: RestedEvent = { type: "rested", seq: 0, orderId: "", remaining: 0 };
  private readonly rejected: RejectedEvent = { type: "rejected", seq: 0, orderId: "", reason: "INVALID_ORDER" };

  /**
   * The events of the latest placeReusing / cancelReusing: the first n entries, n being what
   * that call returned. Array and event objects are overwritten by the next command of any kind.
   */
  get lastEvents(): readonly BookEvent[] {
    return this.events;
  }

  /** place() without allocating: returns the number of events, read from lastEvents before the next command. */
  placeReusing(order: Order): number {
    this.fills.reset();
    this.cancels.reset();
    return this.execPlace(order);
  }

  /** cancel() without allocating; same contract as placeReusing. */
  cancelReusing(orderId: string, userId?: string): number {
    this.fills.reset();
    this.cancels.reset();
    return this.execCancel(orderId, userId);
  }

  protected override acceptedEvent(seq: number, orderId: string): AcceptedEvent {
    const e = this.accepted;
    e.seq = seq;
    e.orderId = orderId;
    return e;
  }

  protected override restedEvent(seq: number, orderId: string, remaining: number): RestedEvent {
    const e = this.rested;
    e.seq = seq;
    e.orderId = orderId;
    e.remaining = remaining;
    return e;
  }

  protected override rejectedEvent(seq: number, orderId: string, reason: RejectReason): RejectedEvent {
    const e = this.rejected;
    e.seq = seq;
    e.orderId = orderId;
    e.reason = reason;
    return e;
  }

  protected override fillEvent(): FillEvent {
    return this.fills.take();
  }

  protected override cancelledEvent(): CancelledEvent {
    return this.cancels.take();
  }
}
