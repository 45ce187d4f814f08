import fc from "fast-check";
import { OrderBook } from "../../engine/book";
import type { Order, Outcome, RestingOrder, Side } from "../../engine/types";

const order = (orderId: string, userId: string, side: Side, outcome: Outcome, price: number, quantity: number): Order => ({
  orderId,
  userId,
  side,
  outcome,
  price,
  quantity,
  orderType: "GTC",
});

/** The naive answer: every resting order at the same YES-view level with an earlier seq. */
function naive(open: RestingOrder[], o: RestingOrder) {
  const view = (x: RestingOrder) => ({
    bid: (x.side === "BUY") === (x.outcome === "YES"),
    tick: x.outcome === "YES" ? x.price : 100 - x.price,
  });
  const v = view(o);
  const ahead = open.filter((x) => x.seq < o.seq && view(x).bid === v.bid && view(x).tick === v.tick);
  return { price: o.price, quantityAhead: ahead.reduce((s, x) => s + x.remaining, 0), ordersAhead: ahead.length };
}

describe("queue position", () => {
  test("what rests before an order at its level falls as orders ahead fill or cancel; the other outcome at the same level counts", () => {
    const b = new OrderBook("m");
    b.place(order("a", "u1", "BUY", "YES", 40, 100));
    b.place(order("x", "u9", "BUY", "YES", 41, 500)); // a better level: not in a's queue
    b.place(order("n", "u2", "SELL", "NO", 60, 30)); // a YES bid at 40 as well
    b.place(order("c", "u3", "BUY", "YES", 40, 70));
    expect(b.queuePosition("a")).toEqual({ price: 40, quantityAhead: 0, ordersAhead: 0 });
    expect(b.queuePosition("n")).toEqual({ price: 60, quantityAhead: 100, ordersAhead: 1 });
    expect(b.queuePosition("c")).toEqual({ price: 40, quantityAhead: 130, ordersAhead: 2 });
    // A seller takes all of 41 and 60 of 40: a fills in part first.
    b.place(order("t", "u4", "SELL", "YES", 40, 560));
    expect(b.queuePosition("c")).toEqual({ price: 40, quantityAhead: 70, ordersAhead: 2 });
    b.cancel("n");
    expect(b.queuePosition("c")).toEqual({ price: 40, quantityAhead: 40, ordersAhead: 1 });
    b.place(order("t2", "u4", "SELL", "YES", 40, 40));
    expect(b.queuePosition("c")).toEqual({ price: 40, quantityAhead: 0, ordersAhead: 0 });
    expect(b.queuePosition("a")).toBeUndefined();
    expect(b.queuePosition("nope")).toBeUndefined();
  });

  test("equals the naive count over random books", () => {
    const cmd = fc.record({
      cancel: fc.boolean(),
      pick: fc.nat(),
      side: fc.constantFrom<Side>("BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      price: fc.integer({ min: 45, max: 55 }),
      quantity: fc.integer({ min: 1, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(cmd, { maxLength: 80 }), (cmds) => {
        const b = new OrderBook("m");
        cmds.forEach((c, i) => {
          const open = b.openOrders();
          if (c.cancel && open.length) b.cancel(open[c.pick % open.length].orderId);
          else b.place(order(`o${i}`, `u${i % 5}`, c.side, c.outcome, c.price, c.quantity));
        });
        const open = b.openOrders();
        for (const o of open) expect(b.queuePosition(o.orderId)).toEqual(naive(open, o));
      }),
      { numRuns: 200 },
    );
  });
});
