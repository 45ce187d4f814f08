import { MemorySlidingStore, slide, Stamps, TierBook, type RateLimited } from "../../gateway/rate-limit";
import { parseRateTiers } from "../../lib/config";

describe("sliding window decision", () => {
  test("allows up to the limit inside the window, then refuses with Retry-After", () => {
    const stamps = new Stamps();
    const v = [0, 10, 20].map((t) => slide(stamps, t, 1000, 3));
    expect(v.map((x) => x.allowed)).toEqual([true, true, true]);
    expect(v.map((x) => x.remaining)).toEqual([2, 1, 0]);
    const refused = slide(stamps, 30, 1000, 3);
    expect(refused.allowed).toBe(false);
    expect(refused.count).toBe(4);
    expect(refused.retryAfterSec).toBe(1);
  });

  test("the window slides: the oldest request leaving frees one slot, not the whole window", () => {
    const stamps = new Stamps();
    slide(stamps, 0, 1000, 2);
    slide(stamps, 600, 1000, 2);
    expect(slide(stamps, 900, 1000, 2).allowed).toBe(false);
    // at 1001 the request at 0 has left; the ones at 600 and 900 (refused, still counted) remain
    expect(slide(stamps, 1001, 1000, 2).allowed).toBe(false);
    expect(slide(stamps, 1601, 1000, 2).allowed).toBe(false);
    expect(slide(stamps, 2002, 1000, 2).allowed).toBe(true);
  });

  test("requests during the cooldown extend it", () => {
    const quiet = new Stamps();
    const busy = new Stamps();
    for (const s of [quiet, busy]) {
      slide(s, 0, 1000, 2);
      slide(s, 1, 1000, 2);
      expect(slide(s, 2, 1000, 2).allowed).toBe(false);
    }
    slide(busy, 500, 1000, 2);
    slide(busy, 501, 1000, 2);
    expect(slide(quiet, 1100, 1000, 2).allowed).toBe(true);
    const v = slide(busy, 1100, 1000, 2);
    expect(v.allowed).toBe(false);
    expect(v.retryAfterSec).toBe(1);
  });

  test("memory is bounded by the limit whatever the flood", () => {
    const stamps = new Stamps();
    for (let i = 0; i < 10_000; i++) slide(stamps, i, 1_000_000, 5);
    expect(stamps.length).toBe(5);
  });
});

describe("MemorySlidingStore (moleculer-web store interface)", () => {
  test("inc counts per key, and leaves each expected request its own verdict", async () => {
    let now = 0;
    const store = new MemorySlidingStore(1000, { limit: 2 }, () => now);
    const reqs: RateLimited[] = [{}, {}, {}, {}];
    const inc = (key: string, req: RateLimited) => {
      store.expect(key, req);
      return store.inc(key);
    };
    expect(await inc("ip:a", reqs[0])).toBe(1);
    expect(await inc("ip:a", reqs[1])).toBe(2);
    expect(await inc("ip:b", reqs[2])).toBe(1);
    expect(await inc("ip:a", reqs[3])).toBe(3);
    expect(reqs[0].$rateVerdict).toMatchObject({ allowed: true, remaining: 1 });
    expect(reqs[2].$rateVerdict).toMatchObject({ allowed: true, remaining: 1 });
    expect(reqs[3].$rateVerdict).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 1 });
    now = 5000;
    expect(await store.inc("ip:a")).toBe(1);
    store.close();
  });

  test("a verdict goes only to the request expected for that very key", async () => {
    const store = new MemorySlidingStore(1000, { limit: 5 }, () => 0);
    const req: RateLimited = {};
    store.expect("ip:a", req);
    await store.inc("ip:b");
    expect(req.$rateVerdict).toBeUndefined();
    // The expectation is used up by the inc that followed it.
    await store.inc("ip:a");
    expect(req.$rateVerdict).toBeUndefined();
    store.close();
  });
});

describe("Stamps (the per-key request times)", () => {
  /** The plain-array version the queue replaced: the reference for the same decisions. */
  function naive(stamps: number[], now: number, windowMs: number, limit: number) {
    while (stamps.length && stamps[0] <= now - windowMs) stamps.shift();
    const allowed = stamps.length < limit;
    stamps.push(now);
    if (stamps.length > limit) stamps.shift();
    return {
      allowed,
      count: allowed ? stamps.length : limit + 1,
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((stamps[0] + windowMs - now) / 1000)),
    };
  }

  test("decides exactly like a plain array across compactions, with small and large limits", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const limit of [1, 3, 100, 5000]) {
      const fast = new Stamps();
      const ref: number[] = [];
      let now = 0;
      for (let i = 0; i < 30_000; i++) {
        now += rnd() < 0.999 ? Math.floor(rnd() * 3) : 2000; // bursts, and now and then a quiet gap
        const a = slide(fast, now, 1000, limit);
        const b = naive(ref, now, 1000, limit);
        if (a.allowed !== b.allowed || a.count !== b.count || a.retryAfterSec !== b.retryAfterSec || fast.length !== ref.length) {
          throw new Error(`limit ${limit}, request ${i} at ${now}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        }
      }
    }
  });
});

describe("rate tiers", () => {
  const tiers = parseRateTiers("maker:3000/1200, pro:500/50", { read: 100, trade: 10 });

  test("RATE_TIERS parses name:reads/trades; default is always the api-spec limits; malformed entries stop the start", () => {
    expect(tiers).toEqual({ default: { read: 100, trade: 10 }, maker: { read: 3000, trade: 1200 }, pro: { read: 500, trade: 50 } });
    for (const bad of ["maker", "maker:10", "maker:0/5", "default:5/5", "Maker:5/5", "a:1/1,a:2/2", "x:1/-1"])
      expect(() => parseRateTiers(bad, { read: 100, trade: 10 })).toThrow(/RATE_TIERS/);
  });

  test("a user's tier: a grant heard of over the token's claim; unknown names and unauthenticated callers are default", () => {
    const book = new TierBook(tiers);
    expect(book.tierOf(null, "maker")).toBe("default");
    expect(book.tierOf("u1")).toBe("default");
    expect(book.tierOf("u1", "maker")).toBe("maker");
    book.grant("u1", "default");
    expect(book.tierOf("u1", "maker")).toBe("default");
    book.grant("u1", "gone");
    expect(book.tierOf("u1", "maker")).toBe("default");
    expect([book.limit("maker", "trade", 10), book.limit("maker", "read", 100), book.limit("maker", "faucet", 5)]).toEqual([1200, 3000, 5]);
  });

  test("the store decides each request under its caller's tier; moleculer-web sees a refusal as one over the default limit", async () => {
    const book = new TierBook(tiers);
    const store = new MemorySlidingStore(1000, { limit: 10, limitOf: (t) => book.limit(t, "trade", 10) }, () => 0);
    const inc = async (key: string, tier: string) => {
      const req: RateLimited = {};
      store.expect(key, req, tier);
      return { n: await store.inc(key), v: req.$rateVerdict };
    };
    for (let i = 0; i < 50; i++) expect((await inc("u:m", "pro")).v).toMatchObject({ allowed: true, limit: 50, tier: "pro" });
    const over = await inc("u:m", "pro");
    expect([over.n, over.v?.allowed, over.v?.remaining]).toEqual([11, false, 0]);
    expect(await store.peek("u:m", "pro")).toMatchObject({ limit: 50, remaining: 0, tier: "pro" });
    // The same key under maker (a grant): its 50 requests count against 1,200.
    expect((await inc("u:m", "maker")).v).toMatchObject({ allowed: true, limit: 1200, remaining: 1149 });
    store.close();
  });
});
