/** trading/market-order.ts: a trade request's body as the market order the actor executes. */
import { LOT } from "../../engine/money";
import { marketOrderOf } from "../../trading/market-order";

const body = { marketId: "mkt_1", side: "BUY" as const, outcome: "YES" as const, quantity: String(3 * LOT) };

test("whole lots become the market order for the caller, with the mode and the request's key", () => {
  expect(marketOrderOf("u1", { ...body, venue: "AMM" } as typeof body, "AMM")).toEqual({
    ok: true,
    value: { marketId: "mkt_1", userId: "u1", side: "BUY", outcome: "YES", quantity: 3 * LOT, mode: "AMM" },
  });
  const idem = { scope: "u1", key: "k1", fingerprint: "f" };
  const r = marketOrderOf("u1", body, "ROUTE", idem);
  expect(r.ok && r.value).toMatchObject({ mode: "ROUTE", idem });
});

test("a quantity that is not whole lots is refused naming the field", () => {
  for (const quantity of ["0", String(LOT + 1)]) {
    expect(marketOrderOf("u1", { ...body, quantity }, "ROUTE")).toEqual({
      ok: false,
      message: `quantity must be a positive multiple of ${LOT} micro-units`,
      fields: [{ field: "quantity", rule: "lot" }],
    });
  }
});
