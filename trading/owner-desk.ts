/**
 * What a market's owner answers on its own actors: the commands other nodes route here (an
 * amend, cancels, a market order) and the reads of its book and pool (depth, best prices, quotes).
 * A market the catalog does not know is a 404 where the caller names it (commands, the order
 * book, depth); where a caller only looks or tidies up (best prices, exit quotes, a halt) it gets
 * the empty answer instead. `C` is the request the ports act under (the shell's call context).
 */
import type { Model } from "../contract";
import type { RoutePlan } from "../engine/router";
import type { CancelReasonCode } from "../engine/settlement";
import type { OrderBook } from "../engine/book";
import type { Outcome, Side } from "../engine/types";
import { notFoundFault } from "../engine/refusal";
import type { MarketActor } from "./market-actor";
import { tradeView } from "./market-order";
import { levelView, topOfBook } from "./order-views";
import type {
  CancelManyResult,
  PlaceResult,
  QueuePosition,
  RouteExecution,
  RouteRequest,
  AmendTerms,
  CancelResult,
  TopOfBook,
} from "../models/trading";
import type { ExchangeModes, ModeSetting } from "./trading-modes";

/** What the desk asks of a market's actor (trading/market-actor.ts). */
export type OwnedActor = Pick<
  MarketActor,
  "amend" | "cancelMany" | "cancelQuotes" | "cancel" | "route" | "quote" | "halt" | "setStatus" | "exitQuote" | "pool" | "applyMode"
> & {
  readonly book: Pick<OrderBook, "seq" | "depth" | "best" | "queuePosition">;
};

export interface OwnerDeskPorts<C, A extends OwnedActor> {
  nodeID: string;
  /** This node's actors (trading/market-registry.ts): commands run through `onMarket` (404 for an unknown market). */
  actors: {
    onMarket<T>(marketId: string, fn: (actor: A) => Promise<T>): Promise<T>;
    /** The actor, or null for a market the catalog does not know. */
    existingActor(marketId: string): Promise<A | null>;
    /** The actor if this node serves the market, else null (never an error). */
    actorIfServed(marketId: string): Promise<A | null>;
    /** Every actor this node runs. */
    loaded(): Promise<A[]>;
    /** Is this node the market's owner (where a routed call would go)? */
    owns(marketId: string): boolean;
  };
  /** This node's exchange-wide trading mode (trading/trading-modes.ts). */
  modes: ExchangeModes;
  /** The request's answer was journaled with its command (the idempotency layer need not store it). */
  journaled(c: C): void;
  /** One market's best prices, answered by its owner (wherever that is). */
  topOnOwner(c: C, marketId: string): Promise<TopOfBook>;
}

/** What a market order would do now, as `book.quote` answers it. */
export type RouteQuote = Pick<RoutePlan, "venue" | "filled" | "totalCost" | "fee" | "avgPrice">;

export class OwnerDesk<C, A extends OwnedActor = OwnedActor> {
  constructor(private readonly ports: OwnerDeskPorts<C, A>) {}

  /** The amend inside the market's actor (the order desk checked it). */
  amend(a: AmendTerms): Promise<PlaceResult> {
    const { orderId, userId, price, quantity, postOnly } = a;
    return this.ports.actors.onMarket(a.marketId, (actor) => actor.amend({ orderId, userId, price, quantity, postOnly }));
  }

  /** A user's resting orders (no user: the given ones, as expiry does), in one entry. */
  cancelMany(p: { marketId: string; userId?: string; orderIds?: string[]; reason: CancelReasonCode }): Promise<CancelManyResult> {
    return this.ports.actors.onMarket(p.marketId, (actor) => actor.cancelMany(p.userId ?? null, p.orderIds ?? null, p.reason));
  }

  /** The user's quote set in the market (DELETE /quotes), in one entry. */
  cancelQuotes(p: { marketId: string; userId: string }): Promise<CancelManyResult> {
    return this.ports.actors.onMarket(p.marketId, (actor) => actor.cancelQuotes(p.userId));
  }

  cancel(p: { marketId: string; orderId: string; userId: string }): Promise<CancelResult> {
    return this.ports.actors.onMarket(p.marketId, (actor) => actor.cancel(p.orderId, p.userId));
  }

  /** A market order (AMM only or routed). With a key, its answer (the trade's wire view) is journaled with the trade. */
  route(c: C, r: RouteRequest): Promise<RouteExecution> {
    const { userId, side, outcome, quantity, mode, idem, eventPool } = r;
    return this.ports.actors
      .onMarket(r.marketId, (actor) =>
        actor.route({
          userId,
          side,
          outcome,
          quantity,
          mode,
          ...(eventPool ? { eventPool } : {}),
          ...(idem ? { idem: { ...idem, render: tradeView } } : {}),
        }),
      )
      .then((x) => {
        if (idem) this.ports.journaled(c);
        return x;
      });
  }

  /** What `route` would do now, without doing it. */
  async quote(r: RouteRequest): Promise<RouteQuote> {
    const { userId, side, outcome, quantity, mode, eventPool } = r;
    const plan = await this.ports.actors.onMarket(r.marketId, (actor) =>
      actor.quote({ userId, side, outcome, quantity, mode, ...(eventPool ? { eventPool } : {}) }),
    );
    return { venue: plan.venue, filled: plan.filled, totalCost: plan.totalCost, fee: plan.fee, avgPrice: plan.avgPrice };
  }

  /** Load the market's actor here (it funds its AMM pool on first sight of an open market). */
  async ensureMarket(marketId: string): Promise<{ loaded: boolean; pool: A["pool"]; nodeID: string }> {
    const actor = await this.ports.actors.existingActor(marketId);
    return { loaded: !!actor, pool: actor?.pool ?? null, nodeID: this.ports.nodeID };
  }

  /** GET /markets/:marketId/orderbook: the top 10 aggregated levels of one view. */
  async orderbook(marketId: string, outcome: Outcome): Promise<Model<"OrderBook">> {
    return levelView((await this.known(marketId)).book.depth(outcome, 10));
  }

  /** What rests before a resting order at its level (engine/book.ts queuePosition), null when it does not rest here. */
  async queuePosition(marketId: string, orderId: string): Promise<QueuePosition | null> {
    return (await this.known(marketId)).book.queuePosition(orderId) ?? null;
  }

  /** Depth of both views with the book's sequence (socket snapshots). */
  async depth(marketId: string, levels: number): Promise<{ seq: number; yes: Model<"OrderBook">; no: Model<"OrderBook"> }> {
    const { book } = await this.known(marketId);
    return { seq: book.seq, yes: levelView(book.depth("YES", levels)), no: levelView(book.depth("NO", levels)) };
  }

  /** One market's best prices on this node: all null when it does not serve the market. */
  async top(marketId: string): Promise<TopOfBook> {
    const actor = await this.ports.actors.actorIfServed(marketId);
    return topOfBook(actor?.book, actor?.pool);
  }

  /**
   * Best prices of many markets, each from its owner (this node's own read here, without a call per
   * market); one that cannot answer shows all null.
   */
  async topOfMany(c: C, marketIds: string[]): Promise<Record<string, TopOfBook>> {
    const out: Record<string, TopOfBook> = {};
    const tops = await Promise.all(
      marketIds.map((marketId) =>
        (this.ports.actors.owns(marketId) ? this.top(marketId) : this.ports.topOnOwner(c, marketId)).catch(() => null),
      ),
    );
    marketIds.forEach((id, i) => (out[id] = tops[i] ?? topOfBook(undefined, null)));
    return out;
  }

  /** A market stopped trading (closed, cancelled, resolved): every resting order is released; a failed resolution only sets its status. */
  async halt(marketId: string, status: string): Promise<{ released: number }> {
    const actor = await this.ports.actors.existingActor(marketId);
    if (!actor) return { released: 0 };
    if (status === "resolution_failed") {
      actor.setStatus("resolution_failed");
      return { released: 0 };
    }
    return { released: await actor.halt(status) };
  }

  /**
   * The market's own trading mode, applied by its owner: resting cancelOnPause orders are
   * cancelled when it pauses; nothing for a market the catalog does not know.
   */
  async setTradingMode(marketId: string, s: ModeSetting): Promise<{ cancelled: number }> {
    const actor = await this.ports.actors.existingActor(marketId);
    return { cancelled: actor ? await actor.applyMode(s) : 0 };
  }

  /** The exchange-wide trading mode on this node: kept for every market, applied to each it serves. */
  async exchangeModeChanged(s: ModeSetting): Promise<{ cancelled: number }> {
    this.ports.modes.setExchange(s);
    const counts = await Promise.all((await this.ports.actors.loaded()).map((a) => a.applyMode().catch(() => 0)));
    return { cancelled: counts.reduce((x, y) => x + y, 0) };
  }

  /** What an immediate order of `quantity` would get now (mark prices, quotes); nothing for an unknown market. */
  async exitQuote(p: {
    marketId: string;
    outcome: Outcome;
    quantity: number;
    side: Side;
    userId?: string;
  }): Promise<{ filled: number; proceeds: number }> {
    const actor = await this.ports.actors.existingActor(p.marketId);
    if (!actor) return { filled: 0, proceeds: 0 };
    return actor.exitQuote(p.outcome, p.quantity, p.side, p.userId);
  }

  private async known(marketId: string): Promise<A> {
    const actor = await this.ports.actors.existingActor(marketId);
    if (!actor) throw notFoundFault("Market");
    return actor;
  }
}
