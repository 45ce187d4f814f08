/** Redemption and refund postings against the ledger's own books: conservation holds at every step. */
import { Accounts, type Posting } from "../../engine/accounts";
import { ammAccount, ammLegPostings, poolFunding } from "../../engine/settlement";
import { cancelledPayout, escrowAccount, redeemWinner, resolutionPostings, sweepLosers } from "../../chain/redemption";

const M = "mkt_1";
const S = 1_000_000;

/** alice YES x10 at 0.30 (+fee), bob NO x10 at 0.70, carol YES x4 / dave NO x4 at 0.5, 3 fee. */
function market(): Accounts {
  const a = new Accounts();
  const p: Posting[] = [
    { kind: "external", flow: "deposit", amount: 400 * S },
    ...["alice", "bob", "carol", "dave"].map((u) => ({ kind: "cash" as const, account: u, available: 100 * S })),
    { kind: "cash", account: "alice", available: -(3 * S + 1000) },
    { kind: "cash", account: "bob", available: -7 * S },
    { kind: "cash", account: "carol", available: -2 * S },
    { kind: "cash", account: "dave", available: -2 * S },
    { kind: "shares", account: "alice", marketId: M, outcome: "YES", quantity: 10 * S, cost: 3 * S + 1000 },
    { kind: "shares", account: "bob", marketId: M, outcome: "NO", quantity: 10 * S, cost: 7 * S },
    { kind: "shares", account: "carol", marketId: M, outcome: "YES", quantity: 4 * S, cost: 2 * S },
    { kind: "shares", account: "dave", marketId: M, outcome: "NO", quantity: 4 * S, cost: 2 * S },
    { kind: "collateral", marketId: M, amount: 14 * S },
    { kind: "fee", amount: 1000 },
  ];
  a.apply(p);
  expect(a.conservation().ok).toBe(true);
  return a;
}

test("resolution: losers into the escrow, winners redeemed one by one, pairs matched throughout", () => {
  const a = market();
  a.apply(sweepLosers(M, "NO", a.holders(M)));
  expect(a.conservation().ok).toBe(true);
  expect(a.position("bob", M, "NO")).toMatchObject({ quantity: 0, settled: true, realizedPnl: -7 * S, totalCost: 0 });
  expect(a.position(escrowAccount(M), M, "NO")?.quantity).toBe(14 * S);
  // A second sweep finds nothing to move.
  expect(sweepLosers(M, "NO", a.holders(M))).toEqual([]);

  a.apply(redeemWinner(M, "alice", "YES", 10 * S));
  expect(a.conservation()).toMatchObject({ ok: true, unbalancedMarkets: [] });
  expect(a.balance("alice").available).toBe(100 * S - 3 * S - 1000 + 10 * S);
  expect(a.position("alice", M, "YES")).toMatchObject({ quantity: 0, settled: true, realizedPnl: 7 * S - 1000 });
  expect(a.collateralOf(M)).toBe(4 * S);

  a.apply([...sweepLosers(M, "NO", a.holders(M)), ...redeemWinner(M, "carol", "YES", 4 * S)]);
  expect(a.conservation().ok).toBe(true);
  expect(a.collateralOf(M)).toBe(0);
  expect(a.holders(M)).toEqual([]);
});

test("a redemption before any sweep carries the sweep in the same entry", () => {
  const a = market();
  a.apply([...sweepLosers(M, "YES", a.holders(M)), ...redeemWinner(M, "bob", "NO", 10 * S)]);
  expect(a.conservation().ok).toBe(true);
  expect(a.balance("bob").available).toBe(100 * S - 7 * S + 10 * S);
  // Without the escrowed losers the entry is rejected whole: never more paid than is matched.
  const b = market();
  expect(() => b.apply(redeemWinner(M, "bob", "NO", 10 * S))).toThrow();
  expect(b.conservation().ok).toBe(true);
});

test("losing shares locked by orders stay until released; the unlocked part moves", () => {
  const a = market();
  a.apply([{ kind: "shares", account: "bob", marketId: M, outcome: "NO", locked: 4 * S }]);
  a.apply(sweepLosers(M, "NO", a.holders(M)));
  expect(a.position("bob", M, "NO")).toMatchObject({ quantity: 4 * S, locked: 4 * S, settled: false });
  expect(a.conservation().ok).toBe(true);
});

test("cancelled at 0.50: every share pays half from the market's collateral; the fee account and the house are untouched", () => {
  const a = market();
  const plan = cancelledPayout(M, 500_000, a.holders(M));
  expect(plan).toMatchObject({ collateral: 14 * S, dust: 0 });
  a.apply(plan.postings);
  expect(a.conservation()).toMatchObject({ ok: true, fees: 1000, house: 0, collateral: 0 });
  expect(a.balance("alice").available).toBe(100 * S - 3 * S - 1000 + 5 * S);
  expect(a.balance("bob").available).toBe(100 * S - 7 * S + 5 * S);
  expect(a.balance("carol").available).toBe(100 * S);
  expect(a.balance("dave").available).toBe(100 * S);
  expect(a.position("bob", M, "NO")).toMatchObject({ quantity: 0, settled: true, realizedPnl: -2 * S });
  expect(a.holders(M)).toEqual([]);
});

test("cancelled at 0.20: YES pays 0.20, NO 0.80; a holder's payout rounds down once, the dust stays in the market's resolution account", () => {
  const a = new Accounts();
  a.apply([
    { kind: "external", flow: "deposit", amount: 10 * S },
    { kind: "cash", account: "x", available: 10 * S - 7 },
    { kind: "shares", account: "x", marketId: M, outcome: "YES", quantity: 3 },
    { kind: "shares", account: "y", marketId: M, outcome: "NO", quantity: 2 },
    { kind: "shares", account: "z", marketId: M, outcome: "YES", quantity: 4 },
    { kind: "shares", account: "z", marketId: M, outcome: "NO", quantity: 5 },
    { kind: "collateral", marketId: M, amount: 7 },
  ]);
  const plan = cancelledPayout(M, 200_000, a.holders(M));
  // x: 3 x 0.2 = 0.6 -> 0; y: 2 x 0.8 = 1.6 -> 1; z: 4 x 0.2 + 5 x 0.8 = 4.8 -> 4; 7 - 5 = 2 of dust.
  expect(plan.payouts.map((p) => [p.account, p.amount])).toEqual([
    ["x", 0],
    ["y", 1],
    ["z", 4],
  ]);
  expect(plan.dust).toBe(2);
  a.apply(plan.postings);
  expect(a.conservation()).toMatchObject({ ok: true, collateral: 0, fees: 0, house: 0 });
  expect(a.balance(escrowAccount(M)).available).toBe(2);
});

test("a payout waits while orders hold shares", () => {
  const a = market();
  a.apply([{ kind: "shares", account: "alice", marketId: M, outcome: "YES", locked: S }]);
  expect(() => cancelledPayout(M, 500_000, a.holders(M))).toThrow(/locked/);
});

describe("the AMM pool (cost-less inventory funded by the house)", () => {
  const pool = ammAccount(M);
  /** House funds 100 pairs; a user buys 10 YES from the pool for 6 (+0.1 fee to the pool's cash). */
  function ammMarket(): Accounts {
    const a = new Accounts();
    a.apply([
      ...poolFunding(M, 100 * S),
      { kind: "external", flow: "deposit", amount: 50 * S },
      { kind: "cash", account: "u", available: 50 * S },
    ]);
    a.apply([{ kind: "cash", account: "u", available: -(6 * S + S / 10), locked: 6 * S + S / 10 }]);
    a.apply(ammLegPostings(M, "u", "BUY", "YES", { quantity: 10 * S, cash: 6 * S, fee: S / 10 }));
    expect(a.conservation().ok).toBe(true);
    return a;
  }

  test("resolution: the pool's winning inventory is redeemed into its cash; the user redeems after", () => {
    const a = ammMarket();
    const poolNo = a.position(pool, M, "NO")!.quantity;
    a.apply(resolutionPostings(M, "NO", a.holders(M)));
    expect(a.conservation().ok).toBe(true);
    expect(a.balance(pool).available).toBe(S / 10 + poolNo);
    expect(a.position("u", M, "YES")).toMatchObject({ quantity: 0, settled: true });
    expect(a.holders(M).every((h) => h.account === escrowAccount(M))).toBe(true);
    expect(a.collateralOf(M)).toBe(a.position(escrowAccount(M), M, "YES")!.quantity);
  });

  test("cancel: the pool's inventory is paid at the price like any holder's, into its cash", () => {
    const a = ammMarket();
    const before = a.balance(pool).available;
    const poolYes = a.position(pool, M, "YES")!.quantity;
    const poolNo = a.position(pool, M, "NO")!.quantity;
    const plan = cancelledPayout(M, 300_000, a.holders(M));
    a.apply(plan.postings);
    expect(a.conservation()).toMatchObject({ ok: true, collateral: 0, house: 100 * S });
    expect(a.balance("u").available).toBe(50 * S - 6 * S - S / 10 + 3 * S);
    expect(a.balance(pool).available).toBe(before + Math.floor((poolYes * 3 + poolNo * 7) / 10));
    expect(plan.collateral).toBe(106 * S);
    expect(a.holders(M)).toEqual([]);
  });
});
