/**
 * The order desk: the trader API's order flows before they reach a market's actor. An order's
 * rules are checked here (once, for POST /orders, each order of a batch and an amend), then the
 * command goes to the market's owner; reads of the order read model decide what a cancel or an
 * amend may touch. `C` is the request the ports act under (the shell's call context): the desk
 * passes it through and never looks inside.
 */
import { invalid, isRefusal, notFoundFault } from "../engine/refusal";
import type { Model } from "../contract";
import type { CancelReasonCode } from "../engine/settlement";
import type {
  IdemKey,
  OrderDoc,
  OrderQuery,
  CancelManyResult,
  PlaceResult,
  PlaceTerms,
  AmendTerms,
  CancelResult,
  QueuePosition,
  QuoteSetResult,
  QuoteSetTerms,
  QuoteTerm,
} from "../models/trading";
import { formatTick } from "../engine/money";
import { page, type Page } from "../lib/paging";
import { checkOrder, checkPriceAndQuantity, type OrderTerms } from "../lib/order-rules";
import { orderView, placeView, type PlaceView } from "./order-views";
import type { Settled } from "./commands";

/**
 * The Idempotency-Key of a batch's item `i`: the batch's key and the index, in a scope of its own,
 * so that a plain request's key (any string, `C#0` too) never names item 0 of batch `C`.
 */
export function batchItemKey(idem: IdemKey, i: number): IdemKey {
  return { ...idem, scope: `${idem.scope}#batch`, key: `${idem.key}#${i}` };
}

export interface OrderDeskPorts<C> {
  now(): number;
  /** The body of one order of a batch against POST /orders' schema: true, or the problems. */
  checkShape(body: unknown): true | Array<{ field: string; type: string }>;
  /** Does this node own the market (its actor is here)? */
  owns(marketId: string): boolean;
  /** Place on this node's actor of the market; `render` is the answer journaled under the order's key. */
  place(p: PlaceTerms, render: (r: PlaceResult) => unknown): Promise<PlaceResult>;
  /**
   * Orders (none with a key) of markets this node owns, placed by their actors together, each
   * market's in the order given: each its own entry and its own answer or refusal.
   */
  placeMany(ps: PlaceTerms[]): Promise<Array<Settled<PlaceResult>>>;
  /** Place on the market's owner elsewhere (`placeOnOwner` there). */
  placeRemote(c: C, p: PlaceTerms): Promise<PlaceView>;
  /** A mass quote on this node's actor of the market; `render` is the answer journaled under the request's key. */
  quotes(q: QuoteSetTerms, render: (r: QuoteSetResult) => unknown): Promise<QuoteSetResult>;
  /** A mass quote on the market's owner elsewhere (`quotesHere` there). */
  quotesRemote(c: C, q: QuoteSetTerms): Promise<QuoteSetView>;
  /** The user's quote set in the market withdrawn by its owner. */
  cancelQuotes(c: C, marketId: string, userId: string): Promise<CancelManyResult>;
  /** The request's answer was journaled with its command (the idempotency layer need not store it). */
  journaled(c: C): void;
  /** Run `run` once per Idempotency-Key (mixins/idempotency.middleware.ts): a repeat answers the first answer. */
  withIdempotency(c: C, idem: IdemKey, run: () => Promise<PlaceView>): Promise<unknown>;
  /** One order's read model. */
  order(c: C, orderId: string): Promise<OrderDoc | null>;
  /** A user's orders in the read model, newest first: one page and the total. */
  orders(c: C, q: OrderQuery): Promise<{ items: OrderDoc[]; total: number }>;
  amendOrder(c: C, a: AmendTerms): Promise<PlaceResult>;
  /** Markets where the user has open orders. */
  openMarketsOf(c: C, userId: string): Promise<string[]>;
  cancelMany(c: C, marketId: string, userId: string, reason: CancelReasonCode): Promise<CancelManyResult>;
  cancel(c: C, marketId: string, orderId: string, userId: string): Promise<CancelResult>;
  /** What rests before the order at its level, from the market's owner (null: not resting). */
  queuePosition(c: C, marketId: string, orderId: string): Promise<QueuePosition | null>;
  /** May a new order of the user name this order group? Refuses (404, 409 triggered) otherwise. */
  groupAdmit(c: C, orderGroupId: string, userId: string): Promise<unknown>;
  /** A placed order joins its group (what it filled at once counts in the group's window). */
  groupJoin(c: C, j: { orderGroupId: string; orderId: string; marketId: string; open: boolean; filled: number }): Promise<unknown>;
}

/** POST /quotes' body as the validator passed it (prices as decimals). */
export interface QuoteSetRequest {
  marketId: string;
  quotes: QuoteTerm[];
  postOnly?: boolean;
  orderGroupId?: string;
}

/** The answer of POST /quotes (the contract's MassQuoteResult). */
export type QuoteSetView = Model<"MassQuoteResult">;

/** A mass quote's answer: each quote order as POST /orders answers it, marked as a quote. */
export function quoteSetView(q: QuoteSetTerms, r: QuoteSetResult): QuoteSetView {
  return {
    cancelled: r.cancelled,
    orders: r.orders.map((o, i) => {
      const t = q.quotes[i];
      const terms: OrderTerms = { marketId: q.marketId, ...t, orderType: "GTC", postOnly: q.postOnly };
      return placeView(terms, o, t.quantity, true);
    }),
  };
}
/** A batch's order groups that refused its orders (a group absent here admitted them), with the refusal. */
type GroupAdmissions = Map<string, unknown>;

/** One answer of POST /orders/batch: the order, or the error it got, in the contract's shape. */
/** One order's answer in a batch (the contract's BatchOrderResult). */
export type BatchItem = Model<"BatchOrderResult">;

export class OrderDesk<C> {
  constructor(private readonly ports: OrderDeskPorts<C>) {}

  /**
   * One order: its rules checked here, then placed by the market's owner. Named in an order group,
   * the group admits it first (a triggered group refuses it, nothing is placed) and it joins the
   * group once placed (its placement names the group too, so a restart finds it there).
   */
  async placeOne(c: C, userId: string, p: OrderTerms, idem?: IdemKey, admitted?: GroupAdmissions): Promise<PlaceView> {
    const checked = checkOrder(p, this.ports.now());
    if (!checked.ok) throw invalid(checked.message, checked.fields);
    const group = checked.value.orderGroupId;
    if (group && admitted) {
      if (admitted.has(group)) throw admitted.get(group);
    } else if (group) await this.ports.groupAdmit(c, group, userId);
    const placed = await this.placeOnOwner(c, { ...checked.value, userId, ...(idem ? { idem } : {}) });
    if (group)
      await this.ports.groupJoin(c, {
        orderGroupId: group,
        orderId: placed.orderId,
        marketId: placed.marketId,
        open: placed.status === "open" || placed.status === "partially_filled",
        filled: Number(placed.filledQuantity),
      });
    return placed;
  }

  /**
   * Checked terms, placed by the market's owner: on this node when it is the owner (where
   * MarketRouting sends POST /orders, so no further call), else one more call that lands there.
   * With an Idempotency-Key, the answer is journaled with the command.
   */
  placeOnOwner(c: C, p: PlaceTerms): Promise<PlaceView> {
    if (!this.ports.owns(p.marketId)) {
      return this.ports.placeRemote(c, p).then((view) => {
        if (p.idem) this.ports.journaled(c);
        return view;
      });
    }
    return this.placeHere(c, p);
  }

  /**
   * Checked terms sent here as the market's owner: placed on this node's actor, or refused with
   * MARKET_MOVED when this node does not own the market (the sender's view of the engines differs;
   * it retries on the owner it sees next). Never forwarded again, so two views cannot bounce an
   * order between nodes, or back to this node, without end.
   */
  placeHere(c: C, p: PlaceTerms): Promise<PlaceView> {
    const render = (r: PlaceResult) => placeView(p, r);
    return this.ports.place(p, render).then((r) => {
      if (p.idem) this.ports.journaled(c);
      return render(r);
    });
  }

  /**
   * Up to MAX_BATCH orders, each standing alone: an order that fails gets its error in its place,
   * the others go on. They are handed over together, in request order (orders of one market reach
   * its actor in that order), so their entries share the ledger's group commits and the batch waits
   * for durability about once instead of once per order. The orders of markets this node owns go
   * to their actors together (an idle actor takes them at once, a busy one in one turn of its
   * queue; one durability wait per market) when none of a market's orders needs more than a
   * placement (a key or an order group sends them one by one). Each order of an
   * idempotent batch has its own key, so a retry after a crash places only the ones that did not
   * land the first time.
   */
  async placeBatch(c: C, userId: string, orders: unknown[], idem?: IdemKey): Promise<BatchItem[]> {
    const items: Array<BatchItem | Promise<BatchItem> | undefined> = new Array(orders.length);
    const checked: Array<{ i: number; terms: PlaceTerms } | null> = orders.map((body, i) => {
      const shape = this.ports.checkShape(body);
      if (shape !== true) {
        items[i] = shapeError(shape, i);
        return null;
      }
      if (idem) return null;
      const order = checkOrder(body as OrderTerms, this.ports.now());
      if (!order.ok) {
        items[i] = { ok: false, error: batchError(invalid(order.message, order.fields)) };
        return null;
      }
      return { i, terms: { ...order.value, userId } };
    });
    // A market's orders go together only when every one of them can (request order within a market).
    const together = new Map<string, Array<{ i: number; terms: PlaceTerms }>>();
    const alone = new Set<string>();
    for (const [i, body] of orders.entries()) {
      if (items[i]) continue;
      const one = checked[i];
      const marketId = one?.terms.marketId ?? String((body as { marketId?: unknown }).marketId);
      if (!one || one.terms.orderGroupId || !this.ports.owns(marketId)) alone.add(marketId);
      else together.set(marketId, [...(together.get(marketId) ?? []), one]);
    }
    for (const m of alone) together.delete(m);
    const list = [...together.values()].flat().sort((a, b) => a.i - b.i);
    if (list.length) {
      const placed = this.ports.placeMany(list.map((x) => x.terms));
      list.forEach(({ i, terms }, k) => {
        items[i] = placed.then(
          (rs) => {
            const r = rs[k];
            return r.ok ? { ok: true, order: placeView(terms, r.value) } : { ok: false, error: batchError(r.error) };
          },
          (err: unknown) => ({ ok: false, error: batchError(err) }),
        );
      });
    }
    // The order groups named are asked once, together, before any of their orders goes.
    const rest = orders.flatMap((body, i) => (items[i] ? [] : [{ body, i }]));
    if (rest.length) {
      const admitted: GroupAdmissions = new Map();
      const groups = new Set(
        rest.map(({ body }) => (body as { orderGroupId?: unknown } | null)?.orderGroupId).filter((g) => typeof g === "string"),
      );
      await Promise.all(
        [...groups].map((g) => this.ports.groupAdmit(c, g as string, userId).catch((err: unknown) => void admitted.set(g as string, err))),
      );
      for (const { body, i } of rest) items[i] = this.batchItem(c, userId, body as OrderTerms, i, admitted, idem);
    }
    return Promise.all(items as Array<BatchItem | Promise<BatchItem>>);
  }

  /** One order of a batch on its own (shape already checked): its key claimed, its group asked, then placed. */
  private async batchItem(c: C, userId: string, p: OrderTerms, i: number, admitted: GroupAdmissions, idem?: IdemKey): Promise<BatchItem> {
    const key = idem ? batchItemKey(idem, i) : undefined;
    try {
      // A replay answers the placement journaled first under the key (stored as JSON: a PlaceView).
      const order = key
        ? ((await this.ports.withIdempotency(c, key, () => this.placeOne(c, userId, p, key, admitted))) as PlaceView)
        : await this.placeOne(c, userId, p, undefined, admitted);
      return { ok: true, order };
    } catch (err) {
      return { ok: false, error: batchError(err) };
    }
  }

  /**
   * POST /quotes: every quote's price and lot checked here (one bad quote refuses the set, naming
   * it), then the set goes to the market's owner, which replaces the caller's previous set in one
   * entry. With an Idempotency-Key the answer is journaled with that entry. Named in an order
   * group, the group admits the set first (a triggered group refuses it whole) and each quote
   * order joins it once placed (each placement names the group too, as for POST /orders).
   */
  async placeQuotes(c: C, userId: string, body: QuoteSetRequest, idem?: IdemKey): Promise<QuoteSetView> {
    const quotes: QuoteTerm[] = [];
    for (const [i, q] of body.quotes.entries()) {
      const pq = checkPriceAndQuantity(q.price, q.quantity);
      if (!pq.ok)
        throw invalid(
          `quotes[${i}]: ${pq.message}`,
          pq.fields.map((f) => ({ ...f, field: `quotes[${i}].${f.field}` })),
        );
      quotes.push({ side: q.side, outcome: q.outcome, price: pq.value.tick as number, quantity: q.quantity });
    }
    const group = body.orderGroupId;
    if (group) await this.ports.groupAdmit(c, group, userId);
    const terms: QuoteSetTerms = {
      marketId: body.marketId,
      userId,
      quotes,
      postOnly: !!body.postOnly,
      ...(group ? { orderGroupId: group } : {}),
      ...(idem ? { idem } : {}),
    };
    const set = this.ports.owns(terms.marketId)
      ? await this.quotesHere(c, terms)
      : await this.ports.quotesRemote(c, terms).then((view) => {
          if (idem) this.ports.journaled(c);
          return view;
        });
    if (group)
      for (const o of set.orders)
        await this.ports.groupJoin(c, {
          orderGroupId: group,
          orderId: o.orderId,
          marketId: o.marketId,
          open: o.status === "open" || o.status === "partially_filled",
          filled: Number(o.filledQuantity),
        });
    return set;
  }

  /** Checked quotes sent here as the market's owner (never forwarded again, like placeHere). */
  quotesHere(c: C, q: QuoteSetTerms): Promise<QuoteSetView> {
    const render = (r: QuoteSetResult) => quoteSetView(q, r);
    return this.ports.quotes(q, render).then((r) => {
      if (q.idem) this.ports.journaled(c);
      return render(r);
    });
  }

  /** DELETE /quotes: the caller's quote set in the market, cancelled in one entry. */
  async cancelQuotes(c: C, userId: string, marketId: string): Promise<{ cancelled: string[]; releasedAmount: string }> {
    const r = await this.ports.cancelQuotes(c, marketId, userId);
    return { cancelled: r.cancelled, releasedAmount: String(r.releasedAmount) };
  }

  /** PATCH /orders/:orderId: the caller's open order amended on the market's owner, answered like a placement. */
  async amend(c: C, userId: string, a: { orderId: string; price?: number; quantity?: number }) {
    if (a.price === undefined && a.quantity === undefined)
      throw invalid("Give price, quantity or both", [{ field: "price", rule: "required" }]);
    const pq = checkPriceAndQuantity(a.price, a.quantity);
    if (!pq.ok) throw invalid(pq.message, pq.fields);
    const o = await this.ports.order(c, a.orderId);
    if (!o || o.userId !== userId || o.remaining <= 0) throw notFoundFault("Order", "ORDER_NOT_FOUND");
    const r = await this.ports.amendOrder(c, {
      marketId: o.marketId,
      orderId: a.orderId,
      userId,
      price: pq.value.tick,
      quantity: pq.value.quantity,
      postOnly: o.postOnly,
    });
    // The order's size is what it filled before plus what it filled now plus its new rest.
    const terms: OrderTerms = {
      marketId: o.marketId,
      side: o.side,
      outcome: o.outcome,
      orderType: o.orderType,
      price: pq.value.tick ?? o.price,
      quantity: o.filledQuantity + r.filledQuantity + r.remainingQuantity,
      postOnly: o.postOnly,
      ...(o.clientOrderId ? { clientOrderId: o.clientOrderId } : {}),
      ...(o.expiresAt ? { expiresAt: o.expiresAt } : {}),
    };
    return {
      ...placeView(terms, r, terms.quantity, !!o.quote),
      filledQuantity: String(o.filledQuantity + r.filledQuantity),
      createdAt: o.createdAt,
      updatedAt: r.createdAt,
    };
  }

  /** GET /orders: the user's orders (open, closed or all) as the contract shows them, paged. */
  async listOrders(c: C, userId: string, q: Omit<OrderQuery, "userId">): Promise<Page<Model<"Order">>> {
    const { items, total } = await this.ports.orders(c, { ...q, userId });
    return page(items.map(orderView), total, q.page, q.pageSize);
  }

  /** DELETE /orders: every open order of the user (in one market, with `marketId`), one entry per market. */
  async cancelAll(c: C, userId: string, marketId?: string): Promise<{ cancelled: string[]; releasedAmount: string }> {
    const markets = marketId ? [marketId] : await this.ports.openMarketsOf(c, userId);
    const cancelled: string[] = [];
    let released = 0;
    for (const m of markets) {
      const r = await this.ports.cancelMany(c, m, userId, "user");
      cancelled.push(...r.cancelled);
      released += r.releasedAmount;
    }
    return { cancelled, releasedAmount: String(released) };
  }

  /** DELETE /orders/:orderId: the caller's open order, cancelled by the market's owner. */
  async cancelOrder(
    c: C,
    userId: string,
    orderId: string,
  ): Promise<{ orderId: string; status: "cancelled"; cancelledQuantity: string; releasedAmount: string }> {
    const o = await this.ports.order(c, orderId);
    if (!o || o.userId !== userId || (o.status !== "open" && o.status !== "partially_filled"))
      throw notFoundFault("Order", "ORDER_NOT_FOUND");
    const r = await this.ports.cancel(c, o.marketId, o._id, userId);
    // Amounts as digit strings, like every quantity and money field of the contract.
    return {
      orderId: r.orderId,
      status: r.status,
      cancelledQuantity: String(r.cancelledQuantity),
      releasedAmount: String(r.releasedAmount),
    };
  }

  /** GET /orders/:orderId/queue-position: the caller's open order only, like DELETE /orders/:orderId. */
  async queuePosition(c: C, userId: string, orderId: string): Promise<QueuePositionView> {
    const o = await this.ports.order(c, orderId);
    if (!o || o.userId !== userId || (o.status !== "open" && o.status !== "partially_filled"))
      throw notFoundFault("Order", "ORDER_NOT_FOUND");
    const q = await this.ports.queuePosition(c, o.marketId, o._id);
    // Filled or cancelled since the read model was read.
    if (!q) throw notFoundFault("Order", "ORDER_NOT_FOUND");
    return { price: formatTick(q.price), quantityAhead: String(q.quantityAhead), ordersAhead: q.ordersAhead };
  }
}

export interface QueuePositionView {
  price: string;
  quantityAhead: string;
  ordersAhead: number;
}

/** A batch order whose body does not have POST /orders' shape: the fields named by their place in the batch. */
function shapeError(problems: Array<{ field: string; type: string }>, i: number): BatchItem {
  return {
    ok: false,
    error: {
      code: "VALIDATION_ERROR",
      message: "Parameters validation error",
      fields: problems.map((f) => ({ field: `orders[${i}].${f.field}`, rule: f.type })),
    },
  };
}

/** An order's failure inside a batch: a refusal's code, message and fields; anything else an internal error. */
function batchError(err: unknown): Model<"ErrorDetail"> {
  if (!isRefusal(err)) return { code: "INTERNAL_ERROR", message: err instanceof Error ? err.message : "failed" };
  return { code: err.code, message: err.message, ...(err.data?.fields ? { fields: err.data.fields } : {}) };
}
