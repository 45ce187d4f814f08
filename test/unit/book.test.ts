import { OrderBook } from "../../engine/book";
import type { BookEvent, FillEvent, Order, OrderType, Outcome, Side } from "../../engine/types";

function order(
  orderId: string,
  userId: string,
  side: Side,
  outcome: Outcome,
  price: number,
  quantity: number,
  orderType: OrderType = "GTC",
): Order {
  return { orderId, userId, side, outcome, price, quantity, orderType };
}
const fills = (ev: BookEvent[]): FillEvent[] => ev.filter((e): e is FillEvent => e.type === "fill");
const types = (ev: BookEvent[]): string[] => ev.map((e) => e.type);
const state = (b: OrderBook) => ({ yes: b.depth("YES", 99), no: b.depth("NO", 99), open: b.openOrders(), best: b.best("YES") });

describe("fill kinds and prices", () => {
  test("transfer YES: BUY YES hits SELL YES at the maker's price", () => {
    const b = new OrderBook("m");
    b.place(order("s1", "alice", "SELL", "YES", 55, 100));
    const ev = b.place(order("b1", "bob", "BUY", "YES", 60, 40));
    expect(types(ev)).toEqual(["accepted", "fill"]);
    expect(fills(ev)[0]).toMatchObject({
      kind: "transfer",
      makerOrderId: "s1",
      takerOrderId: "b1",
      makerUserId: "alice",
      takerUserId: "bob",
      quantity: 40,
      makerSide: "SELL",
      makerOutcome: "YES",
      makerPrice: 55,
      takerSide: "BUY",
      takerOutcome: "YES",
      takerPrice: 55,
      makerRemaining: 60,
      takerRemaining: 0,
    });
  });

  test("transfer NO: SELL NO hits BUY NO at the maker's price", () => {
    const b = new OrderBook("m");
    b.place(order("b1", "alice", "BUY", "NO", 30, 10));
    const f = fills(b.place(order("s1", "bob", "SELL", "NO", 25, 10)))[0];
    expect(f).toMatchObject({ kind: "transfer", makerPrice: 30, takerPrice: 30, makerOutcome: "NO", takerOutcome: "NO" });
  });

  test("transfer YES: SELL YES hits resting BUY YES", () => {
    const b = new OrderBook("m");
    b.place(order("b1", "alice", "BUY", "YES", 48, 10));
    const f = fills(b.place(order("s1", "bob", "SELL", "YES", 40, 10)))[0];
    expect(f).toMatchObject({ kind: "transfer", makerPrice: 48, takerPrice: 48, takerSide: "SELL" });
  });

  test("mint: BUY YES 60 vs resting BUY NO 45 executes at NO 45 = YES 55", () => {
    const b = new OrderBook("m");
    b.place(order("n1", "alice", "BUY", "NO", 45, 10));
    const f = fills(b.place(order("y1", "bob", "BUY", "YES", 60, 10)))[0];
    expect(f).toMatchObject({ kind: "mint", makerSide: "BUY", makerOutcome: "NO", makerPrice: 45, takerOutcome: "YES", takerPrice: 55 });
    expect(f.makerPrice + f.takerPrice).toBe(100);
  });

  test("mint: BUY NO 45 vs resting BUY YES 60 executes at YES 60 = NO 40", () => {
    const b = new OrderBook("m");
    b.place(order("y1", "alice", "BUY", "YES", 60, 10));
    const f = fills(b.place(order("n1", "bob", "BUY", "NO", 45, 10)))[0];
    expect(f).toMatchObject({ kind: "mint", makerPrice: 60, takerOutcome: "NO", takerPrice: 40 });
  });

  test("mint crosses only when p + q >= 100", () => {
    const b = new OrderBook("m");
    b.place(order("y1", "alice", "BUY", "YES", 50, 10));
    expect(types(b.place(order("n1", "bob", "BUY", "NO", 49, 10)))).toEqual(["accepted", "rested"]);
    expect(b.best("YES")).toEqual({ bid: 50, ask: 51 });
    const f = fills(b.place(order("n2", "bob", "BUY", "NO", 50, 10)))[0];
    expect(f).toMatchObject({ kind: "mint", makerOrderId: "y1", makerPrice: 50, takerPrice: 50 });
  });

  test("merge: SELL YES 55 vs resting SELL NO 40 executes at NO 40 = YES 60", () => {
    const b = new OrderBook("m");
    b.place(order("n1", "alice", "SELL", "NO", 40, 10));
    const f = fills(b.place(order("y1", "bob", "SELL", "YES", 55, 10)))[0];
    expect(f).toMatchObject({ kind: "merge", makerSide: "SELL", makerOutcome: "NO", makerPrice: 40, takerSide: "SELL", takerPrice: 60 });
  });

  test("merge crosses only when p + q <= 100", () => {
    const b = new OrderBook("m");
    b.place(order("n1", "alice", "SELL", "NO", 40, 10));
    expect(types(b.place(order("y1", "bob", "SELL", "YES", 61, 10)))).toEqual(["accepted", "rested"]);
    expect(fills(b.place(order("y2", "bob", "SELL", "YES", 60, 10)))[0]).toMatchObject({
      kind: "merge",
      makerOrderId: "n1",
      takerPrice: 60,
    });
  });
});

describe("priority", () => {
  test("better price first across order kinds, then the next level", () => {
    const b = new OrderBook("m");
    b.place(order("a52", "u1", "SELL", "YES", 52, 10)); // ask 52
    b.place(order("n49", "u2", "BUY", "NO", 49, 10)); // ask 51
    b.place(order("a51", "u3", "SELL", "YES", 51, 10)); // ask 51, later
    const f = fills(b.place(order("t", "u9", "BUY", "YES", 55, 30)));
    expect(f.map((x) => [x.makerOrderId, x.takerPrice, x.kind])).toEqual([
      ["n49", 51, "mint"],
      ["a51", 51, "transfer"],
      ["a52", 52, "transfer"],
    ]);
    expect(b.best("YES")).toEqual({ bid: null, ask: null });
  });

  test("FIFO within a level regardless of kind", () => {
    const b = new OrderBook("m");
    b.place(order("x", "u1", "SELL", "NO", 50, 5)); // bid 50
    b.place(order("y", "u2", "BUY", "YES", 50, 5)); // bid 50
    b.place(order("z", "u3", "SELL", "NO", 50, 5)); // bid 50
    const f = fills(b.place(order("t", "u9", "SELL", "YES", 50, 12)));
    expect(f.map((x) => [x.makerOrderId, x.kind, x.quantity])).toEqual([
      ["x", "merge", 5],
      ["y", "transfer", 5],
      ["z", "merge", 2],
    ]);
  });

  test("a partially filled maker keeps its place in the queue", () => {
    const b = new OrderBook("m");
    b.place(order("first", "u1", "SELL", "YES", 50, 10));
    b.place(order("second", "u2", "SELL", "YES", 50, 10));
    b.place(order("t1", "u9", "BUY", "YES", 50, 4));
    const f = fills(b.place(order("t2", "u9", "BUY", "YES", 50, 8)));
    expect(f.map((x) => [x.makerOrderId, x.quantity, x.makerRemaining])).toEqual([
      ["first", 6, 0],
      ["second", 2, 8],
    ]);
  });

  test("does not trade through the taker's limit", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u1", "SELL", "YES", 50, 10));
    b.place(order("c", "u1", "SELL", "YES", 53, 10));
    const ev = b.place(order("t", "u2", "BUY", "YES", 52, 20));
    expect(types(ev)).toEqual(["accepted", "fill", "rested"]);
    expect(ev[2]).toMatchObject({ type: "rested", orderId: "t", remaining: 10 });
    expect(b.best("YES")).toEqual({ bid: 52, ask: 53 });
  });
});

describe("GTC and FOK", () => {
  test("GTC with no counterparty rests whole", () => {
    const b = new OrderBook("m");
    const ev = b.place(order("o", "u", "BUY", "NO", 30, 7));
    expect(ev).toEqual([
      { type: "accepted", seq: 1, orderId: "o" },
      { type: "rested", seq: 2, orderId: "o", remaining: 7 },
    ]);
    expect(b.getOrder("o")).toEqual({
      orderId: "o",
      userId: "u",
      side: "BUY",
      outcome: "NO",
      price: 30,
      quantity: 7,
      remaining: 7,
      seq: 1,
    });
  });

  test("GTC partial fill rests the remainder", () => {
    const b = new OrderBook("m");
    b.place(order("m", "u1", "SELL", "YES", 40, 3));
    const ev = b.place(order("t", "u2", "BUY", "YES", 45, 10));
    expect(types(ev)).toEqual(["accepted", "fill", "rested"]);
    expect(b.getOrder("t")?.remaining).toBe(7);
    expect(b.getOrder("m")).toBeUndefined();
    expect(b.depth("YES").bids).toEqual([{ price: 45, quantity: 7, numOrders: 1 }]);
  });

  test("FOK fills completely across levels", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u1", "SELL", "YES", 50, 5));
    b.place(order("n", "u2", "BUY", "NO", 48, 5)); // ask 52
    const ev = b.place(order("f", "u3", "BUY", "YES", 52, 10, "FOK"));
    expect(types(ev)).toEqual(["accepted", "fill", "fill"]);
    expect(fills(ev).at(-1)?.takerRemaining).toBe(0);
    expect(b.openOrders()).toEqual([]);
  });

  test("FOK that cannot fill is rejected and changes nothing", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u1", "SELL", "YES", 50, 5));
    b.place(order("c", "u1", "SELL", "YES", 53, 50)); // beyond the limit
    b.place(order("bid", "u2", "BUY", "YES", 40, 5));
    const before = state(b);
    const seq = b.seq;
    const ev = b.place(order("f", "u3", "BUY", "YES", 52, 6, "FOK"));
    expect(ev).toEqual([{ type: "rejected", seq: seq + 1, orderId: "f", reason: "FOK_NOT_FILLED" }]);
    expect(state(b)).toEqual(before);
  });

  test("FOK check ignores the taker's own orders; a rejected FOK does not cancel them", () => {
    const b = new OrderBook("m");
    b.place(order("own", "alice", "SELL", "YES", 50, 10));
    b.place(order("other", "bob", "SELL", "YES", 51, 5));
    const before = state(b);
    expect(b.place(order("f1", "alice", "BUY", "YES", 51, 10, "FOK"))).toMatchObject([{ type: "rejected", reason: "FOK_NOT_FILLED" }]);
    expect(state(b)).toEqual(before);
    const ev = b.place(order("f2", "alice", "BUY", "YES", 51, 5, "FOK"));
    expect(types(ev)).toEqual(["accepted", "cancelled", "fill"]);
    expect(ev[1]).toMatchObject({ orderId: "own", reason: "SELF_TRADE", remaining: 10 });
    expect(fills(ev)[0]).toMatchObject({ makerOrderId: "other", quantity: 5, takerPrice: 51 });
    expect(b.openOrders()).toEqual([]);
  });

  test("FOK counts mint and merge liquidity", () => {
    const b = new OrderBook("m");
    b.place(order("n", "u1", "SELL", "NO", 45, 5)); // bid 55
    b.place(order("y", "u2", "BUY", "YES", 54, 5)); // bid 54
    const ev = b.place(order("f", "u3", "SELL", "YES", 54, 10, "FOK"));
    expect(fills(ev).map((f) => [f.kind, f.takerPrice])).toEqual([
      ["merge", 55],
      ["transfer", 54],
    ]);
  });
});

describe("self-trade prevention", () => {
  test("cancels the resting order of the same user and keeps matching", () => {
    const b = new OrderBook("m");
    b.place(order("mine", "alice", "SELL", "YES", 50, 10));
    b.place(order("theirs", "bob", "SELL", "YES", 50, 10));
    const ev = b.place(order("t", "alice", "BUY", "YES", 50, 15));
    expect(types(ev)).toEqual(["accepted", "cancelled", "fill", "rested"]);
    expect(ev[1]).toEqual({
      type: "cancelled",
      seq: ev[0].seq + 1,
      orderId: "mine",
      userId: "alice",
      side: "SELL",
      outcome: "YES",
      price: 50,
      remaining: 10,
      reason: "SELF_TRADE",
    });
    expect(ev[3]).toMatchObject({ orderId: "t", remaining: 5 });
    expect(b.best("YES")).toEqual({ bid: 50, ask: null });
  });

  test("applies across outcomes (would-be mint with yourself)", () => {
    const b = new OrderBook("m");
    b.place(order("no", "alice", "BUY", "NO", 50, 10));
    const ev = b.place(order("yes", "alice", "BUY", "YES", 50, 10));
    expect(types(ev)).toEqual(["accepted", "cancelled", "rested"]);
  });

  test("non-crossing own orders are left alone", () => {
    const b = new OrderBook("m");
    b.place(order("ask", "alice", "SELL", "YES", 60, 10));
    expect(types(b.place(order("bid", "alice", "BUY", "YES", 50, 10)))).toEqual(["accepted", "rested"]);
    expect(b.openOrders().map((o) => o.orderId)).toEqual(["ask", "bid"]);
  });

  test("stops cancelling once the taker is filled", () => {
    const b = new OrderBook("m");
    b.place(order("x", "bob", "SELL", "YES", 50, 5));
    b.place(order("mine", "alice", "SELL", "YES", 50, 5));
    const ev = b.place(order("t", "alice", "BUY", "YES", 50, 5));
    expect(types(ev)).toEqual(["accepted", "fill"]);
    expect(b.getOrder("mine")?.remaining).toBe(5);
  });
});

describe("cancel", () => {
  test("cancel by id emits collateral details and updates depth", () => {
    const b = new OrderBook("m");
    b.place(order("o", "u", "SELL", "NO", 30, 9));
    const ev = b.cancel("o");
    expect(ev).toEqual([
      { type: "cancelled", seq: 3, orderId: "o", userId: "u", side: "SELL", outcome: "NO", price: 30, remaining: 9, reason: "USER" },
    ]);
    expect(b.depth("YES")).toEqual({ bids: [], asks: [] });
    expect(b.getOrder("o")).toBeUndefined();
  });

  test("unknown id and wrong user are indistinguishable", () => {
    const b = new OrderBook("m");
    b.place(order("o", "owner", "BUY", "YES", 30, 9));
    const unknown = b.cancel("nope", "thief");
    const wrong = b.cancel("o", "thief");
    expect(unknown).toEqual([{ type: "rejected", seq: 3, orderId: "nope", reason: "UNKNOWN_ORDER" }]);
    expect(wrong).toEqual([{ type: "rejected", seq: 4, orderId: "o", reason: "UNKNOWN_ORDER" }]);
    expect(b.getOrder("o")?.remaining).toBe(9);
    expect(types(b.cancel("o", "owner"))).toEqual(["cancelled"]);
    expect(b.cancel("o")).toMatchObject([{ type: "rejected", reason: "UNKNOWN_ORDER" }]);
  });

  test("cancelling the best level moves best to the next one", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u", "BUY", "YES", 40, 1));
    b.place(order("c", "u", "BUY", "YES", 20, 1));
    b.place(order("d", "u", "SELL", "YES", 70, 1));
    b.place(order("e", "u", "SELL", "YES", 90, 1));
    b.cancel("a");
    b.cancel("d");
    expect(b.best("YES")).toEqual({ bid: 20, ask: 90 });
    b.cancel("c");
    b.cancel("e");
    expect(b.best("YES")).toEqual({ bid: null, ask: null });
    expect(b.checkIntegrity()).toEqual([]);
  });

  test("cancelAll cancels everything in arrival order with the given reason", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u1", "BUY", "YES", 40, 1));
    b.place(order("b", "u2", "SELL", "NO", 70, 2)); // bid 30
    b.place(order("c", "u3", "BUY", "NO", 30, 3));
    const ev = b.cancelAll("MARKET_CLOSED");
    expect(ev.map((e) => (e.type === "cancelled" ? [e.orderId, e.reason, e.remaining] : null))).toEqual([
      ["a", "MARKET_CLOSED", 1],
      ["b", "MARKET_CLOSED", 2],
      ["c", "MARKET_CLOSED", 3],
    ]);
    expect(ev.map((e) => e.seq)).toEqual([7, 8, 9]);
    expect(b.openOrders()).toEqual([]);
    expect(b.best("NO")).toEqual({ bid: null, ask: null });
    expect(b.checkIntegrity()).toEqual([]);
    expect(types(b.place(order("d", "u1", "BUY", "YES", 40, 1)))).toEqual(["accepted", "rested"]);
  });
});

describe("validation", () => {
  test.each([0, 100, -5, 50.5, Number.NaN, Infinity])("price %p is INVALID_PRICE", (price) => {
    const b = new OrderBook("m");
    expect(b.place(order("o", "u", "BUY", "YES", price, 1))).toEqual([{ type: "rejected", seq: 1, orderId: "o", reason: "INVALID_PRICE" }]);
    expect(b.openOrders()).toEqual([]);
  });

  test.each([0, -1, 1.5, 2 ** 53, Number.NaN])("quantity %p is INVALID_QUANTITY", (q) => {
    const b = new OrderBook("m");
    expect(b.place(order("o", "u", "BUY", "YES", 50, q))).toMatchObject([{ type: "rejected", reason: "INVALID_QUANTITY" }]);
  });

  test("malformed side / outcome / type / ids are INVALID_ORDER", () => {
    const b = new OrderBook("m");
    const bad = [
      { ...order("o", "u", "BUY", "YES", 50, 1), side: "HOLD" },
      { ...order("o", "u", "BUY", "YES", 50, 1), outcome: "MAYBE" },
      { ...order("o", "u", "BUY", "YES", 50, 1), orderType: "IOC" },
      order("", "u", "BUY", "YES", 50, 1),
      order("o", "", "BUY", "YES", 50, 1),
    ] as unknown as Order[];
    for (const o of bad) expect(b.place(o)).toMatchObject([{ type: "rejected", reason: "INVALID_ORDER" }]);
    expect(b.checkIntegrity()).toEqual([]);
  });

  test("duplicate id of a resting order is rejected; a finished id may be reused", () => {
    const b = new OrderBook("m");
    b.place(order("o", "u1", "SELL", "YES", 50, 5));
    expect(b.place(order("o", "u2", "BUY", "YES", 40, 5))).toMatchObject([{ type: "rejected", orderId: "o", reason: "DUPLICATE_ORDER" }]);
    expect(b.getOrder("o")?.userId).toBe("u1");
    b.place(order("t", "u2", "BUY", "YES", 50, 5));
    expect(types(b.place(order("o", "u3", "BUY", "YES", 40, 5)))).toEqual(["accepted", "rested"]);
  });

  test("snapshots do not alias internal state", () => {
    const b = new OrderBook("m");
    b.place(order("o", "u", "BUY", "YES", 50, 5));
    const snap = b.getOrder("o");
    if (snap) snap.remaining = 1;
    b.openOrders()[0].price = 99;
    expect(b.getOrder("o")).toMatchObject({ remaining: 5, price: 50 });
  });
});

describe("depth, best and sweep", () => {
  function sample(): OrderBook {
    const b = new OrderBook("m");
    b.place(order("b1", "u1", "BUY", "YES", 40, 10)); // bid 40
    b.place(order("b2", "u2", "SELL", "NO", 60, 5)); // bid 40
    b.place(order("b3", "u3", "BUY", "YES", 38, 7)); // bid 38
    b.place(order("b4", "u4", "SELL", "NO", 65, 1)); // bid 35
    b.place(order("a1", "u1", "SELL", "YES", 45, 3)); // ask 45
    b.place(order("a2", "u2", "BUY", "NO", 55, 4)); // ask 45
    b.place(order("a3", "u3", "BUY", "NO", 50, 6)); // ask 50
    return b;
  }

  test("YES depth aggregates per level, best first, top N", () => {
    const b = sample();
    expect(b.depth("YES")).toEqual({
      bids: [
        { price: 40, quantity: 15, numOrders: 2 },
        { price: 38, quantity: 7, numOrders: 1 },
        { price: 35, quantity: 1, numOrders: 1 },
      ],
      asks: [
        { price: 45, quantity: 7, numOrders: 2 },
        { price: 50, quantity: 6, numOrders: 1 },
      ],
    });
    expect(b.depth("YES", 1)).toEqual({
      bids: [{ price: 40, quantity: 15, numOrders: 2 }],
      asks: [{ price: 45, quantity: 7, numOrders: 2 }],
    });
    expect(b.depth("YES", 0)).toEqual({ bids: [], asks: [] });
  });

  test("NO depth mirrors YES", () => {
    const b = sample();
    expect(b.depth("NO", 2)).toEqual({
      bids: [
        { price: 55, quantity: 7, numOrders: 2 },
        { price: 50, quantity: 6, numOrders: 1 },
      ],
      asks: [
        { price: 60, quantity: 15, numOrders: 2 },
        { price: 62, quantity: 7, numOrders: 1 },
      ],
    });
    expect(b.best("YES")).toEqual({ bid: 40, ask: 45 });
    expect(b.best("NO")).toEqual({ bid: 55, ask: 60 });
  });

  test("sweep reports levels in the order's own outcome without mutating", () => {
    const b = sample();
    const before = state(b);
    expect(b.sweep("BUY", "YES", 10)).toEqual({
      filled: 10,
      levels: [
        { price: 45, quantity: 7 },
        { price: 50, quantity: 3 },
      ],
    });
    expect(b.sweep("SELL", "NO", 10)).toEqual({
      filled: 10,
      levels: [
        { price: 55, quantity: 7 },
        { price: 50, quantity: 3 },
      ],
    });
    expect(b.sweep("SELL", "YES", 100)).toEqual({
      filled: 23,
      levels: [
        { price: 40, quantity: 15 },
        { price: 38, quantity: 7 },
        { price: 35, quantity: 1 },
      ],
    });
    expect(b.sweep("BUY", "NO", 100, { limit: 61 })).toEqual({ filled: 15, levels: [{ price: 60, quantity: 15 }] });
    expect(b.sweep("BUY", "YES", 100, { limit: 45, excludeUserId: "u1" })).toEqual({ filled: 4, levels: [{ price: 45, quantity: 4 }] });
    expect(b.sweep("BUY", "YES", 0)).toEqual({ filled: 0, levels: [] });
    expect(state(b)).toEqual(before);
  });

  test("sweep matches what a GTC taker then actually gets", () => {
    const b = sample();
    const quote = b.sweep("BUY", "YES", 12, { excludeUserId: "u2", limit: 50 });
    const f = fills(b.place(order("t", "u2", "BUY", "YES", 50, 12)));
    const got = new Map<number, number>();
    for (const x of f) got.set(x.takerPrice, (got.get(x.takerPrice) ?? 0) + x.quantity);
    expect([...got].map(([price, quantity]) => ({ price, quantity }))).toEqual(quote.levels);
  });
});

describe("restore", () => {
  test("a restored book matches exactly like the original", () => {
    const a = new OrderBook("m");
    const script: Order[] = [
      order("1", "u1", "SELL", "YES", 55, 10),
      order("2", "u2", "BUY", "NO", 46, 10), // ask 54
      order("3", "u3", "SELL", "YES", 54, 10), // ask 54, behind 2
      order("4", "u4", "BUY", "YES", 54, 4), // partially fills 2
      order("5", "u5", "BUY", "YES", 40, 8),
      order("6", "u6", "SELL", "NO", 60, 8), // bid 40 behind 5
    ];
    for (const o of script) a.place(o);
    const open = a.openOrders();
    const b = new OrderBook("m", { startSeq: a.seq });
    for (const o of [...open].reverse()) b.restore(o); // out of order on purpose
    expect(b.openOrders()).toEqual(open);
    expect(state(b)).toEqual(state(a));
    expect(b.checkIntegrity()).toEqual([]);
    const more: Order[] = [
      order("7", "u7", "BUY", "YES", 55, 25),
      order("8", "u8", "SELL", "YES", 40, 20),
      order("9", "u1", "BUY", "NO", 50, 3),
    ];
    for (const o of more) expect(b.place(o)).toEqual(a.place(o));
    expect(state(b)).toEqual(state(a));
  });

  test("restore refuses corrupted input", () => {
    const b = new OrderBook("m");
    const base = {
      orderId: "o",
      userId: "u",
      side: "BUY" as const,
      outcome: "YES" as const,
      price: 50,
      quantity: 10,
      remaining: 10,
      seq: 5,
    };
    b.restore(base);
    expect(b.seq).toBe(5);
    expect(() => b.restore(base)).toThrow(/duplicate/);
    expect(() => b.restore({ ...base, orderId: "x", side: "SELL", price: 50 })).toThrow(/cross/);
    expect(() => b.restore({ ...base, orderId: "x", remaining: 11 })).toThrow();
    expect(() => b.restore({ ...base, orderId: "x", price: 0 })).toThrow();
    expect(b.openOrders()).toHaveLength(1);
    expect(b.checkIntegrity()).toEqual([]);
  });
});

describe("seq", () => {
  test("every event gets the next seq, starting after startSeq", () => {
    const b = new OrderBook("m", { startSeq: 1000 });
    const all: BookEvent[] = [];
    all.push(...b.place(order("a", "u1", "SELL", "YES", 50, 5)));
    all.push(...b.place(order("b", "u2", "SELL", "YES", 50, 5)));
    all.push(...b.place(order("c", "u1", "BUY", "YES", 50, 8)));
    all.push(...b.place(order("d", "u3", "BUY", "YES", 0, 8)));
    all.push(...b.place(order("e", "u3", "BUY", "YES", 60, 80, "FOK")));
    all.push(...b.cancel("zzz"));
    all.push(...b.cancelAll("MARKET_CLOSED"));
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => 1001 + i));
    expect(b.seq).toBe(1000 + all.length);
  });

  test("rejects a bad startSeq", () => {
    expect(() => new OrderBook("m", { startSeq: -1 })).toThrow(RangeError);
  });
});
