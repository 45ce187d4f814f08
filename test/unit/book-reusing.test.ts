import fc from "fast-check";
import { OrderBook } from "../../engine/book";
import { ReusingOrderBook } from "../../bench/lib/reusing-book";
import type { BookEvent, Order, OrderType, Outcome, Side } from "../../engine/types";

type Step =
  | { cancel: false; user: number; side: Side; outcome: Outcome; price: number; qty: number; type: OrderType }
  | { cancel: true; target: number; user: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    cancel: fc.constant(false as const),
    user: fc.integer({ min: 0, max: 3 }),
    side: fc.constantFrom<Side>("BUY", "SELL"),
    outcome: fc.constantFrom<Outcome>("YES", "NO"),
    price: fc.integer({ min: 46, max: 54 }),
    qty: fc.integer({ min: 1, max: 20 }),
    type: fc.constantFrom<OrderType>("GTC", "GTC", "FOK"),
  }),
  fc.record({ cancel: fc.constant(true as const), target: fc.nat(), user: fc.integer({ min: 0, max: 3 }) }),
);

describe("placeReusing / cancelReusing", () => {
  test("report exactly the events place / cancel return, in a buffer reused between commands", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 150 }), (steps) => {
        const fresh = new OrderBook("m");
        const reusing = new ReusingOrderBook("m");
        const kept: BookEvent[][] = [];
        let next = 0;
        for (const s of steps) {
          let want: BookEvent[];
          let n: number;
          if (s.cancel) {
            const id = `o${next === 0 ? 0 : s.target % next}`;
            want = fresh.cancel(id, `u${s.user}`);
            n = reusing.cancelReusing(id, `u${s.user}`);
          } else {
            const o: Order = {
              orderId: `o${next++}`,
              userId: `u${s.user}`,
              side: s.side,
              outcome: s.outcome,
              price: s.price,
              quantity: s.qty,
              orderType: s.type,
            };
            want = fresh.place({ ...o });
            n = reusing.placeReusing({ ...o });
          }
          expect(JSON.stringify(reusing.lastEvents.slice(0, n))).toBe(JSON.stringify(want));
          kept.push(want);
        }
        // What place/cancel returned is the caller's: later commands never rewrite it.
        expect(kept.flat().map((e) => e.seq)).toEqual(kept.flat().map((_, i) => i + 1));
        expect(reusing.openOrders()).toEqual(fresh.openOrders());
        expect(reusing.checkIntegrity()).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
