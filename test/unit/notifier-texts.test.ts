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
    body: "“Rain?” was cancelled at 0.20 (YES 0.20, NO 0.80 per share); your 5 YES shares pay 1.00 USDT: redeem them from your portfolio.",
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
    "market m was cancelled at 0.33 (YES 0.33, NO 0.67 per share); your 1.000001 YES and 1.000001 NO shares pay 1.000001 USDT: redeem them from your portfolio.",
  );
  expect(render(cancelled("0.50", []), null).body).toBe("market m was cancelled at 0.50 (YES 0.50, NO 0.50 per share).");
});
