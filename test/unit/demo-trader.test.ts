import fc from "fast-check";
import {
  decide,
  DemoTrader,
  DEMO_LOW_BALANCE,
  DEMO_TOP_UP,
  midOf,
  nextBelief,
  type DemoHolding,
  type DemoOrder,
} from "../../trading/demo-trader";

/** A fixed sequence of random numbers, repeated. */
const seq = (...xs: number[]) => {
  let i = 0;
  return () => xs[i++ % xs.length];
};

describe("the demo trader's decisions", () => {
  const market = { id: "m1", buyYesPrice: "0.52", sellYesPrice: "0.48" };

  test("the mid is the midpoint of the best prices, or the one there is", () => {
    expect(midOf(market)).toBeCloseTo(0.5);
    expect(midOf({ id: "m", buyYesPrice: "0.30", sellYesPrice: null })).toBeCloseTo(0.3);
    expect(midOf({ id: "m", buyYesPrice: null, sellYesPrice: null })).toBeNull();
  });

  test("buys YES when YES is below its belief and NO when above, more the further off", () => {
    const cheap = decide(market, 0.7, [], seq(0.9, 0.9));
    expect(cheap).toEqual({ marketId: "m1", side: "BUY", outcome: "YES", quantity: 12_000_000 });
    const dear = decide(market, 0.45, [], seq(0.9, 0.9));
    expect(dear).toMatchObject({ side: "BUY", outcome: "NO" });
    expect(dear!.quantity).toBeLessThan(cheap!.quantity);
  });

  test("sells part of a free holding one time in four", () => {
    const held: DemoHolding[] = [{ marketId: "m1", outcome: "NO", free: 10_000_000 }];
    expect(decide(market, 0.5, held, seq(0.1, 0, 0.5))).toEqual({ marketId: "m1", side: "SELL", outcome: "NO", quantity: 3_500_000 });
    // Holdings of other markets and locked shares are not sold.
    expect(decide(market, 0.7, [{ marketId: "m2", outcome: "YES", free: 10_000_000 }], seq(0.1, 0.9))).toMatchObject({ side: "BUY" });
  });

  test("beliefs stay inside 0.08..0.92 and orders are whole lots of at least one share (property)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 3 }),
        (start, rs) => {
          const b = nextBelief(start, seq(...rs));
          expect(b).toBeGreaterThanOrEqual(0.08);
          expect(b).toBeLessThanOrEqual(0.92);
          const o = decide(market, b, [{ marketId: "m1", outcome: "YES", free: 7_654_321 }], seq(...rs));
          expect(o).not.toBeNull();
          expect(o!.quantity % 10_000).toBe(0);
          expect(o!.quantity).toBeGreaterThanOrEqual(1_000_000);
          if (o!.side === "SELL") expect(o!.quantity).toBeLessThanOrEqual(7_654_321);
        },
      ),
    );
  });
});

describe("a round of the demo trader", () => {
  function fakes(available: number) {
    const trades: DemoOrder[] = [];
    const topUps: number[] = [];
    const ports = {
      markets: async () => [{ id: "m1", buyYesPrice: "0.51", sellYesPrice: "0.49" }],
      holdings: async () => [],
      available: async () => available,
      topUp: async (n: number) => void topUps.push(n),
      trade: async (o: DemoOrder) => void trades.push(o),
      log: { info: () => undefined, warn: () => undefined },
    };
    return { ports, trades, topUps };
  }

  test("tops up from the faucet when low (at most once a minute) and trades one market per round", async () => {
    let now = 0;
    const f = fakes(DEMO_LOW_BALANCE - 1);
    const t = new DemoTrader(f.ports, seq(0.3, 0.8, 0.6), () => now);
    now = 120_000;
    await t.step();
    await t.step();
    expect(f.topUps).toEqual([DEMO_TOP_UP]);
    expect(f.trades).toHaveLength(2);
    now += 61_000;
    await t.step();
    expect(f.topUps).toEqual([DEMO_TOP_UP, DEMO_TOP_UP]);
  });

  test("does not buy with almost nothing left, and does nothing without markets", async () => {
    const poor = fakes(1_000);
    expect(await new DemoTrader(poor.ports, seq(0.3, 0.8, 0.6), () => 1e9).step()).toBeNull();
    expect(poor.trades).toEqual([]);
    const none = fakes(DEMO_TOP_UP);
    none.ports.markets = async () => [];
    expect(await new DemoTrader(none.ports, Math.random).step()).toBeNull();
    expect(none.trades).toEqual([]);
  });
});
