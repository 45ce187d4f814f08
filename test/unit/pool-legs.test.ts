/**
 * Verification's replay of a race's pool legs (ledger/pool-legs.ts): each leg priced again on the
 * pool's books before its entry, its b held to the pool's funding, no leg after its market's end,
 * no trade moving a pool without a leg's record. Journals written by the pricing itself pass.
 */
import { Accounts, type Posting } from "../../engine/accounts";
import { eventPoolAccount, eventPoolFunding, planEventPoolTrade, poolState } from "../../engine/event-pool";
import { liquidityParameter } from "../../engine/lmsr";
import { resolutionKey } from "../../engine/payout";
import type { BookJournalDoc, EventPoolRecord, LedgerEntryDoc } from "../../models/trading";
import { PoolLegReplay } from "../../ledger/pool-legs";

const SHARE = 1_000_000;
const IDS = ["a", "b", "c"];
const FUNDING = 300 * SHARE;
const B = liquidityParameter(FUNDING, IDS.length);
const POOL = eventPoolAccount("evt");
const AT = "2030-01-01T00:00:00.000Z";

function journal() {
  const books = new Accounts();
  const replay = new PoolLegReplay();
  let seq = 0;
  /** Checks the entry as verification does, then applies it; the problems it was found with. */
  const enter = (doc: Omit<LedgerEntryDoc, "seq" | "at">): string[] => {
    const full: LedgerEntryDoc = { ...doc, seq: ++seq, at: AT };
    const problems = replay.check(full, books, `entry ${full.seq} (${full._id})`);
    books.apply(full.postings);
    replay.after(full);
    return problems;
  };
  enter({ _id: "evpool-fund:evt", postings: eventPoolFunding("evt", FUNDING) });
  enter({
    _id: "dep:u",
    postings: [
      { kind: "cash", account: "u", available: 1_000 * SHARE },
      { kind: "external", flow: "deposit", amount: 1_000 * SHARE },
    ],
  });
  /** A BUY of `q` YES of market `m` as the pool prices it now (b and outcomes overridable). */
  const leg = (m: string, q: number, over: Partial<Pick<EventPoolRecord, "b" | "outcomes">> = {}) => {
    const b = over.b ?? B;
    const outcomes = over.outcomes ?? IDS;
    const pool = { cash: books.balance(POOL).available, positions: books.positionsOf(POOL) };
    const t = { eventId: "evt", userId: "u", side: "BUY" as const, marketId: m, outcome: "YES" as const, quantity: q, feeBps: 100 };
    const p = planEventPoolTrade(poolState(b, pool, outcomes), pool, t);
    if (!p.ok) throw new Error(p.reason);
    const record: EventPoolRecord = { ...t, b, outcomes, cash: p.quote.cash, fee: p.quote.fee };
    const trade = {
      tradeId: `trd_${seq}`,
      userId: "u",
      marketId: m,
      orderId: `ord_${seq}`,
      side: "BUY" as const,
      outcome: "YES" as const,
      venue: "AMM" as const,
      role: "taker" as const,
      filledQuantity: q,
      totalCost: p.quote.cash,
      fee: p.quote.fee,
      fillIds: [`fil_${seq}`],
    };
    return { postings: p.postings, record, trade };
  };
  return { enter, leg, books };
}

/** The pool's cash posting of a leg moved by `d` and the trader's by `-d`: balanced, cheaper by d. */
const cheaper = (ps: Posting[], d: number): Posting[] =>
  ps.map((p) =>
    p.kind === "cash" && p.account === POOL
      ? { ...p, available: (p.available ?? 0) - d }
      : p.kind === "cash" && p.account === "u"
        ? { ...p, available: (p.available ?? 0) + d }
        : p,
  );

const bookDoc = (marketId: string): BookJournalDoc => ({
  marketId,
  seq: 1,
  epoch: 1,
  bookSeq: 0,
  node: "eng",
  command: { type: "route", orderId: "ord_r", userId: "u", side: "BUY", outcome: "YES", quantity: 5 * SHARE, mode: "ROUTE" },
  fills: [],
  orders: [],
  at: AT,
});

describe("verification's replay of a race's pool legs", () => {
  test("legs priced on the pool as it was pass, one after another", () => {
    const j = journal();
    for (const [m, q] of [
      ["a", 5 * SHARE],
      ["b", 20 * SHARE],
      ["a", 7 * SHARE],
    ] as const) {
      const l = j.leg(m, q);
      expect(j.enter({ _id: `evamm:${m}${q}`, postings: l.postings, trades: [l.trade], eventPool: l.record })).toEqual([]);
    }
  });

  test("a pure pool trade and a market order's pool leg, each cheaper than the LMSR, are named", () => {
    const j = journal();
    const l = j.leg("a", 10 * SHARE);
    const d = 1_000;
    const record = { ...l.record, cash: l.record.cash - d };
    expect(
      j.enter({
        _id: "evamm:x",
        postings: cheaper(l.postings, d),
        trades: [{ ...l.trade, totalCost: l.trade.totalCost - d }],
        eventPool: record,
      }),
    ).toEqual([
      `entry 3 (evamm:x) prices its pool leg at ${record.cash} (fee ${record.fee}); the LMSR on ${POOL}'s books before it prices it at ${l.record.cash} (fee ${l.record.fee})`,
    ]);
    // A market order's leg (a book command): only the pool's side is the leg's; its record kept, its pool postings bent.
    const h = j.leg("b", 4 * SHARE);
    expect(
      j.enter({ _id: "book:b:1", postings: cheaper(h.postings, d), trades: [h.trade], eventPool: h.record, book: bookDoc("b") }),
    ).toEqual([`entry 4 (book:b:1) moves ${POOL} other than its pool leg`]);
    // The trade alone bent (the pool's postings the plan's): a pure pool trade must be its leg exactly.
    const t = j.leg("c", 3 * SHARE);
    expect(
      j.enter({ _id: "evamm:y", postings: t.postings, trades: [{ ...t.trade, totalCost: t.trade.totalCost - d }], eventPool: t.record }),
    ).toEqual([`entry 5 (evamm:y) moves money or records a trade other than its pool leg`]);
  });

  test("a pool of another depth than its funding gives, an outcome listed twice, a leg after its market's end, a trade moving a pool with no leg", () => {
    const j = journal();
    // Priced, consistently, on a little less liquidity (a deeper pool than the funding carries could not trade at all).
    const half = B - 1_000;
    const shallow = j.leg("a", 10 * SHARE, { b: half });
    expect(j.enter({ _id: "evamm:shallow", postings: shallow.postings, trades: [shallow.trade], eventPool: shallow.record })).toEqual([
      `entry 3 (evamm:shallow) prices its pool leg with liquidity ${half}, not the parameter of ${POOL}'s funding of ${FUNDING} over 3 or more outcomes`,
    ]);
    // An outcome added (b of 4 outcomes) passes; "d" listed twice (as if a fifth) does not.
    const added = j.leg("a", SHARE, { b: liquidityParameter(FUNDING, 4), outcomes: [...IDS, "d"] });
    expect(j.enter({ _id: "evamm:added", postings: added.postings, trades: [added.trade], eventPool: added.record })).toEqual([]);
    const twice = j.leg("b", SHARE, { b: liquidityParameter(FUNDING, 5), outcomes: [...IDS, "d", "d"] });
    expect(j.enter({ _id: "evamm:twice", postings: twice.postings, trades: [twice.trade], eventPool: twice.record })).toEqual([
      `entry 5 (evamm:twice) lists an outcome of ${POOL} twice`,
    ]);
    // Once "c" resolved, "c" is not traded there.
    j.enter({ _id: resolutionKey("c"), postings: [] });
    const late = j.leg("c", SHARE, { b: liquidityParameter(FUNDING, 4), outcomes: [...IDS, "d"] });
    expect(j.enter({ _id: "evamm:late", postings: late.postings, trades: [late.trade], eventPool: late.record })).toEqual([
      `entry 7 (evamm:late) trades market c against ${POOL} after the market's end was settled`,
    ]);
    const bare = j.leg("a", SHARE, { b: liquidityParameter(FUNDING, 4), outcomes: [...IDS, "d"] });
    expect(j.enter({ _id: "evamm:bare", postings: bare.postings, trades: [bare.trade] })).toEqual([
      `entry 8 (evamm:bare) executes trades that move ${POOL} without the record of a pool leg`,
    ]);
  });
});
