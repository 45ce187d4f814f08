import {
  cost,
  feeOn,
  feeWeight,
  formatAvgPrice,
  formatMicro,
  formatTick,
  isLotQuantity,
  isTick,
  LOT,
  MICRO,
  placementBuyLock,
  priceToTick,
  restingBuyLock,
} from "../../engine/money";

const SHARE = MICRO;

describe("grid checks", () => {
  test("ticks are the integers 1..99", () => {
    for (const t of [1, 50, 99]) expect(isTick(t)).toBe(true);
    for (const t of [0, 100, -1, 50.5, NaN, Infinity, "50", null, undefined]) expect(isTick(t)).toBe(false);
  });

  test("quantities are positive safe multiples of a lot (100 micro-shares)", () => {
    for (const q of [LOT, 2 * LOT, SHARE, 9_007_199_254_740_900]) expect(isLotQuantity(q)).toBe(true);
    for (const q of [0, -LOT, 1, 99, 150, LOT + 0.5, 2 ** 60, NaN, "100", null]) expect(isLotQuantity(q)).toBe(false);
  });
});

describe("cost", () => {
  test("is q x t / 100, exact for every lot at every tick", () => {
    expect(cost(SHARE, 55)).toBe(550_000);
    expect(cost(LOT, 1)).toBe(1);
    expect(cost(LOT, 99)).toBe(99);
    expect(cost(10 * SHARE, 40)).toBe(4 * SHARE);
    for (let t = 1; t <= 99; t++) for (const q of [LOT, 3 * LOT, 12_345 * LOT]) expect(Number.isInteger(cost(q, t))).toBe(true);
  });

  test("a YES and a NO share at complementary ticks cost exactly one micro-unit per micro-share", () => {
    for (let t = 1; t <= 99; t++) expect(cost(7 * LOT, t) + cost(7 * LOT, 100 - t)).toBe(7 * LOT);
  });
});

describe("fees", () => {
  test("weight is q x t x (100 - t) as a bigint, symmetric in t and 100 - t", () => {
    expect(feeWeight(SHARE, 60)).toBe(2_400_000_000n);
    expect(feeWeight(SHARE, 40)).toBe(feeWeight(SHARE, 60));
    // Far beyond 2^53: stays exact.
    expect(feeWeight(9_007_199_254_740_900, 50)).toBe(9_007_199_254_740_900n * 2500n);
  });

  test("fee = bps x weight / 1e8, rounded up once; zero rate or weight costs nothing", () => {
    // 2% of 4 shares x 0.6 x 0.4 = 0.0192 USDT
    expect(feeOn(200, feeWeight(4 * SHARE, 60))).toBe(19_200);
    expect(feeOn(1, 1n)).toBe(1);
    expect(feeOn(1, 100_000_000n)).toBe(1);
    expect(feeOn(1, 100_000_001n)).toBe(2);
    expect(feeOn(0, feeWeight(SHARE, 50))).toBe(0);
    expect(feeOn(-5, feeWeight(SHARE, 50))).toBe(0);
    expect(feeOn(200, 0n)).toBe(0);
  });

  test("rounding never favours the trader: fee x 1e8 >= bps x weight > (fee - 1) x 1e8", () => {
    for (const bps of [1, 7, 199, 1000, 10_000]) {
      for (const t of [1, 13, 50, 87, 99]) {
        for (const q of [LOT, 37 * LOT, 1_234_567 * LOT]) {
          const exact = BigInt(bps) * feeWeight(q, t);
          const fee = BigInt(feeOn(bps, feeWeight(q, t)));
          expect(fee * 100_000_000n >= exact).toBe(true);
          expect((fee - 1n) * 100_000_000n < exact).toBe(true);
        }
      }
    }
  });

  test("at 100% (10000 bps) the fee never exceeds the cash of the execution", () => {
    for (let t = 1; t <= 99; t++) expect(feeOn(10_000, feeWeight(LOT, t))).toBeLessThanOrEqual(cost(LOT, t));
  });
});

describe("locks", () => {
  const noFee = { takerBps: 0, makerBps: 0 };

  test("without fees a BUY locks exactly price x quantity, while placing and while resting", () => {
    expect(restingBuyLock(10 * SHARE, 40, noFee)).toBe(4 * SHARE);
    expect(placementBuyLock(10 * SHARE, 40, noFee)).toBe(4 * SHARE);
    expect(restingBuyLock(10 * SHARE, 40, { takerBps: 200, makerBps: 0 })).toBe(4 * SHARE);
  });

  test("a resting BUY adds only the maker fee it can still incur", () => {
    const fees = { takerBps: 200, makerBps: 50 };
    expect(restingBuyLock(10 * SHARE, 40, fees)).toBe(4 * SHARE + feeOn(50, feeWeight(10 * SHARE, 40)));
  });

  test("placement covers the larger fee plus one micro-unit for the two separate roundings", () => {
    expect(placementBuyLock(4 * SHARE, 60, { takerBps: 200, makerBps: 0 })).toBe(2.4 * SHARE + 19_200 + 1);
    expect(placementBuyLock(4 * SHARE, 60, { takerBps: 0, makerBps: 200 })).toBe(2.4 * SHARE + 19_200 + 1);
    expect(placementBuyLock(LOT, 1, { takerBps: 10_000, makerBps: 10_000 })).toBe(1 + 1 + 1);
  });

  test("placement lock >= any split into a taker part at a better or equal price and a resting rest", () => {
    // The reason the extra micro-unit exists: two fees rounded up separately.
    for (const bps of [1, 33, 200, 1000, 10_000]) {
      const fees = { takerBps: bps, makerBps: bps };
      for (const t of [2, 30, 50, 51, 98]) {
        for (const [f, r] of [
          [LOT, LOT],
          [3 * LOT, 7 * LOT],
          [SHARE, 1_234 * LOT],
        ]) {
          for (const fillAt of [1, Math.ceil(t / 2), t]) {
            const need = cost(f, fillAt) + feeOn(bps, feeWeight(f, fillAt)) + restingBuyLock(r, t, fees);
            expect(placementBuyLock(f + r, t, fees)).toBeGreaterThanOrEqual(need);
          }
        }
      }
    }
  });

  test("locks grow with quantity", () => {
    const fees = { takerBps: 321, makerBps: 123 };
    for (const t of [1, 50, 99]) {
      let prevR = -1;
      let prevP = -1;
      for (let n = 1; n < 200; n += 7) {
        const r = restingBuyLock(n * LOT, t, fees);
        const p = placementBuyLock(n * LOT, t, fees);
        expect(r).toBeGreaterThan(prevR);
        expect(p).toBeGreaterThan(prevP);
        prevR = r;
        prevP = p;
      }
    }
  });
});

describe("formatting and parsing", () => {
  test("formatMicro: decimal micro-units without trailing zeros", () => {
    expect(formatMicro(1_500_000)).toBe("1.5");
    expect(formatMicro(1)).toBe("0.000001");
    expect(formatMicro(0)).toBe("0");
    expect(formatMicro(-1_500_000)).toBe("-1.5");
    expect(formatMicro(-1)).toBe("-0.000001");
    expect(formatMicro(2_000_000)).toBe("2");
    expect(formatMicro(12_345_678_901_234_567n)).toBe("12345678901.234567");
  });

  test("formatTick: the contract's two-decimal price", () => {
    expect(formatTick(55)).toBe("0.55");
    expect(formatTick(1)).toBe("0.01");
    expect(formatTick(99)).toBe("0.99");
    expect(formatTick(50)).toBe("0.50");
  });

  test("priceToTick accepts the cent grid only, refusing rather than rounding", () => {
    expect(priceToTick(0.55)).toBe(55);
    expect(priceToTick(0.01)).toBe(1);
    expect(priceToTick(0.99)).toBe(99);
    // Binary floating point: 0.29 * 100 = 28.999999999999996
    expect(priceToTick(0.29)).toBe(29);
    expect(priceToTick(0.57)).toBe(57);
    for (let t = 1; t <= 99; t++) expect(priceToTick(Number(formatTick(t)))).toBe(t);
    for (const p of [0, 1, 0.555, 0.001, -0.5, 1.5, NaN, Infinity, "0.5" as unknown as number]) expect(priceToTick(p)).toBeNull();
  });

  test("formatAvgPrice: cash / quantity, 2 to 6 places, half up", () => {
    expect(formatAvgPrice(550_000, SHARE)).toBe("0.55");
    expect(formatAvgPrice(5_500_000, 10 * SHARE)).toBe("0.55");
    expect(formatAvgPrice(1, 3)).toBe("0.333333");
    expect(formatAvgPrice(2, 3)).toBe("0.666667");
    expect(formatAvgPrice(1, 2_000_000)).toBe("0.000001"); // 0.0000005 rounds half up
    expect(formatAvgPrice(1, 2_000_001)).toBe("0.00");
    expect(formatAvgPrice(1_019_200, SHARE)).toBe("1.0192");
    expect(formatAvgPrice(0, SHARE)).toBe("0.00");
    expect(formatAvgPrice(5, 0)).toBe("0.00");
  });
});
