import { NOTIFICATION_TYPES, PUSH_KINDS } from "../../models/notification";
import { DEFAULT_PUSH, KIND_OF, mergePush, pushes } from "../../notifier/push-kinds";

describe("which notifications the bot pushes", () => {
  test("every notification type has a kind, and every kind names some type", () => {
    for (const t of NOTIFICATION_TYPES) expect(PUSH_KINDS).toContain(KIND_OF[t]);
    for (const k of PUSH_KINDS) expect(Object.values(KIND_OF)).toContain(k);
  });

  test("without a choice everything is pushed; a kind turned off stops its types only", () => {
    for (const t of NOTIFICATION_TYPES) expect(pushes(t, null)).toBe(true);
    const quiet = mergePush(null, { settlement: false, trades: false });
    expect(quiet).toEqual({ trades: false, settlement: false, results: true, transfers: true });
    expect(pushes("SETTLEMENT_CONFIRMED", quiet)).toBe(false);
    expect(pushes("TRADE_FILLED", quiet)).toBe(false);
    expect(pushes("ORDER_CANCELLED", quiet)).toBe(false);
    expect(pushes("MARKET_RESOLVED", quiet)).toBe(true);
    expect(pushes("DEPOSIT_CREDITED", quiet)).toBe(true);
    // A failed settlement needs the user's attention whatever the setting.
    expect(pushes("SETTLEMENT_FAILED", quiet)).toBe(true);
  });

  test("a change keeps the kinds it does not name and leaves the defaults untouched", () => {
    const a = mergePush(null, { results: false });
    expect(mergePush(a, { trades: false })).toEqual({ trades: false, settlement: true, results: false, transfers: true });
    expect(mergePush(a, {})).toEqual(a);
    expect(DEFAULT_PUSH).toEqual({ trades: true, settlement: true, results: true, transfers: true });
  });
});
