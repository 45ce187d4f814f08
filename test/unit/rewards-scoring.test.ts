import fc from "fast-check";
import { doubledMidpoint, orderScoring, proRata, rebatePool, scoreMinute, type RewardTerms } from "../../engine/rewards";
import type { Outcome, RestingOrder, Side } from "../../engine/types";

const SHARE = 1_000_000;
const terms: RewardTerms = { dailyPool: 100 * SHARE, maxSpreadTicks: 3, minSize: 10 * SHARE };
let n = 0;
const rest = (userId: string, side: Side, outcome: Outcome, price: number, remaining: number): RestingOrder => ({
  orderId: `o${++n}`,
  userId,
  side,
  outcome,
  price,
  quantity: remaining,
  remaining,
  seq: n,
});

describe("order scoring (((v - s) / v)^2 x size, c = 3)", () => {
  // Book 49 / 51: midpoint 50 (doubled: 100).
  const mid2 = doubledMidpoint({ bid: 49, ask: 51 });

  test("the weight falls with the square of the distance and is zero at maxSpread", () => {
    expect(mid2).toBe(100);
    // v = 3 ticks = 6 half ticks: distance 1 tick -> (6 - 2)^2 = 16 of 36.
    expect(orderScoring(rest("a", "BUY", "YES", 49, 10 * SHARE), mid2, terms)).toEqual({ reason: "scoring", weight: 16n });
    expect(orderScoring(rest("a", "BUY", "YES", 48, 10 * SHARE), mid2, terms)).toEqual({ reason: "scoring", weight: 4n });
    expect(orderScoring(rest("a", "BUY", "YES", 47, 10 * SHARE), mid2, terms)).toEqual({ reason: "too_far", weight: 0n });
    expect(orderScoring(rest("a", "BUY", "YES", 30, 10 * SHARE), mid2, terms).reason).toBe("too_far");
    // A midpoint between ticks: 49 / 50 -> 49.5; a bid at 49 is half a tick away: (6 - 1)^2.
    expect(orderScoring(rest("a", "BUY", "YES", 49, 10 * SHARE), doubledMidpoint({ bid: 49, ask: 50 }), terms).weight).toBe(25n);
  });

  test("min size, no midpoint, no rewards: each its own reason", () => {
    expect(orderScoring(rest("a", "BUY", "YES", 49, 10 * SHARE - 1), mid2, terms).reason).toBe("too_small");
    expect(orderScoring(rest("a", "BUY", "YES", 49, 10 * SHARE), null, terms).reason).toBe("no_midpoint");
    expect(orderScoring(rest("a", "BUY", "YES", 49, 10 * SHARE), mid2, null).reason).toBe("no_rewards");
    expect(doubledMidpoint({ bid: null, ask: 51 })).toBeNull();
  });

  test("NO orders score on the YES view: BUY NO at 0.49 is an ask at 0.51", () => {
    expect(orderScoring(rest("a", "BUY", "NO", 49, 10 * SHARE), mid2, terms)).toEqual({ reason: "scoring", weight: 16n });
    expect(orderScoring(rest("a", "SELL", "NO", 51, 10 * SHARE), mid2, terms)).toEqual({ reason: "scoring", weight: 16n });
  });

  test("two-sided quoters score 3x their sum, one-sided ones 1x (a third)", () => {
    const s = scoreMinute(
      [
        rest("two", "BUY", "YES", 49, 10 * SHARE),
        rest("two", "SELL", "YES", 51, 20 * SHARE),
        rest("one", "BUY", "YES", 49, 30 * SHARE),
        rest("one", "BUY", "YES", 48, 10 * SHARE),
        rest("far", "BUY", "YES", 40, 100 * SHARE),
        rest("small", "SELL", "YES", 51, SHARE),
      ],
      mid2,
      terms,
    );
    expect(Object.fromEntries(s)).toEqual({
      two: 3n * 16n * BigInt(30 * SHARE),
      one: 16n * BigInt(30 * SHARE) + 4n * BigInt(10 * SHARE),
    });
    // Same size and distance: the two-sided quoter earns three times the one-sided one.
    const eq = scoreMinute(
      [rest("x", "BUY", "YES", 49, 10 * SHARE), rest("x", "SELL", "YES", 51, 10 * SHARE), rest("y", "BUY", "YES", 49, 20 * SHARE)],
      mid2,
      terms,
    );
    expect(eq.get("x")).toBe(3n * eq.get("y")!);
    expect(scoreMinute([rest("a", "BUY", "YES", 49, 10 * SHARE)], null, terms).size).toBe(0);
  });
});

describe("pro rata payouts", () => {
  test("shares round down, never sum past the amount, and follow the weights", () => {
    expect(
      Object.fromEntries(
        proRata(
          100,
          new Map([
            ["a", 1n],
            ["b", 2n],
          ]),
        ),
      ),
    ).toEqual({ a: 33, b: 66 });
    expect(proRata(100, new Map()).size).toBe(0);
    expect(proRata(0, new Map([["a", 1n]])).size).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.array(fc.bigInt({ min: 0n, max: 10n ** 20n }), { maxLength: 20 }), (amount, ws) => {
        const weights = new Map(ws.map((w, i) => [`u${i}`, w]));
        const out = proRata(amount, weights);
        const paid = [...out.values()].reduce((s, x) => s + x, 0);
        expect(paid).toBeLessThanOrEqual(amount);
        const total = ws.reduce((s, w) => s + w, 0n);
        if (total > 0n) expect(amount - paid).toBeLessThanOrEqual(ws.filter((w) => w > 0n).length);
        for (const v of out.values()) expect(Number.isSafeInteger(v) && v > 0).toBe(true);
      }),
    );
  });

  test("the rebate pool is MAKER_REBATE_BPS of the day's taker fees, rounded down", () => {
    expect(rebatePool(1_000_001, 2500)).toBe(250_000);
    expect(rebatePool(1_000_000, 0)).toBe(0);
  });
});
