import { Errors, type Middleware, type ServiceBroker } from "moleculer";
import { ownerOf } from "../trading/ownership";

/** Actions on one market's book: served by the engine node that owns the market. */
export const MARKET_ACTIONS: ReadonlySet<string> = new Set(["book.place", "book.cancel", "book.route", "book.quote", "book.orderbook", "book.depth", "book.top", "book.halt", "book.exitQuote", "book.ensureMarket"]);
/** Of those, the ones that change nothing: repeated on the new owner when the node asked died mid-call. */
const READS: ReadonlySet<string> = new Set(["book.quote", "book.orderbook", "book.depth", "book.top", "book.exitQuote", "book.ensureMarket"]);

/** Waits between attempts while a market moves (ms); about 4 s in all, past a dead node's heartbeat timeout. */
const BACKOFF = [25, 50, 100, 200, 400, 800, 1000, 1000];

interface EndpointLike {
  id: string;
  isAvailable: boolean;
}

/** The engine nodes this node sees, by id (the book service's live endpoints). */
export function engineNodes(broker: ServiceBroker): string[] {
  const list = (broker.registry as unknown as { getActionEndpoints(name: string): { endpoints: EndpointLike[] } | undefined }).getActionEndpoints("book.place");
  return list ? list.endpoints.filter((e) => e.isAvailable).map((e) => e.id) : [];
}

/** The engine node owning `marketId` in this node's view, or null when no engine is up. */
export function marketOwner(broker: ServiceBroker, marketId: string): string | null {
  return ownerOf(marketId, engineNodes(broker));
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
      if (!name || !MARKET_ACTIONS.has(name) || opts?.nodeID || typeof marketId !== "string") return next(actionName as string, params, opts);
      const attempt = async (n: number): Promise<unknown> => {
        const owner = marketOwner(self, marketId);
        if (!owner) {
          if (n < BACKOFF.length) return sleep(BACKOFF[n]).then(() => attempt(n + 1));
          throw new Errors.MoleculerError("No engine node is serving markets right now; retry", 503, "SERVICE_UNAVAILABLE", { retryAfter: 2 });
        }
        try {
          return await next(name, params, { ...opts, nodeID: owner });
        } catch (err) {
          if ((nothingRan(err) || (nodeGone(err) && READS.has(name))) && n < BACKOFF.length) {
            await sleep(BACKOFF[n]);
            return attempt(n + 1);
          }
          if (nothingRan(err)) throw new Errors.MoleculerError(`Market ${marketId} is moving between engine nodes; nothing was executed, retry`, 503, "MARKET_MOVED", { retryAfter: 1 });
          if (nodeGone(err)) throw new Errors.MoleculerError("The engine node serving this market stopped during the request; its outcome is unknown, check before retrying", 503, "SERVICE_UNAVAILABLE", { retryAfter: 2 });
          throw err;
        }
      };
      return attempt(0) as ReturnType<ServiceBroker["call"]>;
      };
    },
  } as unknown as Middleware;
}
