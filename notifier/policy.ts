/** Telegram delivery: retry/backoff policy and failure classification. Pure. */

export interface RetryPolicy {
  /** Delay after the first failed attempt. */
  baseMs: number;
  factor: number;
  maxDelayMs: number;
  /** Attempts in all (the first one included) before a notification is left undelivered. */
  maxAttempts: number;
  /** Up to this fraction is added at random so many failed pushes do not retry in lockstep. */
  jitter: number;
}

/** 2 s, 4 s, 8 s, ... capped at 5 min; 8 attempts span about 4 minutes. */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 2_000, factor: 2, maxDelayMs: 300_000, maxAttempts: 8, jitter: 0.2 };

/** A claimed delivery that was never finished (crash) is retried after this long. */
export const DELIVERY_LEASE_MS = 60_000;
/** Facts older than this are stored but not pushed (e.g. a first catch-up over old history). */
export const PUSH_MAX_AGE_MS = 24 * 3600_000;

/** The defaults with the configured first delay and attempt count (lib/config: NOTIFIER_*). */
export function retryPolicy(o: { baseMs: number; maxAttempts: number }): RetryPolicy {
  return { ...DEFAULT_RETRY, baseMs: o.baseMs, maxDelayMs: Math.max(o.baseMs, DEFAULT_RETRY.maxDelayMs), maxAttempts: o.maxAttempts };
}

export interface Failure {
  /** Retrying cannot help (blocked bot, unknown chat, bad token, malformed request). */
  permanent: boolean;
  /** The server asked to wait this long (Bot API 429 `retry_after`). */
  retryAfterMs?: number;
  reason: string;
}

/** Bot API errors carry `error_code`/`description`/`parameters`; anything else is a network failure. */
export function classifyFailure(err: unknown): Failure {
  const e = (err ?? {}) as { error_code?: unknown; description?: unknown; parameters?: { retry_after?: unknown }; message?: unknown };
  if (typeof e.error_code === "number") {
    const code = e.error_code;
    const reason = `${code} ${typeof e.description === "string" ? e.description : ""}`.trim().slice(0, 200);
    if (code === 429) {
      const after = typeof e.parameters?.retry_after === "number" ? e.parameters.retry_after * 1000 : undefined;
      return { permanent: false, retryAfterMs: after, reason };
    }
    return { permanent: code >= 400 && code < 500, reason };
  }
  return { permanent: false, reason: String(e.message ?? "network error").slice(0, 200) };
}

/**
 * Delay before the next attempt after `attempts` failed ones, or null to give up.
 * Exponential in the attempt number, capped, with jitter; a server's retry_after wins if longer.
 */
export function nextRetryDelay(policy: RetryPolicy, attempts: number, failure: Failure, rand: () => number = Math.random): number | null {
  if (failure.permanent || attempts >= policy.maxAttempts) return null;
  const exp = Math.min(policy.maxDelayMs, policy.baseMs * policy.factor ** Math.max(0, attempts - 1));
  const delay = Math.round(exp * (1 + policy.jitter * rand()));
  return Math.max(delay, failure.retryAfterMs ?? 0);
}
