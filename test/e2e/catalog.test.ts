import type { Context } from "moleculer";
import { startServer, type HttpResult, type TestServer } from "../support/server";
import { CATALOG_REPL_COMMANDS, type ReplArgs } from "../../scripts/repl";
import { conditionIdFor } from "../../catalog/condition";
import { MARKET_CACHE_TTL_SEC } from "../../services/catalog.service";

const ADMIN_KEY = "catalog-test-admin-key";
// The catalog on its own: price sources and other consumers are stood in for by test services.
const ONLY_OURS = "api,auth,catalog";
const API = "/api/v1";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DECIMAL = /^\d+(\.\d+)?$/;
const EVENT_KEYS = [
  "ammLiquidity",
  "beginAt",
  "category",
  "exhaustive",
  "externalEventId",
  "id",
  "imageUrl",
  "isActive",
  "isLive",
  "markets",
  "mutuallyExclusive",
  "outcomes",
  "subcategory",
  "subtitle",
  "tags",
  "title",
  "volumeUsd",
];
// The spec's MarketItem plus the additive eventId, conditionId and outcomeLabel.
const MARKET_KEYS = [
  "buyNoPrice",
  "buyYesPrice",
  "closeTime",
  "conditionId",
  "eventId",
  "id",
  "outcomeLabel",
  "outcomes",
  "resolution",
  "result",
  "rules",
  "sellNoPrice",
  "sellYesPrice",
  "settlementSources",
  "status",
  "title",
  "tradingMode",
  "volume",
];
const PAGINATION_KEYS = ["hasNext", "page", "pageSize", "total"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > until) return v;
    await sleep(20);
  }
}

interface EventBody {
  title: string;
  category: string;
  markets: Array<{ title: string; ammLiquidity?: string }>;
  [k: string]: unknown;
}

/** Admin and public calls against one server, plus a probe service that records market.* events. */
function harness(srv: () => TestServer) {
  const seen: Array<{ name: string; params: Record<string, unknown> }> = [];
  let n = 0;
  const admin = (method: string, path: string, body?: unknown, key: string | null = ADMIN_KEY) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers["x-admin-key"] = key;
    return srv().http(method, `${API}/admin${path}`, { body, headers });
  };
  const get = (path: string) => srv().http("GET", API + path);
  const create = async (over: Partial<EventBody> = {}) => {
    n++;
    const res = await admin("POST", "/events", {
      title: `Fixture event ${n}`,
      category: "Sports",
      markets: [{ title: "Home side wins", ammLiquidity: "1000000" }],
      ...over,
    });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const listen = () =>
    srv().broker.createService({
      name: "catalogProbe",
      events: {
        "market.*"(ctx: Context<Record<string, unknown>>) {
          if (ctx.eventName && ctx.eventName !== "market.trade") seen.push({ name: ctx.eventName, params: ctx.params });
        },
      },
    });
  const eventsFor = (marketId: string) => seen.filter((e) => e.params.marketId === marketId).map((e) => e.name);
  return { admin, get, create, listen, seen, eventsFor };
}

function expectValidation(res: HttpResult, field?: string) {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe("VALIDATION_ERROR");
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.data).toBeUndefined();
  if (field) expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
}

function expectMarketShape(m: Record<string, unknown>) {
  expect(Object.keys(m).sort()).toEqual(MARKET_KEYS);
  expect(typeof m.id).toBe("string");
  expect(typeof m.eventId).toBe("string");
  expect(typeof m.title).toBe("string");
  expect(["open", "closed", "resolved", "resolution_failed", "cancelled"]).toContain(m.status);
  expect(m.result === null || m.result === "YES" || m.result === "NO").toBe(true);
  expect(m.outcomes).toEqual(["YES", "NO"]);
  for (const k of ["buyYesPrice", "buyNoPrice", "sellYesPrice", "sellNoPrice"])
    expect(m[k] === null || (typeof m[k] === "string" && DECIMAL.test(m[k] as string))).toBe(true);
  expect(m.volume).toMatch(DECIMAL);
  expect(m.conditionId).toBe(conditionIdFor(m.id as string));
}

function expectEventShape(e: Record<string, unknown>) {
  expect(Object.keys(e).sort()).toEqual(EVENT_KEYS);
  for (const k of ["id", "externalEventId", "title", "subtitle", "subcategory", "imageUrl"]) expect(typeof e[k]).toBe("string");
  expect(["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"]).toContain(e.category);
  expect(e.volumeUsd).toMatch(DECIMAL);
  expect(typeof e.isActive).toBe("boolean");
  expect(typeof e.isLive).toBe("boolean");
  expect(e.beginAt).toMatch(ISO);
  expect(Array.isArray(e.tags) && (e.tags as unknown[]).every((t) => typeof t === "string")).toBe(true);
  expect(Array.isArray(e.markets)).toBe(true);
  for (const m of e.markets as Array<Record<string, unknown>>) expectMarketShape(m);
}

function expectPage(res: HttpResult, expected: { total: number; page: number; pageSize: number; hasNext: boolean; items: number }) {
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(["data", "pagination", "requestId"]);
  expect(Object.keys(res.body.pagination).sort()).toEqual(PAGINATION_KEYS);
  const { items, ...pagination } = expected;
  expect(res.body.pagination).toEqual(pagination);
  expect(res.body.data).toHaveLength(items);
}

// ---------------------------------------------------------------------------------------------
describe("catalog reads over HTTP", () => {
  let srv: TestServer;
  const h = harness(() => srv);
  const sportsIds: string[] = [];
  let inactiveId = "";
  const search: Record<string, string> = {};

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_READ: "1000000", SERVICES: ONLY_OURS }, { persist: true });
    // 22 Sports events on consecutive days, created in shuffled order: lists sort by beginAt.
    const days = Array.from({ length: 22 }, (_, i) => i).sort((a, b) => ((a * 7) % 22) - ((b * 7) % 22));
    const byDay: Record<number, string> = {};
    for (const d of days)
      byDay[d] = (await h.create({ title: `Match day ${d}`, beginAt: new Date(Date.UTC(2030, 0, 1 + d)).toISOString() })).id;
    for (let d = 0; d < 22; d++) sportsIds.push(byDay[d]);
    for (let i = 0; i < 3; i++) await h.create({ title: `Crypto question ${i}`, category: "Crypto", beginAt: "2031-01-01T00:00:00Z" });
    const s = (key: string, body: Partial<EventBody>) =>
      h.create({ category: "Culture", beginAt: "2032-01-01T00:00:00Z", ...body }).then((e) => (search[key] = e.id));
    // Created in reverse of the expected relevance so that order cannot come from insertion.
    await s("subtitle", { title: "Island derby", subtitle: "Sponsored by Zephyr airlines" });
    await s("market", { title: "Coastal race", markets: [{ title: "The Zephyr boat wins" }] });
    await s("tag", { title: "Harbour regatta", tags: ["zephyr", "sailing"] });
    await s("substring", { title: "Megazephyr open" });
    await s("prefix", { title: "Zephyrus trophy" });
    await s("exact", { title: "The Zephyr Cup final" });
    inactiveId = (await h.create({ title: "Zephyr archived event", category: "Politics", isActive: false })).id;
  });
  afterAll(() => srv.stop());

  describe("GET /events", () => {
    const ACTIVE = 22 + 3 + 6;

    test("defaults: category all, page 1, pageSize 20, sorted by beginAt; inactive events left out", async () => {
      const res = await h.get("/events");
      expectPage(res, { total: ACTIVE, page: 1, pageSize: 20, hasNext: true, items: 20 });
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(sportsIds.slice(0, 20));
      expect(res.body.data.some((e: { id: string }) => e.id === inactiveId)).toBe(false);
    });

    test("items have exactly the Event fields, with markets: []", async () => {
      const res = await h.get("/events?pageSize=100");
      for (const e of res.body.data) {
        expectEventShape(e);
        expect(e.markets).toEqual([]);
      }
      const e = res.body.data[0];
      expect(e).toMatchObject({
        title: "Match day 0",
        subtitle: "",
        subcategory: "",
        imageUrl: "",
        externalEventId: "",
        tags: [],
        volumeUsd: "0",
        isActive: true,
        isLive: false,
        beginAt: "2030-01-01T00:00:00.000Z",
      });
    });

    test("pagination edges", async () => {
      expectPage(await h.get("/events?page=2"), { total: ACTIVE, page: 2, pageSize: 20, hasNext: false, items: ACTIVE - 20 });
      expectPage(await h.get("/events?page=3"), { total: ACTIVE, page: 3, pageSize: 20, hasNext: false, items: 0 });
      expectPage(await h.get("/events?page=1000000"), { total: ACTIVE, page: 1_000_000, pageSize: 20, hasNext: false, items: 0 });
      expectPage(await h.get("/events?pageSize=100"), { total: ACTIVE, page: 1, pageSize: 100, hasNext: false, items: ACTIVE });
      expectPage(await h.get("/events?pageSize=1"), { total: ACTIVE, page: 1, pageSize: 1, hasNext: true, items: 1 });
      expectPage(await h.get(`/events?pageSize=${ACTIVE}`), { total: ACTIVE, page: 1, pageSize: ACTIVE, hasNext: false, items: ACTIVE });
      const p2 = await h.get("/events?page=2&pageSize=5");
      expect(p2.body.data.map((e: { id: string }) => e.id)).toEqual(sportsIds.slice(5, 10));
    });

    test.each([
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=1.5", "page"],
      ["page=abc", "page"],
      ["page=", "page"],
      ["page=1&page=2", "page"],
      ["page[$gt]=0", "page"],
      ["pageSize=0", "pageSize"],
      ["pageSize=101", "pageSize"],
      ["pageSize=ten", "pageSize"],
      ["pageSize=20.5", "pageSize"],
    ])("?%s is 400 VALIDATION_ERROR on %s", async (qs, field) => {
      expectValidation(await h.get(`/events?${qs}`), field);
    });

    test("category filter", async () => {
      const crypto = await h.get("/events?category=Crypto");
      expectPage(crypto, { total: 3, page: 1, pageSize: 20, hasNext: false, items: 3 });
      expect(crypto.body.data.every((e: { category: string }) => e.category === "Crypto")).toBe(true);
      expectPage(await h.get("/events?category=all&pageSize=100"), {
        total: ACTIVE,
        page: 1,
        pageSize: 100,
        hasNext: false,
        items: ACTIVE,
      });
      // The only Politics event is inactive.
      expectPage(await h.get("/events?category=Politics"), { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
      expectPage(await h.get("/events?category=E-sports"), { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
    });

    test.each(["category=Unknown", "category=sports", "category=", "category[$ne]=x", "category=Sports&category=Crypto"])(
      "?%s is 400 with the field named",
      async (qs) => {
        const res = await h.get(`/events?${qs}`);
        expectValidation(res, "category");
        expect(res.body.error.fields[0]).toEqual({ field: "category", rule: expect.any(String) });
      },
    );

    test("search is a filter that keeps the list order", async () => {
      const res = await h.get("/events?search=zephyr");
      expectPage(res, { total: 6, page: 1, pageSize: 20, hasNext: false, items: 6 });
      expect(new Set(res.body.data.map((e: { id: string }) => e.id))).toEqual(new Set(Object.values(search)));
      expectPage(await h.get("/events?search=zephyr&category=Sports"), { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
      // "1" also matches inside "10".."19" and "21".
      expectPage(await h.get("/events?search=match%20day%201"), { total: 12, page: 1, pageSize: 20, hasNext: false, items: 12 });
      expectPage(await h.get("/events?search="), { total: ACTIVE, page: 1, pageSize: 20, hasNext: true, items: 20 });
      expectValidation(await h.get(`/events?search=${"a".repeat(201)}`), "search");
      expectValidation(await h.get("/events?search[$regex]=.*"), "search");
    });

    test("unknown query parameters are ignored", async () => {
      expectPage(await h.get("/events?foo=bar&pageSize=1"), { total: ACTIVE, page: 1, pageSize: 1, hasNext: true, items: 1 });
    });
  });

  describe("GET /events/search", () => {
    test("best matches first: title exact > title prefix > title substring > tag > market title > subtitle", async () => {
      const res = await h.get("/events/search?q=zephyr");
      expectPage(res, { total: 6, page: 1, pageSize: 20, hasNext: false, items: 6 });
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(
        ["exact", "prefix", "substring", "tag", "market", "subtitle"].map((k) => search[k]),
      );
      for (const e of res.body.data) {
        expectEventShape(e);
        expect(e.markets).toEqual([]);
      }
    });

    test("case-insensitive, every word must match, inactive events excluded", async () => {
      const upper = await h.get("/events/search?q=ZEPHYR");
      expect(upper.body.data.map((e: { id: string }) => e.id)).toEqual(
        (await h.get("/events/search?q=zephyr")).body.data.map((e: { id: string }) => e.id),
      );
      const two = await h.get("/events/search?q=zephyr%20sailing");
      expect(two.body.data.map((e: { id: string }) => e.id)).toEqual([search.tag]);
      const archived = await h.get("/events/search?q=archived");
      expectPage(archived, { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
    });

    test("paginated like the list", async () => {
      const res = await h.get("/events/search?q=zephyr&page=2&pageSize=2");
      expectPage(res, { total: 6, page: 2, pageSize: 2, hasNext: true, items: 2 });
      expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([search.substring, search.tag]);
      expectPage(await h.get("/events/search?q=zephyr&page=4&pageSize=2"), { total: 6, page: 4, pageSize: 2, hasNext: false, items: 0 });
      expectValidation(await h.get("/events/search?q=zephyr&pageSize=101"), "pageSize");
      expectValidation(await h.get("/events/search?q=zephyr&page=0"), "page");
    });

    test("q length: 1 and 200 accepted, missing, 0 and 201 refused", async () => {
      expect((await h.get("/events/search?q=z")).status).toBe(200);
      const long = await h.get(`/events/search?q=${"z".repeat(200)}`);
      expectPage(long, { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
      expectValidation(await h.get("/events/search"), "q");
      expectValidation(await h.get("/events/search?q="), "q");
      expectValidation(await h.get(`/events/search?q=${"z".repeat(201)}`), "q");
      expectValidation(await h.get("/events/search?q[$ne]=1"), "q");
    });

    test("a query with no letters or digits matches nothing; regex syntax is just text", async () => {
      expectPage(await h.get("/events/search?q=%2E%2A"), { total: 0, page: 1, pageSize: 20, hasNext: false, items: 0 });
      expectPage(await h.get("/events/search?q=zeph%7C%5E"), { total: 6, page: 1, pageSize: 20, hasNext: false, items: 6 });
    });
  });

  describe("GET /events/:id and GET /markets/:id", () => {
    test("an event with its markets, live prices null without a price source", async () => {
      const created = await h.create({
        title: "Derby with details",
        subtitle: "Saturday evening",
        subcategory: "Football",
        imageUrl: "https://img.example/derby.png",
        externalEventId: "feed:derby:1",
        tags: ["derby", "football", "derby"],
        isLive: true,
        markets: [{ title: "Home wins", ammLiquidity: "2500000000" }, { title: "Draw" }],
      });
      const res = await h.get(`/events/${created.id}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "requestId"]);
      const e = res.body.data;
      expectEventShape(e);
      expect(e).toMatchObject({
        title: "Derby with details",
        subtitle: "Saturday evening",
        subcategory: "Football",
        imageUrl: "https://img.example/derby.png",
        externalEventId: "feed:derby:1",
        tags: ["derby", "football"],
        isLive: true,
        isActive: true,
      });
      expect(e.markets.map((m: { title: string }) => m.title)).toEqual(["Home wins", "Draw"]);
      for (const m of e.markets) {
        expect(m).toMatchObject({
          eventId: e.id,
          status: "open",
          result: null,
          volume: "0",
          buyYesPrice: null,
          buyNoPrice: null,
          sellYesPrice: null,
          sellNoPrice: null,
        });
      }
      const market = await h.get(`/markets/${e.markets[0].id}`);
      expect(market.status).toBe(200);
      expectMarketShape(market.body.data);
      expect(market.body.data).toEqual(e.markets[0]);
      const internal = (await srv.broker.call("catalog.getMarketInternal", { marketId: e.markets[0].id })) as Record<string, unknown>;
      expect(internal).toEqual({
        id: e.markets[0].id,
        eventId: e.id,
        title: "Home wins",
        outcomeLabel: null,
        status: "open",
        result: null,
        conditionId: conditionIdFor(e.markets[0].id),
        ammLiquidity: "2500000000",
      });
    });

    test("internal marketTitles answers many markets at once", async () => {
      const e = await h.create({ title: "Titles", markets: [{ title: "First" }, { title: "Second" }] });
      const [a, b] = e.markets.map((m: { id: string }) => m.id);
      expect(await srv.broker.call("catalog.marketTitles", { marketIds: [a, b, a, "mkt_nope"] })).toEqual({
        [a]: { title: "First", status: "open", result: null },
        [b]: { title: "Second", status: "open", result: null },
      });
      expect(await srv.broker.call("catalog.marketTitles", { marketIds: [] })).toEqual({});
      await expect(srv.broker.call("catalog.marketTitles", { marketIds: [{ $ne: 1 }] })).rejects.toMatchObject({ name: "ValidationError" });
    });

    test("an inactive event is still readable by id", async () => {
      const res = await h.get(`/events/${inactiveId}`);
      expect(res.status).toBe(200);
      expect(res.body.data.isActive).toBe(false);
    });

    test("unknown ids are 404 RESOURCE_NOT_FOUND", async () => {
      for (const path of ["/events/evt_nope", "/markets/mkt_nope", "/markets/mkt_nope/price-history"]) {
        const res = await h.get(path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("RESOURCE_NOT_FOUND");
      }
      await expect(srv.broker.call("catalog.getMarketInternal", { marketId: "mkt_nope" })).rejects.toMatchObject({
        code: 404,
        type: "RESOURCE_NOT_FOUND",
      });
    });

    test.each([
      "/events/%7B%22%24ne%22%3A1%7D",
      "/events/%24where",
      "/events/a%20b",
      `/events/${"e".repeat(65)}`,
      "/markets/%7B%22%24ne%22%3A1%7D",
      "/markets/%7B%22%24gt%22%3A%22%22%7D/price-history",
    ])("injection-shaped id %s is refused as 400, never reaching the store", async (path) => {
      expectValidation(await h.get(path));
    });

    test("query params cannot override the path id", async () => {
      const res = await h.get(`/events/evt_nope?id[$ne]=1`);
      expect(res.status).toBe(404);
      const ok = await h.get(`/events/${sportsIds[0]}?id[$ne]=1`);
      expect(ok.status).toBe(200);
      expect(ok.body.data.id).toBe(sportsIds[0]);
    });
  });

  describe("live prices from the router", () => {
    afterAll(async () => {
      const router = srv.broker.getLocalService("router");
      if (router) await srv.broker.destroyService(router);
    });

    test("shown where the router quotes them; null where it does not, or for markets not trading", async () => {
      const e = await h.create({
        title: "Priced event",
        markets: [{ title: "Priced" }, { title: "Unpriced" }, { title: "Garbage" }, { title: "Closed" }],
      });
      const [priced, unpriced, garbage, closed] = e.markets.map((m: { id: string }) => m.id);
      expect((await h.admin("POST", `/markets/${closed}/close`)).status).toBe(200);
      const asked: string[][] = [];
      srv.broker.createService({
        name: "router",
        actions: {
          livePrices(ctx: Context<{ marketIds: string[] }>) {
            asked.push(ctx.params.marketIds);
            return {
              [priced]: { buyYesPrice: "0.56", buyNoPrice: "0.46", sellYesPrice: "0.54", sellNoPrice: "0.44" },
              [garbage]: { buyYesPrice: 0.5, buyNoPrice: "1.5", sellYesPrice: "abc", sellNoPrice: "0.3" },
              [closed]: { buyYesPrice: "0.99", buyNoPrice: "0.99", sellYesPrice: "0.99", sellNoPrice: "0.99" },
            };
          },
        },
      });
      await srv.broker.waitForServices(["router"]);
      const res = await h.get(`/events/${e.id}`);
      const byId = Object.fromEntries(res.body.data.markets.map((m: { id: string }) => [m.id, m]));
      expect(byId[priced]).toMatchObject({ buyYesPrice: "0.56", buyNoPrice: "0.46", sellYesPrice: "0.54", sellNoPrice: "0.44" });
      expect(byId[unpriced]).toMatchObject({ buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: null });
      expect(byId[garbage]).toMatchObject({ buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: "0.3" });
      expect(byId[closed]).toMatchObject({ status: "closed", buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: null });
      expect(asked[0].sort()).toEqual([priced, unpriced, garbage].sort());
      for (const m of res.body.data.markets) expectMarketShape(m);
      const one = await h.get(`/markets/${priced}`);
      expect(one.body.data).toMatchObject({ buyYesPrice: "0.56", sellNoPrice: "0.44" });
    });

    test("a failing router degrades to null prices, not an error", async () => {
      const e = await h.create({ title: "Router down", markets: [{ title: "Any" }] });
      const router = srv.broker.getLocalService("router");
      if (router) await srv.broker.destroyService(router);
      srv.broker.createService({
        name: "router",
        actions: {
          livePrices() {
            throw new Error("boom");
          },
        },
      });
      await srv.broker.waitForServices(["router"]);
      const res = await h.get(`/events/${e.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.markets[0].buyYesPrice).toBeNull();
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe("operator API and market lifecycle over HTTP", () => {
  let srv: TestServer;
  const h = harness(() => srv);

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_READ: "1000000", SERVICES: ONLY_OURS }, { persist: true });
    h.listen();
  });
  afterAll(() => srv.stop());

  describe("the operator key", () => {
    const routes: Array<[string, string, unknown]> = [
      ["POST", "/events", { title: "x", category: "Sports", markets: [{ title: "y" }] }],
      ["PATCH", "/events/evt_x", { title: "x" }],
      ["POST", "/markets/mkt_x/close", {}],
      ["POST", "/markets/mkt_x/cancel", {}],
      ["POST", "/markets/mkt_x/resolve", { result: "YES" }],
    ];
    test.each(routes)("%s %s: missing key 401, wrong key 403, nothing created", async (method, path, body) => {
      const before = (await h.get("/events?pageSize=100")).body.pagination.total;
      const missing = await h.admin(method, path, body, null);
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe("UNAUTHORIZED");
      const wrong = await h.admin(method, path, body, "not-the-key");
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.code).toBe("FORBIDDEN");
      const almost = await h.admin(method, path, body, ADMIN_KEY + "x");
      expect(almost.status).toBe(403);
      expect((await h.get("/events?pageSize=100")).body.pagination.total).toBe(before);
    });

    test("operator actions are not reachable on the public routes", async () => {
      expect(
        (await srv.http("POST", `${API}/events`, { body: { title: "x", category: "Sports", markets: [{ title: "y" }] } })).status,
      ).toBe(404);
      expect((await srv.http("POST", `${API}/markets/mkt_x/close`, { body: {} })).status).toBe(404);
    });

    test("with ADMIN_KEY=off the operator API does not exist (404), whatever key is sent", async () => {
      const off = await startServer({ ADMIN_KEY: "off", RATE_LIMIT_READ: "1000000", SERVICES: ONLY_OURS }, { persist: true });
      try {
        for (const [method, path, body] of routes) {
          for (const headers of [{}, { "x-admin-key": ADMIN_KEY }, { "x-admin-key": "" }] as Array<Record<string, string>>) {
            const res = await off.http(method, `${API}/admin${path}`, { body, headers });
            expect(res.status).toBe(404);
            expect(res.body.error.code).toBe("RESOURCE_NOT_FOUND");
          }
        }
        expect((await off.http("GET", `${API}/events`)).body.pagination.total).toBe(0);
      } finally {
        await off.stop();
      }
    });
  });

  describe("POST /admin/events", () => {
    test("creates the event with open markets (201) and announces market.opened", async () => {
      const res = await h.admin("POST", "/events", {
        title: "  Cup final  ",
        category: "Sports",
        beginAt: "2030-06-01T18:00:00+02:00",
        tags: ["cup", " final "],
        markets: [{ title: "Reds win", ammLiquidity: "1000000000" }, { title: "Blues win" }],
        ignored: "dropped",
      });
      expect(res.status).toBe(201);
      const e = res.body.data;
      expectEventShape(e);
      expect(e.id).toMatch(/^evt_/);
      expect(e).toMatchObject({
        title: "Cup final",
        beginAt: "2030-06-01T16:00:00.000Z",
        tags: ["cup", "final"],
        isActive: true,
        isLive: false,
      });
      expect(e.ignored).toBeUndefined();
      expect(e.markets).toHaveLength(2);
      for (const m of e.markets) {
        expect(m.id).toMatch(/^mkt_/);
        expect(m).toMatchObject({ status: "open", result: null, volume: "0", eventId: e.id });
      }
      const opened = await waitFor(
        async () => h.seen.filter((s) => s.name === "market.opened" && s.params.eventId === e.id),
        (v) => v.length === 2,
      );
      expect(opened.map((o) => o.params)).toEqual([
        { marketId: e.markets[0].id, eventId: e.id, ammLiquidity: "1000000000" },
        { marketId: e.markets[1].id, eventId: e.id, ammLiquidity: "0" },
      ]);
      expect((await h.get(`/events/${e.id}`)).body.data).toEqual(e);
    });

    const ok = { title: "T", category: "Sports", markets: [{ title: "M" }] };
    test.each<[string, Record<string, unknown>, string]>([
      ["no markets", { ...ok, markets: [] }, "markets"],
      ["11 markets", { ...ok, markets: Array.from({ length: 11 }, (_, i) => ({ title: `M${i}` })) }, "markets"],
      ["markets missing", { title: "T", category: "Sports" }, "markets"],
      ["unknown category", { ...ok, category: "Gossip" }, "category"],
      ["title missing", { category: "Sports", markets: [{ title: "M" }] }, "title"],
      ["blank title", { ...ok, title: "   " }, "title"],
      ["title too long", { ...ok, title: "t".repeat(201) }, "title"],
      ["numeric ammLiquidity", { ...ok, markets: [{ title: "M", ammLiquidity: 1000 }] }, "markets[0].ammLiquidity"],
      ["decimal ammLiquidity", { ...ok, markets: [{ title: "M", ammLiquidity: "10.5" }] }, "markets[0].ammLiquidity"],
      ["ammLiquidity with leading zeros", { ...ok, markets: [{ title: "M", ammLiquidity: "0001000000" }] }, "markets[0].ammLiquidity"],
      ["ammLiquidity as an exponent", { ...ok, markets: [{ title: "M", ammLiquidity: "1e9" }] }, "markets[0].ammLiquidity"],
      ["negative ammLiquidity", { ...ok, markets: [{ title: "M", ammLiquidity: "-1" }] }, "markets[0].ammLiquidity"],
      [
        "ammLiquidity of 1 micro-USDT: too little to seed a pool",
        { ...ok, markets: [{ title: "M", ammLiquidity: "1" }] },
        "markets[0].ammLiquidity",
      ],
      [
        "ammLiquidity of 99: below one lot",
        { ...ok, markets: [{ title: "N" }, { title: "M", ammLiquidity: "99" }] },
        "markets[1].ammLiquidity",
      ],
      ["null subtitle", { ...ok, subtitle: null }, "subtitle"],
      ["market without title", { ...ok, markets: [{}] }, "markets[0].title"],
      ["duplicate market titles", { ...ok, markets: [{ title: "Same" }, { title: "same" }] }, "markets"],
      ["bad beginAt", { ...ok, beginAt: "tomorrow" }, "beginAt"],
      ["impossible beginAt", { ...ok, beginAt: "2030-13-45T99:00:00Z" }, "beginAt"],
      ["bad imageUrl", { ...ok, imageUrl: "javascript:alert(1)" }, "imageUrl"],
      ["tags not strings", { ...ok, tags: [{ $ne: 1 }] }, "tags[0]"],
      ["isActive not boolean", { ...ok, isActive: "yes" }, "isActive"],
    ])("%s: 400, nothing created", async (_name, body, field) => {
      const before = (await h.get("/events?pageSize=100&category=all")).body.pagination.total;
      expectValidation(await h.admin("POST", "/events", body), field);
      expect((await h.get("/events?pageSize=100")).body.pagination.total).toBe(before);
    });

    test("a reused externalEventId is 409 DUPLICATE_EVENT, also when two arrive at once", async () => {
      await h.create({ externalEventId: "feed:42" });
      const again = await h.admin("POST", "/events", {
        title: "Again",
        category: "Sports",
        externalEventId: "feed:42",
        markets: [{ title: "M" }],
      });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("DUPLICATE_EVENT");
      const both = await Promise.all(
        [1, 2, 3].map((i) =>
          h.admin("POST", "/events", { title: `Race ${i}`, category: "Tech", externalEventId: "feed:race", markets: [{ title: "M" }] }),
        ),
      );
      expect(both.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const listed = await h.get("/events?category=Tech&pageSize=100");
      expect(listed.body.data.filter((e: { externalEventId: string }) => e.externalEventId === "feed:race")).toHaveLength(1);
    });
  });

  describe("PATCH /admin/events/:id", () => {
    test("changes display fields and market titles, and search follows", async () => {
      const e = await h.create({ title: "Before", tags: ["old"], markets: [{ title: "Old market" }] });
      const res = await h.admin("PATCH", `/events/${e.id}`, {
        title: "Quasar showdown",
        subtitle: "Now with a subtitle",
        category: "E-sports",
        tags: ["new"],
        isLive: true,
        markets: [{ id: e.markets[0].id, title: "Nebula team wins" }],
        status: "resolved",
        volumeUsd: "999",
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: e.id,
        title: "Quasar showdown",
        subtitle: "Now with a subtitle",
        category: "E-sports",
        tags: ["new"],
        isLive: true,
        volumeUsd: "0",
      });
      expect(res.body.data.markets[0]).toMatchObject({ title: "Nebula team wins", status: "open" });
      expect((await h.get("/events/search?q=nebula")).body.data.map((x: { id: string }) => x.id)).toEqual([e.id]);
      expect((await h.get("/events/search?q=quasar")).body.data.map((x: { id: string }) => x.id)).toEqual([e.id]);
      expect((await h.get("/events/search?q=before")).body.pagination.total).toBe(0);
    });

    test("unpublishing hides the event from lists", async () => {
      const e = await h.create({ title: "Soon hidden", category: "Economics" });
      expect((await h.get("/events?category=Economics")).body.data.map((x: { id: string }) => x.id)).toContain(e.id);
      expect((await h.admin("PATCH", `/events/${e.id}`, { isActive: false })).status).toBe(200);
      expect((await h.get("/events?category=Economics")).body.data.map((x: { id: string }) => x.id)).not.toContain(e.id);
    });

    test("unknown event or a market of another event is 404; bad fields are 400", async () => {
      const a = await h.create();
      const b = await h.create();
      expect((await h.admin("PATCH", "/events/evt_nope", { title: "x" })).status).toBe(404);
      expect((await h.admin("PATCH", `/events/${a.id}`, { markets: [{ id: b.markets[0].id, title: "Hijack" }] })).status).toBe(404);
      expect((await h.get(`/markets/${b.markets[0].id}`)).body.data.title).toBe("Home side wins");
      expectValidation(await h.admin("PATCH", `/events/${a.id}`, { category: "Gossip" }), "category");
      expectValidation(await h.admin("PATCH", `/events/${a.id}`, { title: "" }), "title");
      expectValidation(await h.admin("PATCH", "/events/%7B%22%24ne%22%3A1%7D", { title: "x" }), "id");
    });

    test("a null field is 400 naming it, and nothing changes", async () => {
      const e = await h.create({ title: "Stays as it is", markets: [{ title: "Kept title" }] });
      const before = (await h.get(`/events/${e.id}`)).body.data;
      for (const field of ["title", "subtitle", "subcategory", "category", "imageUrl", "beginAt", "tags", "isActive", "isLive"]) {
        const res = await h.admin("PATCH", `/events/${e.id}`, { [field]: null, markets: [{ id: e.markets[0].id, title: "Renamed" }] });
        expectValidation(res, field);
        expect(res.body.error.message).toMatch(new RegExp(`^The '${field}' field must be an? [a-z]+, not null$`));
      }
      expect((await h.get(`/events/${e.id}`)).body.data).toEqual(before);
    });
  });

  describe("lifecycle transitions", () => {
    type Cmd = "close" | "cancel" | "resolve" | "failResolution";
    const STATUSES = ["open", "closed", "resolved", "resolution_failed", "cancelled"] as const;
    // Resulting status, or null when the transition is refused with 409.
    const TABLE: Record<(typeof STATUSES)[number], Record<Cmd, string | null>> = {
      open: { close: "closed", cancel: "cancelled", resolve: "resolved", failResolution: null },
      closed: { close: null, cancel: "cancelled", resolve: "resolved", failResolution: "resolution_failed" },
      resolved: { close: null, cancel: null, resolve: null, failResolution: null },
      resolution_failed: { close: null, cancel: null, resolve: "resolved", failResolution: null },
      cancelled: { close: null, cancel: null, resolve: null, failResolution: null },
    };
    const EMITS: Record<string, string[]> = {
      "open>close": ["market.closed"],
      "open>cancel": ["market.cancelled"],
      "open>resolve": ["market.closed", "market.resolved"],
      "closed>cancel": ["market.cancelled"],
      "closed>resolve": ["market.resolved"],
      "closed>failResolution": ["market.resolutionFailed"],
      "resolution_failed>resolve": ["market.resolved"],
    };

    /** close/cancel/resolve through the operator HTTP API; failResolution is an internal call (chain, REPL). */
    async function run(
      id: string,
      cmd: Cmd,
    ): Promise<{ status: number; body: { data?: Record<string, unknown>; error?: { code: string; message: string } } }> {
      if (cmd === "failResolution") {
        try {
          const data = (await srv.broker.call("catalog.failResolution", { id, reason: "oracle unavailable" })) as Record<string, unknown>;
          return { status: 200, body: { data } };
        } catch (err) {
          const e = err as { code: number; type: string; message: string };
          return { status: e.code, body: { error: { code: e.type, message: e.message } } };
        }
      }
      return h.admin("POST", `/markets/${id}/${cmd}`, cmd === "resolve" ? { result: "NO" } : {});
    }
    const PATH: Record<(typeof STATUSES)[number], Cmd[]> = {
      open: [],
      closed: ["close"],
      resolved: ["close", "resolve"],
      resolution_failed: ["close", "failResolution"],
      cancelled: ["cancel"],
    };

    const cases = STATUSES.flatMap((s) =>
      (["close", "cancel", "resolve", "failResolution"] as Cmd[]).map((c) => [s, c, TABLE[s][c]] as const),
    );
    test.each(cases)("%s --%s--> %s", async (from, cmd, to) => {
      const e = await h.create({ title: `Lifecycle ${from} ${cmd}` });
      const id = e.markets[0].id;
      for (const step of PATH[from]) expect((await run(id, step)).status).toBe(200);
      expect((await h.get(`/markets/${id}`)).body.data.status).toBe(from);
      const seenBefore = h.eventsFor(id).length;

      const res = await run(id, cmd);
      const after = (await h.get(`/markets/${id}`)).body.data;
      if (to === null) {
        expect(res.status).toBe(409);
        expect(res.body.error!.code).toBe("ILLEGAL_TRANSITION");
        expect(res.body.error!.message).toContain(from);
        expect(after.status).toBe(from);
        await sleep(30);
        expect(h.eventsFor(id).length).toBe(seenBefore);
        return;
      }
      expect(res.status).toBe(200);
      expectMarketShape(res.body.data!);
      expect(res.body.data!.status).toBe(to);
      // Status changes are visible at once: the 5 s cache entry is dropped.
      expect(after.status).toBe(to);
      expect(after.result).toBe(to === "resolved" ? "NO" : null);
      const expected = EMITS[`${from}>${cmd}`];
      const got = await waitFor(
        async () => h.eventsFor(id).slice(seenBefore),
        (v) => v.length >= expected.length,
      );
      expect(got).toEqual(expected);
      const resolved = h.seen.find((s) => s.name === "market.resolved" && s.params.marketId === id);
      if (to === "resolved")
        expect(resolved!.params).toEqual({ marketId: id, result: "NO", conditionId: conditionIdFor(id), yesPayout: 0 });
      const internal = (await srv.broker.call("catalog.getMarketInternal", { marketId: id })) as { status: string };
      expect(internal.status).toBe(to);
    });

    test("retry after a failed resolution may settle the other outcome", async () => {
      const id = (await h.create()).markets[0].id;
      await run(id, "close");
      await h.admin("POST", `/markets/${id}/resolve`, { result: "NO" }).then((r) => expect(r.status).toBe(200));
      const e2 = await h.create();
      const id2 = e2.markets[0].id;
      await run(id2, "close");
      await run(id2, "failResolution");
      expect((await h.get(`/markets/${id2}`)).body.data).toMatchObject({ status: "resolution_failed", result: null });
      const retried = await h.admin("POST", `/markets/${id2}/resolve`, { result: "YES" });
      expect(retried.status).toBe(200);
      expect(retried.body.data).toMatchObject({ status: "resolved", result: "YES" });
    });

    test("resolve needs result YES or NO", async () => {
      const id = (await h.create()).markets[0].id;
      for (const body of [{}, { result: "MAYBE" }, { result: "yes" }, { result: ["YES"] }, { result: { $ne: null } }]) {
        expectValidation(await h.admin("POST", `/markets/${id}/resolve`, body), "result");
      }
      expect((await h.get(`/markets/${id}`)).body.data.status).toBe("open");
    });

    test("transitions on unknown or malformed ids: 404 / 400", async () => {
      for (const cmd of ["close", "cancel"]) {
        expect((await h.admin("POST", `/markets/mkt_nope/${cmd}`, {})).status).toBe(404);
        expectValidation(await h.admin("POST", `/markets/%7B%22%24ne%22%3A1%7D/${cmd}`, {}), "id");
      }
      expect((await h.admin("POST", "/markets/mkt_nope/resolve", { result: "YES" })).status).toBe(404);
    });

    test("of two concurrent transitions only one wins", async () => {
      const id = (await h.create()).markets[0].id;
      const before = h.eventsFor(id).length;
      const [a, b] = await Promise.all([
        h.admin("POST", `/markets/${id}/resolve`, { result: "YES" }),
        h.admin("POST", `/markets/${id}/resolve`, { result: "NO" }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const winner = a.status === 200 ? a : b;
      expect((await h.get(`/markets/${id}`)).body.data.result).toBe(winner.body.data.result);
      await sleep(50);
      expect(
        h
          .eventsFor(id)
          .slice(before)
          .filter((n) => n === "market.resolved"),
      ).toHaveLength(1);

      const id2 = (await h.create()).markets[0].id;
      const closes = await Promise.all([1, 2, 3, 4].map(() => h.admin("POST", `/markets/${id2}/close`, {})));
      expect(closes.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    });
  });

  describe("GET /markets/:id cache", () => {
    test(`display changes appear only after ${MARKET_CACHE_TTL_SEC} s`, async () => {
      expect(MARKET_CACHE_TTL_SEC).toBe(5);
      const e = await h.create({ title: "Cached", markets: [{ title: "Original title" }] });
      const id = e.markets[0].id;
      const t0 = Date.now();
      expect((await h.get(`/markets/${id}`)).body.data.title).toBe("Original title");
      const t1 = Date.now();
      expect((await h.admin("PATCH", `/events/${e.id}`, { markets: [{ id, title: "New title" }] })).status).toBe(200);
      // The event view is not cached and shows the change at once.
      expect((await h.get(`/events/${e.id}`)).body.data.markets[0].title).toBe("New title");
      expect((await h.get(`/markets/${id}`)).body.data.title).toBe("Original title");
      await sleep(t0 + 4_500 - Date.now());
      expect((await h.get(`/markets/${id}`)).body.data.title).toBe("Original title");
      await sleep(t1 + 5_100 - Date.now());
      expect((await h.get(`/markets/${id}`)).body.data.title).toBe("New title");
    });
  });

  describe("price history from market.trade", () => {
    const trade = (
      marketId: string,
      tradeId: string,
      yesPrice: number,
      shares: number,
      minutesAgo: number,
      extra: Record<string, unknown> = {},
    ) => ({
      marketId,
      tradeId,
      outcome: "YES",
      yesPrice,
      quantity: shares * 1_000_000,
      notional: shares * yesPrice * 10_000,
      at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      ...extra,
    });
    const history = (id: string, qs = "") => h.get(`/markets/${id}/price-history${qs}`);

    test("prints become candles, volumes and changes; replays and junk change nothing", async () => {
      const e = await h.create({ title: "Traded", markets: [{ title: "Traded market" }, { title: "Sibling" }] });
      const id = e.markets[0].id;
      srv.broker.emit("market.trade", trade(id, "trd_1", 40, 10, 30)); // 4 USDT
      srv.broker.emit("market.trade", trade(id, "trd_2", 60, 5, 10, { outcome: "NO" })); // 3 USDT
      srv.broker.emit("market.trade", trade(id, "trd_1", 99, 1000, 1)); // replay of trd_1: ignored
      srv.broker.emit("market.trade", trade(id, "trd_bad", 100, 1, 1)); // price out of range: refused
      srv.broker.emit("market.trade", trade(id, "trd_bad2", 50, 1, 1, { at: "yesterday" }));
      srv.broker.emit("market.trade", trade("mkt_unknown", "trd_3", 50, 1, 1));

      const res = await waitFor(
        () => history(id, "?interval=1H"),
        (r) => r.body.data?.currentPrice === 0.6,
      );
      expect(res.status).toBe(200);
      const d = res.body.data;
      expect(Object.keys(d).sort()).toEqual([
        "candles",
        "currentPrice",
        "interval",
        "marketId",
        "outcome",
        "priceChange",
        "priceChangePercent",
        "volume24h",
      ]);
      expect(d).toMatchObject({
        marketId: id,
        outcome: "YES",
        interval: "1H",
        currentPrice: 0.6,
        priceChange: 0.2,
        priceChangePercent: 50,
        volume24h: 7,
      });
      for (const c of d.candles) {
        expect(Object.keys(c).sort()).toEqual(["close", "high", "low", "open", "timestamp", "volume"]);
        expect(c.timestamp).toMatch(ISO);
        for (const k of ["open", "high", "low", "close", "volume"]) expect(typeof c[k]).toBe("number");
      }
      expect(d.candles[0]).toMatchObject({ open: 0.4, close: 0.4, volume: 10 });
      expect(d.candles[d.candles.length - 1].close).toBe(0.6);
      expect(d.candles.reduce((a: number, c: { volume: number }) => a + c.volume, 0)).toBe(15);
      // One-minute buckets, consecutive, the first at the first trade's minute.
      const stamps = d.candles.map((c: { timestamp: string }) => Date.parse(c.timestamp));
      expect(stamps.every((t: number, i: number) => i === 0 || t - stamps[i - 1] === 60_000)).toBe(true);

      const no = (await history(id, "?interval=1H&outcome=NO")).body.data;
      expect(no).toMatchObject({ outcome: "NO", currentPrice: 0.4, priceChange: -0.2, priceChangePercent: -33.33, volume24h: 7 });
      expect(no.candles[0]).toMatchObject({ open: 0.6, high: 0.6, low: 0.6, close: 0.6 });

      const defaults = (await history(id)).body.data;
      expect(defaults).toMatchObject({ outcome: "YES", interval: "1D", currentPrice: 0.6 });
      for (const interval of ["1W", "1M", "MAX"]) expect((await history(id, `?interval=${interval}`)).body.data.currentPrice).toBe(0.6);

      // Volume went to the market and the event, once.
      const ev = (await h.get(`/events/${e.id}`)).body.data;
      expect(ev.volumeUsd).toBe("7");
      expect(ev.markets[0].volume).toBe("7");
      expect(ev.markets[1].volume).toBe("0");
      srv.broker.emit("market.trade", trade(id, "trd_2", 60, 5, 10));
      srv.broker.emit("market.trade", trade(id, "trd_4", 55, 1, 0, { notional: 550_001 }));
      const later = await waitFor(
        () => h.get(`/events/${e.id}`),
        (r) => r.body.data.volumeUsd !== "7",
      );
      expect(later.body.data.volumeUsd).toBe("7.550001");
      expect(later.body.data.markets[0].volume).toBe("7.550001");
    });

    test("a market without trades: no candles, price 0.5", async () => {
      const id = (await h.create()).markets[0].id;
      const res = await history(id, "?interval=1W&outcome=NO");
      expect(res.body.data).toEqual({
        marketId: id,
        outcome: "NO",
        interval: "1W",
        candles: [],
        currentPrice: 0.5,
        priceChange: 0,
        priceChangePercent: 0,
        volume24h: 0,
      });
    });

    test.each(["outcome=MAYBE", "outcome=yes", "interval=2H", "interval=1d", "interval[$ne]=1H", "outcome="])("?%s is 400", async (qs) => {
      const id = (await h.create()).markets[0].id;
      expectValidation(await history(id, `?${qs}`));
    });
  });

  describe("REPL commands call the same actions", () => {
    const command = (name: string) => {
      const c = CATALOG_REPL_COMMANDS.find((x) => x.command.split(" ")[0] === name);
      if (!c) throw new Error(`no command ${name}`);
      return (args: Partial<ReplArgs> = {}) => c.action(srv.broker, { options: {}, ...args });
    };
    let log: jest.SpyInstance;
    beforeAll(() => {
      log = jest.spyOn(console, "log").mockImplementation(() => undefined);
    });
    afterAll(() => log.mockRestore());

    test("the commands exist with their arguments; none collides with moleculer-repl's own", () => {
      expect(CATALOG_REPL_COMMANDS.map((c) => c.command)).toEqual([
        "list-events [category]",
        "show-event <eventId>",
        "create-event <json>",
        "close <marketId>",
        "cancel <marketId> [price]",
        "resolve <marketId> <result>",
        "propose <marketId> <result> [note...]",
        "finalize <marketId> <result>",
        "add-outcome <eventId> <outcomeLabel> <title...>",
        "resolve-event <eventId> <winner>",
        "propose-event <eventId> <winner> [note...]",
      ]);
    });

    test("create-event, close, cancel, resolve and list-events have the HTTP API's effects", async () => {
      const body = {
        title: "From the console",
        category: "Culture",
        beginAt: "2030-03-01T10:00:00Z",
        tags: ["repl"],
        markets: [{ title: "One", ammLiquidity: "5000000" }, { title: "Two" }, { title: "Three" }],
      };
      const created = (await command("create-event")({ json: JSON.stringify(body) })) as { id: string; markets: Array<{ id: string }> };
      expectEventShape(created as unknown as Record<string, unknown>);
      expect((await h.get(`/events/${created.id}`)).body.data).toEqual(created);
      const viaHttp = (await h.admin("POST", "/events", body)).body.data;
      const strip = (e: { id: string; markets: Array<Record<string, unknown>>; outcomes: Array<Record<string, unknown>> }) => ({
        ...e,
        id: "",
        markets: e.markets.map((m) => ({ ...m, id: "", eventId: "", conditionId: "" })),
        outcomes: e.outcomes.map((o) => ({ ...o, marketId: "" })),
      });
      expect(strip(created as never)).toEqual(strip(viaHttp));
      const opened = await waitFor(
        async () => h.eventsFor(created.markets[0].id),
        (v) => v.length === 1,
      );
      expect(opened).toEqual(["market.opened"]);

      const [one, two, three] = created.markets.map((m) => m.id);
      expect(await command("close")({ marketId: one })).toMatchObject({ id: one, status: "closed" });
      expect(await command("cancel")({ marketId: two })).toMatchObject({ id: two, status: "cancelled" });
      expect(await command("resolve")({ marketId: three, result: "yes" })).toMatchObject({ id: three, status: "resolved", result: "YES" });
      const [httpOne, httpTwo, httpThree] = viaHttp.markets.map((m: { id: string }) => m.id);
      await h.admin("POST", `/markets/${httpOne}/close`, {});
      await h.admin("POST", `/markets/${httpTwo}/cancel`, {});
      await h.admin("POST", `/markets/${httpThree}/resolve`, { result: "YES" });
      const replView = (await h.get(`/events/${created.id}`)).body.data;
      const httpView = (await h.get(`/events/${viaHttp.id}`)).body.data;
      expect(strip(replView)).toEqual(strip(httpView));
      const emitted = await waitFor(
        async () => [one, two, three].map((m) => h.eventsFor(m)),
        (v) => v[2].length === 3,
      );
      expect(emitted).toEqual([
        ["market.opened", "market.closed"],
        ["market.opened", "market.cancelled"],
        ["market.opened", "market.closed", "market.resolved"],
      ]);

      const listed = (await command("list-events")({ category: "Culture", options: { search: "console" } })) as {
        items: Array<{ id: string }>;
      };
      expect(listed.items.map((e) => e.id)).toEqual([created.id, viaHttp.id]);
    });

    test("refusals are the same errors as over HTTP", async () => {
      const id = (await h.create()).markets[0].id;
      await command("cancel")({ marketId: id });
      await expect(command("close")({ marketId: id })).rejects.toMatchObject({ code: 409, type: "ILLEGAL_TRANSITION" });
      await expect(command("resolve")({ marketId: id, result: "MAYBE" })).rejects.toMatchObject({ code: 422, name: "ValidationError" });
      await expect(command("close")({ marketId: "mkt_nope" })).rejects.toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
      await expect(command("create-event")({ json: "{not json" })).rejects.toThrow(/not valid JSON/);
      await expect(command("create-event")({ json: JSON.stringify({ title: "x", category: "Nope", markets: [] }) })).rejects.toMatchObject({
        name: "ValidationError",
      });
    });
  });
});
