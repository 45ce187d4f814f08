/**
 * The api service (moleculer-web gateway) on a real ServiceBroker, the Moleculer way: started on
 * port 0 with the production middlewares, every service behind its routes faked as a small
 * service on the same broker that records what reached it (params, the session user, the request
 * meta) and answers or fails as told; real HTTP with fetch. The one real neighbour is the ledger
 * service on a temp-dir SQLite store: the Idempotency-Key's answers are kept there (PRODUCT.md's
 * embedded store), so a replay is what a client would really get.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Errors, ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig, type AppConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { conflict, notFound } from "../../lib/errors";
import { page } from "../../lib/paging";
import { issueToken } from "../../auth/tokens";
import { AuthGuard } from "../../mixins/guard.middleware";
import { Idempotency } from "../../mixins/idempotency.middleware";
import { createMarketRouting } from "../../mixins/market-routing.middleware";
import type { RequestMeta } from "../../mixins/context";
import ApiService from "../../services/api.service";
import LedgerService from "../../services/ledger.service";

const ADMIN_KEY = "api-test-admin-key";
const DOMAIN = "exchange.test";
const TRADE_LIMIT = 4;
const READ_LIMIT = 30;

interface Reached {
  action: string;
  params: Record<string, unknown>;
  meta: RequestMeta;
}

describe("api service (gateway)", () => {
  let broker: ServiceBroker;
  let cfg: AppConfig;
  let dir: string;
  let url: string;
  const reached: Reached[] = [];
  const revoked = new Set<string>();
  const sessionChecks: string[] = [];
  let orderSeq = 0;

  /** Records the call, then answers with `answer(ctx)`. */
  const fake = (answer: (ctx: Context<Record<string, unknown>, RequestMeta>) => unknown, extra: object = {}) => ({
    ...extra,
    handler(ctx: Context<Record<string, unknown>, RequestMeta>) {
      reached.push({ action: ctx.action?.name as string, params: { ...ctx.params }, meta: { ...ctx.meta } });
      return answer(ctx);
    },
  });
  const services: ServiceSchema[] = [
    {
      name: "auth",
      actions: {
        checkSession: (ctx: Context<{ sid: string; userId: string }>) => {
          sessionChecks.push(ctx.params.sid);
          return !revoked.has(ctx.params.sid);
        },
        challenge: fake((ctx) => ({ domain: ctx.meta.proofDomain, payload: "00" })),
        connect: fake(() => {
          throw new Errors.MoleculerClientError("Invalid proof", 401, "UNAUTHORIZED");
        }),
      },
    },
    {
      name: "book",
      actions: {
        place: fake((ctx) => ({ orderId: `ord_${++orderSeq}`, ...ctx.params }), {
          auth: "user",
          idempotent: true,
          params: { marketId: "string", price: "number", quantity: "number", $$strict: "remove" },
        }),
        cancelOrder: fake(
          (ctx) => {
            if (ctx.params.orderId !== "ord_mine") throw notFound("Order", "ORDER_NOT_FOUND");
            return { orderId: "ord_mine", status: "cancelled" };
          },
          { auth: "user" },
        ),
        listOrders: fake(() => page([{ orderId: "ord_1" }, { orderId: "ord_2" }], 7, 2, 2), { auth: "user" }),
        orderbook: fake(() => ({ bids: [], asks: [] })),
        placeBatch: fake(
          () => {
            throw conflict("DUPLICATE_CLIENT_ORDER_ID", "clientOrderId taken");
          },
          { auth: "user" },
        ),
      },
    },
    {
      name: "router",
      actions: {
        trade: fake(
          () => {
            throw new Errors.MoleculerError(
              "Market mkt_1 is moving between engine nodes; nothing was executed, retry",
              503,
              "MARKET_MOVED",
              { retryAfter: 1 },
            );
          },
          { auth: "user" },
        ),
      },
    },
    {
      name: "amm",
      actions: {
        trade: fake(
          () => {
            throw new Error("pool invariant broken at 0xdeadbeef");
          },
          { auth: "user" },
        ),
      },
    },
    {
      name: "catalog",
      actions: {
        listEvents: fake(() => page([], 0, 1, 20)),
        createEvent: fake(
          (ctx) => {
            ctx.meta.$statusCode = 201;
            return { id: "evt_1" };
          },
          { auth: "admin" },
        ),
      },
    },
  ];

  const token = (userId: string, sid = `ses_${userId}`) =>
    issueToken(cfg.jwtSecret, { userId, walletAddress: "0:" + "1".repeat(64), sessionId: sid }, Math.floor(Date.now() / 1000)).token;
  async function http(
    method: string,
    path: string,
    o: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body = o.raw;
    if (o.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(o.body);
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }
  const last = (action: string) => reached.filter((r) => r.action === action).at(-1);
  const count = (action: string) => reached.filter((r) => r.action === action).length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-api-svc-"));
    cfg = loadConfig({
      DATA_DIR: dir,
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN: DOMAIN,
      JWT_SECRET: "j".repeat(64),
      LOG_LEVEL: "false",
      ADMIN_KEY,
      RATE_LIMIT_TRADE: String(TRADE_LIMIT),
      RATE_LIMIT_READ: String(READ_LIMIT),
    });
    broker = new ServiceBroker({
      logger: false,
      validator: { type: "Fastest", options: VALIDATOR_OPTIONS },
      middlewares: [AuthGuard, Idempotency, createMarketRouting()],
    });
    bindConfig(broker, cfg);
    for (const s of [...services, LedgerService, ApiService]) broker.createService(s);
    await broker.start();
    const server = (broker.getLocalService("api") as unknown as { server: Server }).server;
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    reached.length = 0;
  });

  test("aliases reach their actions with the body, query and path merged, the session user and the request's meta; answers in the envelope", async () => {
    const tk = token("usr_alias");
    const placed = await http("POST", "/api/v1/orders", {
      token: tk,
      body: { marketId: "mkt_1", price: 0.4, quantity: 100, extra: "dropped" },
    });
    expect(placed.status).toBe(200);
    expect(placed.body).toEqual({
      data: { orderId: expect.stringMatching(/^ord_/), marketId: "mkt_1", price: 0.4, quantity: 100 },
      requestId: expect.stringMatching(/^req_/),
    });
    expect(placed.headers.get("x-request-id")).toBe(placed.body.requestId);
    expect(last("book.place")).toMatchObject({
      params: { marketId: "mkt_1", price: 0.4, quantity: 100 },
      meta: { origin: "gateway", user: { id: "usr_alias", wallet: "0:" + "1".repeat(64), sid: "ses_usr_alias", exp: expect.any(Number) } },
    });

    const cancelled = await http("DELETE", "/api/v1/orders/ord_mine", { token: tk });
    expect(cancelled).toMatchObject({ status: 200, body: { data: { orderId: "ord_mine", status: "cancelled" } } });
    expect(last("book.cancelOrder")?.params).toEqual({ orderId: "ord_mine" });

    // A page: its items as `data`, its pagination beside them.
    const listed = await http("GET", "/api/v1/orders?status=all&page=2&pageSize=2", { token: tk });
    expect(listed.body).toEqual({
      data: [{ orderId: "ord_1" }, { orderId: "ord_2" }],
      pagination: { page: 2, pageSize: 2, total: 7, hasNext: true },
      requestId: expect.any(String),
    });
    expect(last("book.listOrders")?.params).toEqual({ status: "all", page: "2", pageSize: "2" });

    // Public reads need no session; the action sees none.
    const book = await http("GET", "/api/v1/markets/mkt_9/orderbook?outcome=NO");
    expect(book).toMatchObject({ status: 200, body: { data: { bids: [], asks: [] } } });
    expect(last("book.orderbook")).toMatchObject({ params: { marketId: "mkt_9", outcome: "NO" }, meta: { user: null } });

    // Login calls learn the proof domain the gateway answers to.
    expect((await http("GET", "/api/v1/auth/challenge")).body.data).toEqual({ domain: DOMAIN, payload: "00" });

    // The status an action sets is the response's.
    const created = await http("POST", "/api/v1/admin/events", { headers: { "x-admin-key": ADMIN_KEY }, body: { title: "E" } });
    expect(created).toMatchObject({ status: 201, body: { data: { id: "evt_1" } } });
    expect(last("catalog.createEvent")?.meta).toMatchObject({ admin: true, origin: "gateway" });
  });

  test("only the contract's routes exist: internal actions and unknown paths are 404 RESOURCE_NOT_FOUND and reach nothing", async () => {
    // The journal so far (the operator's actions above are audited in it): the 404s add nothing.
    const journal = await broker.call("ledger.entriesAfter", { seq: 0 });
    for (const [m, p] of [
      ["POST", "/api/v1/ledger/post"],
      ["POST", "/api/v1/ledger.post"],
      ["GET", "/api/v1/book/depth"],
      ["POST", "/api/v1/book/cancel"],
      ["GET", "/api/v1/nope"],
      ["PUT", "/api/v1/orders"],
    ]) {
      // A well-formed deposit: were the route there, it would credit money.
      const deposit = {
        key: `dep:${p}`,
        postings: [
          { kind: "cash", account: "usr_404", available: 1_000_000 },
          { kind: "external", flow: "deposit", amount: 1_000_000 },
        ],
      };
      const res = await http(m, p, { token: token("usr_404"), ...(m === "GET" ? {} : { body: deposit }) });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: "RESOURCE_NOT_FOUND", message: expect.any(String) }, requestId: expect.any(String) });
    }
    expect(reached).toEqual([]);
    expect(await broker.call("ledger.entriesAfter", { seq: 0 })).toEqual(journal);
    expect(await broker.call("ledger.account", { account: "usr_404" })).toMatchObject({ balance: { available: 0 } });
  });

  test("auth: no, bad or revoked session is 401 UNAUTHORIZED before the action runs; a confirmed session is asked once, again after auth.sessionRevoked", async () => {
    const body = { marketId: "mkt_1", price: 0.4, quantity: 100 };
    for (const o of [
      {},
      { token: "not-a-jwt" },
      {
        token: issueToken("another-secret", { userId: "usr_x", walletAddress: "0:1", sessionId: "s" }, Math.floor(Date.now() / 1000)).token,
      },
    ]) {
      const res = await http("POST", "/api/v1/orders", { ...o, body });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: "UNAUTHORIZED", message: expect.any(String) }, requestId: expect.any(String) });
    }
    expect(count("book.place")).toBe(0);

    const tk = token("usr_auth", "ses_live");
    sessionChecks.length = 0;
    expect((await http("GET", "/api/v1/orders", { token: tk })).status).toBe(200);
    expect((await http("GET", "/api/v1/orders", { token: tk })).status).toBe(200);
    expect(sessionChecks).toEqual(["ses_live"]);
    // Logged out: auth tells every gateway; the next request asks again and is refused.
    revoked.add("ses_live");
    broker.broadcast("auth.sessionRevoked", { sid: "ses_live", userId: "usr_auth" });
    const after = await http("GET", "/api/v1/orders", { token: tk });
    expect(after.status).toBe(401);
    expect(sessionChecks).toEqual(["ses_live", "ses_live"]);
    expect(count("book.listOrders")).toBe(2);

    // The operator API: no key 401, a wrong key 403; the action never runs.
    expect((await http("POST", "/api/v1/admin/events", { body: {} })).body.error.code).toBe("UNAUTHORIZED");
    const wrong = await http("POST", "/api/v1/admin/events", { headers: { "x-admin-key": "guess" }, body: {} });
    expect(wrong).toMatchObject({ status: 403, body: { error: { code: "FORBIDDEN" } } });
    expect(count("catalog.createEvent")).toBe(0);
  });

  test("errors in the spec's envelope: validation 400 with fields, domain codes passed through, 503 with Retry-After, internals hidden, missing services 503", async () => {
    // A user per request, so that no trade budget runs out here.
    let n = 0;
    const fresh = () => token(`usr_errors_${++n}`);
    const invalid = await http("POST", "/api/v1/orders", { token: fresh(), body: { marketId: "mkt_1", price: "0.4", quantity: 100 } });
    expect(invalid).toMatchObject({
      status: 400,
      body: { error: { code: "VALIDATION_ERROR", message: "Parameters validation error", fields: [{ field: "price", rule: "number" }] } },
    });
    const malformed = await http("POST", "/api/v1/orders", {
      token: fresh(),
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: "VALIDATION_ERROR", message: "Malformed JSON body" } } });
    const huge = await http("POST", "/api/v1/orders", {
      token: fresh(),
      body: { marketId: "x".repeat(70_000), price: 0.4, quantity: 100 },
    });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: "PAYLOAD_TOO_LARGE" } } });
    expect(count("book.place")).toBe(0);

    expect(await http("DELETE", "/api/v1/orders/ord_other", { token: fresh() })).toMatchObject({
      status: 404,
      body: { error: { code: "ORDER_NOT_FOUND", message: "Order not found" } },
    });
    expect(await http("POST", "/api/v1/orders/batch", { token: fresh(), body: { orders: [] } })).toMatchObject({
      status: 409,
      body: { error: { code: "DUPLICATE_CLIENT_ORDER_ID" } },
    });
    const moving = await http("POST", "/api/v1/trade/market", { token: fresh(), body: {} });
    expect(moving).toMatchObject({
      status: 503,
      body: { error: { code: "MARKET_MOVED", message: expect.stringContaining("nothing was executed") } },
    });
    expect(moving.headers.get("retry-after")).toBe("1");
    const crashed = await http("POST", "/api/v1/trade/amm", { token: fresh(), body: {} });
    expect(crashed).toMatchObject({ status: 500, body: { error: { code: "INTERNAL_ERROR", message: "Internal server error" } } });
    expect(JSON.stringify(crashed.body)).not.toContain("deadbeef");
    // No chain service on this node: a moment's outage, not "no such resource".
    const absent = await http("POST", "/api/v1/withdraw", { token: fresh(), body: { amount: "1" } });
    expect(absent).toMatchObject({ status: 503, body: { error: { code: "SERVICE_UNAVAILABLE" } } });
    expect(absent.headers.get("retry-after")).toBe("2");
    expect(await http("POST", "/api/v1/auth/connect", { body: {} })).toMatchObject({
      status: 401,
      body: { error: { code: "UNAUTHORIZED", message: "Invalid proof" } },
    });
  });

  test("rate limits per user and category: X-RateLimit-* on every answer; over the trade limit 429 RATE_LIMIT_EXCEEDED with Retry-After, nothing runs", async () => {
    const tk = token("usr_rate");
    const body = { marketId: "mkt_1", price: 0.4, quantity: 100 };
    for (let i = 1; i <= TRADE_LIMIT; i++) {
      const res = await http("POST", "/api/v1/orders", { token: tk, body });
      expect(res.status).toBe(200);
      expect([res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-remaining")]).toEqual([
        String(TRADE_LIMIT),
        String(TRADE_LIMIT - i),
      ]);
    }
    const over = await http("POST", "/api/v1/orders", { token: tk, body });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: { code: "RATE_LIMIT_EXCEEDED", message: expect.stringMatching(/too many requests/i) },
      requestId: expect.any(String),
    });
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(count("book.place")).toBe(TRADE_LIMIT);
    // Every route of the trade category spends the same budget.
    expect((await http("POST", "/api/v1/orders/batch", { token: tk, body: { orders: [] } })).status).toBe(429);

    // Reads are another budget; another user has their own.
    const read = await http("GET", "/api/v1/orders", { token: tk });
    expect(read.status).toBe(200);
    expect(read.headers.get("x-ratelimit-limit")).toBe(String(READ_LIMIT));
    const other = await http("POST", "/api/v1/orders", { token: token("usr_rate_2"), body });
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining")).toBe(String(TRADE_LIMIT - 1));
    // /health shows the caller's read budget without spending it.
    const h1 = await http("GET", "/health", { token: tk });
    const h2 = await http("GET", "/health", { token: tk });
    expect(h1.body.status).toBe("ok");
    expect(h1.headers.get("x-ratelimit-limit")).toBe(String(READ_LIMIT));
    expect(h2.headers.get("x-ratelimit-remaining")).toBe(h1.headers.get("x-ratelimit-remaining"));
  });

  test("Idempotency-Key: a replay answers the first answer with Idempotent-Replayed and a fresh requestId, and runs nothing; another body under the key is 409; a key over 255 characters is 400", async () => {
    const tk = token("usr_idem");
    const body = { marketId: "mkt_1", price: 0.4, quantity: 100 };
    const first = await http("POST", "/api/v1/orders", { token: tk, body, headers: { "idempotency-key": "idem-1" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await http("POST", "/api/v1/orders", {
      token: tk,
      body: { quantity: 100, price: 0.4, marketId: "mkt_1" },
      headers: { "idempotency-key": "idem-1" },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.body.requestId).not.toBe(first.body.requestId);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(count("book.place")).toBe(1);

    const reused = await http("POST", "/api/v1/orders", {
      token: tk,
      body: { ...body, price: 0.5 },
      headers: { "idempotency-key": "idem-1" },
    });
    expect(reused).toMatchObject({ status: 409, body: { error: { code: "IDEMPOTENCY_KEY_REUSED" } } });
    const long = await http("POST", "/api/v1/orders", { token: tk, body, headers: { "idempotency-key": "k".repeat(256) } });
    expect(long).toMatchObject({
      status: 400,
      body: { error: { code: "VALIDATION_ERROR", fields: [{ field: "Idempotency-Key", rule: "stringMax" }] } },
    });
    // The key is the caller's: another user's same key is a new request.
    const otherUser = await http("POST", "/api/v1/orders", { token: token("usr_idem_2"), body, headers: { "idempotency-key": "idem-1" } });
    expect(otherUser.body.data.orderId).not.toBe(first.body.data.orderId);
    expect(count("book.place")).toBe(2);
  });
});
