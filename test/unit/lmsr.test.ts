import {
  cost,
  createLmsr,
  liquidityParameter,
  marketPrices,
  NONE_OUTCOME,
  prices,
  quote,
  removeOutcome,
  worstLoss,
} from "../../engine/lmsr";
import { MICRO } from "../../engine/money";

/** The exact rule in floating point, for comparison only. */
function floatCost(b: number, q: number[]): number {
  const m = Math.max(...q);
  return m + b * Math.log(q.reduce((s, x) => s + Math.exp((x - m) / b), 0));
}

describe("LMSR event pool", () => {
  test("a fresh pool costs ceil(b·ln n) and prices every outcome equally", () => {
    const s = createLmsr(1_000_000_000, ["a", "b", "c", "d"]);
    expect(cost(s)).toBe(Math.ceil(1_000_000_000 * Math.log(4)));
    expect([...prices(s).values()]).toEqual([250_000, 250_000, 250_000, 250_000]);
    const three = prices(createLmsr(1_000_000, ["a", "b", "c"]));
    expect([...three.values()].reduce((a, x) => a + x, 0)).toBe(MICRO);
  });

  test("the cost function stays within a micro-unit above the exact rule", () => {
    const b = 50_000_000;
    const q = [120_000_000, -30_000_000, 0, 7_000_000];
    const exact = floatCost(b, q);
    const c = cost({ b, outcomes: q.map((x, i) => ({ id: String(i), q: x })) });
    expect(c).toBeGreaterThanOrEqual(Math.floor(exact));
    expect(c - exact).toBeLessThan(1 + 1e-6);
  });

  test("buying YES of one market raises its price; buying its NO is buying every other outcome", () => {
    const s = createLmsr(100_000_000, ["a", "b", NONE_OUTCOME]);
    const yes = quote(s, "BUY", "a", "YES", 10_000_000);
    if (!yes.ok) throw new Error(yes.reason);
    expect(yes.outcomeIds).toEqual(["a"]);
    expect(marketPrices(yes.newState, "a")!.yes).toBeGreaterThan(marketPrices(s, "a")!.yes);
    expect(yes.cash).toBeGreaterThan(10_000_000 / 3);
    expect(yes.cash).toBeLessThan(10_000_000);
    const no = quote(s, "BUY", "a", "NO", 10_000_000);
    if (!no.ok) throw new Error(no.reason);
    expect(no.outcomeIds).toEqual(["b", NONE_OUTCOME]);
    expect(no.newState.outcomes.map((o) => o.q)).toEqual([0, 10_000_000, 10_000_000]);
    // YES + NO of the same market is a complete set: it costs exactly its quantity.
    const both = quote(yes.newState, "BUY", "a", "NO", 10_000_000);
    if (!both.ok) throw new Error(both.reason);
    expect(yes.cash + both.cash).toBe(10_000_000);
  });

  test("fees: a BUY pays the gross-up, a SELL receives less, rounded up for the pool", () => {
    const s = createLmsr(100_000_000, ["a", "b"]);
    const buy = quote(s, "BUY", "a", "YES", 1_000_000, 200);
    if (!buy.ok) throw new Error(buy.reason);
    expect(buy.fee).toBe(Math.ceil((buy.cash * 200) / 9_800));
    expect(buy.net).toBe(buy.cash + buy.fee);
    const sell = quote(buy.newState, "SELL", "a", "YES", 1_000_000, 200);
    if (!sell.ok) throw new Error(sell.reason);
    expect(sell.cash).toBe(buy.cash);
    expect(sell.fee).toBe(Math.ceil((sell.cash * 200) / 10_000));
  });

  test("refusals: quantity off the lot, unknown market, bad fee", () => {
    const s = createLmsr(1_000_000, ["a", "b"]);
    expect(quote(s, "BUY", "a", "YES", 150)).toEqual({ ok: false, reason: "INVALID_QUANTITY" });
    expect(quote(s, "BUY", "z", "YES", 100)).toEqual({ ok: false, reason: "UNKNOWN_OUTCOME" });
    expect(quote(s, "BUY", "a", "YES", 100, 10_000)).toEqual({ ok: false, reason: "INVALID_FEE" });
    expect(quote(removeOutcome(s, "b"), "BUY", "a", "YES", 100)).toEqual({ ok: false, reason: "NO_LIQUIDITY" });
  });

  test("an outcome that leaves renormalises the others and lowers the cost", () => {
    const s = createLmsr(10_000_000, ["a", "b", "c"]);
    const r = quote(s, "BUY", "b", "YES", 5_000_000);
    if (!r.ok) throw new Error(r.reason);
    const after = removeOutcome(r.newState, "c");
    const p = prices(after);
    expect([...p.keys()]).toEqual(["a", "b"]);
    expect(p.get("a")! + p.get("b")!).toBe(MICRO);
    expect(p.get("b")!).toBeGreaterThan(p.get("a")!);
    expect(cost(after)).toBeLessThan(cost(r.newState));
  });

  test("the liquidity parameter keeps the worst loss within the funding, as large as it can", () => {
    for (const [funding, n] of [
      [1_000_000_000, 2],
      [1_000_000_000, 65],
      [123_456_789, 7],
      [100, 3],
    ]) {
      const b = liquidityParameter(funding, n);
      expect(b).toBeGreaterThan(0);
      expect(worstLoss(b, n)).toBeLessThanOrEqual(funding);
      expect(worstLoss(b + 1, n)).toBeGreaterThan(funding);
    }
    expect(liquidityParameter(1_000, 1)).toBe(0);
  });
});
