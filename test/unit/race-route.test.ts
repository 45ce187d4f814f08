/**
 * A market order on a race's market split between its book and the race's LMSR pool: the router
 * over the pool as a venue (engine/router.ts `planRouteVia`, engine/event-pool.ts
 * `eventPoolVenue`) is never worse than either venue alone and takes the better price first; the
 * ledger plans the pool leg again when the entry applies and refuses it (BOOK_CHANGED) when the
 * pool moved since it was priced, nothing applied.
 */
import fc from "fast-check";
import {
  eventPoolAccount,
  eventPoolFunding,
  eventPoolVenue,
  planEventPoolTrade,
  poolState,
  type EventPoolBooks,
} from "../../engine/event-pool";
import { liquidityParameter, prices, type LmsrState } from "../../engine/lmsr";
import { LOT } from "../../engine/money";
import { planRouteVia, type BookLevel, type RoutePlan } from "../../engine/router";
import type { Outcome, Side } from "../../engine/types";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import type { EventPoolRecord } from "../../models/trading";

const SHARE = 1_000_000;
const IDS = ["a", "b", "c", "d"];
const FUNDING = 100 * SHARE;
const B = liquidityParameter(FUNDING, IDS.length);

/** A pool after some trades, as its books say (the pool account's cash and shares). */
function poolAfter(trades: Array<{ m: number; side: Side; outcome: Outcome; q: number }>): { state: LmsrState; books: EventPoolBooks } {
  const pool = eventPoolAccount("evt");
  const cash = new Map<string, number>([[pool, FUNDING]]);
  const shares = new Map<string, number>();
  let books: EventPoolBooks = { cash: FUNDING, positions: [] };
  for (const t of trades) {
    const p = planEventPoolTrade(poolState(B, books, IDS), books, {
      eventId: "evt",
      userId: "u",
      side: t.side,
      marketId: IDS[t.m],
      outcome: t.outcome,
      quantity: t.q,
      feeBps: 0,
    });
    if (!p.ok || t.side === "SELL") continue; // buys only: the trader never needs shares it lacks
    for (const x of p.postings)
      if (x.kind === "cash" && x.account === pool) cash.set(pool, (cash.get(pool) ?? 0) + (x.available ?? 0));
      else if (x.kind === "shares" && x.account === pool) {
        const k = `${x.marketId}:${x.outcome}`;
        shares.set(k, (shares.get(k) ?? 0) + (x.quantity ?? 0));
      }
    books = {
      cash: cash.get(pool)!,
      positions: [...shares].map(([k, q]) => {
        const [marketId, outcome] = k.split(":");
        return { marketId, outcome: outcome as Outcome, quantity: q, totalCost: 0, realizedPnl: 0, settled: false };
      }),
    };
  }
  return { state: poolState(B, books, IDS), books };
}

const levelsArb = (side: Side) =>
  fc
    .uniqueArray(fc.record({ price: fc.integer({ min: 1, max: 99 }), quantity: fc.integer({ min: 1, max: 20 }).map((n) => n * SHARE) }), {
      selector: (l) => l.price,
      maxLength: 6,
    })
    .map((ls): BookLevel[] => ls.sort((x, y) => (side === "BUY" ? x.price - y.price : y.price - x.price)));

describe("a race's market order over its book and the race's pool", () => {
  test("never worse than the book or the pool alone, the whole quantity or nothing", () => {
    let hybrid = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            m: fc.nat(3),
            side: fc.constant<Side>("BUY"),
            outcome: fc.constantFrom<Outcome>("YES", "NO"),
            q: fc.integer({ min: 1, max: 40 }).map((n) => n * SHARE),
          }),
          { maxLength: 6 },
        ),
        fc.constantFrom<Side>("BUY", "SELL"),
        fc.constantFrom<Outcome>("YES", "NO"),
        fc.integer({ min: 1, max: 30 }).map((n) => n * SHARE + (n % 3) * LOT),
        fc.constantFrom(0, 100),
        fc.constantFrom(0, 50),
        (trades, side, outcome, quantity, feeBps, takerBps) => {
          const { state } = poolAfter(trades);
          return fc.assert(
            fc.property(levelsArb(side), (levels) => {
              const order = { side, outcome, quantity };
              const venue = eventPoolVenue(state, "a", feeBps);
              const both = planRouteVia(order, levels, takerBps, venue, feeBps);
              const book = planRouteVia(order, levels, takerBps, null, feeBps);
              const pool = planRouteVia(order, [], takerBps, venue, feeBps);
              const better = (x: RoutePlan<unknown>, y: RoutePlan<unknown>) => (side === "BUY" ? x.net <= y.net : x.net >= y.net);
              if (!both.ok) {
                expect(book.ok || pool.ok).toBe(false);
                return;
              }
              expect(both.filled).toBe(quantity);
              if (book.ok) expect(better(both, book)).toBe(true);
              if (pool.ok) expect(better(both, pool)).toBe(true);
              if (both.venue === "HYBRID") hybrid++;
            }),
            { numRuns: 5 },
          );
        },
      ),
      { numRuns: 150 },
    );
    expect(hybrid).toBeGreaterThan(20);
  });

  test("best price first: the book's level below the pool goes first, the pool up to the next level", () => {
    const { state } = poolAfter([]);
    expect(prices(state).get("a")).toBe(250_000);
    const levels: BookLevel[] = [
      { price: 20, quantity: 3 * SHARE },
      { price: 45, quantity: 5 * SHARE },
    ];
    const p = planRouteVia({ side: "BUY", outcome: "YES", quantity: 10 * SHARE }, levels, 0, eventPoolVenue(state, "a", 0), 0);
    if (!p.ok) throw new Error("no plan");
    expect(p.venue).toBe("HYBRID");
    expect(p.legs.book[0]).toEqual({ price: 20, quantity: 3 * SHARE });
    // The pool sells the other 7 below the book's 0.45: the book's second level is left alone.
    expect(p.legs.book).toEqual([{ price: 20, quantity: 3 * SHARE }]);
    expect(p.legs.amm!.quantity).toBe(7 * SHARE);
    expect(prices(p.legs.amm!.newState).get("a")!).toBeLessThan(450_000);
    // A bigger order: the pool climbs to about 0.45, then the level at 0.45 and the pool share it.
    const big = planRouteVia({ side: "BUY", outcome: "YES", quantity: 80 * SHARE }, levels, 0, eventPoolVenue(state, "a", 0), 0);
    if (!big.ok) throw new Error("no plan");
    expect(big.legs.book).toEqual(levels);
    expect(big.legs.amm!.quantity).toBe(72 * SHARE);
  });
});

describe("the ledger and a market order's pool leg", () => {
  test("applied when the pool is as priced; refused BOOK_CHANGED, nothing applied, once it moved", async () => {
    const store = SqliteMoneyStore.open(":memory:", { fsync: false });
    const ledger = await Ledger.open(store);
    const pool = eventPoolAccount("evt");
    ledger.post({ key: "fund", postings: eventPoolFunding("evt", FUNDING) });
    for (const u of ["u1", "u2"])
      ledger.post({
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 50 * SHARE },
          { kind: "external", flow: "deposit", amount: 50 * SHARE },
        ],
      });
    const books = () => ({ cash: ledger.balance(pool).available, positions: ledger.positionsOf(pool) });
    // Both priced on the same pool; the first to apply moves it.
    const leg = (userId: string) => {
      const t = { eventId: "evt", userId, side: "BUY" as const, marketId: "a", outcome: "YES" as const, quantity: 5 * SHARE, feeBps: 100 };
      const p = planEventPoolTrade(poolState(B, books(), IDS), books(), t);
      if (!p.ok) throw new Error("no plan");
      const record: EventPoolRecord = { ...t, b: B, outcomes: IDS, cash: p.quote.cash, fee: p.quote.fee };
      return { key: `leg:${userId}`, postings: p.postings, eventPool: record };
    };
    const first = leg("u1");
    const second = leg("u2");
    expect(ledger.post(first).applied).toBe(true);
    const before = { u2: ledger.balance("u2"), pool: books() };
    expect(() => ledger.post(second)).toThrow(expect.objectContaining({ kind: "conflict", code: "BOOK_CHANGED" }));
    expect({ u2: ledger.balance("u2"), pool: books() }).toEqual(before);
    // Priced again on the pool as it is now: applied.
    expect(ledger.post({ ...leg("u2"), key: "leg:u2:again" }).applied).toBe(true);
    // A pool leg whose postings move the pool other than its record: refused.
    const bent = leg("u1");
    bent.postings = bent.postings.map((x) => (x.kind === "cash" && x.account === pool ? { ...x, available: (x.available ?? 0) - 1 } : x));
    expect(() =>
      ledger.post({ ...bent, key: "leg:bent", postings: [...bent.postings, { kind: "cash", account: "u1", available: 1 }] }),
    ).toThrow(expect.objectContaining({ code: "INVALID_POSTING" }));
    expect(await ledger.check()).toMatchObject({ ok: true });
  });
});
