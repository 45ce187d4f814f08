import type { Redis } from "ioredis";
import type { RateCategory } from "../contract/routes";

/**
 * Sliding-window rate limiting behind moleculer-web's rate-limit store interface
 * (`new StoreFactory(window, opts, broker)`, `inc(key) -> count`).
 *
 * Every request, also a refused one, is recorded, so requests made while blocked push the end of
 * the cooldown further out. Only the newest `limit` timestamps of a key matter for the decision,
 * so that is all a key ever keeps: memory stays bounded under a flood.
 *
 * moleculer-web hands the store only a key, but the gateway needs each request's own verdict for
 * X-RateLimit-* and Retry-After. moleculer-web calls `inc(key)` synchronously right after the
 * route's `key(req)`, so the key function `expect`s its request and `inc` leaves the verdict on
 * it (no per-request map or request-id key; a mismatch only leaves the headers out).
 */
export interface RateVerdict {
  limit: number;
  /** Requests in the window including this one (limit + 1 when refused). */
  count: number;
  remaining: number;
  allowed: boolean;
  /** Seconds until a request would be allowed again (0 when allowed). */
  retryAfterSec: number;
}

/** What a request carries once the store decided on it. */
export interface RateLimited {
  $rateVerdict?: RateVerdict;
}

export interface RateLimitStore {
  /** The next `inc(key)` decides for `req` (call from the route's key function). */
  expect(key: string, req: RateLimited): void;
  inc(key: string): Promise<number>;
  /** The key's budget now, without counting a request (routes outside the categories show it). */
  peek(key: string): Promise<RateVerdict>;
  close?(): void;
}

interface StoreOpts {
  limit: number;
}

/**
 * Request times of one key, oldest first, as runs of equal times (milliseconds): a flood costs one
 * entry per millisecond, not one per request. Dropping from the front moves a head index (an
 * array's `shift` copies the whole array once it is large).
 */
export class Stamps {
  private times: number[] = [];
  private counts: number[] = [];
  private head = 0;
  private total = 0;

  get length(): number {
    return this.total;
  }

  get oldest(): number {
    return this.times[this.head];
  }

  get newest(): number {
    return this.times[this.times.length - 1];
  }

  push(t: number): void {
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === t) this.counts[last]++;
    else {
      this.times.push(t);
      this.counts.push(1);
    }
    this.total++;
  }

  dropOldest(): void {
    this.total--;
    if (--this.counts[this.head] === 0) this.advance();
  }

  /** Drops every request at or before `cutoff` (whole runs at a time). */
  dropUntil(cutoff: number): void {
    while (this.total && this.times[this.head] <= cutoff) {
      this.total -= this.counts[this.head];
      this.advance();
    }
  }

  private advance(): void {
    this.head++;
    if (this.head === this.times.length) {
      this.times = [];
      this.counts = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.times.length) {
      // Compacted once half of the array is dropped: O(1) amortized.
      this.times = this.times.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }
}

/** A budget read without recording a request: `count` requests in the window so far. */
function budget(limit: number, count: number): RateVerdict {
  const n = Math.min(count, limit);
  return { limit, count: n, remaining: limit - n, allowed: true, retryAfterSec: 0 };
}

/** Decide one request against the newest `limit` timestamps of its key (mutated in place). */
export function slide(stamps: Stamps, now: number, windowMs: number, limit: number): RateVerdict {
  stamps.dropUntil(now - windowMs);
  const allowed = stamps.length < limit;
  stamps.push(now);
  if (stamps.length > limit) stamps.dropOldest();
  const count = allowed ? stamps.length : limit + 1;
  const retryAfterSec = allowed ? 0 : Math.max(1, Math.ceil((stamps.oldest + windowMs - now) / 1000));
  return { limit, count, remaining: Math.max(0, limit - count), allowed, retryAfterSec };
}

abstract class VerdictStore implements RateLimitStore {
  // The request the next inc(key) decides for: two fields, no object per request.
  private expectedKey: string | null = null;
  private expectedReq: RateLimited | null = null;
  constructor(
    protected readonly windowMs: number,
    protected readonly limit: number,
  ) {}

  protected abstract decide(bucket: string): Promise<RateVerdict>;
  abstract peek(bucket: string): Promise<RateVerdict>;

  expect(key: string, req: RateLimited): void {
    this.expectedKey = key;
    this.expectedReq = req;
  }

  async inc(key: string): Promise<number> {
    const req = this.expectedKey === key ? this.expectedReq : null;
    this.expectedKey = this.expectedReq = null;
    const verdict = await this.decide(key);
    if (req) req.$rateVerdict = verdict;
    return verdict.count;
  }
}

export class MemorySlidingStore extends VerdictStore {
  private readonly buckets = new Map<string, Stamps>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    windowMs: number,
    opts: StoreOpts,
    private readonly clock: () => number = Date.now,
  ) {
    super(windowMs, opts.limit);
    this.timer = setInterval(() => this.sweep(), windowMs);
    this.timer.unref();
  }

  protected async decide(bucket: string): Promise<RateVerdict> {
    let stamps = this.buckets.get(bucket);
    if (!stamps) this.buckets.set(bucket, (stamps = new Stamps()));
    return slide(stamps, this.clock(), this.windowMs, this.limit);
  }

  async peek(bucket: string): Promise<RateVerdict> {
    const stamps = this.buckets.get(bucket);
    if (stamps) stamps.dropUntil(this.clock() - this.windowMs);
    return budget(this.limit, stamps?.length ?? 0);
  }

  private sweep(): void {
    const cutoff = this.clock() - this.windowMs;
    for (const [k, stamps] of this.buckets) if (!stamps.length || stamps.newest <= cutoff) this.buckets.delete(k);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * The same rule in one Lua script so several gateways share one count atomically; time comes from
 * the Redis server so gateways with skewed clocks agree.
 */
const SLIDE_LUA = `
local key = KEYS[1]
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
local n = redis.call('ZCARD', key)
local allowed = 0
if n < limit then allowed = 1 end
local seq = redis.call('INCR', key .. ':seq')
redis.call('ZADD', key, now, tostring(now) .. '-' .. seq)
n = n + 1
if n > limit then
  redis.call('ZREMRANGEBYRANK', key, 0, n - limit - 1)
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
redis.call('PEXPIRE', key, windowMs)
redis.call('PEXPIRE', key .. ':seq', windowMs)
return { allowed, n, tonumber(oldest[2]), now }
`;

const COUNT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(ARGV[1])), '+inf')
`;

export class RedisSlidingStore extends VerdictStore {
  constructor(
    windowMs: number,
    opts: StoreOpts,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super(windowMs, opts.limit);
  }

  protected async decide(bucket: string): Promise<RateVerdict> {
    const [allowedRaw, nRaw, oldest, now] = (await this.redis.eval(
      SLIDE_LUA,
      1,
      `${this.prefix}:${bucket}`,
      this.windowMs,
      this.limit,
    )) as number[];
    const allowed = allowedRaw === 1;
    const count = allowed ? Math.min(nRaw, this.limit) : this.limit + 1;
    const retryAfterSec = allowed ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    return { limit: this.limit, count, remaining: Math.max(0, this.limit - count), allowed, retryAfterSec };
  }

  async peek(bucket: string): Promise<RateVerdict> {
    return budget(this.limit, Number(await this.redis.eval(COUNT_LUA, 1, `${this.prefix}:${bucket}`, this.windowMs)));
  }
}

/** A StoreFactory class for one rate category, as moleculer-web constructs it. */
export function storeFactory(category: string, redis?: Redis): new (windowMs: number, opts: StoreOpts) => RateLimitStore {
  if (redis) {
    const client = redis;
    return class extends RedisSlidingStore {
      constructor(windowMs: number, opts: StoreOpts) {
        super(windowMs, opts, client, `pmx-rl:${category}`);
      }
    };
  }
  return class extends MemorySlidingStore {
    constructor(windowMs: number, opts: StoreOpts) {
      super(windowMs, opts);
    }
  };
}

/** The contract's rate categories (RATE_LIMIT_* settings); each route names its own (contract/routes.ts). */
export type { RateCategory };

/** What moleculer-web keeps of a route's `rateLimit` option: our key function and the store it built. */
export interface RouteRateLimit<R> {
  key(req: R): string;
  store: RateLimitStore;
}

/**
 * A route's `rateLimit` option for a category: our sliding-window store (Redis when configured),
 * headers written by the gateway itself, and the request's key from `keyOf` (which tells the store
 * which request the next count decides for).
 */
export function categoryLimit<R>(
  category: RateCategory,
  opts: { windowMs: number; limit: number },
  redis: Redis | undefined,
  keyOf: (req: R, store: RateLimitStore) => string,
) {
  return {
    window: opts.windowMs,
    limit: opts.limit,
    headers: false,
    StoreFactory: storeFactory(category, redis),
    // moleculer-web calls key() on its copy of these options, which holds the store it built.
    key(this: { store: RateLimitStore }, req: R) {
      return keyOf(req, this.store);
    },
  };
}

/**
 * Every response carries X-RateLimit-*: a request that failed before its route's limiter ran
 * (unreadable body, unknown route) is counted now, in its route's category or else as a read;
 * routes outside the categories (health, OpenAPI, operator API) show the read budget uncounted.
 */
export async function decideRate<R extends RateLimited & { $route?: { rateLimit?: RouteRateLimit<R> }; $alias?: unknown }>(
  req: R,
  reads: RouteRateLimit<R>,
  keyOf: (req: R, store: RateLimitStore) => string,
): Promise<void> {
  if (req.$rateVerdict) return;
  const own = req.$route?.rateLimit;
  if (own || !req.$alias) {
    const limit = own ?? reads;
    await limit.store.inc(limit.key(req));
  } else {
    req.$rateVerdict = await reads.store.peek(keyOf(req, reads.store));
  }
}
