/**
 * What the exchange tells the world about a committed market command: the book and prices for
 * every gateway, a price print per execution for the catalog (every venue prints), an update per
 * order change for its owner, and the counters. Decided here, from the journal entry and the
 * actor's book; the shell only dispatches (broadcast, emit, metrics). Written to a sink rather
 * than returned as a list, so the order path allocates nothing beyond the payloads themselves.
 */
import { cost } from "../engine/money";
import type { PoolState } from "../engine/amm";
import type { BestPrices, Depth, Outcome, Side } from "../engine/types";
import type { BookMessage, BrokerEvents } from "../contract/broker-events";
import type { BookJournalDoc } from "../models/trading";
import { levelView, poolYesPrice } from "./order-views";

/** Levels of the book shown in real time. */
export const PUBLISHED_LEVELS = 10;

/** Broadcast: every gateway pushes to its own sockets (payloads: the contract's broker events). */
export type PublishedBroadcast = "book.changed" | "market.pricesChanged" | "order.updated";

export type MarketMetric = "orders" | "fills";

export interface PublicationSink {
  broadcast<K extends PublishedBroadcast>(event: K, payload: BrokerEvents[K]): void;
  /** Emitted (one consumer per service): the price print for price history and volume. */
  emit(event: "market.trade", payload: BrokerEvents["market.trade"]): void;
  count(metric: MarketMetric, labels: Record<string, string>): void;
}

/** The actor's state after the command (its book, pool and client order ids). */
export interface PublishedMarket {
  readonly book: {
    readonly seq: number;
    best(outcome: Outcome): BestPrices;
    depth(outcome: Outcome, levels: number): Depth;
  };
  /** An order's side and outcome, also of an amended order a fill has taken off the book. */
  orderSide?(orderId: string): { side: Side; outcome: Outcome } | undefined;
  readonly pool: PoolState | null;
  clientOrderIdOf(orderId: string): string | null;
}

/** The AMM's print price: its execution at its average price to the cent (candles are in cents), in YES terms. */
export function ammPrintYesPrice(a: { outcome: Outcome; quantity: number; cash: number }): number {
  const ticks = Math.min(99, Math.max(1, Math.round((a.cash * 100) / a.quantity)));
  return a.outcome === "YES" ? ticks : 100 - ticks;
}

/** Who took the fills of a command (the public tape tells each on the taker's side). */
function takerOf(c: BookJournalDoc["command"], market: PublishedMarket): { takerSide: Side; takerOutcome: Outcome } | object {
  if (c.type === "place") return { takerSide: c.order.side, takerOutcome: c.order.outcome };
  if (c.type === "route") return { takerSide: c.side, takerOutcome: c.outcome };
  const o = c.type === "amend" ? market.orderSide?.(c.orderId) : undefined;
  return o ? { takerSide: o.side, takerOutcome: o.outcome } : {};
}

export function publishCommitted(doc: BookJournalDoc, market: PublishedMarket, out: PublicationSink): void {
  const { marketId } = doc;
  const best = market.book.best("YES");
  out.broadcast("book.changed", { marketId, seq: market.book.seq, yes: levelView(market.book.depth("YES", PUBLISHED_LEVELS)) });
  out.broadcast("market.pricesChanged", {
    marketId,
    yesBid: best.bid,
    yesAsk: best.ask,
    ammYes: market.pool ? poolYesPrice(market.pool) : null,
  });
  const command = doc.command;
  const kind = command.type === "place" ? "limit" : command.type === "route" ? command.mode.toLowerCase() : null;
  if (kind) out.count("orders", { kind, result: "accepted" });
  if (command.type === "quotes") for (let i = 0; i < command.orders.length; i++) out.count("orders", { kind: "quote", result: "accepted" });
  for (const f of doc.fills) out.count("fills", { kind: f.kind });
  // The pool leg, the market's own pool or its race's (which leaves `pool` unset): an AMM fill.
  if (doc.amm && command.type === "route") out.count("fills", { kind: "amm" });
  const taker = takerOf(command, market);
  for (const f of doc.fills)
    out.emit("market.trade", {
      marketId,
      tradeId: f.fillId,
      outcome: "YES",
      yesPrice: f.yesPrice,
      quantity: f.quantity,
      notional: cost(f.quantity, f.yesPrice),
      ...taker,
      at: doc.at,
    });
  const a = doc.amm;
  // Every venue prints: the pool's notional in YES terms like a book fill's.
  if (a)
    out.emit("market.trade", {
      marketId,
      tradeId: a.fillId,
      outcome: "YES",
      yesPrice: ammPrintYesPrice(a),
      quantity: a.quantity,
      notional: a.outcome === "YES" ? a.cash : a.quantity - a.cash,
      takerSide: a.side,
      takerOutcome: a.outcome,
      at: doc.at,
    });
  for (const c of doc.orders) {
    out.broadcast("order.updated", {
      orderId: c.orderId,
      userId: c.userId,
      marketId,
      status: c.status,
      remainingQuantity: String(c.remaining),
      filledDelta: String(c.filledDelta),
      clientOrderId: market.clientOrderIdOf(c.orderId),
      cancelReason: c.reason ?? null,
    });
  }
}

/** Where a node's gathered publications go. */
export interface PublicationOut {
  /** The book changes, prices and order updates gathered, in order (one broadcast). */
  published(events: BookMessage[]): void;
  /** The prints gathered (one emit). */
  prints(prints: Array<BrokerEvents["market.trade"]>): void;
  count(metric: MarketMetric, labels: Record<string, string>): void;
  /** Runs `send` once the work in hand is done (every command the same watermark acknowledged). */
  later(send: () => void): void;
}

/**
 * A node's publications gathered until the commands acknowledged together are all published,
 * then sent as one message (and one for their prints): one broker event per watermark instead
 * of four or five per order. Listeners take each item as the event it names.
 */
export class GatheredPublications implements PublicationSink {
  private events: BookMessage[] = [];
  private printed: Array<BrokerEvents["market.trade"]> = [];
  private armed = false;

  constructor(private readonly out: PublicationOut) {}

  broadcast<K extends PublishedBroadcast>(event: K, payload: BrokerEvents[K]): void {
    this.events.push({ name: event, payload } as BookMessage);
    this.arm();
  }

  emit(_event: "market.trade", payload: BrokerEvents["market.trade"]): void {
    this.printed.push(payload);
    this.arm();
  }

  count(metric: MarketMetric, labels: Record<string, string>): void {
    this.out.count(metric, labels);
  }

  /** Sends what is gathered now. */
  flush(): void {
    this.armed = false;
    const { events, printed } = this;
    if (events.length) {
      this.events = [];
      this.out.published(events);
    }
    if (printed.length) {
      this.printed = [];
      this.out.prints(printed);
    }
  }

  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    this.out.later(() => this.flush());
  }
}
