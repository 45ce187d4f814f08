/**
 * The catalog service's resolution process on a real ServiceBroker: propose, dispute (holders from
 * a faked ledger), finalize, and the market clock (close times, windows) with a short window;
 * what it announces heard by a listener (market events, the lifecycle broadcast), storage in memory.
 */
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import CatalogService from "../../services/catalog.service";
import type { EventView, MarketView } from "../../catalog/views";
import { until } from "../support/until";
import { listenerOf, serviceBroker, type Heard } from "../support/service-broker";

const WINDOW_MS = 400;

describe("catalog service: the resolution process", () => {
  let broker: ServiceBroker;
  const heard: Heard[] = [];
  const holders = new Set(["usr_holder"]);

  const ledger: ServiceSchema = {
    name: "ledger",
    actions: {
      account: (ctx: Context<{ account: string }>) => ({
        positions: holders.has(ctx.params.account) ? [{ marketId: lastMarket, outcome: "YES", quantity: 1_000_000 }] : [],
      }),
    },
  };
  const listener = listenerOf(
    ["market.closed", "market.resolved", "market.resolutionProposed", "market.resolutionDisputed", "catalog.marketLifecycle"],
    heard,
  );
  let lastMarket = "";
  const as = (userId: string) => ({ meta: { user: { id: userId } } });
  const create = async (market: Record<string, unknown> = {}): Promise<string> => {
    const e = await broker.call<EventView, object>("catalog.createEvent", {
      title: "Weather",
      category: "Culture",
      markets: [{ title: "Rain?", ...market }],
    });
    lastMarket = e.markets[0].id;
    return lastMarket;
  };
  const get = (id: string) => broker.call<MarketView, object>("catalog.getMarket", { id });

  beforeAll(async () => {
    broker = serviceBroker({ RESOLUTION_DISPUTE_WINDOW_MS: String(WINDOW_MS), RESOLUTION_CLOCK_MS: "50" }, [
      ledger,
      listener,
      CatalogService,
    ]);
    await broker.start();
  });
  afterAll(() => broker.stop());
  beforeEach(() => {
    heard.length = 0;
  });

  test("rules, sources and close time are stored and shown; update changes them; bad ones are refused", async () => {
    const id = await create({ rules: "  YES if it rains  ", settlementSources: [{ name: "Met", url: "https://met.example/" }] });
    expect(await get(id)).toMatchObject({
      rules: "YES if it rains",
      settlementSources: [{ name: "Met", url: "https://met.example/" }],
      closeTime: null,
      resolution: null,
    });
    const e = (await get(id)).eventId;
    const closeTime = "2099-01-01T00:00:00.000Z";
    await broker.call("catalog.updateEvent", { id: e, markets: [{ id, rules: null, closeTime }] });
    expect(await get(id)).toMatchObject({ rules: null, closeTime, title: "Rain?" });
    await expect(broker.call("catalog.updateEvent", { id: e, markets: [{ id, closeTime: "2099-13-45" }] })).rejects.toMatchObject({
      code: 400,
      data: { fields: [{ field: "markets[0].closeTime", rule: "date" }] },
    });
    expect((await get(id)).closeTime).toBe(closeTime);
  });

  test("a close time that passes closes the market by the clock, announced once with its lifecycle", async () => {
    const id = await create({ closeTime: new Date(Date.now() + 100).toISOString() });
    await until("the close", async () => (await get(id)).status === "closed");
    await new Promise((r) => setTimeout(r, 200));
    expect(heard.filter((h) => h.params.marketId === id).map((h) => h.name)).toEqual(["catalog.marketLifecycle", "market.closed"]);
    expect(heard.find((h) => h.name === "catalog.marketLifecycle")?.params).toEqual({
      marketId: id,
      status: "closed",
      resolution: null,
      tradingMode: "normal",
    });
  });

  test("propose, a non-holder's and a holder's dispute, then the operator's amended finalization", async () => {
    const id = await create();
    const proposed = await broker.call<MarketView, object>("catalog.proposeResolution", { id, result: "YES", note: "measured" });
    expect(proposed).toMatchObject({ status: "closed", resolution: { proposedResult: "YES", note: "measured", disputes: 0 } });
    expect(heard.map((h) => h.name)).toEqual([
      "catalog.marketLifecycle",
      "market.closed",
      "catalog.marketLifecycle",
      "market.resolutionProposed",
    ]);
    await expect(broker.call("catalog.dispute", { id, reason: "it did not rain" }, as("usr_stranger"))).rejects.toMatchObject({
      code: 403,
      type: "FORBIDDEN",
    });
    await expect(broker.call("catalog.dispute", { id, reason: "short" }, as("usr_holder"))).rejects.toMatchObject({
      name: "ValidationError",
    });
    const d = await broker.call<{ resolution: { disputed: boolean; disputes: number } }, object>(
      "catalog.dispute",
      { id, reason: "it did not rain" },
      as("usr_holder"),
    );
    expect(d.resolution).toMatchObject({ disputed: true, disputes: 1 });
    await expect(broker.call("catalog.dispute", { id, reason: "it did not rain" }, as("usr_holder"))).rejects.toMatchObject({
      code: 409,
      type: "ALREADY_DISPUTED",
    });
    // Past the window: disputed, so it waits.
    await new Promise((r) => setTimeout(r, WINDOW_MS + 300));
    expect((await get(id)).status).toBe("closed");
    await expect(broker.call("catalog.dispute", { id, reason: "it did not rain" }, as("usr_holder"))).rejects.toMatchObject({
      type: "DISPUTE_WINDOW_CLOSED",
    });
    const done = await broker.call<MarketView, object>("catalog.finalizeResolution", { id, result: "NO" });
    expect(done).toMatchObject({ status: "resolved", result: "NO", resolution: { proposedResult: "YES", disputed: true } });
    expect(heard.filter((h) => h.name === "market.resolved").map((h) => h.params)).toEqual([
      { marketId: id, result: "NO", conditionId: done.conditionId, yesPayout: 0 },
    ]);
    expect(heard.filter((h) => h.name === "market.resolutionDisputed")).toHaveLength(1);
  });

  test("an undisputed proposal finalizes by itself once the window ends", async () => {
    const id = await create();
    await broker.call("catalog.proposeResolution", { id, result: "SPLIT" });
    const m = await until("the finalization", async () => {
      const x = await get(id);
      return x.status === "resolved" ? x : null;
    });
    expect(m).toMatchObject({ result: "SPLIT", resolution: { proposedResult: "SPLIT", disputed: false } });
    expect(heard.filter((h) => h.name === "market.resolved").map((h) => h.params.yesPayout)).toEqual([500_000]);
    await expect(broker.call("catalog.finalizeResolution", { id, result: "YES" })).rejects.toMatchObject({
      code: 409,
      type: "NO_PROPOSAL",
    });
    await expect(broker.call("catalog.proposeResolution", { id, result: "YES" })).rejects.toMatchObject({ code: 409 });
  });
  test("a change of trading mode is a lifecycle message too, carrying the mode; so is a close", async () => {
    const id = await create();
    await broker.call("catalog.setTradingMode", { id, mode: "cancel_only", reason: "incident" });
    await until("the mode's lifecycle message", () => heard.some((h) => h.name === "catalog.marketLifecycle"));
    expect(heard.filter((h) => h.name === "catalog.marketLifecycle").map((h) => h.params)).toEqual([
      { marketId: id, status: "open", resolution: null, tradingMode: "cancel_only" },
    ]);
    await broker.call("catalog.closeMarket", { id });
    await until("the close's lifecycle message", () => heard.filter((h) => h.name === "catalog.marketLifecycle").length === 2);
    expect(heard.filter((h) => h.name === "catalog.marketLifecycle")[1].params).toMatchObject({
      status: "closed",
      tradingMode: "cancel_only",
    });
  });
});
