/** A market's payout at its end: prices, rounding per holder, both outcomes, the AMM pool, refusals. */
import { Accounts, type PositionState } from "../../engine/accounts";
import {
  escrowAccount,
  FULL_PAYOUT,
  holderPayout,
  marketPayout,
  payoutPerShare,
  priceOfYesPayout,
  yesPayoutOfPrice,
} from "../../engine/payout";
import { ammAccount, ammLegPostings, poolFunding } from "../../engine/settlement";
import { Refusal } from "../../engine/refusal";

const M = "mkt_p";
const S = 1_000_000;

const pos = (account: string, outcome: "YES" | "NO", quantity: number, locked = 0): PositionState => ({
  account,
  marketId: M,
  outcome,
  quantity,
  locked,
  totalCost: 0,
  realizedPnl: 0,
  settled: false,
});

describe("prices", () => {
  test.each([
    ["0.50", 500_000],
    ["0.5", 500_000],
    ["0", 0],
    ["0.00", 0],
    ["0.01", 10_000],
    ["0.99", 990_000],
    ["1", FULL_PAYOUT],
    ["1.00", FULL_PAYOUT],
  ])("%s pays %d per YES share", (price, micro) => {
    expect(yesPayoutOfPrice(price)).toBe(micro);
    expect(payoutPerShare(micro, "NO")).toBe(FULL_PAYOUT - micro);
  });

  test.each(["1.01", "2", "-0.5", "0.505", ".5", "0.", "", " 0.5", "0,5", "1e-1", "NaN"])("%j is not a price", (price) => {
    expect(yesPayoutOfPrice(price)).toBeNull();
  });

  test("a payout reads back as its price", () => {
    expect([0, 10_000, 200_000, 500_000, 1_000_000, 123_456].map(priceOfYesPayout)).toEqual([
      "0.00",
      "0.01",
      "0.20",
      "0.50",
      "1.00",
      "0.123456",
    ]);
  });
});

describe("a holder's payout", () => {
  test("rounds down once over both outcomes (never more than the pairs behind it)", () => {
    expect(holderPayout(3, 0, 500_000)).toBe(1);
    expect(holderPayout(0, 3, 500_000)).toBe(1);
    // One pair always pays exactly 1 micro-USDT per micro-share, whatever the price.
    expect(holderPayout(3, 3, 333_333)).toBe(3);
    expect(holderPayout(7, 2, 10_000)).toBe(Math.floor((7 * 10_000 + 2 * 990_000) / S));
    // Large positions stay exact (bigint).
    expect(holderPayout(9_000_000_000_000, 0, 999_999)).toBe(8_999_991_000_000);
  });
});

describe("marketPayout", () => {
  test("every holder at the price, positions settled, the collateral released, dust to the market's resolution account", () => {
    const holders = [pos("a", "YES", 5), pos("a", "NO", 2), pos("b", "NO", 3), pos("c", "YES", 0)];
    const plan = marketPayout(M, 250_000, holders, 5);
    // a: 5 x 0.25 + 2 x 0.75 = 2.75 -> 2; b: 3 x 0.75 = 2.25 -> 2.
    expect(plan.payouts).toEqual([
      { account: "a", amount: 2, yes: 5, no: 2 },
      { account: "b", amount: 2, yes: 0, no: 3 },
    ]);
    expect(plan.dust).toBe(1);
    expect(plan.postings).toEqual([
      { kind: "shares", account: "a", marketId: M, outcome: "YES", quantity: -5, proceeds: 1, settle: true },
      { kind: "shares", account: "a", marketId: M, outcome: "NO", quantity: -2, proceeds: 1, settle: true },
      { kind: "cash", account: "a", available: 2 },
      { kind: "shares", account: "b", marketId: M, outcome: "NO", quantity: -3, proceeds: 2, settle: true },
      { kind: "cash", account: "b", available: 2 },
      { kind: "collateral", marketId: M, amount: -5 },
      { kind: "cash", account: escrowAccount(M), available: 1 },
    ]);
  });

  test("resolved YES (1_000_000) and NO (0) pay the winners in full and the losers nothing, SPLIT half each", () => {
    const holders = [pos("y", "YES", 4 * S), pos("n", "NO", 4 * S)];
    expect(marketPayout(M, FULL_PAYOUT, holders, 4 * S).payouts.map((p) => p.amount)).toEqual([4 * S, 0]);
    expect(marketPayout(M, 0, holders, 4 * S).payouts.map((p) => p.amount)).toEqual([0, 4 * S]);
    expect(marketPayout(M, 500_000, holders, 4 * S).payouts.map((p) => p.amount)).toEqual([2 * S, 2 * S]);
  });

  test("the AMM pool's inventory is paid like any holder's; the books stay conserved", () => {
    const a = new Accounts();
    a.apply([
      ...poolFunding(M, 100 * S),
      { kind: "external", flow: "deposit", amount: 50 * S },
      { kind: "cash", account: "u", available: 50 * S },
    ]);
    a.apply([{ kind: "cash", account: "u", available: -(6 * S + S / 10), locked: 6 * S + S / 10 }]);
    a.apply(ammLegPostings(M, "u", "BUY", "YES", { quantity: 10 * S, cash: 6 * S, fee: S / 10 }));
    const pool = ammAccount(M);
    const poolYes = a.position(pool, M, "YES")!.quantity;
    const poolNo = a.position(pool, M, "NO")!.quantity;
    const plan = marketPayout(M, 640_000, a.holders(M), a.collateralOf(M));
    expect(plan.payouts.find((p) => p.account === pool)).toEqual({
      account: pool,
      amount: Number((BigInt(poolYes) * 640_000n + BigInt(poolNo) * 360_000n) / 1_000_000n),
      yes: poolYes,
      no: poolNo,
    });
    expect(plan.payouts.find((p) => p.account === "u")?.amount).toBe(6_400_000);
    a.apply(plan.postings);
    expect(a.conservation()).toMatchObject({ ok: true, collateral: 0, house: 100 * S, fees: 0 });
    expect(a.holders(M)).toEqual([]);
  });

  test("refused while orders hold shares, when the pairs do not match the collateral, or at a payout out of range", () => {
    expect(() => marketPayout(M, 500_000, [pos("a", "YES", 2, 1), pos("b", "NO", 2)], 2)).toThrow(Refusal);
    expect(() => marketPayout(M, 500_000, [pos("a", "YES", 2), pos("b", "NO", 1)], 2)).toThrow(/does not balance/);
    expect(() => marketPayout(M, 500_000, [pos("a", "YES", 2), pos("b", "NO", 2)], 3)).toThrow(/does not balance/);
    expect(() => marketPayout(M, FULL_PAYOUT + 1, [], 0)).toThrow(Refusal);
    expect(() => marketPayout(M, 0.5, [], 0)).toThrow(Refusal);
  });
});
