/**
 * The catalog service on a real ServiceBroker: its actions and events called through the broker,
 * the router (live prices) faked as a small service, what it announces heard by a listener,
 * storage in memory, no demo seed.
 */
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import CatalogService from "../../services/catalog.service";
import type { EventView, MarketView, PriceHistoryView } from "../../catalog/views";
import { until } from "../support/until";
import { listenerOf, serviceBroker, type Heard } from "../support/service-broker";

describe("catalog service", () => {
  let broker: ServiceBroker;
  const heard: Heard[] = [];
  const quotes = new Map<string, unknown>();

  const router: ServiceSchema = {
    name: "router",
    actions: {
      livePrices: (ctx: Context<{ marketIds: string[] }>) =>
        Object.fromEntries(ctx.params.marketIds.filter((id) => quotes.has(id)).map((id) => [id, quotes.get(id)])),
    },
  };
  const listener = listenerOf(
    ["market.opened", "market.closed", "market.cancelled", "market.resolved", "market.resolutionFailed", "catalog.marketChanged"],
    heard,
  );

  const create = (markets: Array<{ title: string; ammLiquidity?: string }> = [{ title: "Yes or no" }], extra: object = {}) =>
    broker.call<EventView, object>("catalog.createEvent", { title: "An event", category: "Sports", markets, ...extra });
  const names = () => heard.map((h) => h.name);

  beforeAll(async () => {
    broker = serviceBroker({}, [router, listener, CatalogService]);
    await broker.start();
  });
  afterAll(() => broker.stop());
  beforeEach(() => {
    heard.length = 0;
  });

  test("createEvent: params validated, markets opened and announced, the event readable with live prices", async () => {
    await expect(create([])).rejects.toMatchObject({ name: "ValidationError", code: 422 });
    await expect(broker.call("catalog.createEvent", { title: "x", category: "Gossip", markets: [{ title: "a" }] })).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "category" })],
    });
    await expect(create([{ title: "Same" }, { title: "same" }])).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "markets", rule: "unique" }] },
    });
    await expect(create([{ title: "a", ammLiquidity: "007" }])).rejects.toMatchObject({ name: "ValidationError" });
    expect(heard).toEqual([]);

    const e = await create([{ title: "Home", ammLiquidity: "1000000" }, { title: "Away" }], { tags: ["a", "a"], beginAt: "2026-06-01" });
    expect(e).toMatchObject({ title: "An event", category: "Sports", tags: ["a"], beginAt: "2026-06-01T00:00:00.000Z", volumeUsd: "0" });
    expect(e.markets.map((m) => [m.title, m.status, m.buyYesPrice])).toEqual([
      ["Home", "open", null],
      ["Away", "open", null],
    ]);
    expect(heard).toEqual(
      e.markets.map((m, i) => ({
        name: "market.opened",
        params: { marketId: m.id, eventId: e.id, ammLiquidity: i === 0 ? "1000000" : "0" },
      })),
    );

    quotes.set(e.markets[0].id, { buyYesPrice: "0.55", buyNoPrice: "0.47", sellYesPrice: "0.53", sellNoPrice: "bogus" });
    const read = await broker.call<EventView, object>("catalog.getEvent", { id: e.id });
    expect(read.markets[0]).toMatchObject({ buyYesPrice: "0.55", buyNoPrice: "0.47", sellYesPrice: "0.53", sellNoPrice: null });
    expect(read.markets[1].buyYesPrice).toBeNull();
    expect((await broker.call<MarketView, object>("catalog.getMarket", { id: e.markets[0].id })).buyYesPrice).toBe("0.55");
  });

  test("a reused externalEventId is 409 DUPLICATE_EVENT; unknown ids are 404; malformed ids never reach the store", async () => {
    await create([{ title: "First" }], { externalEventId: "ext-dup" });
    await expect(create([{ title: "Second" }], { externalEventId: "ext-dup" })).rejects.toMatchObject({
      code: 409,
      type: "DUPLICATE_EVENT",
    });
    await expect(broker.call("catalog.getEvent", { id: "evt_nope" })).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
      message: "Event not found",
    });
    await expect(broker.call("catalog.getMarketInternal", { marketId: "mkt_nope" })).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
    });
    await expect(broker.call("catalog.getMarket", { id: { $ne: 1 } })).rejects.toMatchObject({ name: "ValidationError" });
    await expect(broker.call("catalog.closeMarket", { id: "a b" })).rejects.toMatchObject({ name: "ValidationError" });
  });

  test("transitions: each status entered is announced in order and every cache is told; refusals are 409", async () => {
    const [m] = (await create()).markets;
    heard.length = 0;
    const resolved = await broker.call<MarketView, object>("catalog.resolveMarket", { id: m.id, result: "YES" });
    expect(resolved).toMatchObject({ id: m.id, status: "resolved", result: "YES" });
    expect(heard).toEqual([
      { name: "catalog.marketChanged", params: { marketId: m.id } },
      { name: "market.closed", params: { marketId: m.id } },
      { name: "market.resolved", params: { marketId: m.id, result: "YES", conditionId: m.conditionId, yesPayout: 1_000_000 } },
    ]);
    heard.length = 0;
    await expect(broker.call("catalog.cancelMarket", { id: m.id })).rejects.toMatchObject({
      code: 409,
      type: "ILLEGAL_TRANSITION",
      message: "Cannot cancel a market that is resolved",
    });
    await expect(broker.call("catalog.resolveMarket", { id: m.id, result: "MAYBE" })).rejects.toMatchObject({
      code: 422,
      name: "ValidationError",
    });
    expect(heard).toEqual([]);

    const [n] = (await create()).markets;
    await broker.call("catalog.closeMarket", { id: n.id });
    heard.length = 0;
    expect(await broker.call("catalog.failResolution", { id: n.id, reason: "oracle down" })).toMatchObject({ status: "resolution_failed" });
    expect(names()).toEqual(["catalog.marketChanged", "market.resolutionFailed"]);
    expect(await broker.call("catalog.getMarketInternal", { marketId: n.id })).toMatchObject({ status: "resolution_failed" });
  });

  test("cancelMarket: the price (default 0.50) is stored and announced as the YES payout; a bad price changes nothing", async () => {
    const [m, n] = (await create([{ title: "One" }, { title: "Two" }])).markets;
    heard.length = 0;
    for (const price of ["1.5", "0.333", "-0", "half", 0.5, "", {}]) {
      await expect(broker.call("catalog.cancelMarket", { id: m.id, price })).rejects.toMatchObject({ name: "ValidationError" });
    }
    expect(heard).toEqual([]);
    expect(await broker.call("catalog.getMarketInternal", { marketId: m.id })).toMatchObject({ status: "open" });

    expect(await broker.call("catalog.cancelMarket", { id: m.id, price: "0.2" })).toMatchObject({ id: m.id, status: "cancelled" });
    expect(heard).toEqual([
      { name: "catalog.marketChanged", params: { marketId: m.id } },
      { name: "market.cancelled", params: { marketId: m.id, yesPayout: 200_000 } },
    ]);
    expect(await broker.call("catalog.getMarketInternal", { marketId: m.id })).toMatchObject({ status: "cancelled", yesPayout: 200_000 });
    await broker.call("catalog.cancelMarket", { id: n.id });
    expect(heard[heard.length - 1]).toEqual({ name: "market.cancelled", params: { marketId: n.id, yesPayout: 500_000 } });
  });

  test("market.trade prints become price history and volumes; replays and junk change nothing", async () => {
    const e = await create([{ title: "A" }, { title: "B" }]);
    const [a, b] = e.markets.map((m) => m.id);
    const at = new Date().toISOString();
    const print = (tradeId: string, marketId: string, yesPrice: number, notional: number) => ({
      tradeId,
      marketId,
      outcome: "YES",
      yesPrice,
      quantity: 1_000_000,
      notional,
      at,
    });
    broker.emit("market.trade", print("t1", a, 40, 400_000));
    broker.emit("market.trade", print("t2", a, 60, 600_000));
    broker.emit("market.trade", print("t3", b, 10, 100_000));
    broker.emit("market.trade", print("t1", a, 40, 400_000));
    // Refused by the event's params: never recorded.
    broker.emit("market.trade", print("t4", a, 100, 1));
    broker.emit("market.trade", { ...print("t5", a, 50, 1), at: "not a date" });
    const event = await until("volumes", async () => {
      const r = await broker.call<EventView, object>("catalog.getEvent", { id: e.id });
      return r.volumeUsd === "1.1" ? r : null;
    });
    expect(event.markets.map((m) => m.volume)).toEqual(["1", "0.1"]);
    const h = await broker.call<PriceHistoryView, object>("catalog.priceHistory", { marketId: a, interval: "1H" });
    expect(h).toMatchObject({ marketId: a, outcome: "YES", interval: "1H", currentPrice: 0.6, volume24h: 1 });
    const no = await broker.call<PriceHistoryView, object>("catalog.priceHistory", { marketId: a, outcome: "NO" });
    expect(no).toMatchObject({ interval: "1D", currentPrice: 0.4 });
    await expect(broker.call("catalog.priceHistory", { marketId: a, interval: "2Y" })).rejects.toMatchObject({ name: "ValidationError" });
  });

  test("a batch of prints older than the market's last trade adds its volume and leaves the last trade's price", async () => {
    const e = await create([{ title: "Late prints" }]);
    const [a] = e.markets.map((m) => m.id);
    const print = (tradeId: string, yesPrice: number, at: string) => ({
      tradeId,
      marketId: a,
      outcome: "YES",
      yesPrice,
      quantity: 1_000_000,
      notional: yesPrice * 10_000,
      at,
    });
    const outcome = async () => (await broker.call<EventView, object>("catalog.getEvent", { id: e.id })).outcomes[0];
    broker.emit("market.trade", print("late-1", 70, new Date().toISOString()));
    await until("the first batch", async () => ((await outcome()).chance === "0.70" ? true : null));
    // Printed a minute earlier, recorded in a later batch.
    broker.emit("market.trade", print("late-0", 30, new Date(Date.now() - 60_000).toISOString()));
    const later = await until("the second batch's volume", async () => {
      const r = await broker.call<EventView, object>("catalog.getEvent", { id: e.id });
      return r.volumeUsd === "1" ? r : null;
    });
    expect(later.markets[0].volume).toBe("1");
    expect(later.outcomes[0].chance).toBe("0.70");
  });

  test("updateEvent and the lists: display fields and market titles change, search follows; marketTitles answers many", async () => {
    const e = await create([{ title: "Rain" }], { title: "Weather in Paris" });
    const updated = await broker.call<EventView, object>("catalog.updateEvent", {
      id: e.id,
      title: "Weather in Lyon",
      markets: [{ id: e.markets[0].id, title: "Snow" }],
    });
    expect(updated).toMatchObject({ title: "Weather in Lyon", markets: [expect.objectContaining({ title: "Snow" })] });
    const found = await broker.call<{ items: EventView[]; pagination: { total: number } }, object>("catalog.searchEvents", {
      q: "lyon snow",
    });
    expect(found.items.map((x) => x.id)).toEqual([e.id]);
    expect((await broker.call<{ items: EventView[] }, object>("catalog.searchEvents", { q: "paris" })).items).toEqual([]);
    const listed = await broker.call<{ items: EventView[]; pagination: { total: number } }, object>("catalog.listEvents", {
      search: "lyon",
      pageSize: "5",
    });
    expect(listed.items.map((x) => x.id)).toEqual([e.id]);
    expect(listed.pagination).toMatchObject({ total: 1, page: 1, pageSize: 5 });
    await expect(broker.call("catalog.updateEvent", { id: e.id, markets: [{ id: "mkt_other", title: "x" }] })).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
      message: "Market not found",
    });
    expect(await broker.call("catalog.marketTitles", { marketIds: [e.markets[0].id, "mkt_nope"] })).toEqual({
      [e.markets[0].id]: { title: "Snow", status: "open", result: null },
    });
  });
});
