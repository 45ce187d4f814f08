/**
 * Redemption's decision tree and the settlement of resolved and cancelled markets, on the real
 * money engine behind a fake ledger port: who is paid, how much, once, and every refusal.
 */
import { refused } from "../../engine/refusal";
import { Redemptions } from "../../chain/redemptions";
import { escrowAccount } from "../../chain/redemption";
import type { Posting } from "../../engine/accounts";
import type { MarketInternal } from "../../models/catalog";
import { FakeLedger, ManualClock, MemRedemptions, Recorder } from "../support/chain-fakes";

const M = "mkt_r";
const S = 1_000_000;
const COND = "0x" + "ab".repeat(32);

function setup(market: Partial<MarketInternal> = {}) {
  const ledger = new FakeLedger();
  const store = new MemRedemptions();
  const rec = new Recorder();
  const r = new Redemptions({ ledger, store, clock: new ManualClock(), emit: rec.emit, log: rec.log });
  // alice YES x10 at 0.30, bob NO x10 at 0.70; carol holds nothing.
  const p: Posting[] = [
    { kind: "external", flow: "deposit", amount: 300 * S },
    ...["alice", "bob", "carol"].map((u) => ({ kind: "cash" as const, account: u, available: 100 * S })),
    { kind: "cash", account: "alice", available: -3 * S },
    { kind: "cash", account: "bob", available: -7 * S },
    { kind: "shares", account: "alice", marketId: M, outcome: "YES", quantity: 10 * S, cost: 3 * S },
    { kind: "shares", account: "bob", marketId: M, outcome: "NO", quantity: 10 * S, cost: 7 * S },
    { kind: "collateral", marketId: M, amount: 10 * S },
  ];
  ledger.accounts.apply(p);
  const info: MarketInternal = {
    id: M,
    eventId: "evt_1",
    title: "?",
    status: "resolved",
    result: "YES",
    conditionId: COND,
    ammLiquidity: "0",
    ...market,
  };
  const lookups: string[] = [];
  const lookup = async (marketId: string) => {
    lookups.push(marketId);
    return info;
  };
  const redeem = (userId: string, indexSets: string[], conditionId = COND) =>
    r.redeem({ userId, marketId: M, conditionId, indexSets }, lookup);
  const lock = (account: string, outcome: "YES" | "NO", q: number) =>
    ledger.accounts.apply([{ kind: "shares", account, marketId: M, outcome, locked: q }]);
  return { ledger, store, rec, r, redeem, info, lookups, lock };
}

describe("redeem on a resolved market", () => {
  test("the winner is paid 1 per share exactly once; the second call is a duplicate", async () => {
    const { ledger, store, rec, redeem } = setup();
    const res = await redeem("alice", ["0x1"]);
    expect(res).toEqual({ status: "accepted", payout: String(10 * S), message: "Redeemed 10 YES shares for 10.00 USDT" });
    expect(ledger.available("alice")).toBe(107 * S);
    expect(rec.of("chain.redeemed")).toEqual([{ userId: "alice", marketId: M, payout: String(10 * S) }]);
    expect(store.redemptions.get(`alice:${M}`)).toMatchObject({ kind: "redeem", payout: 10 * S, ledgerKey: `redeem:alice:${M}` });
    // The resolution rode along: bob's losing shares went to the escrow in the same entry.
    expect(ledger.accounts.position("bob", M, "NO")).toMatchObject({ quantity: 0, settled: true });
    expect(ledger.accounts.conservation().ok).toBe(true);

    expect(await redeem("alice", ["0x1", "0x2"])).toEqual({
      status: "duplicate",
      message: "These positions were already redeemed; nothing new was paid",
    });
    expect(ledger.available("alice")).toBe(107 * S);
    expect(rec.of("chain.redeemed")).toHaveLength(1);
  });

  test("the ledger answers that the redemption's entry was applied before: duplicate, no event, nothing paid twice", async () => {
    const { ledger, store, rec, redeem } = setup();
    ledger.applied.set(`redeem:alice:${M}`, { key: `redeem:alice:${M}`, postings: [] });
    expect(await redeem("alice", ["0x1"])).toEqual({
      status: "duplicate",
      message: "These positions were already redeemed; nothing new was paid",
    });
    expect(ledger.available("alice")).toBe(97 * S);
    expect(rec.of("chain.redeemed")).toEqual([]);
    expect(store.redemptions.get(`alice:${M}`)).toMatchObject({ kind: "redeem", ledgerKey: `redeem:alice:${M}` });
  });

  test("MARKET_NOT_RESOLVED while the market is open, closed, or resolved without a result", async () => {
    for (const m of [{ status: "open" }, { status: "closed" }, { status: "resolved", result: null }] as Array<Partial<MarketInternal>>) {
      const { redeem, ledger } = setup(m);
      await expect(redeem("alice", ["0x1"])).rejects.toMatchObject({ kind: "rejected", code: "MARKET_NOT_RESOLVED" });
      expect(ledger.attempts).toEqual([]);
    }
  });

  test("CONDITION_MISMATCH for another condition id (compared without case)", async () => {
    const { redeem, ledger } = setup();
    await expect(redeem("alice", ["0x1"], "0x" + "cd".repeat(32))).rejects.toMatchObject({ kind: "rejected", code: "CONDITION_MISMATCH" });
    expect((await redeem("alice", ["0x1"], COND.toUpperCase().replace("0X", "0x"))).status).toBe("accepted");
    expect(ledger.attempts).toEqual([`redeem:alice:${M}`]);
  });

  test("index sets: only 0x1 / 0x2, no outcome twice (before the market is looked up)", async () => {
    const { redeem, lookups } = setup();
    await expect(redeem("alice", ["0x3"])).rejects.toMatchObject({
      kind: "rejected",
      code: "VALIDATION_ERROR",
      data: { fields: [{ field: "indexSets[0]", rule: "indexSet" }] },
    });
    await expect(redeem("alice", ["0x1", "0x01"])).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      data: { fields: [{ field: "indexSets", rule: "unique" }] },
    });
    expect(lookups).toEqual([]);
  });

  test("LOSING_POSITION for the loser, also once the position was settled at 0", async () => {
    const { redeem, r, ledger } = setup();
    await expect(redeem("bob", ["0x2"])).rejects.toMatchObject({
      kind: "rejected",
      code: "LOSING_POSITION",
      message: "The market resolved YES: NO shares pay nothing",
    });
    await r.sweepResolved(M, "YES");
    expect(ledger.accounts.position(escrowAccount(M), M, "NO")?.quantity).toBe(10 * S);
    await expect(redeem("bob", ["0x2"])).rejects.toMatchObject({
      code: "LOSING_POSITION",
      message: "The market resolved YES: NO shares pay nothing (your position was settled at 0)",
    });
  });

  test("NO_POSITION: nothing held at all, or nothing of the outcomes asked for", async () => {
    const { redeem } = setup();
    await expect(redeem("carol", ["0x1"])).rejects.toMatchObject({
      kind: "rejected",
      code: "NO_POSITION",
      message: "You hold no position in this market",
    });
    await expect(redeem("alice", ["0x2"])).rejects.toMatchObject({
      code: "NO_POSITION",
      message: "You hold no NO shares of this market to redeem",
    });
    await expect(redeem("bob", ["0x1"])).rejects.toMatchObject({
      code: "NO_POSITION",
      message: "You hold no YES shares of this market to redeem",
    });
  });

  test("SHARES_LOCKED while open orders hold some of the winning shares; nothing paid", async () => {
    const { redeem, lock, ledger } = setup();
    lock("alice", "YES", 2 * S);
    await expect(redeem("alice", ["0x1"])).rejects.toMatchObject({ kind: "conflict", code: "SHARES_LOCKED" });
    expect(ledger.attempts).toEqual([]);
    expect(ledger.available("alice")).toBe(97 * S);
  });

  test("RESOLUTION_PENDING while the losers' shares are locked (nothing escrowed to burn); paid once they are free", async () => {
    const { redeem, lock, ledger } = setup();
    lock("bob", "NO", 10 * S);
    await expect(redeem("alice", ["0x1"])).rejects.toMatchObject({ kind: "conflict", code: "RESOLUTION_PENDING" });
    expect(ledger.available("alice")).toBe(97 * S);
    lock("bob", "NO", -10 * S);
    expect((await redeem("alice", ["0x1"])).status).toBe("accepted");
  });
});

describe("resolution and cancelled markets", () => {
  test("sweepResolved moves the losers to the escrow once; locked losers are left to the first redemption", async () => {
    const { r, ledger, lock, rec } = setup();
    lock("bob", "NO", 10 * S);
    await r.sweepResolved(M, "YES");
    expect(ledger.attempts).toEqual([]);
    lock("bob", "NO", -4 * S);
    await r.sweepResolved(M, "YES");
    expect(ledger.accounts.position(escrowAccount(M), M, "NO")?.quantity).toBe(4 * S);
    expect(ledger.accounts.position("bob", M, "NO")).toMatchObject({ quantity: 6 * S, locked: 6 * S });
    // The ledger refuses the entry for locked shares (an order took them meanwhile): only logged.
    lock("bob", "NO", -2 * S);
    ledger.down = refused("INSUFFICIENT_SHARES", "Insufficient shares");
    await r.sweepResolved(M, "YES");
    expect(rec.logs.some((l) => /shares still locked by orders/.test(l))).toBe(true);
    ledger.down = new Error("ledger unreachable");
    await expect(r.sweepResolved(M, "YES")).rejects.toThrow("ledger unreachable");
  });

  test("a cancelled market pays everyone at its cancel price once, from its collateral; each holder's redeem acknowledges it once", async () => {
    const { r, redeem, ledger, rec, store } = setup({ status: "cancelled", result: null, yesPayout: 200_000 });
    await r.cancelled(M, 200_000);
    expect(await r.pendingRefunds()).toEqual([M]);
    const res = await redeem("alice", ["0x1"]);
    expect(res).toEqual({
      status: "accepted",
      payout: String(2 * S),
      message:
        "Market cancelled at 0.20: each YES share paid 0.20 USDT, each NO share 0.80 USDT; 2.00 USDT credited to your available balance",
    });
    expect(ledger.available("alice")).toBe(99 * S);
    expect(ledger.available("bob")).toBe(101 * S);
    expect(rec.of("chain.refunded")).toEqual([
      {
        marketId: M,
        yesPayout: 200_000,
        refunds: [
          { account: "alice", amount: String(2 * S) },
          { account: "bob", amount: String(8 * S) },
        ],
        dust: "0",
      },
    ]);
    expect(ledger.applied.get(`refund:${M}`)?.payout).toEqual({ marketId: M, yesPayout: 200_000 });
    expect(await r.pendingRefunds()).toEqual([]);
    expect(store.settlements.get(M)?.status).toBe("done");

    expect(await redeem("alice", ["0x1"])).toEqual({
      status: "duplicate",
      message: "This market's refund was already acknowledged; nothing new was paid",
    });
    expect((await redeem("bob", ["0x1", "0x2"])).payout).toBe(String(8 * S));
    await expect(redeem("carol", ["0x1"])).rejects.toMatchObject({ code: "NO_POSITION" });
    expect(rec.of("chain.refunded")).toHaveLength(1);
    expect(ledger.attempts.filter((k) => k.startsWith("refund:"))).toEqual([`refund:${M}`]);
    expect(ledger.accounts.conservation()).toMatchObject({ ok: true, collateral: 0, fees: 0, house: 0 });
  });

  test("a market resolved SPLIT pays every holder 0.50 per YES and per NO share once, from its collateral; redeem with either index set", async () => {
    const { r, redeem, ledger, rec } = setup({ status: "resolved", result: "SPLIT", yesPayout: 500_000 });
    await r.cancelled(M, 500_000);
    expect(await redeem("alice", ["0x2"])).toEqual({
      status: "accepted",
      payout: String(5 * S),
      message: "Market resolved SPLIT: each YES and each NO share paid 0.50 USDT; 5.00 USDT credited to your available balance",
    });
    expect(ledger.available("alice")).toBe(102 * S);
    expect(ledger.available("bob")).toBe(98 * S);
    expect((await redeem("bob", ["0x1"])).payout).toBe(String(5 * S));
    expect((await redeem("bob", ["0x1"])).status).toBe("duplicate");
    expect(ledger.applied.get(`refund:${M}`)?.payout).toEqual({ marketId: M, yesPayout: 500_000 });
    expect(rec.of("chain.refunded")).toHaveLength(1);
    expect(ledger.accounts.conservation()).toMatchObject({ ok: true, collateral: 0, fees: 0, house: 0 });
  });

  test("a redeem on a cancelled market whose payout was never announced owes it at the market's price (default 0.50)", async () => {
    const { redeem, ledger } = setup({ status: "cancelled", result: null });
    expect((await redeem("bob", ["0x2"])).payout).toBe(String(5 * S));
    expect(ledger.available("alice")).toBe(102 * S);
  });

  test("REFUND_PENDING while orders still hold shares of the cancelled market; refunded once they are released", async () => {
    const { r, redeem, lock, rec } = setup({ status: "cancelled", result: null });
    lock("bob", "NO", 1 * S);
    await expect(redeem("alice", ["0x1"])).rejects.toMatchObject({ kind: "conflict", code: "REFUND_PENDING" });
    expect(await r.refundMarket(M)).toBeNull();
    expect(rec.logs.some((l) => /payout of mkt_r postponed/.test(l))).toBe(true);
    lock("bob", "NO", -1 * S);
    expect(await r.refundMarket(M)).toMatchObject({ status: "done" });
    expect((await redeem("alice", ["0x1"])).status).toBe("accepted");
  });
});

describe("an Idempotency-Key on a redemption", () => {
  test("the winner's payout entry carries the key and its answer (a replay after a crash answers the payout, not a duplicate)", async () => {
    const { ledger, r, info } = setup();
    const key = { scope: "alice", key: "k-r", fingerprint: "c".repeat(64), status: 202 };
    const res = await r.redeem({ userId: "alice", marketId: M, conditionId: COND, indexSets: ["0x1"] }, async () => info, key);
    expect(ledger.applied.get(`redeem:alice:${M}`)?.idem).toEqual({ ...key, response: res });
    expect(res).toMatchObject({ status: "accepted", payout: String(10 * S) });
  });
});

describe("a mutually exclusive event resolved as one step", () => {
  test("every market of the step settles in ONE ledger entry: losers to each escrow, money conserved", async () => {
    const { ledger, r } = setup();
    // A second market of the event: carol YES x4, alice NO x4.
    const M2 = "mkt_r2";
    ledger.accounts.apply([
      { kind: "cash", account: "carol", available: -4 * S },
      { kind: "shares", account: "carol", marketId: M2, outcome: "YES", quantity: 4 * S, cost: 2 * S },
      { kind: "shares", account: "alice", marketId: M2, outcome: "NO", quantity: 4 * S, cost: 2 * S },
      { kind: "collateral", marketId: M2, amount: 4 * S },
    ]);
    const before = ledger.attempts.length;
    await r.sweepEventResolved("evt_1", [
      { marketId: M, result: "NO" },
      { marketId: M2, result: "YES" },
    ]);
    const posted = ledger.attempts.slice(before);
    expect(posted).toEqual(["resolve-event:evt_1"]);
    expect(ledger.accounts.position("alice", M, "YES")).toMatchObject({ quantity: 0, settled: true });
    expect(ledger.accounts.position("alice", M2, "NO")).toMatchObject({ quantity: 0, settled: true });
    expect(ledger.accounts.position(escrowAccount(M), M, "YES")?.quantity).toBe(10 * S);
    expect(ledger.accounts.position(escrowAccount(M2), M2, "NO")?.quantity).toBe(4 * S);
    expect(ledger.accounts.position("bob", M, "NO")?.quantity).toBe(10 * S);
    expect(ledger.accounts.conservation().ok).toBe(true);
    // Asked again (the event's step repeated): the same entry, nothing moves twice.
    await r.sweepEventResolved("evt_1", [{ marketId: M2, result: "YES" }]);
    expect(ledger.accounts.position(escrowAccount(M2), M2, "NO")?.quantity).toBe(4 * S);
  });
});

describe("a decided market the ledger learns of", () => {
  test("a resolution or payout with nothing to move is still written, so the ledger knows the market ended", async () => {
    const { r, ledger } = setup();
    await r.sweepResolved("mkt_empty", "NO");
    await r.sweepEventResolved("evt_empty", [{ marketId: "mkt_e1", result: "YES" }]);
    await r.cancelled("mkt_void", 500_000);
    await r.refundMarket("mkt_void");
    expect(ledger.attempts).toEqual(["resolve:mkt_empty", "resolve-event:evt_empty", "refund:mkt_void"]);
    expect(ledger.accounts.conservation().ok).toBe(true);
  });
});
