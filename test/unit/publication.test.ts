import { OrderBook } from "../../engine/book";
import { createPool } from "../../engine/amm";
import type { BookJournalDoc } from "../../models/trading";
import { ammPrintYesPrice, publishCommitted, type PublicationSink, type PublishedMarket } from "../../trading/publication";
import { poolYesPrice } from "../../trading/order-views";

/** What a committed market command tells the world, recorded from a sink (no broker). */
function record() {
  const out: Array<[string, string, unknown]> = [];
  const sink: PublicationSink = {
    broadcast: (event, payload) => void out.push(["broadcast", event, payload]),
    emit: (event, payload) => void out.push(["emit", event, payload]),
    count: (metric, labels) => void out.push(["count", metric, labels]),
  };
  return { out, sink };
}

const AT = "2030-01-01T00:00:00.000Z";
const base = { marketId: "mkt_1", seq: 7, epoch: 1, bookSeq: 0, node: "eng", at: AT };

function market(book: OrderBook, pool: PublishedMarket["pool"] = null, clientIds: Record<string, string> = {}): PublishedMarket {
  return { book, pool, clientOrderIdOf: (id) => clientIds[id] ?? null };
}

describe("publishCommitted", () => {
  test("a placement that filled: the book and prices to every gateway, a print per fill, the counters, an update per order", () => {
    const book = new OrderBook("mkt_1");
    book.place({ orderId: "o_rest", userId: "u2", side: "SELL", outcome: "YES", price: 45, quantity: 500, orderType: "GTC" });
    const doc: BookJournalDoc = {
      ...base,
      command: {
        type: "place",
        order: {
          orderId: "o_t",
          userId: "u1",
          side: "BUY",
          outcome: "YES",
          price: 45,
          quantity: 300,
          orderType: "GTC",
          createdAt: AT,
          prio: 3,
        },
      },
      fills: [
        {
          fillId: "fil_1",
          marketId: "mkt_1",
          kind: "transfer",
          makerOrderId: "o_m",
          takerOrderId: "o_t",
          makerUserId: "u2",
          takerUserId: "u1",
          quantity: 300,
          yesPrice: 45,
          seq: 4,
        },
      ],
      orders: [
        { orderId: "o_m", userId: "u2", filledDelta: 300, remaining: 0, status: "filled", holds: 0 },
        { orderId: "o_t", userId: "u1", filledDelta: 300, remaining: 0, status: "filled", holds: 0 },
      ],
    };
    const { out, sink } = record();
    publishCommitted(doc, market(book, null, { o_t: "mine-1" }), sink);
    expect(out).toEqual([
      [
        "broadcast",
        "book.changed",
        { marketId: "mkt_1", seq: book.seq, yes: { bids: [], asks: [{ price: "0.45", quantity: "500", numOrders: 1 }] } },
      ],
      ["broadcast", "market.pricesChanged", { marketId: "mkt_1", yesBid: null, yesAsk: 45, ammYes: null }],
      ["count", "orders", { kind: "limit", result: "accepted" }],
      ["count", "fills", { kind: "transfer" }],
      [
        "emit",
        "market.trade",
        {
          marketId: "mkt_1",
          tradeId: "fil_1",
          outcome: "YES",
          yesPrice: 45,
          quantity: 300,
          notional: 135,
          takerSide: "BUY",
          takerOutcome: "YES",
          at: AT,
        },
      ],
      [
        "broadcast",
        "order.updated",
        {
          orderId: "o_m",
          userId: "u2",
          marketId: "mkt_1",
          status: "filled",
          remainingQuantity: "0",
          filledDelta: "300",
          clientOrderId: null,
          cancelReason: null,
        },
      ],
      [
        "broadcast",
        "order.updated",
        {
          orderId: "o_t",
          userId: "u1",
          marketId: "mkt_1",
          status: "filled",
          remainingQuantity: "0",
          filledDelta: "300",
          clientOrderId: "mine-1",
          cancelReason: null,
        },
      ],
    ]);
  });

  test("a routed trade: the pool's price, an amm fill counted, and the pool's print in YES terms (every venue prints)", () => {
    const pool = createPool(1_000_000);
    const doc: BookJournalDoc = {
      ...base,
      command: { type: "route", orderId: "o_r", userId: "u1", side: "BUY", outcome: "NO", quantity: 1000, mode: "ROUTE" },
      fills: [],
      orders: [],
      pool: { yes: pool.yes, no: pool.no },
      amm: { fillId: "fil_a", side: "BUY", outcome: "NO", quantity: 1000, cash: 612 },
    };
    const { out, sink } = record();
    publishCommitted(doc, market(new OrderBook("mkt_1"), pool), sink);
    expect(out.slice(1)).toEqual([
      ["broadcast", "market.pricesChanged", { marketId: "mkt_1", yesBid: null, yesAsk: null, ammYes: poolYesPrice(pool) }],
      ["count", "orders", { kind: "route", result: "accepted" }],
      ["count", "fills", { kind: "amm" }],
      // NO at 0.612 a share is YES at 0.39 (to the cent); its notional in YES terms is 1000 - 612.
      [
        "emit",
        "market.trade",
        {
          marketId: "mkt_1",
          tradeId: "fil_a",
          outcome: "YES",
          yesPrice: 39,
          quantity: 1000,
          notional: 388,
          takerSide: "BUY",
          takerOutcome: "NO",
          at: AT,
        },
      ],
    ]);
  });

  test("a race's market order split between the book and the race's pool: one book fill and one AMM fill counted", () => {
    const doc: BookJournalDoc = {
      ...base,
      command: { type: "route", orderId: "o_r", userId: "u1", side: "BUY", outcome: "YES", quantity: 3000, mode: "ROUTE" },
      fills: [
        {
          fillId: "fil_b",
          marketId: "mkt_1",
          kind: "transfer",
          makerOrderId: "o_m",
          takerOrderId: "o_r",
          makerUserId: "u2",
          takerUserId: "u1",
          quantity: 1000,
          yesPrice: 20,
          seq: 2,
        },
      ],
      orders: [],
      // The race's pool is the ledger's: the entry carries its print, not a pool state of the market's own.
      amm: { fillId: "fil_p", side: "BUY", outcome: "YES", quantity: 2000, cash: 520 },
    };
    const { out, sink } = record();
    publishCommitted(doc, market(new OrderBook("mkt_1")), sink);
    expect(out.filter(([kind]) => kind === "count")).toEqual([
      ["count", "orders", { kind: "route", result: "accepted" }],
      ["count", "fills", { kind: "transfer" }],
      ["count", "fills", { kind: "amm" }],
    ]);
  });

  test("a cancel counts no order and prints nothing; a closed order names why it left", () => {
    const doc: BookJournalDoc = {
      ...base,
      command: { type: "cancelAll", reason: "market_closed" },
      fills: [],
      orders: [{ orderId: "o_1", userId: "u1", filledDelta: 0, remaining: 0, status: "cancelled", holds: 0, reason: "market_closed" }],
    };
    const { out, sink } = record();
    publishCommitted(doc, market(new OrderBook("mkt_1")), sink);
    expect(out.map(([, e]) => e)).toEqual(["book.changed", "market.pricesChanged", "order.updated"]);
    expect(out[2][2]).toMatchObject({ status: "cancelled", cancelReason: "market_closed" });
  });

  test("the pool's print price is its average price to the cent, kept inside 0.01..0.99", () => {
    expect(ammPrintYesPrice({ outcome: "YES", quantity: 1000, cash: 415 })).toBe(42);
    expect(ammPrintYesPrice({ outcome: "NO", quantity: 1000, cash: 415 })).toBe(58);
    expect(ammPrintYesPrice({ outcome: "YES", quantity: 1000, cash: 1 })).toBe(1);
    expect(ammPrintYesPrice({ outcome: "YES", quantity: 1000, cash: 999 })).toBe(99);
  });
});
