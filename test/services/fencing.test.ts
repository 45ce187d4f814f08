import type { ServiceBroker } from "moleculer";
import LedgerService from "../../services/ledger.service";
import { MarketActor } from "../../trading/market-actor";
import type { BookJournalDoc, LedgerEntryDoc, MoneyCheck } from "../../models/trading";
import { SHARE } from "../support/trading";
import { marketPortsOverLedger } from "../support/ledger-ports";
import { serviceBroker } from "../support/service-broker";

/**
 * One writer per market: the ledger issues a market's writer lease (epoch) and refuses every book
 * entry written under an older one, so an old owner that has not noticed it lost the market can
 * never commit, and the new owner rebuilds from exactly what was committed.
 */
describe("single writer per market, fenced by the ledger's lease", () => {
  let broker: ServiceBroker;
  const marketId = "mkt_fence";

  beforeAll(async () => {
    broker = serviceBroker({ DATA_DIR: ":memory:" }, [LedgerService]);
    await broker.start();
    for (const u of ["usr_a", "usr_b"]) {
      await broker.call("ledger.post", {
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 100 * SHARE },
          { kind: "external", flow: "deposit", amount: 100 * SHARE },
        ],
      });
    }
  });
  afterAll(() => broker.stop());

  const ports = (node: string) => marketPortsOverLedger(broker, node);

  test("the old owner's commit is refused before any money moves; the new owner continues from the journal", async () => {
    const old = await MarketActor.load(marketId, ports("eng-old"));
    await old.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE });
    // The market moves: the new owner's lease fences the old one.
    const owner = await MarketActor.load(marketId, ports("eng-new"));
    expect(owner.epoch).toBe(old.epoch + 1);
    expect(owner.book.openOrders().map((o) => o.userId)).toEqual(["usr_a"]);

    const before = await broker.call<{ balance: { available: number; locked: number } }, object>("ledger.account", { account: "usr_b" });
    // The old owner still believes it holds the market: its crossing order would fill usr_a's bid.
    await expect(
      old.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE }),
    ).rejects.toMatchObject({ code: 503, type: "MARKET_MOVED" });
    expect(old.fenced).toBe(true);
    await expect(
      old.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE }),
    ).rejects.toMatchObject({ code: "MARKET_MOVED" });
    const after = await broker.call<{ balance: { available: number; locked: number } }, object>("ledger.account", { account: "usr_b" });
    expect(after.balance).toEqual(before.balance);

    const r = await owner.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE });
    expect(r.status).toBe("filled");
    const entries = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: 0 });
    expect(entries.map((e) => [e.seq, e.epoch, e.node])).toEqual([
      [1, 1, "eng-old"],
      [2, 2, "eng-new"],
    ]);
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect(check.ok).toBe(true);
    expect(check.badPositions).toEqual([]);
  });

  test("a retry of the same commit is answered, not applied twice; another command at a taken position is refused", async () => {
    const entries = await broker.call<LedgerEntryDoc[], object>("ledger.entriesAfter", { seq: 0, limit: 1000 });
    const first = entries.find((d) => d.book?.marketId === marketId && d.book.seq === 2) as LedgerEntryDoc;
    const again = await broker.call<{ applied: boolean; seq: number }, object>("ledger.post", {
      key: first._id,
      postings: first.postings,
      checkAfter: first.checkAfter,
      trades: first.trades,
      book: first.book,
    });
    expect(again).toMatchObject({ applied: false, seq: first.seq });
    const other = { ...(first.book as BookJournalDoc), command: { type: "cancel" as const, orderId: "ord_x" } };
    await expect(broker.call("ledger.post", { key: first._id, postings: [], book: other })).rejects.toMatchObject({ type: "MARKET_MOVED" });
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect(check.ok).toBe(true);
  });
});
