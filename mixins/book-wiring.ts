/**
 * The book's cores on the broker (trading/book-cores.ts): each port filled with a broker call,
 * event or metric. Broker glue only: what the ports mean is decided in trading/.
 */
import type { ServiceBroker } from "moleculer";
import { broadcast, emit, rulesOf, type BookMessage, type EventPayload } from "../contract";
import { configOf } from "../lib/config";
import { throwRefusal } from "../lib/errors";
import { METRIC } from "../lib/metrics";
import { Validator } from "../lib/validator";
import { BookCores } from "../trading/book-cores";
import { GatheredPublications } from "../trading/publication";
import type { AppContext } from "./context";
import { withIdempotency } from "./idempotency.middleware";
import { marketOwner, refreshOwners } from "./market-routing.middleware";
import { ledgerPoster } from "./local-ledger";
import { nullWhenAbsent } from "./optional-service";
import { portCall } from "./port-call";

/** Each order of a batch is checked like POST /orders' body. */
const placeCheck = Validator.compile(rulesOf("PlaceOrderRequest")) as (v: unknown) => true | Array<{ field: string; type: string }>;

/** The order updates of a publication whose orders ended unfilled (`orders.closed`). */
function closedUnfilled(events: BookMessage[]): Array<EventPayload<"order.updated">> {
  const out: Array<EventPayload<"order.updated">> = [];
  for (const e of events)
    if (e.name === "order.updated" && (e.payload.status === "cancelled" || e.payload.status === "expired")) out.push(e.payload);
  return out;
}

export function bookCoresOn(broker: ServiceBroker, log: (message: string) => void): BookCores<AppContext> {
  const cfg = configOf(broker);
  return new BookCores<AppContext>({
    nodeID: broker.nodeID,
    fees: { takerBps: cfg.takerFeeBps, makerBps: cfg.makerFeeBps },
    ammFeeBps: cfg.ammFeeBps,
    engines: { ownerOf: (marketId) => marketOwner(broker, marketId), refresh: () => refreshOwners(broker) },
    market: (marketId) => portCall(broker, "catalog.getMarketInternal", { marketId }),
    // A catalog without exchange-wide modes (an older node in a rolling upgrade) leaves them as they are.
    exchangeMode: () => nullWhenAbsent(portCall(broker, "catalog.exchangeMode")),
    reopenUntil: cfg.reopenPostOnlyMs > 0 ? Date.now() + cfg.reopenPostOnlyMs : 0,
    ledger: {
      acquire: (marketId, node) => portCall(broker, "ledger.acquireMarket", { marketId, node }),
      restingOrders: (marketId, afterPrio, limit) => portCall(broker, "ledger.restingOrders", { marketId, afterPrio, limit }),
      lease: (marketId) => portCall(broker, "ledger.lease", { marketId }),
      ...ledgerPoster(broker),
      sync: (seq, instance) => portCall(broker, "ledger.sync", { seq, instance }).then(() => undefined),
    },
    // What committed commands tell the world (trading/publication.ts), one message per watermark.
    out: new GatheredPublications({
      published: (events) => {
        void broadcast(broker, "book.published", { events });
        const updates = closedUnfilled(events);
        if (updates.length) void broadcast(broker, "orders.closed", { updates });
      },
      prints: (prints) => emit(broker, "market.trades", { prints }),
      count: (metric, labels) => broker.metrics.increment(METRIC[metric], labels),
      // After the commands this watermark acknowledged have published, before their answers go.
      later: (send) => queueMicrotask(send),
    }),
    measured: (marketId, ms, queueDepth) => {
      broker.metrics.observe(METRIC.commandLatency, ms, { command: "market" });
      broker.metrics.set(METRIC.queueDepth, queueDepth, { marketId });
    },
    log,
    requests: {
      checkShape: placeCheck,
      placeRemote: (ctx, p) => portCall(ctx, "book.placeTerms", p),
      quotesRemote: (ctx, q) => portCall(ctx, "book.quotesTerms", q),
      cancelQuotes: (ctx, marketId, userId) => portCall(ctx, "book.cancelQuotesOf", { marketId, userId }),
      journaled: (ctx) => void (ctx.meta.idemJournaled = true),
      withIdempotency: (ctx, idem, run) => withIdempotency(ctx, idem, run).then((r) => r.value, throwRefusal),
      order: (ctx, orderId) => portCall(ctx, "ledger.getOrder", { orderId }),
      orders: (ctx, q) => portCall(ctx, "ledger.orders", q),
      amendOrder: (ctx, a) => portCall(ctx, "book.amendOrder", a),
      openMarketsOf: (ctx, userId) => portCall(ctx, "ledger.openMarketsOf", { userId }),
      cancelMany: (ctx, marketId, userId, reason) => portCall(ctx, "book.cancelMany", { marketId, userId, reason }),
      cancel: (ctx, marketId, orderId, userId) => portCall(ctx, "book.cancel", { marketId, orderId, userId }),
      queuePosition: (ctx, marketId, orderId) => portCall(ctx, "book.queuePositionAt", { marketId, orderId }),
      topOnOwner: (ctx, marketId) => portCall(ctx, "book.top", { marketId }),
      groupAdmit: (ctx, orderGroupId, userId) => portCall(ctx, "ledger.orderGroupAdmit", { orderGroupId, userId }),
      groupJoin: (ctx, j) => portCall(ctx, "ledger.orderGroupJoin", j),
    },
  });
}
