import { type CatalogOut } from "../../catalog/catalog";
import { EXCHANGE_MODE_ID, marketSetting, MAX_REASON, TradingModes } from "../../catalog/trading-mode";
import type { MarketDoc, TradingModeDoc } from "../../models/catalog";
import { Refusal } from "../../engine/refusal";

/** The catalog's trading modes on in-memory fakes: checked, stored, answered; a refusal stores nothing. */

function world() {
  const markets = new Map<string, MarketDoc>();
  const meta = new Map<string, TradingModeDoc>();
  const market = (id: string, status: MarketDoc["status"]): MarketDoc => ({
    _id: id,
    eventId: "evt_1",
    position: 0,
    title: id,
    status,
    result: null,
    outcomes: ["YES", "NO"],
    volume: 0,
    conditionId: `0x${"0".repeat(64)}`,
    ammLiquidity: "0",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
  });
  markets.set("mkt_open", market("mkt_open", "open"));
  markets.set("mkt_closed", market("mkt_closed", "closed"));
  const modes = new TradingModes({
    market: async (id) => markets.get(id) ?? null,
    setMarketMode: async (id, set) => void markets.set(id, { ...(markets.get(id) as MarketDoc), ...set }),
    exchange: async () => meta.get(EXCHANGE_MODE_ID) ?? null,
    setExchange: async (doc) => void meta.set(doc._id, doc),
    now: () => Date.parse("2030-06-01T12:00:00.000Z"),
  });
  return { modes, markets, meta };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e instanceof Refusal ? { kind: e.kind, code: e.code, fields: e.fields } : e),
  );

describe("catalog: trading modes", () => {
  test("a market's mode is stored with its reason (trimmed) and shown; a market from before modes trades normally", async () => {
    const w = world();
    expect(marketSetting(w.markets.get("mkt_open") as MarketDoc)).toEqual({ mode: "normal", reason: null });
    const m = await w.modes.setMarket("mkt_open", "cancel_only", "  incident 12  ");
    expect(m).toMatchObject({ tradingMode: "cancel_only", tradingModeReason: "incident 12", updatedAt: "2030-06-01T12:00:00.000Z" });
    expect(marketSetting(w.markets.get("mkt_open") as MarketDoc)).toEqual({ mode: "cancel_only", reason: "incident 12" });
    await w.modes.setMarket("mkt_open", "normal", undefined);
    expect(marketSetting(w.markets.get("mkt_open") as MarketDoc)).toEqual({ mode: "normal", reason: null });
  });

  test("refusals store nothing: an unknown mode or a long reason is 400, an unknown market 404, an ended one 409", async () => {
    const w = world();
    const before = JSON.stringify([...w.markets]);
    expect(await refusal(w.modes.setMarket("mkt_open", "paused", "x"))).toEqual({
      kind: "rejected",
      code: "VALIDATION_ERROR",
      fields: [{ field: "mode", rule: "enumValue" }],
    });
    expect(await refusal(w.modes.setMarket("mkt_open", "halted", "r".repeat(MAX_REASON + 1)))).toMatchObject({
      kind: "rejected",
      fields: [{ field: "reason", rule: "stringMax" }],
    });
    expect(await refusal(w.modes.setMarket("mkt_nope", "halted", "x"))).toMatchObject({ kind: "not_found", code: "RESOURCE_NOT_FOUND" });
    expect(await refusal(w.modes.setMarket("mkt_closed", "halted", "x"))).toMatchObject({ kind: "conflict", code: "MARKET_NOT_OPEN" });
    expect(await refusal(w.modes.setExchange("stop", "x"))).toMatchObject({ kind: "rejected", code: "VALIDATION_ERROR" });
    expect(JSON.stringify([...w.markets])).toBe(before);
    expect(w.meta.size).toBe(0);
  });

  test("the exchange-wide mode: normal until set, then what was set, with when", async () => {
    const w = world();
    expect(await w.modes.exchange()).toEqual({ mode: "normal", reason: null, updatedAt: null });
    expect(await w.modes.setExchange("halted", "exchange incident")).toEqual({
      mode: "halted",
      reason: "exchange incident",
      updatedAt: "2030-06-01T12:00:00.000Z",
    });
    expect(await w.modes.exchange()).toEqual({ mode: "halted", reason: "exchange incident", updatedAt: "2030-06-01T12:00:00.000Z" });
  });

  test("a market's mode change runs in order: stored, caches dropped, channel told, then applied by the owner with the stored setting", async () => {
    const w = world();
    const steps: string[] = [];
    const out: CatalogOut = {
      changed: async (id) => void steps.push(`changed ${id} ${w.markets.get(id)?.tradingMode}`),
      emit: (e) => void steps.push(`emit ${e.name}`),
      lifecycle: (p) => void steps.push(`lifecycle ${p.marketId} ${p.tradingMode}`),
    };
    const m = await w.modes.changeMarket("mkt_open", "post_only", " drill ", out, async (id, s) => {
      steps.push(`apply ${id} ${s.mode} ${s.reason}`);
    });
    expect(m).toMatchObject({ _id: "mkt_open", tradingMode: "post_only", tradingModeReason: "drill" });
    expect(steps).toEqual(["changed mkt_open post_only", "lifecycle mkt_open post_only", "apply mkt_open post_only drill"]);
  });

  test("a refused mode change is neither announced nor applied; a failed apply fails the change after it is stored", async () => {
    const w = world();
    const steps: string[] = [];
    const out: CatalogOut = {
      changed: async (id) => void steps.push(`changed ${id}`),
      emit: () => void steps.push("emit"),
      lifecycle: () => void steps.push("lifecycle"),
    };
    const apply = async () => void steps.push("apply");
    expect(await refusal(w.modes.changeMarket("mkt_closed", "halted", "x", out, apply))).toMatchObject({ code: "MARKET_NOT_OPEN" });
    expect(await refusal(w.modes.changeExchange("stop", "x", apply))).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(steps).toEqual([]);
    const down = new Error("owner down");
    await expect(w.modes.changeMarket("mkt_open", "halted", "x", out, () => Promise.reject(down))).rejects.toBe(down);
    expect(marketSetting(w.markets.get("mkt_open") as MarketDoc)).toEqual({ mode: "halted", reason: "x" });
  });

  test("the exchange-wide change is stored, then applied with the stored setting, and answers what was stored", async () => {
    const w = world();
    const applied: unknown[] = [];
    const v = await w.modes.changeExchange("cancel_only", " maintenance ", async (s) => {
      applied.push({ ...s, stored: w.meta.get(EXCHANGE_MODE_ID)?.mode });
    });
    expect(v).toEqual({ mode: "cancel_only", reason: "maintenance", updatedAt: "2030-06-01T12:00:00.000Z" });
    expect(applied).toEqual([{ mode: "cancel_only", reason: "maintenance", stored: "cancel_only" }]);
  });
});
