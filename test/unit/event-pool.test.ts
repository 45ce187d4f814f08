import { Accounts } from "../../engine/accounts";
import { eventPoolAccount, eventPoolFunding, planEventPoolTrade, poolState, worth } from "../../engine/event-pool";
import { liquidityParameter, marketPrices, NONE_OUTCOME, prices } from "../../engine/lmsr";
import { MICRO } from "../../engine/money";
import { entryRuleProblems } from "../../ledger/entry-rules";

const E = "evt_e";
const POOL = eventPoolAccount(E);
const U = "usr_t";

function setup(outcomes: string[], funding = 100 * MICRO) {
  const a = new Accounts();
  a.apply([
    { kind: "cash", account: U, available: 1_000 * MICRO },
    { kind: "external", flow: "deposit", amount: 1_000 * MICRO },
  ]);
  expect(entryRuleProblems({ key: "f", postings: eventPoolFunding(E, funding) }, a)).toEqual([]);
  a.apply(eventPoolFunding(E, funding));
  const b = liquidityParameter(funding, outcomes.length);
  const books = () => ({ cash: a.balance(POOL).available, positions: a.positionsOf(POOL) });
  return { a, b, books, state: () => poolState(b, books(), outcomes) };
}

describe("an event's pool in binary shares", () => {
  test("funded with cash only; equal prices; house funding anywhere else is refused", () => {
    const { a, state } = setup(["x", "y", "z"]);
    expect([...prices(state()).values()]).toEqual([333_334, 333_333, 333_333]);
    expect(
      entryRuleProblems({ key: "f", postings: [...eventPoolFunding(E, 5), { kind: "cash", account: U, available: 0 }] }, a),
    ).toHaveLength(1);
    expect(
      entryRuleProblems(
        {
          key: "f",
          postings: [
            { kind: "external", flow: "house", amount: 5 },
            { kind: "cash", account: U, available: 5 },
          ],
        },
        a,
      ),
    ).toHaveLength(1);
  });

  test("BUY YES mints pairs (the pool keeps NO); BUY NO of that market then hands the held NO out first", () => {
    const outcomes = ["x", "y", NONE_OUTCOME];
    const { a, books, state } = setup(outcomes);
    const buy = planEventPoolTrade(state(), books(), {
      eventId: E,
      userId: U,
      side: "BUY",
      marketId: "x",
      outcome: "YES",
      quantity: 10 * MICRO,
      feeBps: 100,
    });
    if (!buy.ok) throw new Error(buy.reason);
    a.apply(buy.postings);
    expect(a.position(U, "x", "YES")?.quantity).toBe(10 * MICRO);
    expect(a.position(POOL, "x", "NO")?.quantity).toBe(10 * MICRO);
    expect(a.collateralOf("x")).toBe(10 * MICRO);
    expect(a.balance(U).available).toBe(1_000 * MICRO - buy.quote.net);
    // The fee stays with the pool (shifts every outcome's worth alike: prices do not move).
    expect(buy.quote.fee).toBeGreaterThan(0);
    expect(marketPrices(state(), "x")!.yes).toBeGreaterThan(MICRO / 3);
    const no = planEventPoolTrade(state(), books(), {
      eventId: E,
      userId: U,
      side: "BUY",
      marketId: "x",
      outcome: "NO",
      quantity: 4 * MICRO,
      feeBps: 0,
    });
    if (!no.ok) throw new Error(no.reason);
    a.apply(no.postings);
    expect(a.position(POOL, "x", "NO")?.quantity).toBe(6 * MICRO);
    expect(a.collateralOf("x")).toBe(10 * MICRO);
    expect(a.conservation().ok).toBe(true);
    // Worth if x wins: cash + 0 YES of x + nothing of y; if y or none: + 6 NO of x.
    const w = worth(books(), outcomes);
    expect(w.get("y")! - w.get("x")!).toBe(6n * BigInt(MICRO));
    expect(w.get(NONE_OUTCOME)).toBe(w.get("y"));
  });

  test("SELL merges the pool's other side back into cash", () => {
    const { a, books, state } = setup(["x", "y"]);
    const buy = planEventPoolTrade(state(), books(), {
      eventId: E,
      userId: U,
      side: "BUY",
      marketId: "y",
      outcome: "YES",
      quantity: 5 * MICRO,
      feeBps: 0,
    });
    if (!buy.ok) throw new Error(buy.reason);
    a.apply(buy.postings);
    const sell = planEventPoolTrade(state(), books(), {
      eventId: E,
      userId: U,
      side: "SELL",
      marketId: "y",
      outcome: "YES",
      quantity: 5 * MICRO,
      feeBps: 0,
    });
    if (!sell.ok) throw new Error(sell.reason);
    expect(sell.quote.cash).toBe(buy.quote.cash);
    a.apply(sell.postings);
    expect(a.collateralOf("y")).toBe(0);
    expect(a.positionsOf(POOL).every((p) => p.quantity === 0)).toBe(true);
    expect(a.balance(POOL).available).toBe(100 * MICRO);
    expect(a.balance(U).available).toBe(1_000 * MICRO);
  });
});
