import { OrderBook } from "../../engine/book";
import type { Order } from "../../engine/types";
import { isRefusal } from "../../engine/refusal";
import type { Posting } from "../../engine/accounts";
import { NORMAL } from "../../trading/trading-modes";
import type { MarketView } from "../../trading/plan";
import { planQuotes } from "../../trading/plan-quotes";
import type { QuoteTerm } from "../../models/trading";

const M = "mkt_q";
const MM = "usr_mm";
const OTHER = "usr_other";

function view(book: OrderBook, over: Partial<MarketView> = {}): MarketView {
  let ids = 0;
  return {
    marketId: M,
    book,
    status: "open",
    mode: NORMAL,
    pool: null,
    fees: { takerBps: 0, makerBps: 0 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${++ids}`,
    now: "2030-01-01T00:00:00.000Z",
    ...over,
  };
}

const q = (side: "BUY" | "SELL", price: number, quantity = 1_000_000, outcome: "YES" | "NO" = "YES"): QuoteTerm => ({
  side,
  outcome,
  price,
  quantity,
});

function rest(book: OrderBook, o: Partial<Order> & Pick<Order, "orderId" | "userId" | "side" | "price">): void {
  book.place({ outcome: "YES", quantity: 1_000_000, orderType: "GTC", ...o });
}

/** What the book shows, order by order (id, user, side, outcome, price, remaining, priority). */
const shape = (b: OrderBook) => b.openOrders().map((o) => [o.orderId, o.userId, o.side, o.outcome, o.price, o.remaining, o.seq]);

/** The cash each account's postings move, available and locked. */
function cashMoves(postings: Posting[]): Record<string, { available: number; locked: number }> {
  const out: Record<string, { available: number; locked: number }> = {};
  for (const p of postings) {
    if (p.kind !== "cash") continue;
    const c = (out[p.account] ??= { available: 0, locked: 0 });
    c.available += p.available ?? 0;
    c.locked += p.locked ?? 0;
  }
  return out;
}

function refusalOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isRefusal(err)) return err.code;
    throw err;
  }
  throw new Error("not refused");
}

describe("planQuotes: a mass quote as one command", () => {
  test("a first set only rests: each quote placed as a GTC quote order, its lock held, nothing cancelled", () => {
    const book = new OrderBook(M);
    rest(book, { orderId: "o_other", userId: OTHER, side: "BUY", price: 30 });
    const before = book.seq;
    const plan = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 45), q("SELL", 55)], postOnly: false, previous: [] });
    expect(plan.value.cancelled).toEqual([]);
    expect(plan.value.orders.map((o) => [o.status, o.remainingQuantity, o.filledQuantity])).toEqual([
      ["open", 1_000_000, 0],
      ["open", 1_000_000, 0],
    ]);
    expect(plan.command.type).toBe("quotes");
    if (plan.command.type !== "quotes") return;
    expect(plan.command.orders.every((o) => o.quote === true && o.orderType === "GTC")).toBe(true);
    // The BUY locks 0.45 x 1 share; the SELL locks its shares (not cash).
    expect(cashMoves(plan.settlement.postings)[MM]).toEqual({ available: -450_000, locked: 450_000 });
    // Planning changed nothing; applying reaches exactly the planned event clock.
    expect(book.seq).toBe(before);
    plan.apply(book);
    expect(book.seq).toBe(plan.bookSeq);
    expect(
      book
        .openOrders()
        .filter((o) => o.userId === MM)
        .map((o) => o.price),
    ).toEqual([45, 55]);
  });

  test("the next set cancels the previous one and places the new one: the earlier set's locks come back first", () => {
    const book = new OrderBook(M);
    const first = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 45), q("BUY", 44)], postOnly: false, previous: [] });
    first.apply(book);
    const prev = first.value.orders.map((o) => o.orderId);
    const second = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 46)], postOnly: false, previous: prev });
    expect(second.value.cancelled).toEqual(prev);
    expect(second.value.releasedAmount).toBe(450_000 + 440_000);
    expect(second.settlement.orders.slice(0, 2).map((c) => [c.orderId, c.status, c.reason])).toEqual([
      [prev[0], "cancelled", "user"],
      [prev[1], "cancelled", "user"],
    ]);
    // Releases, then the new lock: the placement lock is checked after both.
    expect(second.checkAfter).toBe(3);
    expect(cashMoves(second.settlement.postings)[MM]).toEqual({ available: 890_000 - 460_000, locked: -890_000 + 460_000 });
    second.apply(book);
    expect(book.seq).toBe(second.bookSeq);
    expect(book.openOrders().map((o) => [o.orderId, o.price])).toEqual([[second.value.orders[0].orderId, 46]]);
  });

  test("a previous quote filled or cancelled since is skipped; another user's id is never touched", () => {
    const book = new OrderBook(M);
    rest(book, { orderId: "o_other", userId: OTHER, side: "BUY", price: 30 });
    const plan = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 40)], postOnly: false, previous: ["gone", "o_other"] });
    expect(plan.value.cancelled).toEqual([]);
    plan.apply(book);
    expect(book.getOrder("o_other")?.remaining).toBe(1_000_000);
  });

  test("all or nothing: one quote refused refuses the set and the book and previous set stand", () => {
    const book = new OrderBook(M);
    const first = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 45), q("SELL", 55)], postOnly: false, previous: [] });
    first.apply(book);
    const standing = shape(book);
    const prev = first.value.orders.map((o) => o.orderId);
    rest(book, { orderId: "o_ask", userId: OTHER, side: "SELL", price: 50 });
    const withAsk = shape(book);
    // Post-only: the second quote would take the resting ask at 0.50.
    expect(
      refusalOf(() => planQuotes(view(book), { userId: MM, quotes: [q("BUY", 44), q("BUY", 50)], postOnly: true, previous: prev })),
    ).toBe("POST_ONLY_WOULD_CROSS");
    // The set's own bid meets its own ask.
    expect(
      refusalOf(() => planQuotes(view(book), { userId: MM, quotes: [q("BUY", 48), q("SELL", 47)], postOnly: false, previous: prev })),
    ).toBe("VALIDATION_ERROR");
    // BUY NO 0.53 is an ask at YES 0.47: it meets the set's YES bid at 0.48.
    expect(
      refusalOf(() =>
        planQuotes(view(book), { userId: MM, quotes: [q("BUY", 48), q("BUY", 53, 1_000_000, "NO")], postOnly: false, previous: prev }),
      ),
    ).toBe("VALIDATION_ERROR");
    expect(
      refusalOf(() =>
        planQuotes(view(book, { status: "closed" }), { userId: MM, quotes: [q("BUY", 40)], postOnly: false, previous: prev }),
      ),
    ).toBe("MARKET_NOT_OPEN");
    expect(
      refusalOf(() =>
        planQuotes(view(book, { mode: { mode: "post_only", reason: "reopening" } }), {
          userId: MM,
          quotes: [q("BUY", 40)],
          postOnly: false,
          previous: prev,
        }),
      ),
    ).toBe("TRADING_PAUSED");
    expect(shape(book)).toEqual(withAsk);
    expect(standing.every((o) => withAsk.some((w) => w[0] === o[0]))).toBe(true);
    // Post-only quotes are admitted in post_only mode.
    const ok = planQuotes(view(book, { mode: { mode: "post_only", reason: "reopening" } }), {
      userId: MM,
      quotes: [q("BUY", 40)],
      postOnly: true,
      previous: prev,
    });
    expect(ok.value.cancelled).toEqual(prev);
  });

  test("a quote that crosses trades at once like a GTC order; later quotes see the book the earlier ones left", () => {
    const book = new OrderBook(M);
    rest(book, { orderId: "o_ask", userId: OTHER, side: "SELL", price: 50, quantity: 1_500_000 });
    // Both bids cross the 1.5 shares resting at 0.50: the first takes 1, the second the 0.5 left.
    const plan = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 51), q("BUY", 50)], postOnly: false, previous: [] });
    const [a, b] = plan.value.orders;
    expect([a.status, a.filledQuantity, a.remainingQuantity]).toEqual(["filled", 1_000_000, 0]);
    expect([b.status, b.filledQuantity, b.remainingQuantity]).toEqual(["partially_filled", 500_000, 500_000]);
    expect(plan.settlement.fills.map((f) => [f.makerOrderId, f.quantity])).toEqual([
      ["o_ask", 1_000_000],
      ["o_ask", 500_000],
    ]);
    // The maker's two changes in order, then the quotes' own changes last.
    expect(plan.settlement.orders.map((c) => [c.orderId, c.remaining])).toEqual([
      ["o_ask", 500_000],
      ["o_ask", 0],
      [a.orderId, 0],
      [b.orderId, 500_000],
    ]);
    plan.apply(book);
    expect(book.seq).toBe(plan.bookSeq);
    expect(book.openOrders().map((o) => [o.orderId, o.remaining])).toEqual([[b.orderId, 500_000]]);
    expect(book.checkIntegrity()).toEqual([]);
  });

  test("the new set may cross the previous set: it is cancelled first, so nothing trades with it", () => {
    const book = new OrderBook(M);
    const first = planQuotes(view(book), { userId: MM, quotes: [q("SELL", 55)], postOnly: true, previous: [] });
    first.apply(book);
    const plan = planQuotes(view(book), { userId: MM, quotes: [q("BUY", 56)], postOnly: true, previous: [first.value.orders[0].orderId] });
    expect(plan.settlement.fills).toEqual([]);
    expect(plan.value.orders[0].status).toBe("open");
    plan.apply(book);
    expect(book.seq).toBe(plan.bookSeq);
    expect(book.openOrders().map((o) => [o.side, o.price])).toEqual([["BUY", 56]]);
  });

  test("a copied book is independent and equal: the same commands give the same events on both", () => {
    const book = new OrderBook(M);
    for (let i = 0; i < 40; i++)
      rest(book, {
        orderId: `o${i}`,
        userId: i % 2 ? OTHER : MM,
        side: i % 2 ? "SELL" : "BUY",
        price: i % 2 ? 60 + (i % 7) : 40 - (i % 7),
      });
    book.cancel("o4");
    const copy = book.copy();
    expect(shape(copy)).toEqual(shape(book));
    const taker: Order = { orderId: "t", userId: "usr_t", side: "BUY", outcome: "YES", price: 63, quantity: 5_000_000, orderType: "GTC" };
    expect(copy.place(taker)).toEqual(book.place({ ...taker }));
    expect(shape(copy)).toEqual(shape(book));
    copy.cancel("o2");
    expect(book.getOrder("o2")).toBeDefined();
    expect(copy.checkIntegrity()).toEqual([]);
    expect(book.checkIntegrity()).toEqual([]);
  });
});
