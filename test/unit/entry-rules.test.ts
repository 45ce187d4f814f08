/** The rules of the exchange's own money, entry by entry: the fee account, house funding, market payouts. */
import { Accounts, type Posting } from "../../engine/accounts";
import { escrowAccount, marketPayout } from "../../engine/payout";
import { poolFunding, type TradeRecord } from "../../engine/settlement";
import { entryRuleProblems } from "../../ledger/entry-rules";

const M = "mkt_r";
const S = 1_000_000;
const book = {} as never;
const trade = (fee: number) => ({ fee }) as TradeRecord;

describe("the fee account", () => {
  const books = new Accounts();
  test("takes fees from trades, up to what they charged", () => {
    expect(entryRuleProblems({ key: "k", postings: [{ kind: "fee", amount: 5 }], trades: [trade(3), trade(2)], book }, books)).toEqual([]);
    expect(entryRuleProblems({ key: "k", postings: [{ kind: "fee", amount: 6 }], trades: [trade(5)], book }, books)).toEqual([
      "entry k credits 6 to the fee account, its trades charged 5",
    ]);
  });
  test("takes nothing outside a trade, and nothing ever leaves it", () => {
    expect(entryRuleProblems({ key: "k", postings: [{ kind: "fee", amount: 5 }] }, books)).toEqual([
      "entry k credits 5 to the fee account without executing a trade",
    ]);
    expect(entryRuleProblems({ key: "k", postings: [{ kind: "fee", amount: -5 }], book }, books)).toEqual([
      "entry k takes 5 from the fee account: nothing leaves the fee account",
    ]);
  });
});

describe("house funding", () => {
  const books = new Accounts();
  test("only into an AMM pool: L of house money is L of collateral and L pairs in the pool", () => {
    expect(entryRuleProblems({ key: "k", postings: poolFunding(M, 7 * S) }, books)).toEqual([]);
    const drawn: Posting[] = [
      { kind: "external", flow: "house", amount: 7 * S },
      { kind: "cash", account: "usr_x", available: 7 * S },
    ];
    const short = poolFunding(M, 7 * S).map((p) => (p.kind === "shares" && p.outcome === "NO" ? { ...p, quantity: S } : p));
    const back = poolFunding(M, 7 * S).map((p) => (p.kind === "external" ? { ...p, amount: -7 * S } : p));
    for (const postings of [drawn, short, back])
      expect(entryRuleProblems({ key: "k", postings }, books)).toEqual([expect.stringMatching(/^entry k moves .* of house funding/)]);
  });
});

describe("a market's payout", () => {
  function books(): Accounts {
    const a = new Accounts();
    a.apply([
      { kind: "external", flow: "deposit", amount: 10 * S },
      { kind: "cash", account: "y", available: 6 * S },
      { kind: "cash", account: "n", available: 4 * S - 3 },
      { kind: "shares", account: "y", marketId: M, outcome: "YES", quantity: 3 },
      { kind: "shares", account: "n", marketId: M, outcome: "NO", quantity: 3 },
      { kind: "collateral", marketId: M, amount: 3 },
    ]);
    return a;
  }
  const payout = { marketId: M, yesPayout: 500_000 };

  test("exactly what the price, the holders and the collateral give, in any order", () => {
    const a = books();
    const plan = marketPayout(M, 500_000, a.holders(M), 3);
    expect(plan.dust).toBe(1);
    expect(entryRuleProblems({ key: "k", postings: plan.postings, payout }, a)).toEqual([]);
    expect(entryRuleProblems({ key: "k", postings: [...plan.postings].reverse(), payout }, a)).toEqual([]);
  });

  test("anything else is named: the dust paid to a holder, another price, a payout while orders hold shares", () => {
    const a = books();
    const plan = marketPayout(M, 500_000, a.holders(M), 3);
    const dustToHolder = plan.postings.map((p) => (p.kind === "cash" && p.account === escrowAccount(M) ? { ...p, account: "y" } : p));
    expect(entryRuleProblems({ key: "k", postings: dustToHolder, payout }, a)).toEqual([
      expect.stringMatching(/^entry k pays market mkt_r out at 500000 per YES share other than its holders and collateral allow/),
    ]);
    expect(entryRuleProblems({ key: "k", postings: plan.postings, payout: { marketId: M, yesPayout: 900_000 } }, a)).toHaveLength(1);
    a.apply([{ kind: "shares", account: "y", marketId: M, outcome: "YES", locked: 1 }]);
    expect(entryRuleProblems({ key: "k", postings: plan.postings, payout }, a)).toEqual([
      "entry k pays market mkt_r out while shares of y are still locked by orders",
    ]);
  });
});
