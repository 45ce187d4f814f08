/**
 * The server's answers are the contract's types, not copies held equal after the fact: the
 * views the handlers return (orders, placements, trades, balances, books, batches, redemptions,
 * pages) are declared as `Model<...>` / `ActionResult<...>`, so a field the contract does not have,
 * a missing one or a wider value (a cancel reason outside the enum, a redemption that "failed")
 * does not compile (`tsc` over tests; on an error, hover the failing alias).
 */
import type { ActionResult, Model, Paged, SocketModel } from "../../contract";
import type { RedeemAnswer } from "../../chain/redemptions";
import type { Candle, PriceHistory } from "../../catalog/candles";
import type { Page, Pagination } from "../../lib/paging";
import type { FieldError } from "../../engine/refusal";
import { balanceView, positionChangeView, tradeView } from "../../ledger/views";
import type { OrderDoc } from "../../models/trading";
import type { BatchItem, OrderDesk } from "../../trading/order-desk";
import { levelView, orderView, placeView, type PlaceView } from "../../trading/order-views";

type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

export type HandlersAnswerTheContract = [
  // POST /orders/batch: each item is the contract's BatchOrderResult.
  Check<Agree<BatchItem, Model<"BatchOrderResult">>>,
  Check<Agree<Awaited<ReturnType<OrderDesk<unknown>["placeBatch"]>>, ActionResult<"book.placeBatch">>>,
  // GET /orders: an order's cancel reason is the contract's enum, from the read model up.
  Check<Agree<ReturnType<typeof orderView>, Model<"Order">>>,
  Check<Agree<OrderDoc["cancelReason"], Model<"Order">["cancelReason"]>>,
  // POST /redeem/:marketId answers accepted or duplicate, never failed.
  Check<Agree<RedeemAnswer, ActionResult<"chain.redeem">>>,
  // The views are the models.
  Check<Agree<PlaceView, Model<"PlacedOrder">>>,
  Check<Agree<ReturnType<typeof placeView>, Model<"PlacedOrder">>>,
  Check<Agree<ReturnType<typeof tradeView>, Model<"Trade">>>,
  Check<Agree<ReturnType<typeof balanceView>, Model<"Balance">>>,
  Check<Agree<ReturnType<typeof levelView>, Model<"OrderBook">>>,
  Check<Agree<Candle, Model<"Candle">>>,
  Check<Agree<PriceHistory & Pick<Model<"PriceHistory">, "marketId" | "outcome" | "interval">, Model<"PriceHistory">>>,
  Check<Agree<Pagination, Model<"Pagination">>>,
  Check<Agree<FieldError, Model<"FieldError">>>,
  Check<Agree<Page<Model<"Order">>, Paged<Model<"Order">>>>,
  Check<Agree<ReturnType<typeof positionChangeView>, SocketModel<"PositionUpdate">>>,
];

describe("server answers typed by the contract", () => {
  test("a wrong answer does not compile", () => {
    const unused = () => {
      // @ts-expect-error: a redemption never answers "failed"
      const redeemed: RedeemAnswer = { status: "failed", message: "x" };
      // @ts-expect-error: a batch item's order is a PlacedOrder, not anything
      const item: BatchItem = { ok: true, order: { orderId: "o" } };
      // @ts-expect-error: a cancel reason outside the contract's enum
      const reason: OrderDoc["cancelReason"] = "bored";
      // @ts-expect-error: a batch error's fields are FieldErrors
      const failed: BatchItem = { ok: false, error: { code: "X", message: "m", fields: [{ field: "f" }] } };
      return [redeemed, item, reason, failed];
    };
    expect(typeof unused).toBe("function");
  });

  test("the views render the contract's fields, no more", () => {
    expect(balanceView({ available: 1, locked: 2, total: 3 })).toEqual({ available: "1", locked: "2", total: "3" });
    expect(levelView({ bids: [{ price: 55, quantity: 1_000_000, numOrders: 2 }], asks: [] })).toEqual({
      bids: [{ price: "0.55", quantity: "1000000", numOrders: 2 }],
      asks: [],
    });
  });
});
