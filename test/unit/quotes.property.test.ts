/**
 * Mass quotes among ordinary orders, at random, on a real market actor and ledger (fees on, a
 * complete set each so SELL quotes have shares): after any sequence money is conserved, every lock
 * is what the open orders hold, a replay of the journal gives the same books and read models, a
 * book rebuilt from the committed orders is the actor's, and each user's quote set is exactly their
 * resting orders marked as quotes (the next mass quote cancels those and nothing else).
 */
import fc from "fast-check";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { verifyAll } from "../../ledger/verify";
import { Refusal } from "../../engine/refusal";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";
import type { QuoteTerm } from "../../models/trading";

const M = "mkt_qprop";
const USERS = ["usr_a", "usr_b", "usr_c"];

/** Any order's terms (ordinary orders may cross anything). */
const orderArb = fc.record({
  side: fc.constantFrom("BUY" as const, "SELL" as const),
  outcome: fc.constantFrom("YES" as const, "NO" as const),
  price: fc.integer({ min: 1, max: 99 }),
  quantity: fc.integer({ min: 1, max: 400 }).map((n) => n * 100),
});
/** A quote: bids mostly below 0.55 and asks mostly above 0.45 in YES terms, so most sets do not cross themselves. */
const quoteArb: fc.Arbitrary<QuoteTerm> = fc
  .record({
    bid: fc.boolean(),
    viaNo: fc.boolean(),
    yesTick: fc.integer({ min: 1, max: 54 }),
    quantity: fc.integer({ min: 1, max: 400 }).map((n) => n * 100),
  })
  .map(({ bid, viaNo, yesTick, quantity }): QuoteTerm => {
    const t = bid ? yesTick : 100 - yesTick;
    // A YES bid at t is BUY YES t or SELL NO 100-t; a YES ask at t is SELL YES t or BUY NO 100-t.
    if (!viaNo) return { side: bid ? "BUY" : "SELL", outcome: "YES", price: t, quantity };
    return { side: bid ? "SELL" : "BUY", outcome: "NO", price: 100 - t, quantity };
  });
type Cmd =
  | { kind: "quotes"; user: number; quotes: QuoteTerm[]; postOnly: boolean }
  | { kind: "place"; user: number; order: QuoteTerm }
  | { kind: "cancelQuotes"; user: number }
  | { kind: "cancelOne"; n: number };
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("quotes" as const),
      user: fc.nat(2),
      quotes: fc.array(quoteArb, { minLength: 1, maxLength: 6 }),
      postOnly: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("place" as const), user: fc.nat(2), order: orderArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelQuotes" as const), user: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelOne" as const), n: fc.nat() }) },
);

async function run(cmds: Cmd[]): Promise<void> {
  const store = SqliteMoneyStore.open(":memory:", { fsync: false });
  const ledger = await Ledger.open(store);
  for (const u of USERS) {
    ledger.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: 300_000 },
        { kind: "external", flow: "deposit", amount: 300_000 },
      ],
    });
    ledger.post({
      key: `set:${u}`,
      postings: [
        { kind: "cash", account: u, available: -100_000 },
        { kind: "collateral", marketId: M, amount: 100_000 },
        { kind: "shares", account: u, marketId: M, outcome: "YES", quantity: 100_000, cost: 50_000 },
        { kind: "shares", account: u, marketId: M, outcome: "NO", quantity: 100_000, cost: 50_000 },
      ],
    });
  }
  const ports = marketPortsOnLedger(ledger, store, {
    fees: { takerBps: 100, makerBps: 50 },
    market: async () => ({ status: "open", ammLiquidity: 0 }),
  });
  const actor = await MarketActor.load(M, ports);
  const ok = async <T>(p: Promise<T>): Promise<T | null> =>
    p.catch((err: unknown) => {
      // Refusals (money, post-only, a crossed set, an order gone) change nothing; anything else fails the run.
      if (err instanceof Refusal && (err.kind === "rejected" || err.kind === "not_found" || err.kind === "conflict")) return null;
      throw err;
    });
  const quoteIdsOf = async (userId: string) =>
    (await store.restingOrders(M, 0, 10_000))
      .filter((o) => o.userId === userId && o.quote)
      .map((o) => o.orderId)
      .sort();

  for (const c of cmds) {
    const userId = USERS[c.kind === "cancelOne" ? 0 : c.user];
    if (c.kind === "quotes") {
      const before = await quoteIdsOf(userId);
      const r = await ok(actor.quotes({ userId, quotes: c.quotes, postOnly: c.postOnly }));
      // Replaced: exactly the previous set was cancelled.
      if (r) expect([...r.cancelled].sort()).toEqual(before);
    } else if (c.kind === "place") await ok(actor.place({ userId, ...c.order, orderType: "GTC" }));
    else if (c.kind === "cancelQuotes") {
      const before = await quoteIdsOf(userId);
      const r = await actor.cancelQuotes(userId);
      expect([...r.cancelled].sort()).toEqual(before);
    } else {
      const open = actor.book.openOrders();
      if (open.length) {
        const o = open[c.n % open.length];
        await actor.cancel(o.orderId, o.userId);
      }
    }
  }
  await ledger.idle();
  const check = await ledger.check();
  expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks }).toEqual({ ok: true, badOrders: [], badLocks: [] });
  expect((await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() })).problems).toEqual([]);
  // A book rebuilt from what was committed is the actor's, in the same time priority.
  const shape = (a: MarketActor) => a.book.openOrders().map((o) => [o.orderId, o.userId, o.side, o.outcome, o.price, o.remaining, o.seq]);
  const rebuilt = await MarketActor.load(M, ports);
  expect(shape(rebuilt)).toEqual(shape(actor));
  // The rebuilt actor knows each user's quote set: withdrawing it cancels exactly the quote orders.
  for (const u of USERS) {
    const before = await quoteIdsOf(u);
    expect([...(await rebuilt.cancelQuotes(u)).cancelled].sort()).toEqual(before);
  }
  await store.close();
}

describe("mass quotes among ordinary orders", () => {
  test("random quote sets, orders, withdrawals and cancels: money conserved, replay equal, quote sets exact after a rebuild", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 5, maxLength: 40, size: "max" }), (cmds) => run(cmds)),
      { numRuns: 60 },
    );
  });
});
