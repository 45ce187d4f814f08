/**
 * Mutually exclusive events in the catalog core (catalog/catalog.ts, catalog/process.ts,
 * catalog/exclusive.ts) on in-memory fakes: the event's shape, outcomes added, the one-step
 * resolution, a second winner refused with nothing changed, a NO alone, the event-level proposal
 * finalized by the clock as one step, and the chance the views show.
 */
import { Catalog, type CatalogEvent, type CatalogOut, type CatalogPorts } from "../../catalog/catalog";
import { Refusal } from "../../engine/refusal";
import { ResolutionProcess, type ProcessPorts } from "../../catalog/process";
import { EVENT_ALREADY_DECIDED, EVENT_NOT_MUTUALLY_EXCLUSIVE, EVENT_NOT_OPEN, planEventResolution } from "../../catalog/exclusive";
import { chanceOf, eventCloseTime, NO_PRICES, renderEvent, renderMarket, renderOutcome } from "../../catalog/views";
import { DEMO_EVENTS, demoMarketId } from "../../catalog/demo";
import { DEMO_QUOTE_SHARES, demoMakerPlan, eventPoolSteps } from "../../catalog/demo-maker";
import { NONE_OUTCOME, prices as lmsrPrices } from "../../engine/lmsr";
import { applyTrade, createPool, marginalPrice } from "../../engine/amm";
import type { CreateEventParams, DisputeDoc, EventDoc, MarketDoc, ResolutionDoc } from "../../models/catalog";

const T0 = Date.parse("2026-06-01T12:00:00.000Z");
const WINDOW = 60_000;

function world() {
  const events = new Map<string, EventDoc>();
  const markets = new Map<string, MarketDoc>();
  const disputes = new Map<string, DisputeDoc>();
  const clock = { ms: T0 };
  let n = 0;
  const matches = (m: MarketDoc, r: Partial<ResolutionDoc> | null | undefined) =>
    r === undefined ||
    (r === null ? !m.resolution : !!m.resolution && Object.entries(r).every(([k, v]) => m.resolution![k as keyof ResolutionDoc] === v));
  const marketPorts: CatalogPorts["markets"] = {
    get: async (id) => markets.get(id) ?? null,
    ofEvent: async (eventId) => [...markets.values()].filter((m) => m.eventId === eventId).sort((a, b) => a.position - b.position),
    insertOnce: async (doc) => !markets.has(doc._id) && (markets.set(doc._id, doc), true),
    removeMany: async (ids) => ids.forEach((id) => markets.delete(id)),
    retitle: async () => undefined,
    edit: async (id, _e, set) => void markets.set(id, { ...markets.get(id)!, ...set }),
    setIfStatus: async (id, from, set, resolution) => {
      const m = markets.get(id);
      if (!m || m.status !== from || !matches(m, resolution)) return false;
      markets.set(id, { ...m, ...set });
      return true;
    },
    due: async (nowIso) =>
      [...markets.values()].filter(
        (m) =>
          m.status === "closed" &&
          !!m.resolution &&
          m.resolution.finalizedAt === null &&
          !m.resolution.disputed &&
          m.resolution.disputeEndsAt <= nowIso,
      ),
    traded: async () => undefined,
  };
  const eventPorts: CatalogPorts["events"] = {
    get: async (id) => events.get(id) ?? null,
    insertOnce: async (doc) => !events.has(doc._id) && (events.set(doc._id, doc), true),
    update: async (id, set) => void events.set(id, { ...events.get(id)!, ...set }),
    addVolume: async () => undefined,
    decide: async (id, decision) => {
      const e = events.get(id);
      if (!e || e.decision) return false;
      events.set(id, { ...e, decision });
      return true;
    },
  };
  const log = { info: () => undefined, warn: () => undefined };
  const catalog = new Catalog({
    events: eventPorts,
    markets: marketPorts,
    prints: { storedIds: async () => [], insertMany: async () => undefined },
    meta: { get: async () => null, insertOnce: async () => true, markDone: async () => undefined },
    newId: (p) => `${p}_${++n}`,
    nodeID: "n",
    now: () => clock.ms,
    log,
  });
  const ports: ProcessPorts = {
    markets: marketPorts,
    events: eventPorts,
    disputes: {
      insertOnce: async (doc) => !disputes.has(doc._id) && (disputes.set(doc._id, doc), true),
      count: async (marketId, proposedAt) =>
        [...disputes.values()].filter((d) => d.marketId === marketId && d.proposedAt === proposedAt).length,
    },
    holds: async () => true,
    windowMs: WINDOW,
    now: () => clock.ms,
    log,
  };
  const process = new ResolutionProcess(catalog, ports);
  const told: CatalogEvent[] = [];
  const out: CatalogOut = { changed: async () => undefined, emit: (e) => void told.push(e), lifecycle: () => undefined };
  const snapshot = () => JSON.stringify({ e: [...events.entries()], m: [...markets.entries()] });
  return { events, markets, clock, catalog, process, told, out, snapshot };
}

const race = (over: Partial<CreateEventParams> = {}): CreateEventParams => ({
  title: "Who wins the race?",
  category: "Politics",
  mutuallyExclusive: true,
  markets: ["Alice", "Bob", "Carol"].map((name) => ({ title: `Will ${name} win?`, outcomeLabel: name })),
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<Refusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Refusal);
  return err as Refusal;
}

describe("mutually exclusive events: shape", () => {
  test("stored with its flags, labels and event-level AMM; views carry them and one outcome row per market", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race({ exhaustive: true, ammLiquidity: "300000000" }), w.out);
    expect(event).toMatchObject({ mutuallyExclusive: true, exhaustive: true, ammLiquidity: "300000000" });
    expect(markets.map((m) => [m.outcomeLabel, m.ammLiquidity])).toEqual([
      ["Alice", "0"],
      ["Bob", "0"],
      ["Carol", "0"],
    ]);
    const view = renderEvent(
      event,
      markets.map((m) => renderMarket(m)),
      markets.map((m) => renderOutcome(m)),
    );
    expect(view).toMatchObject({ mutuallyExclusive: true, exhaustive: true, ammLiquidity: "300000000" });
    expect(view.markets.map((m) => [m.outcomeLabel, m.eventId])).toEqual(markets.map((m) => [m.outcomeLabel, event._id]));
    expect(view.outcomes).toEqual(markets.map((m) => ({ marketId: m._id, label: m.outcomeLabel, status: "open", chance: null })));
    expect(w.told.filter((t) => t.name === "market.opened")).toHaveLength(3);
  });

  test("an event ends at the earliest close time among its open markets; closed ones and those without one do not count", () => {
    const at = (status: MarketDoc["status"], closeTime: string | null) => ({ status, closeTime });
    expect(eventCloseTime([])).toBeNull();
    expect(eventCloseTime([at("open", null)])).toBeNull();
    expect(
      eventCloseTime([
        at("open", "2026-12-20T00:00:00.000Z"),
        at("closed", "2026-12-01T00:00:00.000Z"),
        at("open", null),
        at("open", "2026-12-05T12:00:00.000Z"),
        at("resolved", "2026-11-01T00:00:00.000Z"),
      ]),
    ).toBe("2026-12-05T12:00:00.000Z");
    expect(eventCloseTime([at("cancelled", "2026-12-01T00:00:00.000Z")])).toBeNull();
  });

  test("a plain event keeps 1 to 10 markets, labels optional, and shows false flags; its outcome rows use the titles", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(
      { title: "Plain", category: "Sports", markets: [{ title: "Rain tomorrow?" }, { title: "Snow?", outcomeLabel: "Snow" }] },
      w.out,
    );
    expect(renderEvent(event)).toMatchObject({
      mutuallyExclusive: false,
      exhaustive: false,
      ammLiquidity: "0",
      markets: [],
      outcomes: [],
      closeTime: null,
    });
    expect(markets.map((m) => renderOutcome(m).label)).toEqual(["Rain tomorrow?", "Snow"]);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ title: `M${i}` }));
    expect((await refusal(w.catalog.createEvent({ title: "Big", category: "Sports", markets: eleven }, w.out))).fields).toEqual([
      { field: "markets", rule: "arrayMax" },
    ]);
  });

  test.each([
    ["exhaustive without mutuallyExclusive", race({ mutuallyExclusive: false, exhaustive: true }), "exhaustive"],
    ["one market", race({ markets: [{ title: "Only", outcomeLabel: "Only" }] }), "markets"],
    ["65 markets", race({ markets: Array.from({ length: 65 }, (_, i) => ({ title: `M${i}`, outcomeLabel: `L${i}` })) }), "markets"],
    ["a market without a label", race({ markets: [{ title: "A", outcomeLabel: "A" }, { title: "B" }] }), "markets[1].outcomeLabel"],
    [
      "the same label twice",
      race({
        markets: [
          { title: "A", outcomeLabel: "Same" },
          { title: "B", outcomeLabel: "same" },
        ],
      }),
      "markets",
    ],
    ["an event AMM on a plain event", race({ mutuallyExclusive: false, ammLiquidity: "300000000" }), "ammLiquidity"],
    ["an event AMM too small", race({ ammLiquidity: "5" }), "ammLiquidity"],
    [
      "an event AMM and a market's pool",
      race({
        ammLiquidity: "300000000",
        markets: [
          { title: "A", outcomeLabel: "A", ammLiquidity: "300000000" },
          { title: "B", outcomeLabel: "B" },
        ],
      }),
      "markets[0].ammLiquidity",
    ],
  ])("refused, nothing written: %s", async (_name, params, field) => {
    const w = world();
    const r = await refusal(w.catalog.createEvent(params, w.out));
    expect([r.kind, r.code, r.fields?.[0].field]).toEqual(["rejected", "VALIDATION_ERROR", field]);
    expect(w.events.size + w.markets.size).toBe(0);
    expect(w.told).toEqual([]);
  });
});

describe("mutually exclusive events: outcomes added", () => {
  test("a new outcome opens after the others; refused on plain events, with a taken label, and when nothing is open", async () => {
    const w = world();
    const { event } = await w.catalog.createEvent(race(), w.out);
    w.told.length = 0;
    const dana = await w.catalog.addOutcome(event._id, "Will Dana win?", " Dana ", w.out);
    expect(dana).toMatchObject({ eventId: event._id, position: 3, status: "open", outcomeLabel: "Dana", ammLiquidity: "0" });
    expect(w.told).toEqual([{ name: "market.opened", payload: { marketId: dana._id, eventId: event._id, ammLiquidity: "0" } }]);
    expect(w.events.get(event._id)!.marketTitles).toContain("Will Dana win?");

    expect((await refusal(w.catalog.addOutcome(event._id, "Other title", "dana", w.out))).fields).toEqual([
      { field: "outcomeLabel", rule: "unique" },
    ]);
    const plain = await w.catalog.createEvent({ title: "Plain", category: "Sports", markets: [{ title: "X" }] }, w.out);
    expect((await refusal(w.catalog.addOutcome(plain.event._id, "Y", "Y", w.out))).code).toBe(EVENT_NOT_MUTUALLY_EXCLUSIVE);

    for (const m of await w.catalog.eventWithMarkets(event._id).then((x) => x.markets)) await w.catalog.transition(m._id, "close", w.out);
    const before = w.snapshot();
    const r = await refusal(w.catalog.addOutcome(event._id, "Will Erin win?", "Erin", w.out));
    expect([r.kind, r.code]).toEqual(["conflict", EVENT_NOT_OPEN]);
    expect(w.snapshot()).toBe(before);
  });
});

describe("mutually exclusive events: a cancelled outcome", () => {
  test("pays 0.00 a YES share (an outcome that dropped out); another price is refused 400 on price, nothing written", async () => {
    const w = world();
    const { markets } = await w.catalog.createEvent(race(), w.out);
    const [alice, bob, carol] = markets;
    w.told.length = 0;
    for (const price of ["0.50", "1", "0.01"]) {
      const before = w.snapshot();
      const r = await refusal(w.catalog.transition(alice._id, "cancel", w.out, { price }));
      expect([r.kind, r.code, r.fields]).toEqual(["rejected", "VALIDATION_ERROR", [{ field: "price", rule: "exclusiveCancel" }]]);
      expect(r.message).toContain("0.00");
      expect(w.snapshot()).toBe(before);
    }
    expect(w.told).toEqual([]);
    expect(await w.catalog.transition(alice._id, "cancel", w.out)).toMatchObject({ status: "cancelled", yesPayout: 0 });
    expect(await w.catalog.transition(bob._id, "cancel", w.out, { price: "0.00" })).toMatchObject({ status: "cancelled", yesPayout: 0 });
    expect(w.told.filter((t) => t.name === "market.cancelled").map((t) => t.payload)).toEqual([
      { marketId: alice._id, yesPayout: 0 },
      { marketId: bob._id, yesPayout: 0 },
    ]);
    // A price that is no price at all is the usual validation error; a plain event's market keeps its default.
    expect((await refusal(w.catalog.transition(carol._id, "cancel", w.out, { price: "2" }))).fields).toEqual([
      { field: "price", rule: "price" },
    ]);
    const plain = await w.catalog.createEvent({ title: "Plain", category: "Sports", markets: [{ title: "X" }] }, w.out);
    expect(await w.catalog.transition(plain.markets[0]._id, "cancel", w.out)).toMatchObject({ yesPayout: 500_000 });
  });
});

describe("mutually exclusive events: one-step resolution", () => {
  test("the winner YES and every other undecided market NO, the winner last; one event.resolved for the step", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race({ exhaustive: true }), w.out);
    const [alice, bob, carol] = markets;
    await w.catalog.transition(carol._id, "cancel", w.out);
    w.told.length = 0;
    const after = await w.process.resolveEvent(event._id, bob._id, w.out);
    expect(after.markets.map((m) => [m.outcomeLabel, m.status, m.result, m.yesPayout])).toEqual([
      ["Alice", "resolved", "NO", 0],
      ["Bob", "resolved", "YES", 1_000_000],
      ["Carol", "cancelled", null, 0],
    ]);
    expect(after.event.decision).toEqual({ winnerMarketId: bob._id, at: new Date(T0).toISOString() });
    // Both close before either resolves; the winner resolves last.
    expect(w.told.map((t) => `${t.name} ${"marketId" in t.payload ? t.payload.marketId : t.payload.eventId}`)).toEqual([
      `market.closed ${alice._id}`,
      `market.closed ${bob._id}`,
      `market.resolved ${alice._id}`,
      `market.resolved ${bob._id}`,
      `event.resolved ${event._id}`,
    ]);
    const resolved = w.told.filter((t) => t.name === "market.resolved").map((t) => t.payload);
    expect(resolved.every((p) => "eventStep" in p && p.eventStep === event._id)).toBe(true);
    expect(w.told.at(-1)).toEqual({
      name: "event.resolved",
      payload: {
        eventId: event._id,
        winnerMarketId: bob._id,
        markets: [
          { marketId: alice._id, result: "NO", conditionId: alice.conditionId },
          { marketId: bob._id, result: "YES", conditionId: bob.conditionId },
        ],
      },
    });
  });

  test("a second YES is refused (409 EVENT_ALREADY_DECIDED) and changes nothing, by either route; the same winner again is a no-op", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    await w.process.resolve(markets[0]._id, "YES", w.out);
    const before = w.snapshot();
    w.told.length = 0;
    for (const p of [
      w.process.resolve(markets[1]._id, "YES", w.out),
      w.process.resolveEvent(event._id, markets[2]._id, w.out),
      w.process.resolveEvent(event._id, null, w.out),
    ]) {
      const r = await refusal(p);
      expect([r.kind, r.code]).toEqual(["conflict", EVENT_ALREADY_DECIDED]);
    }
    const r = await refusal(w.process.proposeEvent(event._id, markets[1]._id, null, w.out));
    expect(r.code).toBe(EVENT_ALREADY_DECIDED);
    expect(w.snapshot()).toBe(before);
    expect(w.told.filter((t) => t.name !== "event.resolved")).toEqual([]);
    const again = await w.process.resolveEvent(event._id, markets[0]._id, w.out);
    expect(again.markets.map((m) => m.result)).toEqual(["YES", "NO", "NO"]);
  });

  test("a market's NO resolves it alone (the others trade on); the event's winner later resolves the rest", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    await w.process.resolve(markets[0]._id, "NO", w.out);
    expect([...w.markets.values()].map((m) => m.status)).toEqual(["resolved", "open", "open"]);
    expect(w.events.get(event._id)!.decision).toBeUndefined();
    w.told.length = 0;
    await w.process.resolve(markets[2]._id, "YES", w.out);
    expect([...w.markets.values()].map((m) => m.result)).toEqual(["NO", "NO", "YES"]);
    const step = w.told.find((t) => t.name === "event.resolved");
    expect(step && "markets" in step.payload && step.payload.markets.map((m) => m.marketId)).toEqual([markets[1]._id, markets[2]._id]);
  });

  test("null: none won, every market NO; refused on an exhaustive event, as is losing its last outcome alone", async () => {
    const w = world();
    const open = await w.catalog.createEvent(race(), w.out);
    await w.process.resolveEvent(open.event._id, null, w.out);
    expect(open.markets.map((m) => w.markets.get(m._id)!.result)).toEqual(["NO", "NO", "NO"]);

    const ex = await w.catalog.createEvent(race({ title: "Exhaustive", exhaustive: true }), w.out);
    const before = w.snapshot();
    const r = await refusal(w.process.resolveEvent(ex.event._id, null, w.out));
    expect([r.kind, r.code, r.fields]).toEqual(["rejected", "VALIDATION_ERROR", [{ field: "winnerMarketId", rule: "required" }]]);
    expect(w.snapshot()).toBe(before);
    await w.process.resolve(ex.markets[0]._id, "NO", w.out);
    await w.process.resolve(ex.markets[1]._id, "NO", w.out);
    expect((await refusal(w.process.resolve(ex.markets[2]._id, "NO", w.out))).code).toBe("ILLEGAL_TRANSITION");
    expect(w.markets.get(ex.markets[2]._id)!.status).toBe("open");
  });

  test("refusals before anything is written: SPLIT, a winner from elsewhere, a plain event, a winner that already lost", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    const plain = await w.catalog.createEvent({ title: "Plain", category: "Sports", markets: [{ title: "X" }] }, w.out);
    await w.process.resolve(markets[0]._id, "NO", w.out);
    const before = w.snapshot();
    expect((await refusal(w.process.resolve(markets[1]._id, "SPLIT", w.out))).fields).toEqual([{ field: "result", rule: "enumValue" }]);
    expect((await refusal(w.process.resolveEvent(event._id, plain.markets[0]._id, w.out))).fields).toEqual([
      { field: "winnerMarketId", rule: "eventMarket" },
    ]);
    expect((await refusal(w.process.resolveEvent(plain.event._id, null, w.out))).code).toBe(EVENT_NOT_MUTUALLY_EXCLUSIVE);
    expect((await refusal(w.process.resolveEvent(event._id, markets[0]._id, w.out))).code).toBe("ILLEGAL_TRANSITION");
    expect((await refusal(w.process.propose(markets[1]._id, "YES", null, w.out))).fields).toEqual([
      { field: "result", rule: "eventWinner" },
    ]);
    expect(w.snapshot()).toBe(before);
    // A plain event's markets keep every result.
    await w.process.resolve(plain.markets[0]._id, "SPLIT", w.out);
  });

  test("a decision recorded by a step that stopped midway: the same winner completes it, another is refused", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    w.events.set(event._id, { ...w.events.get(event._id)!, decision: { winnerMarketId: markets[1]._id, at: "x" } });
    await w.catalog.transition(markets[0]._id, "resolve", w.out, { result: "NO" });
    expect((await refusal(w.process.resolveEvent(event._id, markets[2]._id, w.out))).code).toBe(EVENT_ALREADY_DECIDED);
    expect((await refusal(w.process.resolve(markets[1]._id, "NO", w.out))).code).toBe(EVENT_ALREADY_DECIDED);
    const done = await w.process.resolveEvent(event._id, markets[1]._id, w.out);
    expect(done.markets.map((m) => m.result)).toEqual(["NO", "YES", "NO"]);
  });

  test("planEventResolution lists only undecided markets, the winner last", () => {
    const e = { _id: "e", mutuallyExclusive: true } as EventDoc;
    const m = (id: string, status: MarketDoc["status"], result: MarketDoc["result"] = null) => ({ _id: id, status, result }) as MarketDoc;
    expect(
      planEventResolution(
        e,
        [m("a", "open"), m("b", "closed"), m("c", "cancelled"), m("d", "resolved", "NO"), m("f", "resolution_failed")],
        "a",
      ),
    ).toEqual({
      ok: true,
      retry: false,
      steps: [
        { marketId: "b", result: "NO" },
        { marketId: "f", result: "NO" },
        { marketId: "a", result: "YES" },
      ],
    });
  });
});

describe("mutually exclusive events: the event's proposal", () => {
  test("one proposal across the event; undisputed, the clock finalizes it as one step", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    await w.process.resolve(markets[0]._id, "NO", w.out);
    const proposed = await w.process.proposeEvent(event._id, markets[2]._id, "official count", w.out);
    const at = new Date(T0).toISOString();
    expect(proposed.event.proposal).toEqual({
      winnerMarketId: markets[2]._id,
      proposedAt: at,
      disputeEndsAt: new Date(T0 + WINDOW).toISOString(),
    });
    expect(proposed.markets.map((m) => [m.status, m.resolution?.proposedResult ?? null, m.resolution?.proposedAt ?? null])).toEqual([
      ["resolved", null, null],
      ["closed", "NO", at],
      ["closed", "YES", at],
    ]);
    expect((await refusal(w.process.proposeEvent(event._id, markets[1]._id, null, w.out))).code).toBe("PROPOSAL_PENDING");
    w.clock.ms = T0 + WINDOW - 1;
    expect(await w.process.runDeadlines(w.out)).toBe(0);
    w.clock.ms = T0 + WINDOW;
    w.told.length = 0;
    expect(await w.process.runDeadlines(w.out)).toBe(1);
    expect(w.told.filter((t) => t.name === "event.resolved")).toHaveLength(1);
    expect([...w.markets.values()].map((m) => [m.result, m.resolution?.finalizedAt ?? null])).toEqual([
      ["NO", null],
      ["NO", new Date(T0 + WINDOW).toISOString()],
      ["YES", new Date(T0 + WINDOW).toISOString()],
    ]);
    expect(await w.process.runDeadlines(w.out)).toBe(0);
  });

  test("a dispute of one market holds the whole event until the operator names the winner", async () => {
    const w = world();
    const { event, markets } = await w.catalog.createEvent(race(), w.out);
    await w.process.proposeEvent(event._id, markets[0]._id, null, w.out);
    await w.process.dispute(markets[1]._id, "usr_1", "Bob won by a landslide, see the count", w.out);
    w.clock.ms = T0 + WINDOW + 1;
    expect(await w.process.runDeadlines(w.out)).toBe(0);
    expect([...w.markets.values()].map((m) => m.status)).toEqual(["closed", "closed", "closed"]);
    const done = await w.process.resolveEvent(event._id, markets[1]._id, w.out);
    expect(done.markets.map((m) => [m.result, m.resolution?.finalizedAt !== null])).toEqual([
      ["NO", true],
      ["YES", true],
      ["NO", true],
    ]);
  });
});

describe("chance", () => {
  const m = (over: Partial<MarketDoc> = {}) => ({ _id: "m", status: "open", ...over }) as MarketDoc;
  test.each([
    ["midpoint when the spread is at most 0.10", { sellYesPrice: "0.55", buyYesPrice: "0.60" }, {}, "0.575"],
    ["midpoint at exactly 0.10", { sellYesPrice: "0.40", buyYesPrice: "0.50" }, {}, "0.45"],
    ["last trade when wider", { sellYesPrice: "0.30", buyYesPrice: "0.50" }, { lastYesPrice: 42 }, "0.42"],
    ["last trade with one side only", { buyYesPrice: "0.50" }, { lastYesPrice: 7 }, "0.07"],
    ["null with neither", { sellYesPrice: "0.10", buyYesPrice: "0.90" }, {}, null],
    ["what a YES share paid once resolved", {}, { status: "resolved", yesPayout: 1_000_000, lastYesPrice: 40 }, "1.00"],
    ["the cancel price once cancelled", {}, { status: "cancelled", yesPayout: 250_000 }, "0.25"],
  ] as const)("%s", (_n, live, over, want) => {
    expect(chanceOf(m(over as Partial<MarketDoc>), { ...NO_PRICES, ...live })).toBe(want);
  });
});

describe("the demo races", () => {
  test("every demo event passes the operator's rules; a race's opening prices differ and sum to about 100%", async () => {
    const w = world();
    for (const d of DEMO_EVENTS) {
      await w.catalog.createEvent(
        {
          title: d.title,
          category: d.category,
          mutuallyExclusive: d.mutuallyExclusive,
          exhaustive: d.exhaustive,
          ammLiquidity: d.ammLiquidity,
          markets: d.markets.map((m) => ({ title: m.title, ammLiquidity: m.ammLiquidity, outcomeLabel: m.outcomeLabel })),
        },
        w.out,
      );
      for (const m of d.markets) expect(m.price >= 1 && m.price <= 99).toBe(true);
    }
    const races = DEMO_EVENTS.filter((d) => d.mutuallyExclusive);
    expect(races.map((r) => [r.markets.length, !!r.exhaustive])).toEqual([
      [6, true],
      [8, false],
    ]);
    for (const r of races) {
      const sum = r.markets.reduce((s, m) => s + m.price, 0);
      expect(sum).toBeGreaterThanOrEqual(95);
      expect(sum).toBeLessThanOrEqual(100);
      expect(new Set(r.markets.map((m) => m.price)).size).toBeGreaterThan(r.markets.length / 2);
    }
    expect(new Set(DEMO_EVENTS.flatMap((d) => d.markets.map((m) => m.price))).size).toBeGreaterThan(20);
  });
});

describe("the demo maker's plan", () => {
  test("a pooled market is bought to its price on the AMM; a race outcome gets a bid and an ask a cent either side", () => {
    const { steps, cash } = demoMakerPlan(DEMO_EVENTS, 100);
    for (const e of DEMO_EVENTS)
      e.markets.forEach((m, i) => {
        const id = demoMarketId(e.slug, i);
        const mine = steps.filter((s) => s.marketId === id);
        if (Number(m.ammLiquidity) > 0) {
          expect(mine).toHaveLength(m.price === 50 ? 0 : 1);
          const s = mine[0];
          if (!s || s.kind !== "amm") return;
          const after = applyTrade(createPool(Number(m.ammLiquidity)), "BUY", s.outcome, s.quantity);
          const yes = marginalPrice(after, "YES");
          expect(Math.abs((Number(yes.num) / Number(yes.den)) * 100 - m.price)).toBeLessThanOrEqual(1);
        } else {
          expect(mine.filter((s) => s.kind === "order")).toEqual([
            { kind: "order", marketId: id, outcome: "YES", price: m.price - 1, quantity: DEMO_QUOTE_SHARES * 1_000_000 },
            { kind: "order", marketId: id, outcome: "NO", price: 99 - m.price, quantity: DEMO_QUOTE_SHARES * 1_000_000 },
          ]);
          // And at most one YES buy from the race's pool (none for its cheapest outcomes).
          const amm = mine.filter((s) => s.kind === "amm");
          expect(amm.length).toBeLessThanOrEqual(1);
          expect(amm.every((s) => s.outcome === "YES" && s.quantity > 0 && s.quantity % 100 === 0)).toBe(true);
        }
      });
    expect(cash).toBeGreaterThan(0);
    expect(Number.isSafeInteger(cash)).toBe(true);
  });

  test("a race's event pool is bought from 1/N to within a cent of each outcome's demo price, paid for within the plan's cash", () => {
    const races = DEMO_EVENTS.filter((e) => e.mutuallyExclusive && Number(e.ammLiquidity) > 0);
    expect(races.length).toBeGreaterThanOrEqual(2);
    const fee = 100;
    const { steps, cash } = demoMakerPlan(DEMO_EVENTS, fee);
    let pooledCash = 0;
    for (const e of races) {
      const r = eventPoolSteps(e, fee);
      expect(r.state).not.toBeNull();
      const p = lmsrPrices(r.state!);
      e.markets.forEach((m, i) => expect(Math.abs(p.get(demoMarketId(e.slug, i))! / 10_000 - m.price)).toBeLessThanOrEqual(1));
      // Prices over the markets and "none" sum to exactly 1.
      expect([...p.values()].reduce((a, x) => a + x, 0)).toBe(1_000_000);
      if (!e.exhaustive) expect(p.get(NONE_OUTCOME)!).toBeLessThan(Math.max(...e.markets.map((m) => m.price)) * 10_000);
      // The plan carries exactly these buys.
      expect(steps.filter((s) => s.kind === "amm" && r.steps.some((x) => x.marketId === s.marketId))).toEqual(r.steps);
      expect(r.steps.length).toBeGreaterThan(0);
      pooledCash += r.cash;
    }
    expect(cash).toBeGreaterThanOrEqual(pooledCash);
    // Not a race with its own pools: nothing to buy.
    expect(
      eventPoolSteps(
        DEMO_EVENTS.find((e) => !e.mutuallyExclusive)!,
        fee,
      ).steps,
    ).toEqual([]);
  });
});
