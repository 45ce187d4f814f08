import { startServer, type TestServer } from "../support/server";
import { startRedis, type RedisServer } from "../support/redis";

describe("gateway envelope and errors", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.stop());

  test("GET /health is 200 {status: ok} outside the prefix", async () => {
    const res = await srv.http("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    expect((await srv.http("GET", "/api/v1/health")).status).toBe(404);
  });

  test("GET /health/ready: ready when every service the routes call is reachable (here, all in this process)", async () => {
    const res = await srv.http("GET", "/health/ready");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ready", missing: [], degraded: [] });
    // Not limited, but like every response it shows the caller's read budget.
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });

  test("GET /health/ready on a gateway whose node lacks required services: 503 naming them; /health stays 200 (liveness)", async () => {
    const partial = await startServer({ SERVICES: "api,auth,notifier" });
    try {
      const res = await partial.http("GET", "/health/ready");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: "unavailable",
        missing: ["amm", "book", "catalog", "ledger", "router"],
        degraded: ["chain"],
      });
      expect((await partial.http("GET", "/health")).body.status).toBe("ok");
    } finally {
      await partial.stop();
    }
  });

  test("requestId is unique per response and echoed in X-Request-Id, ignoring a client-sent one", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await srv.http("POST", "/api/v1/auth/connect", { body: {}, headers: { "x-request-id": "client-chosen" } });
      expect(res.headers.get("x-request-id")).toBe(res.body.requestId);
      expect(res.body.requestId).not.toBe("client-chosen");
      ids.add(res.body.requestId);
    }
    expect(ids.size).toBe(5);
  });

  test("unknown routes are 404 RESOURCE_NOT_FOUND in the envelope, inside and outside the prefix", async () => {
    for (const [m, p] of [
      ["GET", "/api/v1/nope"],
      ["GET", "/nope"],
      ["DELETE", "/api/v1/events"],
      ["GET", "/api/v1/auth.checkSession"],
      ["GET", "/api/v1/auth/checkSession"],
    ]) {
      const res = await srv.http(m, p);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: "RESOURCE_NOT_FOUND", message: expect.any(String) }, requestId: expect.any(String) });
    }
  });

  test("malformed JSON is 400 VALIDATION_ERROR", async () => {
    const res = await srv.http("POST", "/api/v1/auth/refresh", { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });

  test("an oversized body is refused with 413 and the server keeps serving", async () => {
    const res = await srv.http("POST", "/api/v1/auth/connect", { body: { pad: "x".repeat(200_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await srv.http("GET", "/health")).status).toBe(200);
  });

  test("fastest-validator failures become 400 VALIDATION_ERROR with fields [{field, rule}]", async () => {
    const res = await srv.http("POST", "/api/v1/auth/refresh", { body: { token: 12345 } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.fields).toEqual([{ field: "token", rule: "string" }]);
  });

  test("an unexpected failure is 500 INTERNAL_ERROR with nothing internal leaked", async () => {
    const auth = srv.broker.getLocalService("auth") as unknown as { stores: { usedProofs: { insertOnce: () => Promise<boolean> } } };
    const original = auth.stores.usedProofs.insertOnce;
    auth.stores.usedProofs.insertOnce = () => Promise.reject(new Error("disk on fire at /var/secret/path"));
    try {
      const { TestWallet } = await import("../support/wallet");
      const res = await srv.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: "exchange.test" }) });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: "INTERNAL_ERROR", message: "Internal server error" }, requestId: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toMatch(/disk|secret|stack/);
    } finally {
      auth.stores.usedProofs.insertOnce = original;
    }
  });
});

describe("rate limits with the spec's numbers", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.stop());

  test("read category: 100 per 60 s, headers on every response", async () => {
    const windowStart = Date.now();
    let last = await srv.http("POST", "/api/v1/auth/refresh", {});
    expect(last.headers.get("x-ratelimit-limit")).toBe("100");
    expect(last.headers.get("x-ratelimit-remaining")).toBe("99");
    for (let i = 2; i <= 100; i++) last = await srv.http("POST", "/api/v1/auth/refresh", {});
    expect(last.status).toBe(401);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
    const over = await srv.http("POST", "/api/v1/auth/refresh", {});
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(over.body.error.message).toMatch(/too many requests/i);
    const retry = Number(over.headers.get("retry-after"));
    // The window opened at the first request: what is left of it, whole seconds (a loaded machine takes seconds for 100 requests).
    expect(retry).toBeGreaterThanOrEqual(Math.floor(60 - (Date.now() - windowStart) / 1000) - 1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(over.headers.get("x-ratelimit-limit")).toBe("100");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  test("trade category: 10 per 60 s per user, separate from the read budget and from other users", async () => {
    // A server of its own: the read budget of this client was spent by the test above.
    const fresh = await startServer();
    try {
      const alice = await fresh.login();
      const bob = await fresh.login();
      const post = (token: string) => fresh.http("POST", "/api/v1/orders", { token, body: {} });
      for (let i = 1; i <= 10; i++) {
        const r = await post(alice.token);
        expect(r.status).not.toBe(429);
        expect(r.headers.get("x-ratelimit-limit")).toBe("10");
        expect(r.headers.get("x-ratelimit-remaining")).toBe(String(10 - i));
      }
      const refused = await post(alice.token);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Bob has his own budget; Alice's reads are a different category.
      expect((await post(bob.token)).status).not.toBe(429);
      const read = await fresh.http("POST", "/api/v1/auth/refresh", { token: alice.token });
      expect(read.status).toBe(401);
      expect(read.headers.get("x-ratelimit-limit")).toBe("100");
    } finally {
      await fresh.stop();
    }
  });

  test("X-Forwarded-For is not believed from an untrusted peer", async () => {
    const fresh = await startServer({ RATE_LIMIT_READ: "2" });
    try {
      for (let i = 0; i < 2; i++) await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": `10.0.0.${i}` } });
      const r = await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "10.9.9.9" } });
      expect(r.status).toBe(429);
    } finally {
      await fresh.stop();
    }
  });

  test("a trusted CIDR range (an ingress controller's pod range) names the client too", async () => {
    const fresh = await startServer({ RATE_LIMIT_READ: "2", TRUSTED_PROXIES: "127.0.0.0/8" });
    try {
      for (let i = 0; i < 2; i++) await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "203.0.113.7, 127.0.0.9" } });
      expect((await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(429);
      expect((await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "203.0.113.8" } })).status).not.toBe(429);
    } finally {
      await fresh.stop();
    }
  });

  test("X-Forwarded-For from a trusted proxy names the client", async () => {
    const fresh = await startServer({ RATE_LIMIT_READ: "2", TRUSTED_PROXIES: "127.0.0.1,::ffff:127.0.0.1" });
    try {
      for (let i = 0; i < 2; i++) await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "10.0.0.1" } });
      expect((await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "10.0.0.1" } })).status).toBe(429);
      expect((await fresh.http("GET", "/api/v1/events", { headers: { "x-forwarded-for": "10.0.0.2" } })).status).not.toBe(429);
    } finally {
      await fresh.stop();
    }
  });
});

describe("sliding window and cooldown over HTTP (short window)", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ RATE_WINDOW_MS: "1000", RATE_LIMIT_TRADE: "2" });
  });
  afterAll(() => srv.stop());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  test("refused requests extend the cooldown; a quiet client gets back in when the window slides", async () => {
    const { token } = await srv.login();
    const post = () => srv.http("POST", "/api/v1/orders", { token, body: {} });
    expect((await post()).status).not.toBe(429);
    expect((await post()).status).not.toBe(429);
    const first = await post();
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("1");
    await sleep(500);
    expect((await post()).status).toBe(429);
    expect((await post()).status).toBe(429);
    await sleep(600);
    // Without the two requests at 500 ms this would pass now; they keep the client blocked.
    expect((await post()).status).toBe(429);
    await sleep(1100);
    expect((await post()).status).not.toBe(429);
  });
});

describe("Redis store shared by two gateways", () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    a = await startServer({ REDIS_URL: redis.url, SERVICES: "api,auth" });
    b = await startServer({ REDIS_URL: redis.url, SERVICES: "api,auth" });
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await redis.stop();
  });

  test("one count across both gateways: 10 trade requests in total, then 429 on either", async () => {
    const post = (s: TestServer) => s.http("POST", "/api/v1/withdraw", { body: {} });
    for (let i = 0; i < 10; i++) {
      const r = await post(i % 2 ? a : b);
      expect(r.status).not.toBe(429);
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
    }
    const ra = await post(a);
    const rb = await post(b);
    expect(ra.status).toBe(429);
    expect(rb.status).toBe(429);
    expect(Number(rb.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("X-RateLimit-* on every response, errors included", () => {
  const ADMIN = "rate-headers-admin-key";
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ RATE_LIMIT_READ: "6", ADMIN_KEY: ADMIN });
  });
  afterAll(() => srv.stop());

  const limits = (r: { headers: Headers }) => [r.headers.get("x-ratelimit-limit"), r.headers.get("x-ratelimit-remaining")];

  test("errors answered before any category decided are counted as reads (or in their route's category) and carry the headers", async () => {
    const answers = [
      await srv.http("GET", "/api/v1/nope"),
      await srv.http("GET", "/nope"),
      await srv.http("POST", "/api/v1/auth/refresh", { raw: "{not json", headers: { "content-type": "application/json" } }),
      await srv.http("POST", "/api/v1/auth/connect", { body: { pad: "x".repeat(200_000) } }),
      await srv.http("GET", "/api/v1/balance"),
    ];
    expect(answers.map((r) => r.status)).toEqual([404, 404, 400, 413, 401]);
    expect(answers.map(limits)).toEqual([
      ["6", "5"],
      ["6", "4"],
      ["6", "3"],
      ["6", "2"],
      ["6", "1"],
    ]);
    // A malformed order counts in the trade category, where the limiter had not run yet.
    const order = await srv.http("POST", "/api/v1/orders", { raw: "{", headers: { "content-type": "application/json" } });
    expect([order.status, ...limits(order)]).toEqual([400, "10", "9"]);
  });

  test("routes outside the categories (health, OpenAPI, operator API) show the read budget without spending it", async () => {
    const before = await srv.http("GET", "/health");
    const doc = await fetch(`${srv.url}/api/v1/openapi.json`);
    const noKey = await srv.http("POST", "/api/v1/admin/markets/x_1/close");
    expect([before.status, doc.status, noKey.status]).toEqual([200, 200, 401]);
    for (const r of [before, doc, noKey]) expect(limits(r)).toEqual(["6", "1"]);
  });

  test("once the read budget is spent, an unknown route is a 429 like any read", async () => {
    const last = await srv.http("GET", "/api/v1/still-nope");
    expect([last.status, ...limits(last)]).toEqual([404, "6", "0"]);
    const over = await srv.http("GET", "/api/v1/still-nope");
    expect([over.status, over.body.error.code, ...limits(over)]).toEqual([429, "RATE_LIMIT_EXCEEDED", "6", "0"]);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("only routes that can answer are registered (and listed)", () => {
  const paths = async (srv: TestServer) =>
    ((await srv.broker.call("api.listAliases")) as Array<{ fullPath: string }>).map((a) => a.fullPath);

  test("no operator key: no /api/v1/admin routes; the sandbox chain: the faucet route", async () => {
    const srv = await startServer({ ADMIN_KEY: "off", SERVICES: "api" });
    try {
      const listed = await paths(srv);
      expect(listed.filter((p) => p.startsWith("/api/v1/admin"))).toEqual([]);
      expect(listed).toContain("/api/v1/sandbox/faucet");
      expect(listed).toContain("/api/v1/auth/challenge");
      const res = await srv.http("POST", "/api/v1/admin/markets/x_1/close", { headers: { "x-admin-key": "anything" } });
      expect([res.status, res.body.error.code]).toEqual([404, "RESOURCE_NOT_FOUND"]);
    } finally {
      await srv.stop();
    }
  });

  test("an operator key registers the operator API; CHAIN=ton has no faucet route", async () => {
    const srv = await startServer({ ADMIN_KEY: "k", CHAIN: "ton", SERVICES: "api" });
    try {
      const listed = await paths(srv);
      expect(listed).toContain("/api/v1/admin/markets/:id/resolve");
      expect(listed.filter((p) => p.includes("/sandbox/"))).toEqual([]);
    } finally {
      await srv.stop();
    }
  });
});
