import { ServiceBroker } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import LedgerService from "../../services/ledger.service";
import { MarketActor, type MarketPorts } from "../../trading/market-actor";
import { newId } from "../../lib/ids";
import type { BookJournalDoc, BookSnapshotDoc } from "../../models/trading";
import { SHARE } from "../support/trading";

/**
 * One writer per market: two actors of the same market (an old owner that has not noticed it lost
 * the market, and the new one) can never both commit the same journal position.
 */
describe("single writer per market, fenced by the journal", () => {
  let broker: ServiceBroker;
  const marketId = "mkt_fence";

  beforeAll(async () => {
    broker = new ServiceBroker({ logger: false });
    bindConfig(broker, loadConfig({ DATA_DIR: ":memory:", JWT_SECRET: "x", LOG_LEVEL: "false" }));
    broker.createService(LedgerService);
    await broker.start();
    for (const u of ["usr_a", "usr_b"]) {
      await broker.call("ledger.post", { key: `dep:${u}`, postings: [{ kind: "cash", account: u, available: 100 * SHARE }, { kind: "external", flow: "deposit", amount: 100 * SHARE }] });
    }
  });
  afterAll(() => broker.stop());

  const ports = (): MarketPorts => ({
    fees: { takerBps: 0, makerBps: 0 },
    ammFeeBps: 0,
    newId,
    nodeID: "test",
    market: async () => ({ status: "open", ammLiquidity: 0 }),
    ledger: {
      post: (entry) => broker.call("ledger.post", entry),
      sync: async (seq) => {
        await broker.call("ledger.sync", { seq });
      },
      bookEntries: (m, afterSeq) => broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId: m, afterSeq }),
      pendingLocks: (m) => broker.call<string[], object>("ledger.pendingLocks", { marketId: m }),
      releaseLock: (orderId) => broker.call("ledger.releaseLock", { orderId }),
      loadSnapshot: (m) => broker.call<BookSnapshotDoc | null, object>("ledger.loadBookSnapshot", { marketId: m }),
      saveSnapshot: async (snapshot) => {
        await broker.call("ledger.saveBookSnapshot", { snapshot });
      },
    },
    publish: () => undefined,
  });

  test("the stale writer's commit is refused, it stops writing, and nothing is applied twice", async () => {
    const owner = await MarketActor.load(marketId, ports());
    const stale = await MarketActor.load(marketId, ports());
    await owner.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE });
    // The stale actor still believes position 1 is free.
    await expect(stale.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 70, quantity: SHARE })).rejects.toMatchObject({ code: 409, type: "JOURNAL_CONFLICT" });
    expect(stale.fenced).toBe(true);
    await expect(stale.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 70, quantity: SHARE })).rejects.toMatchObject({ code: "MARKET_MOVED" });

    const entries = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: 0 });
    expect(entries.map((e) => e.seq)).toEqual([1]);
    // The refused command's placement lock went back: usr_b holds nothing locked.
    const b = await broker.call<{ balance: { available: number; locked: number } }, object>("ledger.account", { account: "usr_b" });
    expect(b.balance.locked).toBe(0);
    const report = await broker.call<{ ok: boolean }>("ledger.conservation");
    expect(report.ok).toBe(true);

    // A rebuilt actor sees exactly the owner's state and continues the sequence.
    const rebuilt = await MarketActor.load(marketId, ports());
    expect(rebuilt.book.openOrders().map((o) => o.userId)).toEqual(["usr_a"]);
    const r = await rebuilt.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 70, quantity: SHARE });
    expect(r.status).toBe("filled");
    const after = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: 0 });
    expect(after.map((e) => e.seq)).toEqual([1, 2]);
  });

  test("a retry of the same commit is idempotent, not a conflict", async () => {
    const entries = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: 0 });
    const first = entries[0];
    const docs = (await broker.call("ledger.entriesAfter", { seq: 0, limit: 1000 })) as Array<{ _id: string; postings: unknown[]; closesLocks?: string[] }>;
    const entry = docs.find((d) => d._id === first.ledgerKey);
    expect(entry).toBeDefined();
    const again = await broker.call<{ applied: boolean }, object>("ledger.post", { key: first.ledgerKey, postings: entry!.postings, book: first, closesLocks: entry!.closesLocks });
    expect(again.applied).toBe(false);
  });
});
