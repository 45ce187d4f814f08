import type { ServiceBroker } from "moleculer";
import { createMarketRouting } from "../../mixins/market-routing.middleware";
import LedgerService from "../../services/ledger.service";
import BookService from "../../services/book.service";
import type { BookJournalDoc, OrderDoc, MoneyCheck, VerifyReport } from "../../models/trading";
import type { PlaceView } from "../../trading/order-views";
import { MAX_PER_ENTRY } from "../../trading/entries";
import { SHARE } from "../support/trading";
import { bookBroker, fund } from "../support/service-broker";

jest.setTimeout(180_000);

/**
 * No internal cap on fills: one order sweeps 20,000 resting orders and fills. Its journal entries
 * stay bounded (split into parts of at most MAX_PER_ENTRY fills, applied together), and the money
 * check and a full replay of the journal agree with the result.
 */
describe("an order sweeping 20,000 resting orders", () => {
  let broker: ServiceBroker;
  const marketId = "mkt_sweep";
  const MAKERS = 20_000;
  const LOT = 100;

  beforeAll(async () => {
    broker = bookBroker({ TAKER_FEE_BPS: "200" }, LedgerService, BookService, createMarketRouting());
    await broker.start();
    await fund(broker, ["usr_maker", "usr_taker"], 1000 * SHARE);
  });
  afterAll(() => broker.stop());

  const place = (userId: string, terms: Record<string, unknown>) =>
    broker.call<PlaceView, object>("book.placeTerms", { marketId, userId, postOnly: false, ...terms });

  test("fills completely: one trade for the taker, every maker order filled, the journal in bounded parts, the books exact", async () => {
    // Dust at the top of the book: 20,000 resting BUY YES orders of one lot each.
    for (let i = 0; i < MAKERS; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, MAKERS - i) }, () =>
          place("usr_maker", { side: "BUY", outcome: "YES", orderType: "GTC", price: 50, quantity: LOT }),
        ),
      );
    }
    const r = await place("usr_taker", { side: "BUY", outcome: "NO", orderType: "FOK", price: 50, quantity: MAKERS * LOT });
    expect(r).toMatchObject({ status: "filled", filledQuantity: String(MAKERS * LOT), remainingQuantity: "0" });
    expect(r.fills).toHaveLength(MAKERS);

    const entries = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: MAKERS });
    const parts = entries.filter((e) => e.seq > MAKERS);
    // 20,000 maker trades and order changes, plus the taker's own.
    expect(parts.length).toBe(Math.ceil((MAKERS + 1) / MAX_PER_ENTRY));
    for (const p of parts) expect(p.fills.length).toBeLessThanOrEqual(MAX_PER_ENTRY);
    expect(parts.reduce((a, p) => a + p.fills.length, 0)).toBe(MAKERS);
    expect(parts[parts.length - 1].command.type).toBe("place");
    expect(parts.slice(0, -1).every((p) => p.command.type === "part")).toBe(true);

    const open = await broker.call<{ items: OrderDoc[]; total: number }, object>("ledger.orders", {
      userId: "usr_maker",
      status: "open",
      page: 1,
      pageSize: 10,
    });
    expect(open.total).toBe(0);
    const taker = await broker.call<{ balance: { available: number; locked: number } }, object>("ledger.account", { account: "usr_taker" });
    expect(taker.balance.locked).toBe(0);
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks }).toEqual({ ok: true, badOrders: [], badLocks: [] });
    const verify = await broker.call<VerifyReport>("ledger.verify");
    expect(verify.problems).toEqual([]);
  });
});
