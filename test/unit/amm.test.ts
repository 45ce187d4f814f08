import {
  applyTrade,
  compareToTick,
  createPool,
  invariant,
  isqrt,
  marginalPrice,
  maxBuyUpToPrice,
  maxSellDownToPrice,
  quote,
  quoteBuy,
  quoteSell,
  unwind,
  winningInventory,
  type AmmQuote,
  type AmmQuoteResult,
  type PoolState,
} from "../../engine/amm";
import { LOT } from "../../engine/money";
import type { Outcome, Side } from "../../engine/types";
import { Refusal } from "../../engine/refusal";

const SHARE = 1_000_000;

function ok(r: AmmQuoteResult): AmmQuote {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r;
}

/** Price (as a fraction of the traded outcome) after trading `lots` lots, or null when refused. */
function priceAfterLots(s: PoolState, side: Side, outcome: Outcome, lots: number): { num: bigint; den: bigint } | null {
  if (lots === 0) return marginalPrice(s, outcome);
  const q = quote(s, side, outcome, lots * LOT, 0);
  return q.ok ? q.priceAfter : null;
}

describe("pool basics", () => {
  test("createPool mints L pairs at p = 0.5", () => {
    const p = createPool(100 * SHARE);
    expect(p).toEqual({ yes: 100 * SHARE, no: 100 * SHARE });
    expect(marginalPrice(p, "YES")).toEqual({ num: 100_000_000n, den: 200_000_000n });
    expect(compareToTick(marginalPrice(p, "NO"), 50)).toBe(0);
    expect(invariant(p)).toBe(10n ** 16n);
  });

  test("createPool refuses non-positive or unsafe liquidity", () => {
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, NaN]) expect(() => createPool(bad)).toThrow(RangeError);
  });

  test("winningInventory and unwind", () => {
    const s = { yes: 80 * SHARE, no: 125 * SHARE };
    expect(winningInventory(s, "YES")).toBe(80 * SHARE);
    expect(winningInventory(s, "NO")).toBe(125 * SHARE);
    expect(unwind(s)).toEqual({ pairs: 80 * SHARE, yes: 0, no: 45 * SHARE });
  });

  test("isqrt is the exact floor", () => {
    const cases = [
      0n,
      1n,
      2n,
      3n,
      4n,
      15n,
      16n,
      17n,
      (10n ** 15n) ** 2n - 1n,
      (10n ** 15n) ** 2n,
      (2n ** 64n + 12345n) ** 2n + 2n * 2n ** 64n,
      10n ** 700n + 7n,
      (1n << 104n) - 1n,
      1n << 104n,
      (1n << 52n) + 1n,
      ((1n << 52n) + 1n) ** 2n,
      ((1n << 52n) + 1n) ** 2n - 1n,
    ];
    for (const n of cases) {
      const r = isqrt(n);
      expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
    }
    expect(() => isqrt(-1n)).toThrow(RangeError);
  });
});

describe("quotes worked by hand (pool 100/100 shares)", () => {
  const p = createPool(100 * SHARE);

  test("buy 10 YES: c² + 190e6·c - 1e15 >= 0 -> c = ceil(5124921.97) = 5124922", () => {
    const q = ok(quoteBuy(p, "YES", 10 * SHARE, 0));
    expect(q.cash).toBe(5_124_922);
    expect(q.fee).toBe(0);
    expect(q.newState).toEqual({ yes: 95_124_922, no: 105_124_922 });
    expect(q.avgPrice).toBe("0.512492");
    expect(q.priceAfter).toEqual({ num: 105_124_922n, den: 200_249_844n });
    // Minimal: one micro-unit less breaks the invariant.
    expect(95_124_921n * 105_124_921n < 10n ** 16n).toBe(true);
    expect(invariant(q.newState) >= 10n ** 16n).toBe(true);
  });

  test("buy fee is a gross-up: ceil(5124922·200/9800) = 104591", () => {
    const q = ok(quoteBuy(p, "YES", 10 * SHARE, 200));
    expect(q.cash).toBe(5_124_922);
    expect(q.fee).toBe(104_591);
    expect(q.net).toBe(5_229_513);
    // The fee is at least 2% of what the trader pays; the pool never sees it.
    expect(q.fee * 10_000).toBeGreaterThanOrEqual(q.net * 200);
    expect(q.newState).toEqual({ yes: 95_124_922, no: 105_124_922 });
  });

  test("sell 10 YES: c² - 210e6·c + 1e15 >= 0 -> c = floor(4875078.03) = 4875078, fee ceil(2%) = 97502", () => {
    const q = ok(quoteSell(p, "YES", 10 * SHARE, 200));
    expect(q.cash).toBe(4_875_078);
    expect(q.fee).toBe(97_502);
    expect(q.net).toBe(4_777_576);
    expect(q.newState).toEqual({ yes: 105_124_922, no: 95_124_922 });
    // Maximal: one micro-unit more breaks the invariant.
    expect(105_124_921n * 95_124_921n < 10n ** 16n).toBe(true);
  });

  test("NO mirrors YES", () => {
    const y = ok(quoteBuy({ yes: 70 * SHARE, no: 130 * SHARE }, "YES", 7 * SHARE, 150));
    const n = ok(quoteBuy({ yes: 130 * SHARE, no: 70 * SHARE }, "NO", 7 * SHARE, 150));
    expect([n.cash, n.fee, n.newState.no, n.newState.yes]).toEqual([y.cash, y.fee, y.newState.yes, y.newState.no]);
    const ys = ok(quoteSell({ yes: 70 * SHARE, no: 130 * SHARE }, "YES", 7 * SHARE, 150));
    const ns = ok(quoteSell({ yes: 130 * SHARE, no: 70 * SHARE }, "NO", 7 * SHARE, 150));
    expect([ns.cash, ns.fee, ns.newState.no, ns.newState.yes]).toEqual([ys.cash, ys.fee, ys.newState.yes, ys.newState.no]);
  });

  test("a skewed pool prices YES at no/(yes+no)", () => {
    const s = { yes: 25 * SHARE, no: 75 * SHARE };
    expect(compareToTick(marginalPrice(s, "YES"), 75)).toBe(0);
    const q = ok(quoteBuy(s, "YES", LOT, 0));
    // One lot at 0.75: 75 µUSDT plus the rounding up of the curve.
    expect(q.cash).toBe(76);
  });
});

describe("validation and rejections", () => {
  const p = createPool(100 * SHARE);

  test("quantity must be a positive multiple of LOT", () => {
    for (const q of [0, -100, 150, 100.5, NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(quoteBuy(p, "YES", q, 0)).toEqual({ ok: false, reason: "INVALID_QUANTITY" });
      expect(quoteSell(p, "NO", q, 0)).toEqual({ ok: false, reason: "INVALID_QUANTITY" });
    }
  });

  test("fee must be an integer in 0..9999 bps", () => {
    for (const f of [-1, 10_000, 1.5, NaN]) expect(quoteBuy(p, "YES", LOT, f)).toEqual({ ok: false, reason: "INVALID_FEE" });
    expect(quoteBuy(p, "YES", LOT, 9_999).ok).toBe(true);
  });

  test("an empty pool has no liquidity", () => {
    expect(quoteBuy({ yes: 0, no: 0 }, "YES", LOT, 0)).toEqual({ ok: false, reason: "NO_LIQUIDITY" });
    expect(maxBuyUpToPrice({ yes: 0, no: 0 }, "YES", 60)).toBe(0);
  });

  test("PRICE_BOUNDS: buying up to 0.99 works, one lot more is refused", () => {
    const max = maxBuyUpToPrice(p, "YES", 99);
    const last = ok(quoteBuy(p, "YES", max, 0));
    expect(compareToTick(last.priceAfter, 99)).toBeLessThanOrEqual(0);
    expect(quoteBuy(p, "YES", max + LOT, 0)).toEqual({ ok: false, reason: "PRICE_BOUNDS" });
    expect(quoteBuy(p, "YES", 1_000_000 * SHARE, 0)).toEqual({ ok: false, reason: "PRICE_BOUNDS" });
  });

  test("PRICE_BOUNDS: selling down to 0.01 works, one lot more is refused", () => {
    const max = maxSellDownToPrice(p, "NO", 1);
    const last = ok(quoteSell(p, "NO", max, 0));
    expect(compareToTick(last.priceAfter, 1)).toBeGreaterThanOrEqual(0);
    expect(quoteSell(p, "NO", max + LOT, 0)).toEqual({ ok: false, reason: "PRICE_BOUNDS" });
  });

  test("a trade toward 0.5 is allowed on a pool outside the bounds", () => {
    const s = { yes: 1 * SHARE, no: 200 * SHARE }; // YES at ~0.995
    expect(quoteSell(s, "YES", SHARE, 0).ok).toBe(true);
    expect(quoteBuy(s, "NO", SHARE, 0).ok).toBe(true);
    expect(quoteBuy(s, "YES", LOT, 0)).toEqual({ ok: false, reason: "PRICE_BOUNDS" });
    expect(maxBuyUpToPrice(s, "YES", 99)).toBe(0);
  });

  test("applyTrade returns the quote's state and throws a Refusal when refused", () => {
    const q = ok(quoteBuy(p, "NO", 3 * SHARE, 300));
    expect(applyTrade(p, "BUY", "NO", 3 * SHARE)).toEqual(q.newState);
    expect(() => applyTrade(p, "BUY", "YES", 1_000_000 * SHARE)).toThrow(Refusal);
    expect(p).toEqual(createPool(100 * SHARE)); // untouched
  });
});

describe("maxBuyUpToPrice / maxSellDownToPrice", () => {
  /** Brute force: the largest lot count whose trade ends on the right side of the price. */
  function brute(s: PoolState, side: Side, outcome: Outcome, tick: number, bound: number): number {
    let best = 0;
    for (let lots = 1; lots <= bound; lots++) {
      const pr = priceAfterLots(s, side, outcome, lots);
      if (pr === null) break;
      const c = compareToTick(pr, tick);
      if (side === "BUY" ? c > 0 : c < 0) break;
      best = lots;
    }
    return best * LOT;
  }

  test("hand example: 100/100 up to 0.60 -> 40.8248 shares (continuous 40.824829)", () => {
    expect(maxBuyUpToPrice(createPool(100 * SHARE), "YES", 60)).toBe(40_824_800);
    expect(maxSellDownToPrice(createPool(100 * SHARE), "YES", 40)).toBe(40_824_800);
  });

  test("agrees with a brute-force scan on small pools", () => {
    const pools: PoolState[] = [
      { yes: 5_000, no: 5_000 },
      { yes: 3_000, no: 9_000 },
      { yes: 12_345, no: 2_001 },
      { yes: 700, no: 690 },
    ];
    for (const s of pools)
      for (const outcome of ["YES", "NO"] as const)
        for (const tick of [1, 5, 20, 33, 50, 51, 67, 90, 99]) {
          expect(maxBuyUpToPrice(s, outcome, tick)).toBe(brute(s, "BUY", outcome, tick, 5_000));
          expect(maxSellDownToPrice(s, outcome, tick)).toBe(brute(s, "SELL", outcome, tick, 5_000));
        }
  });

  test("accepts an exact fraction and a cap", () => {
    const p = createPool(100 * SHARE);
    const byTick = maxBuyUpToPrice(p, "YES", 60);
    expect(maxBuyUpToPrice(p, "YES", { num: 3n, den: 5n })).toBe(byTick);
    expect(maxBuyUpToPrice(p, "YES", { num: 6n, den: 10n }, 10 * SHARE)).toBe(10 * SHARE);
    expect(maxBuyUpToPrice(p, "YES", 60, byTick + 5 * LOT)).toBe(byTick);
    expect(maxBuyUpToPrice(p, "YES", 60, 150)).toBe(LOT);
    expect(maxBuyUpToPrice(p, "YES", 60, 50)).toBe(0);
    // Already above the price: nothing.
    expect(maxBuyUpToPrice(p, "YES", 49)).toBe(0);
    expect(maxSellDownToPrice(p, "YES", 51)).toBe(0);
    // Exactly at the price: nothing moves it without crossing.
    expect(maxBuyUpToPrice(p, "YES", 50)).toBe(0);
  });
});
