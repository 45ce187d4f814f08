import { Accounts, type Posting, type PostingCode } from "../../engine/accounts";
import { Refusal } from "../../engine/refusal";

const deposit = (account: string, amount: number): Posting[] => [
  { kind: "cash", account, available: amount },
  { kind: "external", flow: "deposit", amount },
];

/** A mint: alice buys 100 YES micro-shares at 0.40, bob 100 NO at 0.60; the 100 pairs hold 100 of collateral. */
function minted(): Accounts {
  const a = new Accounts();
  a.apply(deposit("alice", 1000));
  a.apply(deposit("bob", 1000));
  a.apply([
    { kind: "cash", account: "alice", available: -40 },
    { kind: "cash", account: "bob", available: -60 },
    { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 100, cost: 40 },
    { kind: "shares", account: "bob", marketId: "m", outcome: "NO", quantity: 100, cost: 60 },
    { kind: "collateral", marketId: "m", amount: 100 },
  ]);
  return a;
}

function rejects(fn: () => void, code: PostingCode): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(Refusal);
    expect((err as Refusal).code).toBe(code);
    return;
  }
  throw new Error(`expected a ${code} rejection`);
}

describe("Accounts: postings", () => {
  test("an unknown account reads as zero; deposits credit available and the right-hand side", () => {
    const a = new Accounts();
    expect(a.balance("nobody")).toEqual({ available: 0, locked: 0, total: 0 });
    expect(a.position("nobody", "m", "YES")).toBeUndefined();
    expect(a.positionsOf("nobody")).toEqual([]);
    a.apply(deposit("alice", 1000));
    expect(a.balance("alice")).toEqual({ available: 1000, locked: 0, total: 1000 });
    expect(a.conservation()).toMatchObject({ ok: true, cash: 1000, deposits: 1000, collateral: 0, fees: 0 });
  });

  test("lock and release move between available and locked; total is unchanged", () => {
    const a = new Accounts();
    a.apply(deposit("alice", 1000));
    a.apply([{ kind: "cash", account: "alice", available: -300, locked: 300 }]);
    expect(a.balance("alice")).toEqual({ available: 700, locked: 300, total: 1000 });
    a.apply([{ kind: "cash", account: "alice", available: 300, locked: -300 }]);
    expect(a.balance("alice")).toEqual({ available: 1000, locked: 0, total: 1000 });
  });

  test("postings of one entry combine before the checks: a debit and a credit of the same account net out", () => {
    const a = new Accounts();
    a.apply([
      { kind: "cash", account: "alice", available: -50 },
      { kind: "cash", account: "alice", available: 80 },
      { kind: "external", flow: "deposit", amount: 30 },
    ]);
    expect(a.balance("alice").available).toBe(30);
  });

  test("all-or-nothing: one failing posting leaves every account, position, collateral and fee untouched", () => {
    const a = minted();
    const before = JSON.stringify(a.snapshot());
    rejects(
      () =>
        a.apply([
          { kind: "fee", amount: 5 },
          { kind: "collateral", marketId: "m", amount: 7 },
          { kind: "cash", account: "alice", available: 10 },
          { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 5 },
          { kind: "cash", account: "bob", available: -10_000 },
        ]),
      "INSUFFICIENT_BALANCE",
    );
    expect(JSON.stringify(a.snapshot())).toBe(before);
    expect(a.conservation().ok).toBe(true);
  });

  test("rejections: negative available or locked cash, negative shares, over-locked shares, negative collateral or fees", () => {
    const a = minted();
    const before = JSON.stringify(a.snapshot());
    rejects(() => a.apply([{ kind: "cash", account: "alice", available: -961 }]), "INSUFFICIENT_BALANCE");
    rejects(() => a.apply([{ kind: "cash", account: "alice", locked: -1, available: 1 }]), "INSUFFICIENT_BALANCE");
    rejects(() => a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -101 }]), "INSUFFICIENT_SHARES");
    rejects(() => a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", locked: 101 }]), "INSUFFICIENT_SHARES");
    rejects(() => a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "NO", locked: 1 }]), "INSUFFICIENT_SHARES");
    rejects(() => a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", locked: -1 }]), "INSUFFICIENT_SHARES");
    rejects(() => a.apply([{ kind: "collateral", marketId: "m", amount: -101 }]), "NEGATIVE_COLLATERAL");
    rejects(() => a.apply([{ kind: "collateral", marketId: "other", amount: -1 }]), "NEGATIVE_COLLATERAL");
    rejects(() => a.apply([{ kind: "fee", amount: -1 }]), "INSUFFICIENT_BALANCE");
    expect(JSON.stringify(a.snapshot())).toBe(before);
  });

  test("locked shares can be sold: quantity and lock fall together", () => {
    const a = minted();
    a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", locked: 60 }]);
    // Selling more than is free while the lock holds would leave locked > quantity.
    rejects(() => a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -50 }]), "INSUFFICIENT_SHARES");
    a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -40 }]);
    a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -60, locked: -60 }]);
    expect(a.position("alice", "m", "YES")).toMatchObject({ quantity: 0, locked: 0 });
  });

  test("non-integer and unsafe amounts are invalid postings and change nothing", () => {
    const a = minted();
    const before = JSON.stringify(a.snapshot());
    const bad: Posting[][] = [
      [{ kind: "cash", account: "alice", available: 0.5 }],
      [{ kind: "cash", account: "alice", locked: NaN }],
      [{ kind: "cash", account: "alice", available: 2 ** 53 }],
      [{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 1.5 }],
      [{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", cost: Infinity }],
      [{ kind: "collateral", marketId: "m", amount: 0.1 }],
      [{ kind: "fee", amount: 1e-6 }],
      [{ kind: "external", flow: "deposit", amount: 1.25 }],
      [{ kind: "bogus" } as unknown as Posting],
    ];
    for (const p of bad) rejects(() => a.apply(p), "INVALID_POSTING");
    expect(JSON.stringify(a.snapshot())).toBe(before);
  });

  test("prepare validates without changing anything; commit applies exactly the prepared change", () => {
    const a = minted();
    const before = JSON.stringify(a.snapshot());
    const change = a.prepare([{ kind: "cash", account: "alice", available: -10, locked: 10 }]);
    expect(JSON.stringify(a.snapshot())).toBe(before);
    a.commit(change);
    expect(a.balance("alice")).toEqual({ available: 950, locked: 10, total: 960 });
  });
});

describe("Accounts: positions", () => {
  test("proceeds remove the proportional cost basis (rounded down) and book the rest as realized PnL", () => {
    const a = minted(); // alice: 100 YES for 40
    a.apply(deposit("carol", 1000));
    a.apply([
      { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -30, proceeds: 20 },
      { kind: "cash", account: "alice", available: 20 },
      { kind: "shares", account: "carol", marketId: "m", outcome: "YES", quantity: 30, cost: 20 },
      { kind: "cash", account: "carol", available: -20 },
    ]);
    // 40 x 30 / 100 = 12 of basis leaves; 20 - 12 = 8 realized.
    expect(a.position("alice", "m", "YES")).toMatchObject({ quantity: 70, totalCost: 28, realizedPnl: 8 });
    // 28 x 33 / 70 = 13.2 -> 13 leaves.
    a.apply([
      { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -33, proceeds: 10 },
      { kind: "shares", account: "carol", marketId: "m", outcome: "YES", quantity: 33 },
    ]);
    expect(a.position("alice", "m", "YES")).toMatchObject({ quantity: 37, totalCost: 15, realizedPnl: 5 });
    // The last shares take whatever basis is left, so none is stranded by rounding.
    a.apply([
      { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -37, proceeds: 0 },
      { kind: "shares", account: "carol", marketId: "m", outcome: "YES", quantity: 37 },
    ]);
    expect(a.position("alice", "m", "YES")).toMatchObject({ quantity: 0, totalCost: 0, realizedPnl: -10 });
  });

  test("settle marks a position settled; new shares reopen it", () => {
    const a = minted();
    a.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", realized: 60, settle: true }]);
    expect(a.position("alice", "m", "YES")).toMatchObject({ settled: true, realizedPnl: 60 });
    a.apply([
      { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 10 },
      { kind: "shares", account: "bob", marketId: "m", outcome: "NO", quantity: 10 },
      { kind: "collateral", marketId: "m", amount: 10 },
      { kind: "cash", account: "alice", available: -10 },
    ]);
    expect(a.position("alice", "m", "YES")?.settled).toBe(false);
  });

  test("positionsOf and holders", () => {
    const a = minted();
    expect(a.positionsOf("alice").map((p) => `${p.marketId}:${p.outcome}`)).toEqual(["m:YES"]);
    expect(
      a
        .holders("m")
        .map((p) => p.account)
        .sort(),
    ).toEqual(["alice", "bob"]);
    expect(a.holders("other")).toEqual([]);
  });
});

describe("Accounts: conservation", () => {
  test("cash + collateral + fees = deposits - withdrawals + house, through mint, fee, merge and withdrawal", () => {
    const a = minted();
    expect(a.conservation()).toEqual({
      ok: true,
      cash: 1900,
      collateral: 100,
      fees: 0,
      deposits: 2000,
      withdrawals: 0,
      house: 0,
      unbalancedMarkets: [],
    });
    a.apply([
      { kind: "cash", account: "alice", available: -3 },
      { kind: "fee", amount: 3 },
    ]);
    // Merge: alice's YES and bob's NO back into 100 micro-USDT.
    a.apply([
      { kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: -100 },
      { kind: "shares", account: "bob", marketId: "m", outcome: "NO", quantity: -100 },
      { kind: "collateral", marketId: "m", amount: -100 },
      { kind: "cash", account: "alice", available: 50 },
      { kind: "cash", account: "bob", available: 50 },
    ]);
    a.apply([
      { kind: "cash", account: "bob", available: -500 },
      { kind: "external", flow: "withdrawal", amount: 500 },
    ]);
    a.apply([
      { kind: "cash", account: "amm:m", available: 70 },
      { kind: "external", flow: "house", amount: 70 },
    ]);
    expect(a.conservation()).toEqual({
      ok: true,
      cash: 1567,
      collateral: 0,
      fees: 3,
      deposits: 2000,
      withdrawals: 500,
      house: 70,
      unbalancedMarkets: [],
    });
  });

  test("money created from nothing, or shares without a matching pair, break conservation", () => {
    const a = minted();
    a.apply([{ kind: "cash", account: "alice", available: 1 }]);
    expect(a.conservation()).toMatchObject({ ok: false, unbalancedMarkets: [] });

    const b = minted();
    b.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 1 }]);
    expect(b.conservation()).toMatchObject({ ok: false, unbalancedMarkets: ["m"] });

    const c = minted();
    c.apply([
      { kind: "collateral", marketId: "m", amount: 1 },
      { kind: "cash", account: "alice", available: -1 },
    ]);
    expect(c.conservation()).toMatchObject({ ok: false, unbalancedMarkets: ["m"] });
  });

  test("snapshot and restore round-trip every figure, and the restored books keep working", () => {
    const a = minted();
    a.apply([
      { kind: "cash", account: "alice", available: -100, locked: 100 },
      { kind: "shares", account: "bob", marketId: "m", outcome: "NO", locked: 40 },
      { kind: "cash", account: "bob", available: -2 },
      { kind: "fee", amount: 2 },
    ]);
    const snap = a.snapshot();
    const r = Accounts.restore(JSON.parse(JSON.stringify(snap)));
    expect(r.snapshot()).toEqual(snap);
    expect(r.conservation()).toEqual(a.conservation());
    expect(r.positionsOf("bob")).toEqual(a.positionsOf("bob"));
    expect(r.holders("m")).toEqual(a.holders("m"));
    // Outstanding counters are rebuilt too: a one-sided change is still detected.
    r.apply([{ kind: "shares", account: "alice", marketId: "m", outcome: "YES", quantity: 1 }]);
    expect(r.conservation().unbalancedMarkets).toEqual(["m"]);
    // And the snapshot is a copy, not a view.
    snap.cash[0][1].available = 1e9;
    expect(a.balance(snap.cash[0][0]).available).not.toBe(1e9);
  });
});
