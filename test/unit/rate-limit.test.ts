import { MemorySlidingStore, slide } from "../../gateway/rate-limit";

describe("sliding window decision", () => {
  test("allows up to the limit inside the window, then refuses with Retry-After", () => {
    const stamps: number[] = [];
    const v = [0, 10, 20].map((t) => slide(stamps, t, 1000, 3));
    expect(v.map((x) => x.allowed)).toEqual([true, true, true]);
    expect(v.map((x) => x.remaining)).toEqual([2, 1, 0]);
    const refused = slide(stamps, 30, 1000, 3);
    expect(refused.allowed).toBe(false);
    expect(refused.count).toBe(4);
    expect(refused.retryAfterSec).toBe(1);
  });

  test("the window slides: the oldest request leaving frees one slot, not the whole window", () => {
    const stamps: number[] = [];
    slide(stamps, 0, 1000, 2);
    slide(stamps, 600, 1000, 2);
    expect(slide(stamps, 900, 1000, 2).allowed).toBe(false);
    // at 1001 the request at 0 has left; the ones at 600 and 900 (refused, still counted) remain
    expect(slide(stamps, 1001, 1000, 2).allowed).toBe(false);
    expect(slide(stamps, 1601, 1000, 2).allowed).toBe(false);
    expect(slide(stamps, 2002, 1000, 2).allowed).toBe(true);
  });

  test("requests during the cooldown extend it", () => {
    const quiet: number[] = [];
    const busy: number[] = [];
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
    const stamps: number[] = [];
    for (let i = 0; i < 10_000; i++) slide(stamps, i, 1_000_000, 5);
    expect(stamps.length).toBe(5);
  });
});

describe("MemorySlidingStore (moleculer-web store interface)", () => {
  test("inc counts per key before '#', and hands each request its own verdict once", async () => {
    let now = 0;
    const store = new MemorySlidingStore(1000, { limit: 2 }, () => now);
    expect(await store.inc("ip:a#r1")).toBe(1);
    expect(await store.inc("ip:a#r2")).toBe(2);
    expect(await store.inc("ip:b#r3")).toBe(1);
    expect(await store.inc("ip:a#r4")).toBe(3);
    expect(store.take("ip:a#r1")).toMatchObject({ allowed: true, remaining: 1 });
    expect(store.take("ip:a#r4")).toMatchObject({ allowed: false, remaining: 0, retryAfterSec: 1 });
    expect(store.take("ip:a#r4")).toBeUndefined();
    now = 5000;
    expect(await store.inc("ip:a#r5")).toBe(1);
    store.close();
  });
});
