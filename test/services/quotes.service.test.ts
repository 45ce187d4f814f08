import type { ServiceBroker } from "moleculer";
import { createMarketRouting } from "../../mixins/market-routing.middleware";
import LedgerService from "../../services/ledger.service";
import BookService from "../../services/book.service";
import type { BookJournalDoc, OrderDoc, MoneyCheck, VerifyReport } from "../../models/trading";
import type { PlaceView } from "../../trading/order-views";
import type { QuoteSetView } from "../../trading/order-desk";
import { MAX_PER_ENTRY } from "../../trading/entries";
import { SHARE } from "../support/trading";
import { bookBroker, fund } from "../support/service-broker";

jest.setTimeout(120_000);

/**
 * A mass quote handed to the market's owner (book.quotesTerms, as another node sends it) whose
 * first quote sweeps more resting orders than one journal entry holds: the command is split into
 * parts like any large command, the quote orders are inserted with the last part, and the money
 * check and a replay of the journal agree.
 */
describe("book.quotesTerms on a real ledger", () => {
  let broker: ServiceBroker;
  const marketId = "mkt_quotes_svc";
  const MAKERS = MAX_PER_ENTRY + 100;
  const LOT = 100;

  beforeAll(async () => {
    broker = bookBroker({ TAKER_FEE_BPS: "200" }, LedgerService, BookService, createMarketRouting());
    await broker.start();
    await fund(broker, ["usr_maker", "usr_mm"], 1000 * SHARE);
  });
  afterAll(() => broker.stop());

  const quotes = (body: Record<string, unknown>) =>
    broker.call<QuoteSetView, object>("book.quotesTerms", { marketId, userId: "usr_mm", postOnly: false, ...body });

  test("a set whose first quote sweeps more than one entry holds: split into parts, orders inserted, books exact", async () => {
    // Asks at YES 0.50 (BUY NO 0.50), one lot each.
    for (let i = 0; i < MAKERS; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, () =>
          broker.call<PlaceView, object>("book.placeTerms", {
            marketId,
            userId: "usr_maker",
            side: "BUY",
            outcome: "NO",
            orderType: "GTC",
            price: 50,
            quantity: LOT,
            postOnly: false,
          }),
        ),
      );
    const first = await quotes({ quotes: [{ side: "BUY", outcome: "YES", price: 40, quantity: SHARE }] });
    const set = await quotes({
      quotes: [
        { side: "BUY", outcome: "YES", price: 50, quantity: MAKERS * LOT },
        { side: "BUY", outcome: "YES", price: 41, quantity: SHARE },
      ],
    });
    expect(set.cancelled).toEqual([first.orders[0].orderId]);
    expect(set.orders.map((o) => [o.status, o.filledQuantity, o.quote])).toEqual([
      ["filled", String(MAKERS * LOT), true],
      ["open", "0", true],
    ]);
    const entries = await broker.call<BookJournalDoc[], object>("ledger.bookEntries", { marketId, afterSeq: 0 });
    const last = entries[entries.length - 1];
    expect(last.command.type).toBe("quotes");
    expect(entries[entries.length - 2].command.type).toBe("part");

    const rows = await broker.call<{ items: OrderDoc[]; total: number }, object>("ledger.orders", {
      userId: "usr_mm",
      status: "all",
      page: 1,
      pageSize: 10,
    });
    expect(rows.items.map((o) => [o._id, o.status, o.quote]).sort()).toEqual(
      [
        [first.orders[0].orderId, "cancelled", true],
        [set.orders[0].orderId, "filled", true],
        [set.orders[1].orderId, "open", true],
      ].sort(),
    );
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks }).toEqual({ ok: true, badOrders: [], badLocks: [] });
    expect((await broker.call<VerifyReport>("ledger.verify")).problems).toEqual([]);
  });

  test("the internal action's params are checked: a malformed set is refused before the actor", async () => {
    await expect(quotes({ quotes: "nope" })).rejects.toMatchObject({ code: 422 });
  });
});
