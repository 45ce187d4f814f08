import type { Redis } from "ioredis";
import type { RateCategory } from "../contract/routes";
import { DEFAULT_TIER, type RateTiers } from "../lib/config";

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
  /** The caller's rate tier the limit came from. */
  tier?: string;
}

/** What a request carries once the store decided on it. */
export interface RateLimited {
  $rateVerdict?: RateVerdict;
  /** The caller's rate tier as the key function found it. */
  $rateTier?: string;
}

export interface RateLimitStore {
  /** The next `inc(key)` decides for `req`, under the caller's `tier` (call from the route's key function). */
  expect(key: string, req: RateLimited, tier?: string): void;
  inc(key: string): Promise<number>;
  /** The key's budget now, without counting a request (routes outside the categories show it). */
  peek(key: string, tier?: string): Promise<RateVerdict>;
  close?(): void;
}

interface StoreOpts {
  /** The `default` tier's limit: moleculer-web compares `inc`'s answer with it. */
  limit: number;
  /** A tier's limit in this category (unknown tiers: the default's). */
  limitOf?: (tier: string) => number;
}

/**
 * Which rate tier each user is on, as this gateway knows it: grants it heard of (auth.tierChanged,
 * and auth.tiersGranted as it starts) before the tier the session's token was issued with, so a
 * request costs no call to learn it. Unknown tier names (RATE_TIERS changed since) count as `default`.
 */
export class TierBook {
  private readonly granted = new Map<string, string>();

  constructor(readonly tiers: RateTiers) {}

  grant(userId: string, tier: string): void {
    this.granted.set(userId, tier);
  }

  tierOf(userId: string | null, claimed?: string): string {
    if (userId === null) return DEFAULT_TIER;
    const t = this.granted.get(userId) ?? claimed ?? DEFAULT_TIER;
    return t in this.tiers ? t : DEFAULT_TIER;
  }

  /** A tier's limit in a category; the faucet's is the same for every tier. */
  limit(tier: string, category: RateCategory, fallback: number): number {
    if (category === "faucet") return fallback;
    return (this.tiers[tier] ?? this.tiers[DEFAULT_TIER])?.[category] ?? fallback;
  }
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
function budget(limit: number, count: number, tier: string): RateVerdict {
  const n = Math.min(count, limit);
  return { limit, count: n, remaining: limit - n, allowed: true, retryAfterSec: 0, tier };
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
  // The request the next inc(key) decides for: three fields, no object per request.
  private expectedKey: string | null = null;
  private expectedReq: RateLimited | null = null;
  private expectedTier = DEFAULT_TIER;
  protected readonly limitOf: (tier: string) => number;
  constructor(
    protected readonly windowMs: number,
    protected readonly limit: number,
    limitOf?: (tier: string) => number,
  ) {
    this.limitOf = limitOf ?? (() => limit);
  }

  protected abstract decide(bucket: string, tier: string): Promise<RateVerdict>;
  abstract peek(bucket: string, tier?: string): Promise<RateVerdict>;

  expect(key: string, req: RateLimited, tier: string = DEFAULT_TIER): void {
    this.expectedKey = key;
    this.expectedReq = req;
    this.expectedTier = tier;
  }

  /**
   * The request's count as moleculer-web compares it with the default tier's limit: the tier's
   * own verdict decides, so a refusal is reported as one over that limit and an allowed request
   * at most at it.
   */
  async inc(key: string): Promise<number> {
    const expected = this.expectedKey === key;
    const req = expected ? this.expectedReq : null;
    const tier = expected ? this.expectedTier : DEFAULT_TIER;
    this.expectedKey = this.expectedReq = null;
    this.expectedTier = DEFAULT_TIER;
    const verdict = await this.decide(key, tier);
    if (req) req.$rateVerdict = verdict;
    return verdict.allowed ? Math.min(verdict.count, this.limit) : this.limit + 1;
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
    super(windowMs, opts.limit, opts.limitOf);
    this.timer = setInterval(() => this.sweep(), windowMs);
    this.timer.unref();
  }

  protected async decide(bucket: string, tier: string): Promise<RateVerdict> {
    let stamps = this.buckets.get(bucket);
    if (!stamps) this.buckets.set(bucket, (stamps = new Stamps()));
    return { ...slide(stamps, this.clock(), this.windowMs, this.limitOf(tier)), tier };
  }

  async peek(bucket: string, tier: string = DEFAULT_TIER): Promise<RateVerdict> {
    const stamps = this.buckets.get(bucket);
    if (stamps) stamps.dropUntil(this.clock() - this.windowMs);
    return budget(this.limitOf(tier), stamps?.length ?? 0, tier);
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
 * the Redis server so gateways with skewed clocks agree. The caller's tier is looked up in the
 * shared tier hash (KEYS[2], field ARGV[4]) when a gateway recorded a tier configured here (in
 * ARGV[5..]: name, limit pairs), else the gateway's own view (ARGV[3], its limit ARGV[2]) holds.
 */
const TIER_LUA = `
local tier = ARGV[3]
local limit = tonumber(ARGV[2])
if ARGV[4] ~= '' then
  local shared = redis.call('HGET', KEYS[2], ARGV[4])
  if shared then
    for i = 5, #ARGV, 2 do
      if ARGV[i] == shared then
        tier = shared
        limit = tonumber(ARGV[i + 1])
      end
    end
  end
end
`;

const SLIDE_LUA = `
local key = KEYS[1]
local windowMs = tonumber(ARGV[1])
${TIER_LUA}
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
return { allowed, n, tonumber(oldest[2]), now, limit, tier }
`;

const COUNT_LUA = `
${TIER_LUA}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return { redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(ARGV[1])), '+inf'), limit, tier }
`;

/** The Redis hash every gateway records grants in (user id -> tier), read by the scripts above. */
export const TIER_HASH = "pmx-rl:tiers";

/** The user a rate key names (`u:<id>`), else null (a client address). */
function userOfKey(bucket: string): string {
  return bucket.startsWith("u:") ? bucket.slice(2) : "";
}

export class RedisSlidingStore extends VerdictStore {
  /** Name, limit pairs of every configured tier in this store's category (the scripts' ARGV[5..]). */
  private readonly tierArgs: Array<string | number>;

  constructor(
    windowMs: number,
    opts: StoreOpts & { tierNames?: readonly string[] },
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super(windowMs, opts.limit, opts.limitOf);
    this.tierArgs = (opts.tierNames ?? []).flatMap((t) => [t, this.limitOf(t)]);
  }

  protected async decide(bucket: string, tier: string): Promise<RateVerdict> {
    const [allowedRaw, nRaw, oldest, now, limit, used] = (await this.redis.eval(
      SLIDE_LUA,
      2,
      `${this.prefix}:${bucket}`,
      TIER_HASH,
      this.windowMs,
      this.limitOf(tier),
      tier,
      userOfKey(bucket),
      ...this.tierArgs,
    )) as [number, number, number, number, number, string];
    const allowed = allowedRaw === 1;
    const count = allowed ? Math.min(nRaw, limit) : limit + 1;
    const retryAfterSec = allowed ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    return { limit, count, remaining: Math.max(0, limit - count), allowed, retryAfterSec, tier: used };
  }

  async peek(bucket: string, tier: string = DEFAULT_TIER): Promise<RateVerdict> {
    const [n, limit, used] = (await this.redis.eval(
      COUNT_LUA,
      2,
      `${this.prefix}:${bucket}`,
      TIER_HASH,
      this.windowMs,
      this.limitOf(tier),
      tier,
      userOfKey(bucket),
      ...this.tierArgs,
    )) as [number, number, string];
    return budget(limit, Number(n), used);
  }
}

/** A StoreFactory class for one rate category, as moleculer-web constructs it (limits per tier from `tiers`). */
export function storeFactory(
  category: RateCategory,
  redis?: Redis,
  tiers?: TierBook,
): new (windowMs: number, opts: StoreOpts) => RateLimitStore {
  const withTiers = (opts: StoreOpts): StoreOpts & { tierNames?: readonly string[] } =>
    tiers ? { ...opts, limitOf: (t) => tiers.limit(t, category, opts.limit), tierNames: Object.keys(tiers.tiers) } : opts;
  if (redis) {
    const client = redis;
    return class extends RedisSlidingStore {
      constructor(windowMs: number, opts: StoreOpts) {
        super(windowMs, withTiers(opts), client, `pmx-rl:${category}`);
      }
    };
  }
  return class extends MemorySlidingStore {
    constructor(windowMs: number, opts: StoreOpts) {
      super(windowMs, withTiers(opts));
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
  tiers?: TierBook,
) {
  return {
    window: opts.windowMs,
    limit: opts.limit,
    headers: false,
    StoreFactory: storeFactory(category, redis, tiers),
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
    req.$rateVerdict = await reads.store.peek(keyOf(req, reads.store), req.$rateTier);
  }
}
