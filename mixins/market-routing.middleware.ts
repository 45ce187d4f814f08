import { Errors, type Middleware, type ServiceBroker } from "moleculer";
import { ownerOf } from "../trading/ownership";

/** Actions on one market's book: served by the engine node that owns the market. */
export const MARKET_ACTIONS: ReadonlySet<string> = new Set([
  "book.place",
  "book.placeTerms",
  "book.placeQuotes",
  "book.quotesTerms",
  "book.cancelQuotes",
  "book.cancelQuotesOf",
  "book.amendOrder",
  "book.cancel",
  "book.cancelMany",
  "book.route",
  "book.quote",
  "book.orderbook",
  "book.depth",
  "book.top",
  "book.queuePositionAt",
  "book.halt",
  "book.setTradingMode",
  "book.exitQuote",
  "book.ensureMarket",
]);
/** Of those, the ones that change nothing: repeated on the new owner when the node asked died mid-call. */
const READS: ReadonlySet<string> = new Set([
  "book.quote",
  "book.orderbook",
  "book.depth",
  "book.top",
  "book.exitQuote",
  "book.ensureMarket",
]);

/** Waits between attempts while a market moves (ms); about 4 s in all, past a dead node's heartbeat timeout. */
const BACKOFF = [25, 50, 100, 200, 400, 800, 1000, 1000];

interface EndpointLike {
  id: string;
  isAvailable: boolean;
}

/** The engine nodes this node sees, by id (the book service's live endpoints). */
export function engineNodes(broker: ServiceBroker): string[] {
  const list = (
    broker.registry as unknown as { getActionEndpoints(name: string): { endpoints: EndpointLike[] } | undefined }
  ).getActionEndpoints("book.place");
  return list ? list.endpoints.filter((e) => e.isAvailable).map((e) => e.id) : [];
}

/**
 * Owners as this node last saw the engines: the engine list is read again at most every 100 ms
 * (and owners recomputed when it changed), not on every call. A view that lags a join or a death
 * by that much is one the ledger's leases already make safe.
 */
interface OwnerView {
  at: number;
  key: string;
  nodes: string[];
  owners: Map<string, string | null>;
}
const views = new WeakMap<ServiceBroker, OwnerView>();
const VIEW_MS = 100;

/** The engine node owning `marketId` in this node's view, or null when no engine is up. */
export function marketOwner(broker: ServiceBroker, marketId: string): string | null {
  const now = Date.now();
  let v = views.get(broker);
  if (!v || now - v.at >= VIEW_MS) {
    const nodes = engineNodes(broker);
    const key = nodes.join(",");
    if (!v || v.key !== key) v = { at: now, key, nodes, owners: new Map() };
    else v.at = now;
    views.set(broker, v);
  }
  let owner = v.owners.get(marketId);
  if (owner === undefined) {
    owner = ownerOf(marketId, v.nodes);
    if (v.owners.size >= 100_000) v.owners.clear();
    v.owners.set(marketId, owner);
  }
  return owner;
}

/** Forget the cached view (a node just saw the engines change). */
export function refreshOwners(broker: ServiceBroker): void {
  views.delete(broker);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nothing ran: the market is moving, or the node chosen has no such endpoint any more. */
function nothingRan(err: unknown): boolean {
  const e = err as { type?: string; name?: string };
  return e.type === "MARKET_MOVED" || e.name === "ServiceNotFoundError" || e.name === "ServiceNotAvailableError";
}

/** The node died while the call was with it: for a write the outcome is unknown. */
function nodeGone(err: unknown): boolean {
  return (err as { name?: string }).name === "RequestRejectedError";
}

/**
 * Routing that cannot miss: every call of a market action, from any entry point (the gateway's
 * moleculer-web, sockets, the REPL, other services), goes to the engine node that owns the market,
 * chosen from `params.marketId` itself. moleculer-web picks an endpoint before parsing params (with
 * no market id in view, the Shard strategy fell back to a random engine), so the choice is made
 * here, at `broker.call`. While a market moves the call is retried on the new owner a few times
 * (the ledger refused it before anything ran); then the caller gets 503 with a retry hint.
 */
export function createMarketRouting(): Middleware {
  let self: ServiceBroker;
  return {
    name: "MarketRouting",
    created(broker: ServiceBroker) {
      self = broker;
    },
    call(next: ServiceBroker["call"]) {
      return function routed(actionName: unknown, params?: unknown, opts?: Record<string, unknown>) {
        const name = typeof actionName === "string" ? actionName : (actionName as { action?: { name?: string } } | null)?.action?.name;
        const marketId = (params as { marketId?: unknown } | undefined)?.marketId;
        if (!name || !MARKET_ACTIONS.has(name) || opts?.nodeID || typeof marketId !== "string")
          return next(actionName as string, params, opts);
        // Promise chains, not an async function: the common case (owner known, call answers) makes
        // no promise beyond the call's own and the one catching a failure.
        const attempt = (n: number): Promise<unknown> => {
          const owner = marketOwner(self, marketId);
          if (!owner) {
            if (n < BACKOFF.length) return sleep(BACKOFF[n]).then(() => attempt(n + 1));
            return Promise.reject(
              new Errors.MoleculerError("No engine node is serving markets right now; retry", 503, "SERVICE_UNAVAILABLE", {
                retryAfter: 2,
              }),
            );
          }
          let sent: Promise<unknown>;
          try {
            sent = next(name, params, { ...opts, nodeID: owner });
          } catch (err) {
            sent = Promise.reject(err);
          }
          return sent.catch((err: unknown) => {
            if ((nothingRan(err) || (nodeGone(err) && READS.has(name))) && n < BACKOFF.length) {
              return sleep(BACKOFF[n]).then(() => {
                refreshOwners(self);
                return attempt(n + 1);
              });
            }
            if (nothingRan(err))
              throw new Errors.MoleculerError(
                `Market ${marketId} is moving between engine nodes; nothing was executed, retry`,
                503,
                "MARKET_MOVED",
                { retryAfter: 1 },
              );
            if (nodeGone(err))
              throw new Errors.MoleculerError(
                "The engine node serving this market stopped during the request; its outcome is unknown, check before retrying",
                503,
                "SERVICE_UNAVAILABLE",
                { retryAfter: 2 },
              );
            throw err;
          });
        };
        return attempt(0) as ReturnType<ServiceBroker["call"]>;
      };
    },
  } as unknown as Middleware;
}
