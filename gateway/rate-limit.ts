import type { Redis } from "ioredis";

/**
 * Sliding-window rate limiting behind moleculer-web's rate-limit store interface
 * (`new StoreFactory(window, opts, broker)`, `inc(key) -> count`).
 *
 * Every request, also a refused one, is recorded, so requests made while blocked push the end of
 * the cooldown further out. Only the newest `limit` timestamps of a key matter for the decision,
 * so that is all a key ever keeps: memory stays bounded under a flood.
 *
 * moleculer-web only hands the store a key, so the gateway's key function appends `#<requestId>`;
 * the store counts by the part before `#` and keeps the verdict of each request until the gateway
 * `take`s it to write X-RateLimit-* and Retry-After.
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

export interface RateLimitStore {
  inc(key: string): Promise<number>;
  take(key: string): RateVerdict | undefined;
  close?(): void;
}

interface StoreOpts {
  limit: number;
}

function splitKey(key: string): string {
  const i = key.indexOf("#");
  return i < 0 ? key : key.slice(0, i);
}

/**
 * Request times of one key, oldest first. Dropping from the front moves a head index (an array's
 * `shift` copies the whole array once it is large, which made a high limit cost O(limit) a request).
 */
export class Stamps {
  private items: number[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  get oldest(): number {
    return this.items[this.head];
  }

  get newest(): number {
    return this.items[this.items.length - 1];
  }

  push(t: number): void {
    this.items.push(t);
  }

  dropOldest(): void {
    this.head++;
    // Compacted once half of the array is dropped: O(1) amortized.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    } else if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
  }
}

/** Decide one request against the newest `limit` timestamps of its key (mutated in place). */
export function slide(stamps: Stamps, now: number, windowMs: number, limit: number): RateVerdict {
  while (stamps.length && stamps.oldest <= now - windowMs) stamps.dropOldest();
  const allowed = stamps.length < limit;
  stamps.push(now);
  if (stamps.length > limit) stamps.dropOldest();
  const count = allowed ? stamps.length : limit + 1;
  const retryAfterSec = allowed ? 0 : Math.max(1, Math.ceil((stamps.oldest + windowMs - now) / 1000));
  return { limit, count, remaining: Math.max(0, limit - count), allowed, retryAfterSec };
}

abstract class VerdictStore implements RateLimitStore {
  protected readonly verdicts = new Map<string, RateVerdict>();
  constructor(
    protected readonly windowMs: number,
    protected readonly limit: number,
  ) {}

  protected abstract decide(bucket: string): Promise<RateVerdict>;

  async inc(key: string): Promise<number> {
    const verdict = await this.decide(splitKey(key));
    if (key.includes("#")) this.verdicts.set(key, verdict);
    return verdict.count;
  }

  take(key: string): RateVerdict | undefined {
    const v = this.verdicts.get(key);
    this.verdicts.delete(key);
    return v;
  }
}

export class MemorySlidingStore extends VerdictStore {
  private readonly buckets = new Map<string, Stamps>();
  private readonly timer: NodeJS.Timeout;

  constructor(windowMs: number, opts: StoreOpts, private readonly clock: () => number = Date.now) {
    super(windowMs, opts.limit);
    this.timer = setInterval(() => this.sweep(), windowMs);
    this.timer.unref();
  }

  protected async decide(bucket: string): Promise<RateVerdict> {
    let stamps = this.buckets.get(bucket);
    if (!stamps) this.buckets.set(bucket, (stamps = new Stamps()));
    return slide(stamps, this.clock(), this.windowMs, this.limit);
  }

  private sweep(): void {
    const cutoff = this.clock() - this.windowMs;
    for (const [k, stamps] of this.buckets) if (!stamps.length || stamps.newest <= cutoff) this.buckets.delete(k);
    // A verdict nobody took (the connection died) must not pile up.
    if (this.verdicts.size > 10_000) this.verdicts.clear();
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
    const [allowedRaw, nRaw, oldest, now] = (await this.redis.eval(SLIDE_LUA, 1, `${this.prefix}:${bucket}`, this.windowMs, this.limit)) as number[];
    const allowed = allowedRaw === 1;
    const count = allowed ? Math.min(nRaw, this.limit) : this.limit + 1;
    const retryAfterSec = allowed ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    return { limit: this.limit, count, remaining: Math.max(0, this.limit - count), allowed, retryAfterSec };
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
