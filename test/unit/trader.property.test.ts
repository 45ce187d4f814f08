import fc from "fast-check";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { verifyAll } from "../../ledger/verify";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";
import { Refusal } from "../../engine/refusal";
import { ReferenceBook } from "../support/reference-book";
import type { OrderType, Outcome, RestingOrder, Side } from "../../engine/types";

/**
 * Random sequences of the trader API's commands on one market (place of every type and option,
 * amend keeping or losing priority, cancel, cancel-all, GTD expiry, heartbeat lapse) through the
 * real market actor and ledger: conservation and the complete-set invariant hold after each, the
 * journal replays to the books, and the book always equals a naive reference model's.
 */
const M = "mkt_t";
const USERS = ["usr_0", "usr_1", "usr_2"];
const LOT = 100;

type Cmd =
  | { kind: "place"; user: number; side: Side; outcome: Outcome; price: number; lots: number; type: OrderType; postOnly: boolean }
  | { kind: "amend"; pick: number; price: number | null; lots: number | null }
  | { kind: "cancel"; pick: number }
  | { kind: "cancelAll"; user: number }
  | { kind: "expire"; pick: number }
  | { kind: "lapse"; user: number };

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      user: fc.integer({ min: 0, max: 2 }),
      side: fc.constantFrom<Side>("BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      price: fc.integer({ min: 44, max: 56 }),
      lots: fc.integer({ min: 1, max: 40 }),
      type: fc.constantFrom<OrderType>("GTC", "GTC", "GTD", "FOK", "FAK"),
      postOnly: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("amend" as const),
      pick: fc.nat(),
      price: fc.option(fc.integer({ min: 44, max: 56 })),
      lots: fc.option(fc.integer({ min: 1, max: 40 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), user: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("expire" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("lapse" as const), user: fc.integer({ min: 0, max: 2 }) }) },
);

const view = (o: RestingOrder) => ({
  orderId: o.orderId,
  userId: o.userId,
  side: o.side,
  outcome: o.outcome,
  price: o.price,
  remaining: o.remaining,
});
const byId = (a: { orderId: string }, b: { orderId: string }) => (a.orderId < b.orderId ? -1 : 1);

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
    // Shares to sell: a complete set each, backed by its collateral.
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
    publish: () => undefined,
  });
  const actor = await MarketActor.load(M, ports);
  const ref = new ReferenceBook(M);
  const placed: Array<{ orderId: string; userId: string }> = [];
  const pick = (n: number) => {
    const open = actor.book.openOrders();
    return open.length ? open[n % open.length] : null;
  };
  const ok = async <T>(p: Promise<T>): Promise<T | null> =>
    p.catch((err: unknown) => {
      // Refusals (money, post-only, FOK, an order gone) change nothing; anything else is a failure.
      if (err instanceof Refusal && (err.kind === "rejected" || err.kind === "not_found" || err.kind === "conflict")) return null;
      throw err;
    });

  for (const c of cmds) {
    if (c.kind === "place") {
      const userId = USERS[c.user];
      const r = await ok(
        actor.place({
          userId,
          side: c.side,
          outcome: c.outcome,
          orderType: c.type,
          price: c.price,
          quantity: c.lots * LOT,
          postOnly: c.postOnly && (c.type === "GTC" || c.type === "GTD"),
          ...(c.type === "GTD" ? { expiresAt: new Date(Date.now() + 60_000).toISOString() } : {}),
        }),
      );
      if (r) {
        placed.push({ orderId: r.orderId, userId });
        ref.place({
          orderId: r.orderId,
          userId,
          side: c.side,
          outcome: c.outcome,
          price: c.price,
          quantity: c.lots * LOT,
          orderType: c.type,
        });
      }
    } else if (c.kind === "amend") {
      const o = pick(c.pick);
      if (!o) continue;
      const price = c.price ?? o.price;
      const remaining = c.lots === null ? o.remaining : c.lots * LOT;
      const r = await ok(actor.amend({ orderId: o.orderId, userId: o.userId, price, quantity: remaining }));
      if (!r || (price === o.price && remaining === o.remaining)) continue;
      if (price === o.price && remaining < o.remaining) ref.reduce(o.orderId, o.userId, remaining);
      else {
        ref.cancel(o.orderId, o.userId);
        ref.place({ orderId: o.orderId, userId: o.userId, side: o.side, outcome: o.outcome, price, quantity: remaining, orderType: "GTC" });
      }
    } else if (c.kind === "cancel" || c.kind === "expire") {
      const o = pick(c.pick);
      if (!o) continue;
      if (c.kind === "cancel") await actor.cancel(o.orderId, o.userId);
      else await actor.cancelMany(null, [o.orderId], "expired");
      ref.cancel(o.orderId, o.userId);
    } else {
      const userId = USERS[c.user];
      const mine = actor.book.openOrders().filter((o) => o.userId === userId);
      await actor.cancelMany(userId, null, c.kind === "lapse" ? "heartbeat" : "user");
      for (const o of mine) ref.cancel(o.orderId, userId);
    }
    expect(actor.book.openOrders().map(view).sort(byId)).toEqual(ref.openOrders().map(view).sort(byId));
    // The read model written with each command says what the book holds, sizes included.
    await ledger.idle();
    const sized = (o: RestingOrder) => ({ ...view(o), quantity: o.quantity });
    expect((await store.restingOrders(M, 0, 10_000)).map(sized).sort(byId)).toEqual(actor.book.openOrders().map(sized).sort(byId));
  }
  await ledger.idle();
  const check = await ledger.check();
  expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks, unbalanced: check.unbalancedMarkets }).toEqual({
    ok: true,
    badOrders: [],
    badLocks: [],
    unbalanced: [],
  });
  const report = await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
  expect(report.problems).toEqual([]);
  // The read model's resting orders are the book's.
  const stored = (await store.restingOrders(M, 0, 10_000)).map((o) => view(o)).sort(byId);
  expect(stored).toEqual(actor.book.openOrders().map(view).sort(byId));
  void placed;
  store.close();
}

describe("trader API commands on one market", () => {
  test("random place / amend / cancel / cancel-all / expiry / heartbeat lapse: money conserved, complete sets, the book equals the reference model's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 80, size: "max" }), (cmds) => run(cmds)),
      { numRuns: 200 },
    );
  }, 180_000);
});
