import { Accounts, type Posting } from "../../engine/accounts";
import { conversionAccount, ConversionRefusal, guaranteedPayout, planConversion } from "../../engine/conversion";
import { entryRuleProblems } from "../../ledger/entry-rules";

const U = "usr_a";
const E = "evt_1";
const CONV = conversionAccount(E);

/** A holder with q NO of each market (minted against a counterparty holding the YES). */
function books(markets: string[], q: number, cost = 0): Accounts {
  const a = new Accounts();
  a.apply([
    { kind: "external", flow: "deposit", amount: 10 * q * markets.length },
    { kind: "cash", account: "usr_b", available: 10 * q * markets.length },
  ]);
  for (const m of markets)
    a.apply([
      { kind: "cash", account: "usr_b", available: -q },
      { kind: "collateral", marketId: m, amount: q },
      { kind: "shares", account: "usr_b", marketId: m, outcome: "YES", quantity: q },
      { kind: "shares", account: U, marketId: m, outcome: "NO", quantity: q, cost },
    ]);
  return a;
}

describe("conversion of NO positions", () => {
  test("NO A + NO B becomes 1 USDT + YES C per share; the conversion account takes the NO and stays covered", () => {
    const a = books(["A", "B"], 2_000_000, 700_000);
    const plan = planConversion({
      eventId: E,
      account: U,
      marketIds: ["A", "B"],
      otherOpen: ["C"],
      quantity: 2_000_000,
      positions: a.positionsOf(U),
    });
    expect(plan.cashCredited).toBe(2_000_000);
    expect(plan.yesReceived).toEqual([{ marketId: "C", quantity: 2_000_000 }]);
    a.apply(plan.postings);
    expect(a.balance(U).available).toBe(2_000_000);
    expect(a.position(U, "C", "YES")?.quantity).toBe(2_000_000);
    expect(a.position(U, "A", "NO")?.quantity).toBe(0);
    expect(a.position(CONV, "A", "NO")?.quantity).toBe(2_000_000);
    expect(a.position(CONV, "C", "NO")?.quantity).toBe(2_000_000);
    expect(a.collateralOf("C")).toBe(2_000_000);
    // Paid 2 + minted 2: 4 USDT advanced against 6 NO of which at least 4 pay.
    expect(a.balance(CONV).available).toBe(-4_000_000);
    expect(guaranteedPayout(a.positionsOf(CONV))).toBe(4_000_000);
    expect(a.conservation()).toMatchObject({ ok: true, unbalancedMarkets: [] });
    expect(a.conservation().uncoveredConversions).toBeUndefined();
    // The basis (1.4 USDT) is covered by the cash: all of the rest is realized, YES C at no cost.
    expect(a.position(U, "C", "YES")?.totalCost).toBe(0);
    expect(a.positionsOf(U).reduce((s, p) => s + p.realizedPnl, 0)).toBe(2_000_000 - 1_400_000);
  });

  test("a fee is taken from the cash, rounded up; the ledger's rules accept exactly the plan of the record", () => {
    const a = books(["A", "B", "C"], 1_000_000);
    const rec = { eventId: E, userId: U, marketIds: ["A", "B", "C"], otherOpen: ["D"], quantity: 333_333, feeBps: 25 };
    const plan = planConversion({ ...rec, account: U, positions: a.positionsOf(U) });
    expect(plan.fee).toBe(Math.ceil((2 * 333_333 * 25) / 10_000));
    expect(plan.cashCredited).toBe(2 * 333_333 - plan.fee);
    expect(entryRuleProblems({ key: "c", postings: plan.postings, conversion: rec }, a)).toEqual([]);
    const more: Posting[] = plan.postings.map((p) =>
      p.kind === "cash" && p.account === U ? { ...p, available: (p.available ?? 0) + 1 } : p,
    );
    expect(entryRuleProblems({ key: "c", postings: more, conversion: rec }, a)).toEqual([
      "entry c converts positions of event evt_1 other than its record allows",
    ]);
    const advance: Posting[] = [
      { kind: "cash", account: CONV, available: -1 },
      { kind: "cash", account: U, available: 1 },
    ];
    expect(entryRuleProblems({ key: "x", postings: advance }, a)).toEqual([
      "entry x takes cash from a conversion account outside a conversion",
    ]);
  });

  test("refused: NO shares not held, or locked by a resting sell; repeated or missing markets", () => {
    const a = books(["A", "B"], 1_000_000);
    a.apply([{ kind: "shares", account: U, marketId: "B", outcome: "NO", locked: 500_000 }]);
    const ask = (marketIds: string[], quantity: number) => () =>
      planConversion({ eventId: E, account: U, marketIds, otherOpen: [], quantity, positions: a.positionsOf(U) });
    expect(ask(["A", "B"], 600_000)).toThrow(ConversionRefusal);
    expect(ask(["A", "B"], 600_000)).toThrow(/B/);
    expect(ask(["A", "B"], 500_000)).not.toThrow();
    expect(ask(["A", "A"], 100)).toThrow(/distinct/);
    expect(ask([], 100)).toThrow(/distinct/);
    expect(ask(["A"], 0)).toThrow(/positive/);
  });

  test("the books refuse an advance the guarantee does not cover", () => {
    const a = books(["A"], 1_000_000);
    expect(() =>
      a.apply([
        { kind: "cash", account: CONV, available: -1 },
        { kind: "cash", account: U, available: 1 },
      ]),
    ).toThrow(/guaranteed/);
    expect(a.balance(CONV).available).toBe(0);
  });

  test("the guarantee: all but the largest NO, or all once the winner is known; YES held counts where it wins", () => {
    const at = (marketId: string, outcome: "YES" | "NO", quantity: number, settled = false, realizedPnl = 0) => ({
      marketId,
      outcome,
      quantity,
      totalCost: 0,
      realizedPnl,
      settled,
    });
    expect(guaranteedPayout([at("a", "NO", 5), at("b", "NO", 3), at("c", "NO", 2)])).toBe(5);
    expect(guaranteedPayout([at("a", "NO", 5), at("b", "NO", 3), at("c", "NO", 0, true, 4)])).toBe(3);
    expect(guaranteedPayout([at("a", "NO", 0, true, 0), at("b", "NO", 3), at("c", "NO", 2)])).toBe(5);
    // A YES swept at a NO resolution tells nothing about the winner.
    expect(guaranteedPayout([at("a", "YES", 0, true, 0), at("b", "NO", 3), at("c", "NO", 2)])).toBe(2);
    // a wins: 3 + 2 + 4 = 9; b wins: 5 + 2 = 7; c wins: 8; none: 10 -> 7.
    expect(guaranteedPayout([at("a", "NO", 5), at("a", "YES", 4), at("b", "NO", 3), at("c", "NO", 2)])).toBe(7);
    expect(guaranteedPayout([at("a", "YES", 4)])).toBe(0);
    expect(guaranteedPayout([])).toBe(0);
  });
});
