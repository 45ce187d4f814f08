/** The rules of rewards entries: funding the rewards account, and a market's day of rewards and maker rebates. */
import { Accounts, type Posting } from "../../engine/accounts";
import { REWARDS_ACCOUNT } from "../../engine/rewards";
import { entryRuleProblems, rewardPostings } from "../../ledger/entry-rules";
import type { RewardRecord } from "../../models/trading";

const books = new Accounts();
const payout = (over: Partial<Extract<RewardRecord, { kind: "payout" }>> = {}): RewardRecord => ({
  kind: "payout",
  marketId: "mkt_1",
  day: "2026-03-01",
  pool: 100,
  takerFees: 40,
  rebateBps: 5000,
  rewards: [
    { userId: "usr_a", amount: 60, score: "3" },
    { userId: "usr_b", amount: 40, score: "2" },
  ],
  rebates: [{ userId: "usr_a", amount: 20, filled: 10 }],
  ...over,
});

describe("rewards entries", () => {
  test("funding: house money into the rewards account and nothing else", () => {
    const fund: RewardRecord = { kind: "fund", amount: 500 };
    expect(entryRuleProblems({ key: "k", postings: rewardPostings(fund), reward: fund }, books)).toEqual([]);
    const elsewhere: Posting[] = [
      { kind: "external", flow: "house", amount: 500 },
      { kind: "cash", account: "usr_x", available: 500 },
    ];
    expect(entryRuleProblems({ key: "k", postings: elsewhere, reward: fund }, books)).toEqual([
      "entry k moves money other than its funding of the rewards account",
    ]);
    // Without a rewards record, house money into the rewards account is the house rule's refusal.
    expect(entryRuleProblems({ key: "k", postings: rewardPostings(fund) }, books)).toEqual([
      "entry k moves 500 of house funding other than into an AMM pool's collateral",
      "entry k moves the rewards account outside a rewards entry",
    ]);
  });

  test("a payout is exactly its record: rewards from the rewards account, rebates from the fee account, to users", () => {
    const r = payout();
    const postings = rewardPostings(r);
    expect(postings).toEqual([
      { kind: "cash", account: REWARDS_ACCOUNT, available: -100 },
      { kind: "fee", amount: -20 },
      { kind: "cash", account: "usr_a", available: 80 },
      { kind: "cash", account: "usr_b", available: 40 },
    ]);
    expect(entryRuleProblems({ key: "k", postings, reward: r }, books)).toEqual([]);
    const skimmed = postings.map((p) => (p.kind === "cash" && p.account === "usr_b" ? { ...p, account: "usr_c" } : p));
    expect(entryRuleProblems({ key: "k", postings: skimmed, reward: r }, books)).toEqual([
      "entry k moves money other than its rewards and rebates",
    ]);
  });

  test("never more than the pool, never more rebate than rebateBps of the taker fees, only to users", () => {
    const over = payout({ pool: 99 });
    expect(entryRuleProblems({ key: "k", postings: rewardPostings(over), reward: over }, books)).toEqual([
      "entry k pays 100 of rewards for market mkt_1 on 2026-03-01, its pool is 99",
    ]);
    const greedy = payout({ rebateBps: 4999 });
    expect(entryRuleProblems({ key: "k", postings: rewardPostings(greedy), reward: greedy }, books)).toEqual([
      "entry k pays 20 of maker rebates for market mkt_1 on 2026-03-01, at most 19 of its taker fees",
    ]);
    const system = payout({ rebates: [{ userId: "amm:mkt_1", amount: 20, filled: 1 }] });
    expect(entryRuleProblems({ key: "k", postings: rewardPostings(system), reward: system }, books)).toEqual([
      "entry k pays a reward or rebate that is not a positive amount to a user",
    ]);
  });

  test("outside a rewards entry the fee account still only takes, and the rewards account does not move", () => {
    expect(
      entryRuleProblems(
        {
          key: "k",
          postings: [
            { kind: "fee", amount: -5 },
            { kind: "cash", account: "usr_a", available: 5 },
          ],
        },
        books,
      ),
    ).toEqual(["entry k takes 5 from the fee account: nothing leaves the fee account"]);
    expect(
      entryRuleProblems(
        {
          key: "k",
          postings: [
            { kind: "cash", account: REWARDS_ACCOUNT, available: -5 },
            { kind: "cash", account: "usr_a", available: 5 },
          ],
        },
        books,
      ),
    ).toEqual(["entry k moves the rewards account outside a rewards entry"]);
  });
});
