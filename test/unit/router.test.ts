import { createPool, invariant, maxBuyUpToPrice, quoteBuy } from "../../engine/amm";
import { OrderBook } from "../../engine/book";
import { LOT } from "../../engine/money";
import {
  ammThreshold,
  planAmmOnly,
  planBookOnly,
  planRoute,
  type BookLevel,
  type RoutePlan,
  type RouteResult,
  type RouteVenues,
} from "../../engine/router";
import { settlePlacement } from "../../engine/settlement";
import type { Order } from "../../engine/types";

const SHARE = 1_000_000;
const pool100 = createPool(100 * SHARE);

function plan(r: RouteResult): RoutePlan {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r;
}

const venues = (levels: BookLevel[], takerBps = 200, ammFeeBps = 100, pool = pool100): RouteVenues => ({
  levels,
  takerBps,
  pool,
  ammFeeBps,
});

describe("venue outcomes", () => {
  test("CLOB when the book is cheaper: asks at 0.45 against a pool at 0.50", () => {
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 10 * SHARE }, venues([{ price: 45, quantity: 100 * SHARE }])));
    expect(p.venue).toBe("CLOB");
    expect(p.legs).toEqual({ book: [{ price: 45, quantity: 10 * SHARE }], amm: null });
    expect(p.totalCost).toBe(4_500_000);
    // ceil(200 x 10e6 x 45 x 55 / 1e8) = 49500
    expect(p.bookFee).toBe(49_500);
    expect(p.fee).toBe(49_500);
    expect(p.net).toBe(4_549_500);
    expect(p.avgPrice).toBe("0.45");
    expect(p.filled).toBe(10 * SHARE);
  });

  test("AMM when the book is empty: the AMM quote, fee included", () => {
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 10 * SHARE }, venues([], 200, 200)));
    expect(p.venue).toBe("AMM");
    expect(p.legs.book).toEqual([]);
    expect(p.legs.amm).toEqual({ quantity: 10 * SHARE, cash: 5_124_922, fee: 104_591, newState: { yes: 95_124_922, no: 105_124_922 } });
    expect([p.totalCost, p.fee, p.bookFee, p.net]).toEqual([5_124_922, 104_591, 0, 5_229_513]);
    expect(p).toEqual(planAmmOnly({ side: "BUY", outcome: "YES", quantity: 10 * SHARE }, pool100, 200));
  });

  test("AMM when the pool is cheaper than the whole book slice", () => {
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 20 * SHARE }, venues([{ price: 55, quantity: 50 * SHARE }], 0, 0)));
    // The AMM reaches 0.55 only after 20.1007 shares, so it fills all 20 (c = 10498757, worked in amm terms).
    expect(p.venue).toBe("AMM");
    expect(p.legs.amm?.cash).toBe(10_498_757);
  });

  test("HYBRID, no fees: the AMM up to 0.55 (20.1007 shares), then the ask at 0.55", () => {
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 40 * SHARE }, venues([{ price: 55, quantity: 50 * SHARE }], 0, 0)));
    expect(p.venue).toBe("HYBRID");
    // maxBuyUpToPrice(100/100, 0.55): o' = sqrt(1e16·0.55/0.45), q = 20100756.6 -> 20100700.
    expect(p.legs.amm).toMatchObject({ quantity: 20_100_700, cash: 10_554_129, fee: 0 });
    expect(p.legs.book).toEqual([{ price: 55, quantity: 19_899_300 }]);
    expect(p.totalCost).toBe(10_554_129 + 10_944_615);
    expect(p.net).toBe(21_498_744); // the optimum over every split (checked by brute force)
    expect(p.avgPrice).toBe("0.537469");
  });

  test("HYBRID with fees: the threshold is fee-adjusted on both sides", () => {
    // Book: 0.55 + 2% x 0.55 x 0.45 = 0.554950 per share; the AMM may go up to 0.554950 x 0.99 = 0.5494005.
    const thr = ammThreshold("BUY", 55, 200, 100);
    expect(Number(thr.num) / Number(thr.den)).toBeCloseTo(0.5494005, 12);
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 40 * SHARE }, venues([{ price: 55, quantity: 50 * SHARE }])));
    expect(p.venue).toBe("HYBRID");
    expect(p.legs.amm).toMatchObject({ quantity: 19_857_300, cash: 10_420_332, fee: 105_256 });
    expect(p.legs.book).toEqual([{ price: 55, quantity: 20_142_700 }]);
    // Book: 201427 lots x 55 = 11078485, fee ceil(200 x 20142700 x 55 x 45 / 1e8) = 99707.
    expect([p.totalCost, p.bookFee, p.fee, p.net]).toEqual([11_078_485 + 10_420_332, 99_707, 99_707 + 105_256, 21_703_780]);
    // Cheaper than either venue alone.
    const order = { side: "BUY" as const, outcome: "YES" as const, quantity: 40 * SHARE };
    expect(p.net).toBeLessThan(plan(planBookOnly(order, [{ price: 55, quantity: 50 * SHARE }], 200)).net);
    expect(p.net).toBeLessThan(plan(planAmmOnly(order, pool100, 100)).net);
  });

  test("HYBRID SELL: the AMM down to the fee-adjusted bid, then the bid", () => {
    const p = plan(planRoute({ side: "SELL", outcome: "YES", quantity: 40 * SHARE }, venues([{ price: 45, quantity: 50 * SHARE }])));
    expect(p.venue).toBe("HYBRID");
    expect(p.legs.amm).toMatchObject({ quantity: 20_285_300, cash: 9_629_599, fee: 96_296 });
    expect(p.legs.book).toEqual([{ price: 45, quantity: 19_714_700 }]);
    expect([p.totalCost, p.bookFee, p.net]).toEqual([8_871_615 + 9_629_599, 97_588, 18_307_330]);
    expect(invariant(p.legs.amm!.newState) >= invariant(pool100)).toBe(true);
  });

  test("walks several levels: AMM, level, AMM, level", () => {
    const levels = [
      { price: 51, quantity: 5 * SHARE },
      { price: 53, quantity: 5 * SHARE },
      { price: 58, quantity: 100 * SHARE },
    ];
    const p = plan(planRoute({ side: "BUY", outcome: "YES", quantity: 60 * SHARE }, venues(levels, 0, 0)));
    expect(p.venue).toBe("HYBRID");
    expect(p.legs.book.slice(0, 2)).toEqual(levels.slice(0, 2));
    const amm = p.legs.amm!;
    // The pool ends at (or just below) 0.58 and the rest is on the 0.58 level.
    expect(amm.quantity).toBe(maxBuyUpToPrice(pool100, "YES", 58));
    expect(p.legs.book[2].price).toBe(58);
    expect(amm.quantity + p.legs.book.reduce((s, l) => s + l.quantity, 0)).toBe(60 * SHARE);
  });
});

describe("refusals and bounds", () => {
  const order = { side: "BUY" as const, outcome: "YES" as const, quantity: 1_000 * SHARE };

  test("the AMM refuses to go past 0.99: alone it cannot fill 1000 shares of a 100/100 pool", () => {
    expect(quoteBuy(pool100, "YES", 1_000 * SHARE, 0)).toEqual({ ok: false, reason: "PRICE_BOUNDS" });
    expect(planRoute(order, venues([]))).toEqual({ ok: false, reason: "INSUFFICIENT_LIQUIDITY" });
    expect(planAmmOnly(order, pool100, 100)).toEqual({ ok: false, reason: "INSUFFICIENT_LIQUIDITY" });
  });

  test("together they fill what neither fills alone", () => {
    const levels = [{ price: 60, quantity: 100 * SHARE }];
    expect(planBookOnly(order, levels, 200)).toEqual({ ok: false, reason: "INSUFFICIENT_LIQUIDITY" });
    const p = plan(planRoute(order, venues(levels)));
    expect(p.venue).toBe("HYBRID");
    expect(p.legs.book).toEqual(levels);
    expect(p.legs.amm!.quantity).toBe(900 * SHARE);
  });

  test("no pool: the book alone or nothing", () => {
    const v = venues([{ price: 60, quantity: 5 * SHARE }], 200, 100, null as never);
    expect(plan(planRoute({ side: "BUY", outcome: "NO", quantity: 5 * SHARE }, { ...v, pool: null })).venue).toBe("CLOB");
    expect(planRoute({ side: "BUY", outcome: "NO", quantity: 6 * SHARE }, { ...v, pool: null })).toEqual({
      ok: false,
      reason: "INSUFFICIENT_LIQUIDITY",
    });
    expect(planAmmOnly({ side: "BUY", outcome: "NO", quantity: 6 * SHARE }, null, 100)).toEqual({
      ok: false,
      reason: "INSUFFICIENT_LIQUIDITY",
    });
  });

  test("bad input", () => {
    const v = venues([{ price: 55, quantity: SHARE }]);
    for (const q of [0, 150, -LOT, 1.5])
      expect(planRoute({ side: "BUY", outcome: "YES", quantity: q }, v)).toEqual({ ok: false, reason: "INVALID_QUANTITY" });
    expect(planRoute({ side: "BUY", outcome: "YES", quantity: SHARE }, { ...v, takerBps: -1 })).toEqual({
      ok: false,
      reason: "INVALID_FEE",
    });
    expect(planRoute({ side: "BUY", outcome: "YES", quantity: SHARE }, { ...v, ammFeeBps: 10_000 })).toEqual({
      ok: false,
      reason: "INVALID_FEE",
    });
    const bad: BookLevel[][] = [
      [
        { price: 56, quantity: SHARE },
        { price: 55, quantity: SHARE },
      ], // BUY levels must ascend
      [
        { price: 55, quantity: SHARE },
        { price: 55, quantity: SHARE },
      ],
      [{ price: 100, quantity: SHARE }],
      [{ price: 55, quantity: 150 }],
    ];
    for (const levels of bad)
      expect(planRoute({ side: "BUY", outcome: "YES", quantity: SHARE }, { ...v, levels })).toEqual({
        ok: false,
        reason: "INVALID_LEVELS",
      });
    expect(
      planRoute(
        { side: "SELL", outcome: "YES", quantity: SHARE },
        {
          ...v,
          levels: [
            { price: 40, quantity: SHARE },
            { price: 45, quantity: SHARE },
          ],
        },
      ),
    ).toEqual({ ok: false, reason: "INVALID_LEVELS" });
  });
});

describe("quote == execution against the real book", () => {
  test("the book leg executed as one FOK fills the planned levels and pays the planned fee", () => {
    const book = new OrderBook("m1");
    let n = 0;
    const put = (o: Omit<Order, "orderId" | "orderType">) => book.place({ ...o, orderId: `o${++n}`, orderType: "GTC" });
    // NO asks seen by a NO buyer: SELL NO at 47/49 and BUY YES at 50 (= NO at 50), plus the buyer's own order.
    put({ userId: "m", side: "SELL", outcome: "NO", price: 47, quantity: 3 * SHARE });
    put({ userId: "m", side: "BUY", outcome: "YES", price: 51, quantity: 4 * SHARE }); // NO at 49
    put({ userId: "me", side: "SELL", outcome: "NO", price: 48, quantity: 9 * SHARE }); // skipped: self
    put({ userId: "m2", side: "SELL", outcome: "NO", price: 52, quantity: 50 * SHARE });
    const fees = { takerBps: 200, makerBps: 0 };
    const order = { side: "BUY" as const, outcome: "NO" as const, quantity: 30 * SHARE };
    const pool = { yes: 100 * SHARE, no: 120 * SHARE }; // NO at 100/220 = 0.4545
    const sweep = book.sweep("BUY", "NO", Infinity, { excludeUserId: "me" });
    expect(sweep.levels).toEqual([
      { price: 47, quantity: 3 * SHARE },
      { price: 49, quantity: 4 * SHARE },
      { price: 52, quantity: 50 * SHARE },
    ]);
    const v: RouteVenues = { levels: sweep.levels, takerBps: fees.takerBps, pool, ammFeeBps: 100 };
    const p = plan(planRoute(order, v));
    expect(planRoute(order, v)).toEqual(p); // deterministic
    expect(p.venue).toBe("HYBRID");
    const bookQty = p.legs.book.reduce((s, l) => s + l.quantity, 0);
    const last = p.legs.book[p.legs.book.length - 1].price;
    const taker: Order = { orderId: "t", userId: "me", side: "BUY", outcome: "NO", price: last, quantity: bookQty, orderType: "FOK" };
    const events = book.place(taker);
    const filled = new Map<number, number>();
    for (const e of events) if (e.type === "fill") filled.set(e.takerPrice, (filled.get(e.takerPrice) ?? 0) + e.quantity);
    expect([...filled].map(([price, quantity]) => ({ price, quantity }))).toEqual(p.legs.book);
    let id = 0;
    const s = settlePlacement("m1", taker, events, fees, (pfx) => `${pfx}${++id}`);
    const t = s.trades.find((r) => r.role === "taker")!;
    expect(t.filledQuantity).toBe(bookQty);
    expect(t.totalCost + (p.legs.amm?.cash ?? 0)).toBe(p.totalCost);
    expect(t.fee).toBe(p.bookFee);
  });
});
