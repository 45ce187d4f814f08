/**
 * What the gateway writes itself: error answers (the envelope, the 429 a request counted over its
 * limit gets, Retry-After), rate headers, health answers and the HTTP server's timeouts; the API
 * service hands them to the response.
 */
import type { RateVerdict } from "./rate-limit";
import type { Readiness } from "./readiness";
import { toErrorResponse, type ErrorBody } from "./envelope";

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  retryAfter?: number;
  /** A failure to log: an unexpected 5xx, or a write that found the disk full (other 503s are honest, expected answers: a market moving, a node starting). */
  log: boolean;
}

/** A request counted just now and over its limit gets the 429 it would have had; anything else its error's envelope. */
export function errorAnswer(err: unknown, requestId: string, verdict: RateVerdict | undefined): ErrorAnswer {
  const r = verdict && !verdict.allowed ? toErrorResponse({ type: "RATE_LIMIT_EXCEEDED" }, requestId) : toErrorResponse(err, requestId);
  const { diskFull, ...answer } = r;
  return { ...answer, log: (r.status >= 500 && r.status !== 503) || !!diskFull };
}

/** X-RateLimit-* (and Retry-After when refused) of a request's verdict, on a response not yet sent. */
export function setRateHeaders(
  res: { headersSent: boolean; setHeader(name: string, value: string): unknown },
  v: RateVerdict | undefined,
): void {
  if (!v || res.headersSent) return;
  res.setHeader("X-RateLimit-Limit", String(v.limit));
  res.setHeader("X-RateLimit-Remaining", String(v.remaining));
  if (!v.allowed) res.setHeader("Retry-After", String(v.retryAfterSec));
}

/**
 * `GET /health` (liveness: the contract's 200 {status: ok} once this node started) and
 * `GET /health/ready` (readiness: the services behind the routes are reachable).
 */
export function healthAnswer(
  started: boolean,
  ready: (() => Readiness) | null,
  base: { nodeID: string; uptime: number },
): { status: number; body: Record<string, unknown> } {
  if (!started) return { status: 503, body: { status: "starting", ...base } };
  if (!ready) return { status: 200, body: { status: "ok", ...base } };
  const r = ready();
  return { status: r.ready ? 200 : 503, body: { status: r.status, ...base, missing: r.missing, degraded: r.degraded } };
}

/**
 * The HTTP server's timeouts for slow and silent clients: a connection has `headersTimeout` to
 * send a request's headers (Node counts from the connection for the first request, so one that
 * sends nothing is closed too), `requestTimeout` for the whole request and `keepAliveTimeout` idle
 * between requests. An answer in progress has no limit here (Socket.IO long-polling holds one up to
 * its ping interval; websockets leave the HTTP server).
 */
export function serverTimeouts(t: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number }) {
  return {
    headersTimeout: t.headersTimeoutMs,
    requestTimeout: Math.max(t.requestTimeoutMs, t.headersTimeoutMs),
    keepAliveTimeout: t.keepAliveTimeoutMs,
    // How often the first two are enforced (Node's default, 30 s, would add up to 30 s).
    connectionsCheckingInterval: Math.min(1_000, t.headersTimeoutMs),
  };
}
