import { randomBytes } from "node:crypto";
import { startServer, type TestServer } from "../support/server";
import { startRedis, type RedisServer } from "../support/redis";

const ADMIN = "tier-admin-key";
const admin = { "x-admin-key": ADMIN };
const limitHeaders = (r: { headers: Headers }) => [r.headers.get("x-ratelimit-limit"), r.headers.get("x-ratelimit-remaining")];

/** `n` trade-category requests (an empty order: a 400, counted all the same), `batch` at a time. */
async function tradeRequests(srv: TestServer, token: string, n: number, batch = 50) {
  const out: Array<{ status: number; headers: Headers }> = [];
  for (let i = 0; i < n; i += batch) {
    const size = Math.min(batch, n - i);
    out.push(...(await Promise.all(Array.from({ length: size }, () => srv.http("POST", "/api/v1/orders", { token, body: {} })))));
  }
  return out;
}

describe("rate tiers over HTTP", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY: ADMIN, RATE_TIERS: "maker:3000/1200,pro:500/50" });
  });
  afterAll(() => srv.stop());

  test("a maker sustains 1,200 trade requests in the window while a default user gets 429 at the 11th", async () => {
    const plain = await srv.login();
    const maker = await srv.login();
    const granted = await srv.http("PUT", `/api/v1/admin/users/${maker.userId}/tier`, { headers: admin, body: { tier: "maker" } });
    expect([granted.status, granted.body.data]).toEqual([200, { userId: maker.userId, tier: "maker" }]);

    const plainAnswers = await tradeRequests(srv, plain.token, 11, 1);
    expect(plainAnswers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(400));
    expect(plainAnswers[10].status).toBe(429);
    expect(limitHeaders(plainAnswers[10])).toEqual(["10", "0"]);

    const makerAnswers = await tradeRequests(srv, maker.token, 1200);
    expect(makerAnswers.filter((r) => r.status === 429)).toHaveLength(0);
    expect(makerAnswers.every((r) => r.headers.get("x-ratelimit-limit") === "1200")).toBe(true);
    expect(Math.min(...makerAnswers.map((r) => Number(r.headers.get("x-ratelimit-remaining"))))).toBe(0);
    const over = await srv.http("POST", "/api/v1/orders", { token: maker.token, body: {} });
    expect([over.status, over.body.error.code, ...limitHeaders(over)]).toEqual([429, "RATE_LIMIT_EXCEEDED", "1200", "0"]);

    const limits = await srv.http("GET", "/api/v1/account/limits", { token: maker.token });
    expect(limits.status).toBe(200);
    expect(limits.body.data).toEqual({
      tier: "maker",
      read: { limit: 3000, remaining: 2999, windowSeconds: 60 },
      trade: { limit: 1200, remaining: 0, windowSeconds: 60 },
    });
    expect(limitHeaders(limits)).toEqual(["3000", "2999"]);
    const plainLimits = await srv.http("GET", "/api/v1/account/limits", { token: plain.token });
    expect(plainLimits.body.data).toEqual({
      tier: "default",
      read: { limit: 100, remaining: 99, windowSeconds: 60 },
      trade: { limit: 10, remaining: 0, windowSeconds: 60 },
    });
  });

  test("a grant takes effect on the next request and can be taken back; a new login carries it", async () => {
    const u = await srv.login();
    const read = () => srv.http("GET", "/api/v1/balance", { token: u.token });
    expect(limitHeaders(await read())).toEqual(["100", "99"]);
    await srv.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, { headers: admin, body: { tier: "pro" } });
    expect(limitHeaders(await read())).toEqual(["500", "498"]);
    // A new session's token is issued with the tier; the budget is the user's, whatever the session.
    const again = await srv.login(u.wallet);
    expect(limitHeaders(await srv.http("GET", "/api/v1/balance", { token: again.token }))).toEqual(["500", "497"]);
    await srv.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, { headers: admin, body: { tier: "default" } });
    expect(limitHeaders(await read())).toEqual(["100", "96"]);
    expect((await srv.http("GET", "/api/v1/account/limits", { token: again.token })).body.data.tier).toBe("default");
  });

  test("unauthenticated callers are always default; bad grants are refused and change nothing; grants are audited", async () => {
    const u = await srv.login();
    expect(limitHeaders(await srv.http("GET", "/api/v1/events"))).toEqual(["100", expect.any(String)]);
    const unknownTier = await srv.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, { headers: admin, body: { tier: "whale" } });
    expect([unknownTier.status, unknownTier.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const unknownUser = await srv.http("PUT", "/api/v1/admin/users/usr_nobody/tier", { headers: admin, body: { tier: "maker" } });
    expect([unknownUser.status, unknownUser.body.error.code]).toEqual([404, "RESOURCE_NOT_FOUND"]);
    const noKey = await srv.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, { body: { tier: "maker" } });
    expect(noKey.status).toBe(401);
    expect((await srv.http("GET", "/api/v1/account/limits", { token: u.token })).body.data.tier).toBe("default");
    expect((await srv.http("GET", "/api/v1/account/limits")).status).toBe(401);

    await srv.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, {
      headers: { ...admin, "x-admin-note": "market maker agreement" },
      body: { tier: "maker" },
    });
    const audit = await srv.http("GET", "/api/v1/admin/audit?pageSize=5", { headers: admin });
    expect(audit.body.data[0]).toMatchObject({
      action: "adminSetUserTier",
      method: "PUT",
      path: `/api/v1/admin/users/${u.userId}/tier`,
      params: { userId: u.userId, tier: "maker" },
      note: "market maker agreement",
    });
  });
});

describe("rate tiers shared by two gateways through Redis", () => {
  let redis: RedisServer;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    // One secret: a token of one gateway is good at the other, as in a cluster.
    const shared = { REDIS_URL: redis.url, SERVICES: "api,auth", JWT_SECRET: randomBytes(32).toString("hex"), RATE_TIERS: "maker:3000/20" };
    a = await startServer({ ...shared, ADMIN_KEY: ADMIN });
    b = await startServer(shared);
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await redis.stop();
  });

  test("a grant made through one gateway sets the limit the other applies, and both count one budget", async () => {
    const u = await a.login();
    await a.http("PUT", `/api/v1/admin/users/${u.userId}/tier`, { headers: admin, body: { tier: "maker" } });
    const post = (s: TestServer) => s.http("POST", "/api/v1/withdraw", { token: u.token, body: {} });
    for (let i = 0; i < 20; i++) {
      const r = await post(i % 2 ? a : b);
      expect([r.status === 429, ...limitHeaders(r)]).toEqual([false, "20", String(19 - i)]);
    }
    const [ra, rb] = [await post(a), await post(b)];
    expect([ra.status, rb.status]).toEqual([429, 429]);
    // (Each test server keeps its own sessions: the session is known at the gateway it logged in through.)
    const limits = await a.http("GET", "/api/v1/account/limits", { token: u.token });
    expect(limits.body.data).toMatchObject({ tier: "maker", trade: { limit: 20, remaining: 0 } });
  });
});
