/**
 * Moleculer's request timeout (its `Timeout` middleware) with one timer per node instead of one
 * per call. The built-in races every call against a promise holding its own timer (five promises
 * and a timer armed and cleared per call; two calls per order). Here a call in flight is an entry
 * in a set, and one timer, armed while any call is in flight, refuses the calls past their
 * deadline every `tickMs`. Same defaults (the action's `timeout`, else the broker's
 * `requestTimeout`), the same error (RequestTimeoutError, 504 at the gateway), the same warning
 * and metric; a timeout fires up to `tickMs` late.
 */
import { Errors, type Context, type Middleware, type ServiceBroker } from "moleculer";

interface InFlight {
  deadline: number;
  expire(): void;
}

type Handler = (ctx: Context & { startHrTime?: [number, number] | null }) => Promise<unknown>;
type ActionDef = { name: string; timeout?: number; service?: { fullName?: string } };

/** Moleculer's metric name for timed-out requests (its METRIC.MOLECULER_REQUEST_TIMEOUT_TOTAL). */
const TIMEOUT_METRIC = "moleculer.request.timeout.total";

export function createSharedTimeout(tickMs = 50): Middleware {
  return ((broker: ServiceBroker) => {
    const inFlight = new Set<InFlight>();
    let timer: NodeJS.Timeout | null = null;
    const sweep = () => {
      const now = Date.now();
      for (const c of inFlight) if (c.deadline <= now) c.expire();
      if (!inFlight.size && timer) {
        clearInterval(timer);
        timer = null;
      }
    };
    const wrap = (handler: Handler, action: ActionDef): Handler => {
      const service = action.service?.fullName ?? null;
      return (ctx) => {
        const opts = ctx.options as { timeout?: number | null };
        if (opts.timeout == null) opts.timeout = action.timeout ?? broker.options.requestTimeout;
        const ms = opts.timeout ?? 0;
        // For a distributed timeout (the remaining time travels with the call).
        if (ms > 0 && !ctx.startHrTime) ctx.startHrTime = process.hrtime();
        const p = handler(ctx);
        if (!(ms > 0)) return p;
        return new Promise((resolve, reject) => {
          const c: InFlight = {
            deadline: Date.now() + ms,
            expire: () => {
              inFlight.delete(c);
              broker.logger.warn(`Request '${action.name}' is timed out.`, { requestID: ctx.requestID, nodeID: ctx.nodeID, timeout: ms });
              if (broker.isMetricsEnabled()) broker.metrics.increment(TIMEOUT_METRIC, { service, action: action.name });
              reject(new Errors.RequestTimeoutError({ action: action.name, nodeID: ctx.nodeID ?? "" }));
            },
          };
          inFlight.add(c);
          if (!timer) {
            timer = setInterval(sweep, tickMs);
            timer.unref();
          }
          p.then(
            (v) => {
              inFlight.delete(c);
              resolve(v);
            },
            (err: unknown) => {
              inFlight.delete(c);
              reject(err);
            },
          );
        });
      };
    };
    return {
      name: "Timeout",
      created() {
        if (broker.isMetricsEnabled() && !broker.metrics.getMetric(TIMEOUT_METRIC))
          broker.metrics.register({
            name: TIMEOUT_METRIC,
            type: "counter",
            labelNames: ["service", "action"],
            description: "Number of timed out requests",
            rate: true,
          });
      },
      localAction: wrap,
      remoteAction: wrap,
      stopped() {
        if (timer) clearInterval(timer);
        timer = null;
      },
    };
  }) as unknown as Middleware;
}

/**
 * Moleculer's own middlewares in its order, with `Timeout` replaced by `timeout` (the broker's
 * `internalMiddlewares` is then off, so that the built-in one is not added as well).
 */
export function internalMiddlewares(timeout: Middleware): Array<Middleware | string> {
  return [
    "ActionHook",
    "Validator",
    "Bulkhead",
    "Cacher",
    "ContextTracker",
    "CircuitBreaker",
    timeout,
    "Retry",
    "Fallback",
    "ErrorHandler",
    "Tracing",
    "Metrics",
    "Debounce",
    "Throttle",
  ];
}
