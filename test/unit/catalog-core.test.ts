/**
 * The catalog's writes (catalog/catalog.ts) and reads (catalog/reads.ts) with in-memory fakes of
 * their ports: no broker, no store. The clock and ids are the test's.
 */
import { Catalog, DUPLICATE_EVENT, type CatalogEvent, type CatalogOut, type CatalogPorts } from "../../catalog/catalog";
import { CatalogReads, type CatalogReadPorts, type EventFilter, type QuoteSource } from "../../catalog/reads";
import { conditionIdFor } from "../../catalog/condition";
import { DEMO_EVENTS, DEMO_MARKER_ID, demoEventId, demoMarketId } from "../../catalog/demo";
import { ILLEGAL_TRANSITION } from "../../catalog/lifecycle";
import type { MarketStatus } from "../../models/catalog";
import { rankBySearch } from "../../catalog/search";
import { MIN_POOL_LIQUIDITY, poolLiquidityOf } from "../../engine/amm";
import { LOT } from "../../engine/money";
import type { CatalogMetaDoc, CreateEventParams, EventDoc, MarketDoc, MarketTradeEvent, PrintDoc } from "../../models/catalog";
import { Refusal } from "../../engine/refusal";

const T0 = Date.parse("2026-03-01T12:34:56.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

function fakes() {
  const clock = { ms: T0 };
  const events = new Map<string, EventDoc>();
  const markets = new Map<string, MarketDoc>();
  const prints = new Map<string, PrintDoc>();
  const meta = new Map<string, CatalogMetaDoc>();
  const logs: string[] = [];
  const writes: string[] = [];
  let n = 0;
  const ports: CatalogPorts = {
    events: {
      get: async (id) => events.get(id) ?? null,
      insertOnce: async (doc) => {
        if (events.has(doc._id) || (doc.externalEventId && [...events.values()].some((e) => e.externalEventId === doc.externalEventId)))
          return false;
        events.set(doc._id, doc);
        writes.push(`event+ ${doc._id}`);
        return true;
      },
      update: async (id, set) => {
        const e = events.get(id);
        if (e) events.set(id, { ...e, ...set });
        writes.push(`event~ ${id}`);
      },
      addVolume: async (id, v) => {
        const e = events.get(id);
        if (e) events.set(id, { ...e, volumeUsd: e.volumeUsd + v });
      },
      decide: async (id, decision) => {
        const e = events.get(id);
        if (!e || e.decision) return false;
        events.set(id, { ...e, decision });
        return true;
      },
    },
    markets: {
      get: async (id) => markets.get(id) ?? null,
      ofEvent: async (eventId) => [...markets.values()].filter((m) => m.eventId === eventId).sort((a, b) => a.position - b.position),
      insertOnce: async (doc) => {
        if (markets.has(doc._id)) return false;
        markets.set(doc._id, doc);
        writes.push(`market+ ${doc._id}`);
        return true;
      },
      removeMany: async (ids) => {
        for (const id of ids) markets.delete(id);
        writes.push(`market- ${ids.join(",")}`);
      },
      retitle: async (id, eventId, title, updatedAt) => {
        const m = markets.get(id);
        if (m && m.eventId === eventId) markets.set(id, { ...m, title, updatedAt });
        writes.push(`market~ ${id}`);
      },
      setIfStatus: async (id, from, set) => {
        const m = markets.get(id);
        if (!m || m.status !== from) return false;
        markets.set(id, { ...m, ...set });
        return true;
      },
      traded: async (id, v, lastYesPrice, lastTradeAtMs) => {
        const m = markets.get(id);
        if (!m) return;
        const later = (m.lastTradeAtMs ?? -1) > lastTradeAtMs;
        markets.set(id, { ...m, volume: m.volume + v, ...(later ? {} : { lastYesPrice, lastTradeAtMs }) });
      },
      edit: async (id, eventId, set) => {
        const m = markets.get(id);
        if (m && m.eventId === eventId) markets.set(id, { ...m, ...set });
      },
      due: async () => [],
    },
    prints: {
      storedIds: async (ids) => ids.filter((id) => prints.has(id)),
      insertMany: async (docs) => {
        for (const d of docs) {
          if (prints.has(d._id)) throw new Error(`duplicate print ${d._id}`);
          prints.set(d._id, d);
        }
      },
    },
    meta: {
      get: async (id) => meta.get(id) ?? null,
      insertOnce: async (doc) => !meta.has(doc._id) && (meta.set(doc._id, doc), true),
      markDone: async (id, at) => {
        const m = meta.get(id);
        if (m) meta.set(id, { ...m, done: true, at });
      },
    },
    newId: (prefix) => `${prefix}_${++n}`,
    nodeID: "node-a",
    now: () => clock.ms,
    log: { info: (m) => void logs.push(`info: ${m}`), warn: (m) => void logs.push(`warn: ${m}`) },
  };
  const told: Array<CatalogEvent | { name: "changed"; marketId: string }> = [];
  const out: CatalogOut = {
    changed: async (marketId) => void told.push({ name: "changed", marketId }),
    emit: (e) => void told.push(e),
    lifecycle: () => undefined,
  };
  return { ports, clock, events, markets, prints, meta, logs, writes, out, told };
}

const input = (over: Partial<CreateEventParams> = {}): CreateEventParams => ({
  title: "Derby",
  category: "Sports",
  markets: [{ title: "Home wins", ammLiquidity: "0500" }, { title: "Draw" }],
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<Refusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof Refusal)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

describe("events and markets", () => {
  test("createEvent stores open markets first, then the event, and announces each market", async () => {
    const f = fakes();
    const { event, markets } = await new Catalog(f.ports).createEvent(
      input({ tags: [" derby ", "derby", "football"], beginAt: "2026-04-01T18:00:00+02:00", externalEventId: "ext-1" }),
      f.out,
    );
    expect(f.writes).toEqual(["market+ mkt_2", "market+ mkt_3", "event+ evt_1"]);
    expect(markets.map((m) => [m._id, m.position, m.status, m.result, m.volume, m.ammLiquidity, m.conditionId])).toEqual([
      ["mkt_2", 0, "open", null, 0, "500", conditionIdFor("mkt_2")],
      ["mkt_3", 1, "open", null, 0, "0", conditionIdFor("mkt_3")],
    ]);
    expect(event).toMatchObject({
      _id: "evt_1",
      externalEventId: "ext-1",
      subtitle: "",
      subcategory: "",
      imageUrl: "",
      volumeUsd: 0,
      isActive: true,
      isLive: false,
      beginAt: "2026-04-01T16:00:00.000Z",
      tags: ["derby", "football"],
      marketTitles: ["Home wins", "Draw"],
      createdAt: iso(T0),
    });
    expect(event.searchText.split(/ +/)).toEqual(["derby", "derby", "football", "home", "wins", "draw"]);
    expect(f.told).toEqual([
      { name: "market.opened", payload: { marketId: "mkt_2", eventId: "evt_1", ammLiquidity: "500" } },
      { name: "market.opened", payload: { marketId: "mkt_3", eventId: "evt_1", ammLiquidity: "0" } },
    ]);
  });

  test("without beginAt the event begins now; without externalEventId it has none", async () => {
    const f = fakes();
    const { event } = await new Catalog(f.ports).createEvent(input(), f.out);
    expect(event.beginAt).toBe(iso(T0));
    expect("externalEventId" in event).toBe(false);
  });

  test("refusals change nothing: market titles equal but for case, an impossible date", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    expect(await refusal(c.createEvent(input({ markets: [{ title: "Yes" }, { title: "YES" }] }), f.out))).toMatchObject({
      kind: "rejected",
      code: "VALIDATION_ERROR",
      fields: [{ field: "markets", rule: "unique" }],
    });
    expect(await refusal(c.createEvent(input({ beginAt: "2026-02-30T25:00" }), f.out))).toMatchObject({
      kind: "rejected",
      fields: [{ field: "beginAt", rule: "date" }],
    });
    expect(f.writes).toEqual([]);
    expect(f.told).toEqual([]);
  });

  test("a reused externalEventId is a conflict and takes back this attempt's markets", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    await c.createEvent(input({ externalEventId: "ext-1" }), f.out);
    f.writes.length = 0;
    const r = await refusal(c.createEvent(input({ externalEventId: "ext-1" }), f.out));
    expect(r).toMatchObject({ kind: "conflict", code: DUPLICATE_EVENT, message: "An event with externalEventId ext-1 exists" });
    expect(f.writes).toEqual(["market+ mkt_5", "market+ mkt_6", "market- mkt_5,mkt_6"]);
    expect([...f.markets.keys()]).toEqual(["mkt_2", "mkt_3"]);
  });

  test("updateEvent sets display fields, retitles its markets, and search follows", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const { event, markets } = await c.createEvent(input(), f.out);
    f.clock.ms += 1000;
    const r = await c.updateEvent({
      id: event._id,
      title: "Big derby",
      tags: ["x", " x ", "y"],
      isActive: false,
      beginAt: "2026-05-01",
      markets: [{ id: markets[1]._id, title: "Nobody wins" }],
    });
    expect(r.markets.map((m) => m.title)).toEqual(["Home wins", "Nobody wins"]);
    expect(r.event).toMatchObject({
      title: "Big derby",
      tags: ["x", "y"],
      isActive: false,
      beginAt: "2026-05-01T00:00:00.000Z",
      marketTitles: ["Home wins", "Nobody wins"],
      updatedAt: iso(T0 + 1000),
      category: "Sports",
    });
    expect(r.event.searchText.split(/ +/)).toEqual(["big", "derby", "x", "y", "home", "wins", "nobody", "wins"]);
    expect(f.events.get(event._id)).toEqual(r.event);
    expect(f.markets.get(markets[1]._id)).toMatchObject({ title: "Nobody wins", updatedAt: iso(T0 + 1000) });
  });

  test("updateEvent refuses an unknown event, another event's market and an impossible date before writing", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const a = await c.createEvent(input(), f.out);
    const b = await c.createEvent(input({ title: "Other" }), f.out);
    f.writes.length = 0;
    expect(await refusal(c.updateEvent({ id: "evt_nope", title: "x" }))).toMatchObject({
      kind: "not_found",
      code: "RESOURCE_NOT_FOUND",
      message: "Event not found",
    });
    expect(await refusal(c.updateEvent({ id: a.event._id, markets: [{ id: b.markets[0]._id, title: "Hijack" }] }))).toMatchObject({
      kind: "not_found",
      message: "Market not found",
    });
    expect(
      await refusal(c.updateEvent({ id: a.event._id, beginAt: "2026-13-01", markets: [{ id: a.markets[0]._id, title: "Renamed" }] })),
    ).toMatchObject({ kind: "rejected", fields: [{ field: "beginAt", rule: "date" }] });
    expect(f.writes).toEqual([]);
  });
});

describe("event fields the contract types as non-null, AMM liquidity too small for a pool", () => {
  test("updateEvent refuses a null field naming it and its type, before writing anything", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const { event, markets } = await c.createEvent(input(), f.out);
    const before = structuredClone(f.events.get(event._id));
    f.writes.length = 0;
    const cases: Array<[string, string]> = [
      ["title", "string"],
      ["subtitle", "string"],
      ["subcategory", "string"],
      ["category", "string"],
      ["imageUrl", "string"],
      ["beginAt", "string"],
      ["tags", "array"],
      ["isActive", "boolean"],
      ["isLive", "boolean"],
      ["markets", "array"],
    ];
    for (const [field, rule] of cases) {
      const patch = { id: event._id, [field]: null, markets: [{ id: markets[0]._id, title: "Renamed" }] };
      if (field === "markets") patch.markets = null as never;
      expect(await refusal(c.updateEvent(patch as never))).toMatchObject({
        kind: "rejected",
        code: "VALIDATION_ERROR",
        message: `The '${field}' field must be ${rule === "array" ? "an" : "a"} ${rule}, not null`,
        fields: [{ field, rule }],
      });
    }
    expect(f.writes).toEqual([]);
    expect(f.events.get(event._id)).toEqual(before);
  });

  test("createEvent refuses a null display field the same way", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    expect(await refusal(c.createEvent(input({ subtitle: null as never }), f.out))).toMatchObject({
      fields: [{ field: "subtitle", rule: "string" }],
    });
    expect(f.writes).toEqual([]);
  });

  test("ammLiquidity is 0 (no pool) or at least one lot: 1 to 99 micro-USDT refused naming the minimum", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    for (const L of ["1", "50", String(MIN_POOL_LIQUIDITY - 1)]) {
      const r = await refusal(
        c.createEvent(
          input({
            markets: [
              { title: "A", ammLiquidity: "0" },
              { title: "B", ammLiquidity: L },
            ],
          }),
          f.out,
        ),
      );
      expect(r).toMatchObject({
        kind: "rejected",
        code: "VALIDATION_ERROR",
        message: `ammLiquidity must be 0 (no AMM) or at least ${MIN_POOL_LIQUIDITY} micro-USDT to seed a pool`,
        fields: [{ field: "markets[1].ammLiquidity", rule: "numberMin" }],
      });
    }
    expect(f.writes).toEqual([]);
    const ok = await c.createEvent(
      input({
        markets: [
          { title: "A", ammLiquidity: "0" },
          { title: "B", ammLiquidity: String(MIN_POOL_LIQUIDITY) },
        ],
      }),
      f.out,
    );
    expect(ok.markets.map((m) => m.ammLiquidity)).toEqual(["0", String(MIN_POOL_LIQUIDITY)]);
    expect(MIN_POOL_LIQUIDITY).toBe(LOT);
  });

  test("the pool a market's liquidity funds: whole lots, nothing below one lot", () => {
    expect([0, 1, 99, 100, 150, 199, 200, 1e6 + 50, Number.MAX_SAFE_INTEGER + 1].map(poolLiquidityOf)).toEqual([
      0, 0, 0, 100, 100, 100, 200, 1e6, 0,
    ]);
  });
});

describe("market lifecycle", () => {
  async function withMarket(status: MarketStatus = "open") {
    const f = fakes();
    const c = new Catalog(f.ports);
    const { markets } = await c.createEvent(input({ markets: [{ title: "Only" }] }), f.out);
    const id = markets[0]._id;
    f.markets.set(id, { ...f.markets.get(id)!, status });
    f.told.length = 0;
    f.clock.ms += 5_000;
    return { f, c, id };
  }

  test("resolving an open market closes it first: the cache is dropped, then closed and resolved are announced in order", async () => {
    const { f, c, id } = await withMarket();
    const m = await c.transition(id, "resolve", f.out, { result: "NO" });
    expect(m).toMatchObject({
      status: "resolved",
      result: "NO",
      closedAt: iso(T0 + 5_000),
      resolvedAt: iso(T0 + 5_000),
      updatedAt: iso(T0 + 5_000),
    });
    expect(f.markets.get(id)).toEqual(m);
    expect(f.told).toEqual([
      { name: "changed", marketId: id },
      { name: "market.closed", payload: { marketId: id } },
      { name: "market.resolved", payload: { marketId: id, result: "NO", conditionId: conditionIdFor(id), yesPayout: 0 } },
    ]);
  });

  test.each([
    ["open", "close", "closed", ["market.closed"], "closedAt"],
    ["open", "cancel", "cancelled", ["market.cancelled"], "cancelledAt"],
    ["closed", "cancel", "cancelled", ["market.cancelled"], "cancelledAt"],
    ["closed", "failResolution", "resolution_failed", ["market.resolutionFailed"], "resolutionFailedAt"],
    ["resolution_failed", "resolve", "resolved", ["market.resolved"], "resolvedAt"],
  ] as const)("%s --%s--> %s", async (from, command, to, names, stamp) => {
    const { f, c, id } = await withMarket(from);
    const m = await c.transition(id, command, f.out, { result: "YES", reason: "oracle down" });
    expect(m.status).toBe(to);
    expect(m[stamp]).toBe(iso(T0 + 5_000));
    expect(f.told.map((e) => e.name)).toEqual(["changed", ...names]);
    if (command === "failResolution") expect(m.resolutionFailureReason).toBe("oracle down");
  });

  test("an illegal command is a conflict and changes and announces nothing; an unknown market is not found", async () => {
    const { f, c, id } = await withMarket("cancelled");
    const before = f.markets.get(id);
    expect(await refusal(c.transition(id, "close", f.out))).toMatchObject({
      kind: "conflict",
      code: ILLEGAL_TRANSITION,
      message: "Cannot close a market that is cancelled",
    });
    expect(f.markets.get(id)).toBe(before);
    expect(f.told).toEqual([]);
    expect(await refusal(c.transition("mkt_nope", "close", f.out))).toMatchObject({ kind: "not_found", message: "Market not found" });
  });

  test("a concurrent change wins: the command is judged again against the new status", async () => {
    const { f, c, id } = await withMarket("open");
    const setIfStatus = f.ports.markets.setIfStatus;
    let raced = false;
    f.ports.markets.setIfStatus = async (mid, from, set) => {
      if (!raced) {
        raced = true;
        // Another node cancelled it between our read and our write.
        await setIfStatus(mid, from, { status: "cancelled" });
        return false;
      }
      return setIfStatus(mid, from, set);
    };
    expect(await refusal(c.transition(id, "close", f.out))).toMatchObject({
      code: ILLEGAL_TRANSITION,
      message: "Cannot close a market that is cancelled",
    });
    expect(f.told).toEqual([]);
  });

  test("after three lost races the command gives up", async () => {
    const { f, c, id } = await withMarket("open");
    f.ports.markets.setIfStatus = async () => false;
    expect(await refusal(c.transition(id, "close", f.out))).toMatchObject({
      kind: "conflict",
      code: ILLEGAL_TRANSITION,
      message: "The market changed concurrently; try again",
    });
  });
});

describe("trade prints", () => {
  const print = (tradeId: string, marketId: string, notional: number, at = iso(T0)): MarketTradeEvent => ({
    tradeId,
    marketId,
    outcome: "YES",
    yesPrice: 40,
    quantity: 1_000_000,
    notional,
    at,
  });

  test("each print is stored once; volumes add up per market and per event; unknown markets and bad times are dropped", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const { event, markets } = await c.createEvent(input(), f.out);
    const [a, b] = markets.map((m) => m._id);
    await c.recordTrades([
      print("t1", a, 400_000, "2026-03-01T12:00:00+01:00"),
      print("t2", b, 100_000),
      print("t1", a, 400_000),
      print("t3", "mkt_nope", 9),
      print("t4", a, 7, "yesterday"),
    ]);
    expect([...f.prints.values()]).toEqual([
      {
        _id: "t1",
        marketId: a,
        outcome: "YES",
        yesPrice: 40,
        quantity: 1_000_000,
        notional: 400_000,
        at: "2026-03-01T11:00:00.000Z",
        atMs: Date.parse("2026-03-01T11:00:00.000Z"),
      },
      expect.objectContaining({ _id: "t2", marketId: b }),
    ]);
    expect(f.markets.get(a)?.volume).toBe(400_000);
    expect(f.markets.get(b)?.volume).toBe(100_000);
    expect(f.events.get(event._id)?.volumeUsd).toBe(500_000);
    expect(f.logs).toEqual(["warn: market.trade for unknown market mkt_nope ignored"]);

    // A replay changes nothing.
    await c.recordTrades([print("t1", a, 400_000), print("t2", b, 100_000)]);
    expect(f.prints.size).toBe(2);
    expect(f.events.get(event._id)?.volumeUsd).toBe(500_000);
  });
});

describe("demo seed", () => {
  const totalMarkets = DEMO_EVENTS.reduce((n, d) => n + d.markets.length, 0);

  test("seeds once per store: the marker is claimed by this node, every event stored, every market announced", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const opened = await c.seedDemo();
    expect(opened).toHaveLength(totalMarkets);
    expect(opened[0]).toEqual({
      marketId: demoMarketId(DEMO_EVENTS[0].slug, 0),
      eventId: demoEventId(DEMO_EVENTS[0].slug),
      ammLiquidity: DEMO_EVENTS[0].markets[0].ammLiquidity,
    });
    expect(f.events.size).toBe(DEMO_EVENTS.length);
    expect(f.meta.get(DEMO_MARKER_ID)).toEqual({ _id: DEMO_MARKER_ID, done: true, claimedBy: "node-a", at: iso(T0) });
    // beginAt counts days from the start of the seeding hour.
    const hour = Date.parse("2026-03-01T12:00:00.000Z");
    const d = DEMO_EVENTS[0];
    expect(f.events.get(demoEventId(d.slug))?.beginAt).toBe(iso(hour + d.beginInDays * 24 * 3_600_000));
    // Every market closes days to months after the seeding hour, never before its event begins.
    for (const e of DEMO_EVENTS)
      e.markets.forEach((_, i) => {
        const close = Date.parse(f.markets.get(demoMarketId(e.slug, i))?.closeTime ?? "");
        expect(close).toBe(hour + e.closeInDays * 24 * 3_600_000);
        expect(close - hour).toBeGreaterThanOrEqual(2 * 24 * 3_600_000);
        expect(close - hour).toBeLessThanOrEqual(240 * 24 * 3_600_000);
        expect(e.closeInDays).toBeGreaterThan(e.beginInDays);
      });
    expect(f.logs).toEqual([`info: Demo catalog seeded: ${DEMO_EVENTS.length} events`]);
    expect(await c.seedDemo()).toEqual([]);
    expect(f.events.size).toBe(DEMO_EVENTS.length);
  });

  test("another node's fresh claim: this one skips; an unfinished seed (a crash) is completed without duplicates", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const get = f.ports.meta.get;
    // The other node claims it between our read and our claim.
    f.ports.meta.get = async (id) => {
      const m = await get(id);
      f.meta.set(DEMO_MARKER_ID, { _id: DEMO_MARKER_ID, done: false, claimedBy: "node-b", at: iso(T0) });
      return m;
    };
    expect(await c.seedDemo()).toEqual([]);
    expect(f.events.size).toBe(0);
    f.ports.meta.get = get;

    // node-b crashed after its first event: a restart completes the rest.
    const first = DEMO_EVENTS[0];
    await new Catalog({ ...f.ports, newId: () => "unused" }).createEvent({ ...input(), title: first.title }, f.out);
    f.events.clear();
    f.markets.clear();
    f.markets.set(demoMarketId(first.slug, 0), { _id: demoMarketId(first.slug, 0) } as MarketDoc);
    const opened = await c.seedDemo();
    expect(opened).toHaveLength(totalMarkets - 1);
    expect(f.events.size).toBe(DEMO_EVENTS.length);
    expect(f.meta.get(DEMO_MARKER_ID)?.done).toBe(true);
  });

  test("an operator's event with a demo externalEventId stays; the demo one is skipped", async () => {
    const f = fakes();
    const c = new Catalog(f.ports);
    const { event } = await c.createEvent(input({ externalEventId: DEMO_EVENTS[1].externalEventId }), f.out);
    const opened = await c.seedDemo();
    expect(f.events.get(event._id)?.title).toBe("Derby");
    expect(f.events.has(demoEventId(DEMO_EVENTS[1].slug))).toBe(false);
    expect(opened).toHaveLength(totalMarkets - DEMO_EVENTS[1].markets.length);
    // Its markets were taken back.
    expect(f.markets.has(demoMarketId(DEMO_EVENTS[1].slug, 0))).toBe(false);
  });
});

describe("reads", () => {
  function readFakes(events: EventDoc[], markets: MarketDoc[] = [], prints: PrintDoc[] = []) {
    const asked: string[] = [];
    const logs: string[] = [];
    const matches = (e: EventDoc, f: EventFilter) =>
      e.isActive && (!f.category || e.category === f.category) && f.tokens.every((t) => e.searchText.split(" ").some((w) => w.includes(t)));
    const ports: CatalogReadPorts = {
      events: {
        count: async (f) => (asked.push("count"), events.filter((e) => matches(e, f)).length),
        list: async (f, range) => {
          asked.push(`list ${range ? `${range.skip}+${range.limit}` : "all"}`);
          const all = events.filter((e) => matches(e, f)).sort((a, b) => a.beginAt.localeCompare(b.beginAt) || a._id.localeCompare(b._id));
          return range ? all.slice(range.skip, range.skip + range.limit) : all;
        },
      },
      markets: {
        ofEvent: async (eventId) => markets.filter((m) => m.eventId === eventId),
        ofEvents: async (ids) => markets.filter((m) => ids.includes(m.eventId)),
        byIds: async (ids) => (asked.push(`byIds ${ids.join(",")}`), markets.filter((m) => ids.includes(m._id))),
      },
      prints: {
        since: async (marketId, sinceMs) => prints.filter((p) => p.marketId === marketId && p.atMs >= sinceMs),
        lastBefore: async (marketId, sinceMs) =>
          prints.filter((p) => p.marketId === marketId && p.atMs < sinceMs).sort((a, b) => b.atMs - a.atMs)[0] ?? null,
        latest: async (marketId, limit) =>
          prints
            .filter((p) => p.marketId === marketId)
            .sort((a, b) => b.atMs - a.atMs || b._id.localeCompare(a._id))
            .slice(0, limit),
      },
      now: () => T0,
      log: { warn: (m) => void logs.push(m) },
    };
    return { reads: new CatalogReads(ports), asked, logs };
  }

  const ev = (id: string, over: Partial<EventDoc> = {}): EventDoc => ({
    _id: id,
    title: id,
    subtitle: "",
    category: "Sports",
    subcategory: "",
    imageUrl: "",
    volumeUsd: 1_500_000,
    isActive: true,
    isLive: false,
    beginAt: iso(T0),
    tags: [],
    marketTitles: [],
    searchText: id,
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...over,
  });
  const mk = (id: string, status: MarketStatus, eventId = "e1"): MarketDoc => ({
    _id: id,
    eventId,
    position: 0,
    title: `T ${id}`,
    status,
    result: null,
    outcomes: ["YES", "NO"],
    volume: 0,
    conditionId: "0x",
    ammLiquidity: "0",
    createdAt: iso(T0),
    updatedAt: iso(T0),
  });

  test("listEvents: published ones of the category matching the search, a page past the end reads no documents", async () => {
    const { reads, asked } = readFakes([
      ev("e2", { beginAt: iso(T0 + 1) }),
      ev("e1"),
      ev("e3", { category: "Crypto" }),
      ev("e4", { isActive: false }),
    ]);
    const r = await reads.listEvents({ category: "Sports", page: 1, pageSize: 20 });
    expect(r.total).toBe(2);
    expect(r.items.map((e) => [e.id, e.volumeUsd, e.markets])).toEqual([
      ["e1", "1.5", []],
      ["e2", "1.5", []],
    ]);
    asked.length = 0;
    expect(await reads.listEvents({ category: "all", page: 3, pageSize: 2 })).toEqual({ items: [], total: 3 });
    expect(asked).toEqual(["count"]);
    expect((await reads.listEvents({ category: "all", search: "E3!", page: 1, pageSize: 20 })).items.map((e) => e.id)).toEqual(["e3"]);
  });

  test("searchEvents: best match first, paged after ranking; no words, no query", async () => {
    const events = [
      ev("e1", { title: "Later", subtitle: "about bitcoin", searchText: "later about bitcoin" }),
      ev("e2", { title: "Bitcoin", searchText: "bitcoin" }),
    ];
    const { reads, asked } = readFakes(events);
    const r = await reads.searchEvents({ q: "bitcoin", page: 1, pageSize: 1 });
    expect(r.total).toBe(2);
    // The title hit outranks the subtitle hit, though the list order has e1 first.
    expect(rankBySearch(events, ["bitcoin"]).map((e) => e._id)).toEqual(["e2", "e1"]);
    expect(r.items.map((e) => e.id)).toEqual(["e2"]);
    expect((await reads.searchEvents({ q: "bitcoin", page: 2, pageSize: 1 })).items.map((e) => e.id)).toEqual(["e1"]);
    asked.length = 0;
    expect(await reads.searchEvents({ q: "!!", page: 1, pageSize: 20 })).toEqual({ items: [], total: 0 });
    expect(asked).toEqual([]);
  });

  test("live prices: asked for open markets only; well-formed quotes shown, the rest null", async () => {
    const markets = [mk("m1", "open"), mk("m2", "open"), mk("m3", "closed")];
    const { reads } = readFakes([], markets);
    const asked: string[][] = [];
    const quotes: QuoteSource = async (ids) => {
      asked.push(ids);
      return { m1: { buyYesPrice: "0.55", buyNoPrice: "1.2", sellYesPrice: "0.5", sellNoPrice: null }, m3: { buyYesPrice: "0.9" } };
    };
    const view = await reads.eventView(ev("e1"), quotes);
    expect(asked).toEqual([["m1", "m2"]]);
    expect(view.markets.map((m) => [m.id, m.buyYesPrice, m.buyNoPrice, m.sellYesPrice, m.sellNoPrice])).toEqual([
      ["m1", "0.55", null, "0.5", null],
      ["m2", null, null, null, null],
      ["m3", null, null, null, null],
    ]);
  });

  test("live prices: no price source or a failing one shows nulls, the failure logged", async () => {
    const { reads, logs } = readFakes([], [mk("m1", "open")]);
    expect((await reads.marketView(mk("m1", "open"), async () => null)).buyYesPrice).toBeNull();
    expect(logs).toEqual([]);
    expect((await reads.marketView(mk("m1", "open"), () => Promise.reject(new Error("timeout")))).buyYesPrice).toBeNull();
    expect(logs).toEqual(["router.livePrices failed; showing no prices: timeout"]);
    let asked = false;
    await reads.marketView(mk("m1", "resolved"), async () => ((asked = true), {}));
    expect(asked).toBe(false);
  });

  test("marketTitles: each id once, unknown ones left out, none asked for an empty list", async () => {
    const { reads, asked } = readFakes([], [mk("m1", "resolved")]);
    expect(await reads.marketTitles(["m1", "m1", "nope"])).toEqual({ m1: { title: "T m1", status: "resolved", result: null } });
    expect(asked).toEqual(["byIds m1,nope"]);
    expect(await reads.marketTitles([])).toEqual({});
    expect(asked).toHaveLength(1);
  });

  test("priceHistory: the window's prints and the last one before it", async () => {
    const at = (ms: number, yesPrice: number): PrintDoc => ({
      _id: `p${ms}`,
      marketId: "m1",
      outcome: "YES",
      yesPrice,
      quantity: 1_000_000,
      notional: yesPrice * 10_000,
      at: iso(ms),
      atMs: ms,
    });
    const { reads } = readFakes([], [], [at(T0 - 2 * 3_600_000, 30), at(T0 - 10 * 60_000, 60)]);
    const h = await reads.priceHistory(mk("m1", "open"), "YES", "1H");
    expect(h).toMatchObject({ marketId: "m1", outcome: "YES", interval: "1H", currentPrice: 0.6 });
    // The first candle opens at the print before the window.
    expect(h.candles[0].open).toBe(0.3);
    expect(h.volume24h).toBe(0.9);
  });

  test("marketTrades: the market's latest prints newest first, each on its taker's side at its exact price", async () => {
    const print = (id: string, ms: number, over: Partial<PrintDoc>): PrintDoc => ({
      _id: id,
      marketId: "m1",
      outcome: "YES",
      yesPrice: 52,
      quantity: 10_000_000,
      notional: 5_200_000,
      at: iso(ms),
      atMs: ms,
      ...over,
    });
    const { reads } = readFakes(
      [],
      [],
      [
        print("fil_1", T0, { takerSide: "BUY", takerOutcome: "YES" }),
        print("fil_2", T0, { takerSide: "SELL", takerOutcome: "NO" }),
        // A pool's leg: 6 shares for 3.01125 (an average, not a tick).
        print("fil_3", T0 + 1000, { yesPrice: 50, quantity: 6_000_000, notional: 3_011_250, takerSide: "BUY", takerOutcome: "YES" }),
        print("fil_4", T0 + 2000, { marketId: "m2" }),
      ],
    );
    const r = await reads.marketTrades(mk("m1", "open"), 2);
    expect(r.items).toEqual([
      {
        marketId: "m1",
        tradeId: "fil_3",
        outcome: "YES",
        side: "BUY",
        price: "0.501875",
        quantity: "6000000",
        yesPrice: "0.501875",
        at: iso(T0 + 1000),
      },
      { marketId: "m1", tradeId: "fil_2", outcome: "NO", side: "SELL", price: "0.48", quantity: "10000000", yesPrice: "0.52", at: iso(T0) },
    ]);
  });
});
