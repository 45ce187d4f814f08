/**
 * The catalog service's mutually exclusive events on a real ServiceBroker: created through the
 * contract's params, listed with their outcomes and chances (the router faked as a small service,
 * trade prints sent as events), an outcome added, one NO alone, the event resolved as one step
 * and a second YES refused with nothing changed, and the event's proposal finalized by the clock.
 */
import type { Context, ServiceBroker, ServiceSchema } from "moleculer";
import CatalogService from "../../services/catalog.service";
import type { EventView, MarketView } from "../../catalog/views";
import type { EventInternal } from "../../models/catalog";
import { until } from "../support/until";
import { listenerOf, serviceBroker, type Heard } from "../support/service-broker";

const WINDOW_MS = 300;

describe("catalog service: mutually exclusive events", () => {
  let broker: ServiceBroker;
  const heard: Heard[] = [];
  const asked: string[][] = [];
  /** YES bid/ask per market the fake router answers. */
  const quotes = new Map<string, { sellYesPrice: string; buyYesPrice: string }>();

  const router: ServiceSchema = {
    name: "router",
    actions: {
      livePrices: (ctx: Context<{ marketIds: string[] }>) => {
        asked.push(ctx.params.marketIds);
        return Object.fromEntries(ctx.params.marketIds.map((id) => [id, { buyNoPrice: null, sellNoPrice: null, ...quotes.get(id) }]));
      },
    },
  };
  const listener = listenerOf(["market.opened", "market.closed", "market.resolved", "event.resolved"], heard);
  const race = (title: string, over: Record<string, unknown> = {}) =>
    broker.call<EventView, object>("catalog.createEvent", {
      title,
      category: "Politics",
      mutuallyExclusive: true,
      markets: ["Alice", "Bob", "Carol"].map((name) => ({ title: `${title}: ${name}?`, outcomeLabel: name })),
      ...over,
    });
  const event = (id: string) => broker.call<EventView, object>("catalog.getEvent", { id });

  beforeAll(async () => {
    broker = serviceBroker({ RESOLUTION_DISPUTE_WINDOW_MS: String(WINDOW_MS), RESOLUTION_CLOCK_MS: "50" }, [
      router,
      listener,
      CatalogService,
    ]);
    await broker.start();
  });
  afterAll(() => broker.stop());
  beforeEach(() => {
    heard.length = 0;
    asked.length = 0;
  });

  test("created with its flags and labels; lists show outcomes with chances from one price request per page", async () => {
    const e = await race("Mayor", { exhaustive: true, ammLiquidity: "500000000" });
    expect(e).toMatchObject({ mutuallyExclusive: true, exhaustive: true, ammLiquidity: "500000000" });
    expect(e.markets.map((m) => [m.outcomeLabel, m.eventId])).toEqual(["Alice", "Bob", "Carol"].map((l) => [l, e.id]));
    const [a, b, c] = e.markets.map((m) => m.id);
    quotes.set(a, { sellYesPrice: "0.50", buyYesPrice: "0.54" });
    quotes.set(b, { sellYesPrice: "0.10", buyYesPrice: "0.40" });
    broker.emit("market.trade", {
      marketId: b,
      tradeId: "t-b1",
      outcome: "YES",
      yesPrice: 31,
      quantity: 1_000_000,
      notional: 310_000,
      at: new Date().toISOString(),
    });
    await until("the print's price", async () => (await event(e.id)).outcomes[1].chance === "0.31");
    asked.length = 0;
    const list = await broker.call<{ items: EventView[] }, object>("catalog.listEvents", { category: "Politics" });
    const row = list.items.find((x) => x.id === e.id)!;
    expect(row.markets).toEqual([]);
    expect(row.outcomes).toEqual([
      { marketId: a, label: "Alice", status: "open", chance: "0.52" },
      { marketId: b, label: "Bob", status: "open", chance: "0.31" },
      { marketId: c, label: "Carol", status: "open", chance: null },
    ]);
    expect(asked).toHaveLength(1);
    const search = await broker.call<{ items: EventView[] }, object>("catalog.searchEvents", { q: "mayor" });
    expect(search.items[0].outcomes.map((o) => o.chance)).toEqual(["0.52", "0.31", null]);

    const internal = await broker.call<EventInternal, object>("catalog.getEventInternal", { eventId: e.id });
    expect(internal).toMatchObject({ id: e.id, mutuallyExclusive: true, exhaustive: true, ammLiquidity: "500000000" });
    expect(internal.markets.map((m) => m.outcomeLabel)).toEqual(["Alice", "Bob", "Carol"]);
  });

  test("validation through the contract: labels required and at most 40 characters, winnerMarketId given", async () => {
    await expect(
      broker.call("catalog.createEvent", {
        title: "X",
        category: "Sports",
        mutuallyExclusive: true,
        markets: [{ title: "A" }, { title: "B" }],
      }),
    ).rejects.toMatchObject({ code: 400, data: { fields: [{ field: "markets[0].outcomeLabel", rule: "required" }] } });
    const long = "x".repeat(41);
    await expect(
      broker.call("catalog.createEvent", {
        title: "X",
        category: "Sports",
        mutuallyExclusive: true,
        markets: [
          { title: "A", outcomeLabel: long },
          { title: "B", outcomeLabel: "B" },
        ],
      }),
    ).rejects.toMatchObject({ name: "ValidationError", data: [{ field: "markets[0].outcomeLabel", type: "stringMax" }] });
    const e = await race("Validation");
    await expect(broker.call("catalog.resolveEvent", { id: e.id })).rejects.toMatchObject({
      name: "ValidationError",
      data: [{ field: "winnerMarketId", type: "required" }],
    });
    await expect(broker.call("catalog.addOutcome", { id: e.id, title: "No label" })).rejects.toMatchObject({
      name: "ValidationError",
      data: [{ field: "outcomeLabel", type: "required" }],
    });
  });

  test("an outcome added, one NO alone, the winner resolved as one step; a second YES is 409 with nothing changed", async () => {
    const e = await race("Governor");
    const dana = await broker.call<MarketView, object>("catalog.addOutcome", { id: e.id, title: "Governor: Dana?", outcomeLabel: "Dana" });
    expect(dana).toMatchObject({ eventId: e.id, outcomeLabel: "Dana", status: "open" });
    await until("market.opened", () => heard.some((h) => h.name === "market.opened" && h.params.marketId === dana.id));
    const [alice, bob, carol] = e.markets.map((m) => m.id);

    const dropped = await broker.call<MarketView, object>("catalog.resolveMarket", { id: carol, result: "NO" });
    expect(dropped).toMatchObject({ status: "resolved", result: "NO" });
    expect((await event(e.id)).markets.map((m) => m.status)).toEqual(["open", "open", "resolved", "open"]);

    heard.length = 0;
    const done = await broker.call<EventView, object>("catalog.resolveEvent", { id: e.id, winnerMarketId: bob });
    expect(done.markets.map((m) => [m.outcomeLabel, m.status, m.result])).toEqual([
      ["Alice", "resolved", "NO"],
      ["Bob", "resolved", "YES"],
      ["Carol", "resolved", "NO"],
      ["Dana", "resolved", "NO"],
    ]);
    expect(done.outcomes.map((o) => o.chance)).toEqual(["0.00", "1.00", "0.00", "0.00"]);
    await until("event.resolved", () => heard.some((h) => h.name === "event.resolved"));
    expect(heard.filter((h) => h.name === "event.resolved").map((h) => h.params)).toEqual([
      {
        eventId: e.id,
        winnerMarketId: bob,
        markets: [
          { marketId: alice, result: "NO", conditionId: e.markets[0].conditionId },
          { marketId: dana.id, result: "NO", conditionId: dana.conditionId },
          { marketId: bob, result: "YES", conditionId: e.markets[1].conditionId },
        ],
      },
    ]);

    const before = JSON.stringify(await event(e.id));
    await expect(broker.call("catalog.resolveMarket", { id: alice, result: "YES" })).rejects.toMatchObject({
      code: 409,
      type: "EVENT_ALREADY_DECIDED",
    });
    await expect(broker.call("catalog.resolveEvent", { id: e.id, winnerMarketId: dana.id })).rejects.toMatchObject({
      code: 409,
      type: "EVENT_ALREADY_DECIDED",
    });
    expect(JSON.stringify(await event(e.id))).toBe(before);
    await expect(broker.call("catalog.addOutcome", { id: e.id, title: "Late?", outcomeLabel: "Late" })).rejects.toMatchObject({
      code: 409,
      type: "EVENT_NOT_OPEN",
    });
  });

  test("null on an exhaustive event is 400; on another every market resolves NO", async () => {
    const ex = await race("Exhaustive", { exhaustive: true });
    await expect(broker.call("catalog.resolveEvent", { id: ex.id, winnerMarketId: null })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
    });
    expect((await event(ex.id)).markets.map((m) => m.status)).toEqual(["open", "open", "open"]);
    const open = await race("Open");
    const none = await broker.call<EventView, object>("catalog.resolveEvent", { id: open.id, winnerMarketId: null });
    expect(none.markets.map((m) => m.result)).toEqual(["NO", "NO", "NO"]);
  });

  test("the event's proposal closes its markets and finalizes by itself as one step", async () => {
    const e = await race("Senate");
    const winner = e.markets[0].id;
    const proposed = await broker.call<EventView, object>("catalog.proposeEvent", { id: e.id, winnerMarketId: winner, note: "certified" });
    expect(proposed.markets.map((m) => [m.status, m.resolution?.proposedResult])).toEqual([
      ["closed", "YES"],
      ["closed", "NO"],
      ["closed", "NO"],
    ]);
    await until("finalized", async () => (await event(e.id)).markets.every((m) => m.status === "resolved"));
    expect((await event(e.id)).markets.map((m) => m.result)).toEqual(["YES", "NO", "NO"]);
    await until("event.resolved", () => heard.some((h) => h.name === "event.resolved" && h.params.eventId === e.id));
  });
});
