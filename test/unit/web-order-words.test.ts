/**
 * The order history's words for how an order ended: every cancel reason the exchange can give
 * (the contract's list, which the engine's CancelReasonCode is held to) reads as a sentence, and a
 * reason the app does not know yet is shown as the server gave it.
 */
import { SCHEMAS } from "../../contract/models";
import type { CancelReasonCode } from "../../engine/settlement";
import type { CancelReason, Order } from "../../client/src/models";
import { CANCEL_REASON_WORDS, cancelReasonWords, orderState } from "../../web/src/order-words";

const reasons = SCHEMAS.Order.properties.cancelReason.enum;
// The server's reasons, the contract's and the SDK's are one list (a compile-time check both ways).
const serverToContract: ReadonlyArray<(typeof reasons)[number]> = [] as CancelReasonCode[];
const contractToServer: readonly CancelReasonCode[] = [...reasons];
const sdkToContract: ReadonlyArray<(typeof reasons)[number]> = [] as CancelReason[];
const contractToSdk: readonly CancelReason[] = [...reasons];

const order = (o: Partial<Order>): Order =>
  ({ status: "cancelled", quantity: "10000000", filledQuantity: "0", orderType: "GTC", cancelReason: null, ...o }) as Order;

describe("order states in words", () => {
  test("every cancel reason the exchange gives has its own words", () => {
    expect([contractToServer, contractToSdk]).toEqual([[...reasons], [...reasons]]);
    expect([serverToContract, sdkToContract]).toEqual([[], []]);
    expect(Object.keys(CANCEL_REASON_WORDS).sort()).toEqual([...reasons].sort());
    const said = new Set<string>();
    for (const reason of reasons) {
      const words = orderState(order({ cancelReason: reason, status: reason === "expired" ? "expired" : "cancelled" }));
      expect(words).not.toMatch(/undefined|null|_/);
      expect(words).not.toContain(`(${reason})`);
      said.add(cancelReasonWords(reason));
    }
    expect(said.size).toBe(reasons.length);
    expect(orderState(order({ cancelReason: "order_group" }))).toBe("cancelled: its order group's fill limit was reached");
    expect(orderState(order({ cancelReason: "self_trade" }))).toBe("cancelled: would have traded with your own order");
    expect(orderState(order({ cancelReason: "market_closed" }))).toBe("cancelled: market closed");
    expect(orderState(order({ cancelReason: "user" }))).toBe("cancelled by you");
    expect(orderState(order({ cancelReason: "expired", status: "expired" }))).toBe("expired");
  });

  test("a reason the app does not know yet is shown as given", () => {
    const unknown = "replaced_by_quote" as CancelReason;
    expect(orderState(order({ cancelReason: unknown }))).toBe("cancelled (replaced_by_quote)");
    expect(orderState(order({ cancelReason: unknown, filledQuantity: "2500000" }))).toBe("cancelled (replaced_by_quote), 2.5 of 10 filled");
  });

  test("open, filled, partly filled and the rest of a fill-and-kill order", () => {
    expect(orderState(order({ status: "open" }))).toBe("open");
    expect(orderState(order({ status: "filled", filledQuantity: "10000000" }))).toBe("filled");
    expect(orderState(order({ status: "partially_filled", filledQuantity: "4000000" }))).toBe("partly filled (4 of 10)");
    expect(orderState(order({ orderType: "FAK", filledQuantity: "4000000" }))).toBe("rest cancelled (fill and kill), 4 of 10 filled");
    expect(orderState(order({ status: "expired", orderType: "GTD", cancelReason: "expired", filledQuantity: "1000000" }))).toBe(
      "expired, 1 of 10 filled",
    );
  });
});
