import { allowedFrom, isTerminal, planTransition, type MarketCommand } from "../../catalog/lifecycle";
import { MARKET_STATUSES, type MarketStatus } from "../../models/catalog";

// The whole table: [from, command] -> statuses entered, or null when refused.
const EXPECTED: Record<MarketStatus, Record<MarketCommand, MarketStatus[] | null>> = {
  open: { close: ["closed"], cancel: ["cancelled"], resolve: ["closed", "resolved"], failResolution: null },
  closed: { close: null, cancel: ["cancelled"], resolve: ["resolved"], failResolution: ["resolution_failed"] },
  resolution_failed: { close: null, cancel: null, resolve: ["resolved"], failResolution: null },
  resolved: { close: null, cancel: null, resolve: null, failResolution: null },
  cancelled: { close: null, cancel: null, resolve: null, failResolution: null },
};
const COMMANDS: MarketCommand[] = ["close", "cancel", "resolve", "failResolution"];

describe("market lifecycle", () => {
  const cases = MARKET_STATUSES.flatMap((from) => COMMANDS.map((cmd) => [from, cmd, EXPECTED[from][cmd]] as const));

  test.each(cases)("%s --%s--> %j", (from, cmd, entered) => {
    const plan = planTransition(from, cmd);
    if (entered === null) {
      expect(plan.ok).toBe(false);
      if (!plan.ok) expect(plan.message).toContain(from);
    } else {
      expect(plan).toEqual({ ok: true, from, to: entered[entered.length - 1], entered });
    }
  });

  test("resolved and cancelled are terminal; nothing leaves them", () => {
    expect(MARKET_STATUSES.filter(isTerminal)).toEqual(["resolved", "cancelled"]);
    for (const s of MARKET_STATUSES.filter(isTerminal)) for (const c of COMMANDS) expect(planTransition(s, c).ok).toBe(false);
  });

  test("allowedFrom lists the sources of each command", () => {
    expect(allowedFrom("close")).toEqual(["open"]);
    expect(allowedFrom("cancel")).toEqual(["open", "closed"]);
    expect(allowedFrom("resolve")).toEqual(["open", "closed", "resolution_failed"]);
    expect(allowedFrom("failResolution")).toEqual(["closed"]);
  });
});
