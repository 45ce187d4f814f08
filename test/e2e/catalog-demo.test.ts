import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Context } from "moleculer";
import { startServer } from "../support/server";
import { loadConfig } from "../../lib/config";
import { createNode } from "../../server";
import { DEMO_EVENTS, demoEventId, demoMarketId } from "../../catalog/demo";

const ENV = { SEED_DEMO: "true", SERVICES: "api,auth,catalog", RATE_LIMIT_READ: "1000000" };
const CATEGORIES = ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"];

describe("demo catalog", () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const d = mkdtempSync(join(tmpdir(), "pmx-demo-"));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test("a fresh persisted start lists it; a second start on the same data does not duplicate it", async () => {
    const dataDir = freshDir();
    const first = await startServer(ENV, { dataDir });
    let firstIds: string[];
    const firstMarkets: Record<string, string[]> = {};
    try {
      const list = await first.http("GET", "/api/v1/events?pageSize=100");
      expect(list.status).toBe(200);
      const events = list.body.data as Array<Record<string, any>>;
      expect(events.length).toBeGreaterThanOrEqual(12);
      expect(list.body.pagination.total).toBe(DEMO_EVENTS.length);
      expect(new Set(events.map((e) => e.category))).toEqual(new Set(CATEGORIES));
      expect(events.some((e) => e.isLive)).toBe(true);
      // Soonest first.
      expect(events.map((e) => e.beginAt)).toEqual([...events.map((e) => e.beginAt)].sort());
      for (const e of events) {
        expect(e.externalEventId).not.toBe("");
        expect(e.imageUrl).toMatch(/^https:\/\//);
        expect(e.tags.length).toBeGreaterThan(0);
        expect(e.subtitle).not.toBe("");
        expect(e.beginAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
        const detail = (await first.http("GET", `/api/v1/events/${e.id}`)).body.data;
        expect(detail.markets.length).toBeGreaterThanOrEqual(1);
        // Races (mutually exclusive events) list one market per outcome.
        expect(detail.markets.length).toBeLessThanOrEqual(detail.mutuallyExclusive ? 64 : 4);
        for (const m of detail.markets) expect(m).toMatchObject({ status: "open", result: null, volume: "0", eventId: e.id });
        firstMarkets[e.id] = detail.markets.map((m: { id: string }) => m.id);
      }
      firstIds = events.map((e) => e.id).sort();
      // Searchable like any other event.
      const found = await first.http("GET", "/api/v1/events/search?q=bitcoin");
      expect(found.body.data[0].title).toMatch(/bitcoin/i);
      // Operable like any other market.
      const someMarket = firstMarkets[firstIds[0]][0];
      expect((await first.broker.call("catalog.closeMarket", { id: someMarket })) as { status: string }).toMatchObject({
        status: "closed",
      });
    } finally {
      await first.stop();
    }

    const second = await startServer(ENV, { dataDir });
    try {
      const list = await second.http("GET", "/api/v1/events?pageSize=100");
      expect(list.body.pagination.total).toBe(DEMO_EVENTS.length);
      expect(list.body.data.map((e: { id: string }) => e.id).sort()).toEqual(firstIds);
      for (const id of firstIds) {
        const detail = (await second.http("GET", `/api/v1/events/${id}`)).body.data;
        expect(detail.markets.map((m: { id: string }) => m.id)).toEqual(firstMarkets[id]);
      }
      // What an operator changed survives; the seed does not run again over it.
      const closed = firstMarkets[firstIds[0]][0];
      expect((await second.http("GET", `/api/v1/markets/${closed}`)).body.data.status).toBe("closed");
    } finally {
      await second.stop();
    }
  });

  test("seeded markets are announced with market.opened once the node is up, and only on the seeding start", async () => {
    const dataDir = freshDir();
    const start = async () => {
      const cfg = loadConfig({ DATA_DIR: dataDir, SEED_DEMO: "true", SERVICES: "catalog", LOG_LEVEL: "false", JWT_SECRET: "x".repeat(64) });
      const broker = createNode(cfg);
      const opened: Array<{ marketId: string; eventId: string; ammLiquidity: string }> = [];
      // Stands in for the AMM: it must hear about every pool to seed, even though it starts alongside.
      broker.createService({
        name: "ammProbe",
        // Slower to start than the catalog's seeding: events sent before it is up would be lost.
        started: () => new Promise((r) => setTimeout(r, 150)),
        events: {
          "market.opened"(ctx: Context<{ marketId: string; eventId: string; ammLiquidity: string }>) {
            opened.push(ctx.params);
          },
        },
      });
      await broker.start();
      return { broker, opened };
    };
    const totalMarkets = DEMO_EVENTS.reduce((n, e) => n + e.markets.length, 0);

    const a = await start();
    for (let i = 0; i < 100 && a.opened.length < totalMarkets; i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.opened).toHaveLength(totalMarkets);
    expect(new Set(a.opened.map((o) => o.marketId)).size).toBe(totalMarkets);
    // A race's pool is the event's, across its outcomes; every other market has its own.
    const pooledByEvent = new Set(DEMO_EVENTS.filter((e) => e.ammLiquidity).map((e) => demoEventId(e.slug)));
    for (const o of a.opened) expect(o.ammLiquidity).toMatch(pooledByEvent.has(o.eventId) ? /^0$/ : /^[1-9][0-9]*$/);
    await a.broker.stop();

    const b = await start();
    await new Promise((r) => setTimeout(r, 100));
    expect(b.opened).toHaveLength(0);
    await b.broker.stop();
  });

  test("the races: an election with five candidates and Other (exhaustive), a league with eight clubs, each with its outcomes", async () => {
    const srv = await startServer(ENV, { dataDir: freshDir() });
    try {
      const list = (await srv.http("GET", "/api/v1/events?pageSize=100")).body.data as Array<Record<string, any>>;
      const races = list.filter((e) => e.mutuallyExclusive);
      expect(races.map((e) => [e.title, e.exhaustive, e.outcomes.length, e.markets.length])).toEqual([
        ["Metropolis mayoral election", true, 6, 0],
        ["Premier League title race", false, 8, 0],
      ]);
      expect(races[0].outcomes.map((o: { label: string }) => o.label)).toEqual([
        "Maria Alvarez",
        "James Okafor",
        "Chen Wei",
        "Sofia Rossi",
        "David Cohen",
        "Other",
      ]);
      for (const r of races) {
        expect(Number(r.ammLiquidity)).toBeGreaterThan(0);
        const detail = (await srv.http("GET", `/api/v1/events/${r.id}`)).body.data;
        expect(detail.markets.map((m: { outcomeLabel: string }) => m.outcomeLabel)).toEqual(
          r.outcomes.map((o: { label: string }) => o.label),
        );
        expect(detail.outcomes.map((o: { marketId: string }) => o.marketId)).toEqual(detail.markets.map((m: { id: string }) => m.id));
      }
      // A plain event shows its markets as outcome rows, labelled with their titles.
      const plain = list.find((e) => !e.mutuallyExclusive)!;
      expect(plain.outcomes.length).toBeGreaterThan(0);
      expect(plain.outcomes.every((o: { label: string }) => o.label.length > 0)).toBe(true);
    } finally {
      await srv.stop();
    }
  });

  test("a whole exchange opens each demo market at its own price: binaries through their pools, races through their event pools and books", async () => {
    const srv = await startServer({ SEED_DEMO: "true", RATE_LIMIT_READ: "1000000" }, { dataDir: freshDir() });
    try {
      const want = new Map(DEMO_EVENTS.flatMap((e) => e.markets.map((m, i) => [demoMarketId(e.slug, i), m.price] as const)));
      const chances = async () => {
        const list = (await srv.http("GET", "/api/v1/events?pageSize=100")).body.data as Array<{
          outcomes: Array<{ marketId: string; chance: string | null }>;
        }>;
        return new Map(list.flatMap((e) => e.outcomes.map((o) => [o.marketId, o.chance] as const)));
      };
      let seen = new Map<string, string | null>();
      const deadline = Date.now() + 120_000;
      const near = (id: string) => {
        const c = seen.get(id);
        return c !== null && c !== undefined && Math.abs(Number(c) * 100 - want.get(id)!) <= 1;
      };
      while (![...want.keys()].every(near)) {
        if (Date.now() > deadline)
          throw new Error(
            `demo prices not reached: ${JSON.stringify([...want.keys()].filter((id) => !near(id)).map((id) => [id, seen.get(id), want.get(id)]))}`,
          );
        await new Promise((r) => setTimeout(r, 250));
        seen = await chances();
      }
      // Realistic and differing, not all 0.50; a race's chances sum to about 100%.
      expect(new Set([...seen.values()]).size).toBeGreaterThan(20);
      for (const e of DEMO_EVENTS.filter((d) => d.mutuallyExclusive)) {
        const sum = e.markets.reduce((s, _m, i) => s + Number(seen.get(demoMarketId(e.slug, i))), 0);
        expect(sum).toBeGreaterThan(0.94);
        expect(sum).toBeLessThan(1.01);
        // The race's one pool is what sets them: its own prices sit within a cent of the race's.
        const pool = (await srv.broker.call("ledger.eventPool", { eventId: demoEventId(e.slug) })) as { prices: Record<string, string> };
        e.markets.forEach((m, i) =>
          expect(Math.abs(Number(pool.prices[demoMarketId(e.slug, i)]) / 10_000 - m.price)).toBeLessThanOrEqual(1),
        );
      }
      // Through the normal paths: the money check holds.
      expect(await srv.broker.call("ledger.conservation")).toMatchObject({ ok: true });
    } finally {
      await srv.stop();
    }
  }, 180_000);

  test("SEED_DEMO=false starts empty", async () => {
    const srv = await startServer({ ...ENV, SEED_DEMO: "false" }, { dataDir: freshDir() });
    try {
      expect((await srv.http("GET", "/api/v1/events")).body.pagination.total).toBe(0);
    } finally {
      await srv.stop();
    }
  });
});
