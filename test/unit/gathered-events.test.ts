/**
 * One broker message per commit: the ledger's changes of a group commit gathered into one
 * `ledger.committed` (the watermark apart, to the engines waiting on it), and the book side's
 * publications of the commands one watermark acknowledged gathered into one `book.published`
 * and one `market.trades`.
 */
import { GatheredChanges, WatermarkAudience, notifyCommitted } from "../../ledger/changes";
import { GatheredPublications, publishCommitted, type PublishedMarket } from "../../trading/publication";
import type { BrokerEvents } from "../../contract";
import type { BookJournalDoc, LedgerEntryDoc } from "../../models/trading";

describe("ledger changes gathered per commit", () => {
  const accounts = {
    balance: (a: string) => ({ available: a === "usr_a" ? 7 : 1, locked: 2, total: a === "usr_a" ? 9 : 3 }),
    positionsOf: () => [],
  };
  const cashDoc = (seq: number, account: string): LedgerEntryDoc =>
    ({ seq, postings: [{ kind: "cash", account, available: 1 }] }) as unknown as LedgerEntryDoc;

  test("the watermark goes out first on its own; every user's change of the commit in one message, in order", () => {
    const sent: Array<[string, unknown]> = [];
    const sink = new GatheredChanges({
      durable: (p) => sent.push(["durable", p]),
      committed: (p) => sent.push(["committed", p]),
    });
    notifyCommitted([cashDoc(4, "usr_a"), cashDoc(5, "usr_b"), cashDoc(6, "house")], "inst-1", accounts, sink);
    expect(sent).toEqual([
      ["durable", { instance: "inst-1", seq: 6 }],
      [
        "committed",
        {
          events: [
            { name: "ledger.balanceChanged", payload: { userId: "usr_a", balance: { available: "7", locked: "2", total: "9" } } },
            { name: "ledger.balanceChanged", payload: { userId: "usr_b", balance: { available: "1", locked: "2", total: "3" } } },
          ],
        },
      ],
    ]);
    // A commit that changed no user's account sends the watermark only.
    sent.length = 0;
    notifyCommitted([cashDoc(7, "house")], "inst-1", accounts, sink);
    expect(sent).toEqual([["durable", { instance: "inst-1", seq: 7 }]]);
  });

  test("the watermark's audience: the nodes that posted up to it, each kept while it has later entries", () => {
    const a = new WatermarkAudience();
    expect(a.reached(10)).toEqual([]);
    a.posted("e1", 3);
    a.posted("e2", 5);
    a.posted("e1", 2);
    expect(a.reached(4).sort()).toEqual(["e1", "e2"]);
    // e1 was done at 3; e2 still waits for 5.
    expect(a.reached(5)).toEqual(["e2"]);
    expect(a.reached(6)).toEqual([]);
    a.posted("e3", 9);
    expect(a.reached(1, true)).toEqual(["e3"]);
    expect(a.reached(20)).toEqual([]);
  });
});

describe("book publications gathered per watermark", () => {
  const market: PublishedMarket = {
    book: { seq: 3, best: () => ({ bid: 40, ask: null }), depth: () => ({ bids: [], asks: [] }) },
    pool: null,
    clientOrderIdOf: () => null,
  };
  const doc = (marketId: string, fills: number): BookJournalDoc =>
    ({
      marketId,
      at: "2026-01-01T00:00:00.000Z",
      command: { type: "place", order: { side: "BUY", outcome: "YES" } },
      fills: Array.from({ length: fills }, (_, i) => ({ fillId: `fil_${marketId}_${i}`, yesPrice: 40, quantity: 1_000_000, kind: "book" })),
      orders: [{ orderId: `ord_${marketId}`, userId: "usr_a", status: "open", remaining: 1_000_000, filledDelta: 0 }],
      pool: null,
      amm: null,
    }) as unknown as BookJournalDoc;

  test("commands published before the flush go out as one message and one message of prints; nothing more until the next", () => {
    const published: Array<BrokerEvents["book.published"]["events"]> = [];
    const prints: Array<BrokerEvents["market.trades"]["prints"]> = [];
    const counts: string[] = [];
    let pending: (() => void) | null = null;
    let armed = 0;
    const out = new GatheredPublications({
      published: (e) => published.push(e),
      prints: (p) => prints.push(p),
      count: (m) => counts.push(m),
      later: (send) => {
        armed++;
        pending = send;
      },
    });
    publishCommitted(doc("mkt_1", 1), market, out);
    publishCommitted(doc("mkt_2", 0), market, out);
    expect(armed).toBe(1);
    expect(published).toEqual([]);
    pending!();
    expect(published).toHaveLength(1);
    expect(published[0].map((e) => `${e.name}:${e.payload.marketId}`)).toEqual([
      "book.changed:mkt_1",
      "market.pricesChanged:mkt_1",
      "order.updated:mkt_1",
      "book.changed:mkt_2",
      "market.pricesChanged:mkt_2",
      "order.updated:mkt_2",
    ]);
    expect(prints).toEqual([[expect.objectContaining({ marketId: "mkt_1", tradeId: "fil_mkt_1_0", yesPrice: 40, quantity: 1_000_000 })]]);
    expect(counts).toEqual(["orders", "fills", "orders"]);
    // Without prints, no prints message; a new publication arms a new flush.
    publishCommitted(doc("mkt_3", 0), market, out);
    expect(armed).toBe(2);
    pending!();
    expect(published).toHaveLength(2);
    expect(prints).toHaveLength(1);
  });
});
