/** Texts of the holders' market notices (notifier/texts.ts). Pure. */
import type { AnyDraft } from "../../notifier/derive";
import { render } from "../../notifier/texts";

const cancelled = (price: string, positions: Array<{ outcome: "YES" | "NO"; quantity: string }>): AnyDraft => ({
  id: "MARKET_CANCELLED:m:usr_1",
  userId: "usr_1",
  type: "MARKET_CANCELLED",
  createdAt: "2026-01-01T00:00:00.000Z",
  metadata: { marketId: "m", price, positions },
});

test("a cancellation names its price and what the holder's shares pay out of the market's collateral, rounded down once", () => {
  expect(render(cancelled("0.20", [{ outcome: "YES", quantity: "5000000" }]), "Rain?")).toEqual({
    title: "Market cancelled",
    body: "“Rain?” was cancelled at 20¢ (YES 20¢, NO 80¢ per share); your 5 YES shares pay $1.00: redeem them from your portfolio.",
  });
  const both = render(
    cancelled("0.33", [
      { outcome: "YES", quantity: "1000001" },
      { outcome: "NO", quantity: "1000001" },
    ]),
    null,
  );
  // 1.000001 x 0.33 + 1.000001 x 0.67 = 1.000001 exactly; 0.000001 x 0.33 alone would round to 0.
  expect(both.body).toBe(
    "market m was cancelled at 33¢ (YES 33¢, NO 67¢ per share); your 1.000001 YES and 1.000001 NO shares pay $1.000001: redeem them from your portfolio.",
  );
  expect(render(cancelled("0.50", []), null).body).toBe("market m was cancelled at 50¢ (YES 50¢, NO 50¢ per share).");
});

test("a fill in the app's words: shares, the price in cents, the money in dollars; exact where rounding would mislead", () => {
  const fill = (avgPrice: string, totalCost: string, fee: string): AnyDraft =>
    ({
      id: "TRADE_FILLED:trd_1",
      userId: "usr_1",
      type: "TRADE_FILLED",
      createdAt: "2026-01-01T00:00:00.000Z",
      metadata: { marketId: "m", tradeId: "trd_1", side: "BUY", outcome: "YES", filledQuantity: "10000000", avgPrice, totalCost, fee },
    }) as AnyDraft;
  expect(render(fill("0.52", "5200000", "0"), "Rain?")).toEqual({ title: "Bought YES", body: "Bought 10 YES at 52¢ ($5.20) in “Rain?”." });
  expect(render(fill("0.5019", "5019000", "12500"), null).body).toBe("Bought 10 YES at 50.19¢ ($5.019) in market m, fee $0.0125.");
  expect(render(fill("0.05", "1234500000", "0"), null).body).toBe("Bought 10 YES at 5¢ ($1,234.50) in market m.");
});
