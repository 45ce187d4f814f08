/**
 * Login on any port: without APP_DOMAIN the proof domain is the address the gateway listens on,
 * the server names it (GET /auth/challenge, the 401 of a proof for another domain), and the SDK
 * learns it from the server instead of assuming localhost:3000.
 */
import { PmxClient, randomKeyPair, UnauthorizedError } from "../../client/src";
import { startServer, type TestServer } from "../support/server";
import { TestWallet } from "../support/wallet";

describe("proof domain from the listening address (no APP_DOMAIN)", () => {
  let srv: TestServer;
  let domain: string;
  beforeAll(async () => {
    srv = await startServer({ APP_DOMAIN: "" });
    domain = `localhost:${new URL(srv.url).port}`;
  });
  afterAll(() => srv.stop());

  test("GET /auth/challenge names the domain and hands out a fresh payload each time", async () => {
    const a = await srv.http("GET", "/api/v1/auth/challenge");
    const b = await srv.http("GET", "/api/v1/auth/challenge");
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      data: { domain, payload: expect.stringMatching(/^[0-9a-f]{64}$/), expiresAt: expect.any(String) },
      requestId: expect.any(String),
    });
    expect(b.body.data.payload).not.toBe(a.body.data.payload);
    const ahead = Date.parse(a.body.data.expiresAt) - Date.now();
    expect(ahead).toBeGreaterThan(250_000);
    expect(ahead).toBeLessThanOrEqual(300_000);
    expect(a.headers.get("x-ratelimit-limit")).toBe("100");
  });

  test("a proof for that domain logs in; one for localhost:3000 is a 401 naming the expected domain", async () => {
    const ok = await srv.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain }) });
    expect(ok.status).toBe(200);
    const wrong = await srv.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: "localhost:3000" }) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe(`proof was made for another domain; expected ${domain}`);
  });

  test("the SDK signs the server's challenge (domain and payload) when given no domain", async () => {
    const challenges: string[] = [];
    const c = new PmxClient({ baseUrl: srv.url, onResponse: (r) => r.route === "/auth/challenge" && challenges.push(r.url) });
    const s = await c.auth.loginWithKeyPair(randomKeyPair());
    expect(s.accessToken).toBeTruthy();
    expect(challenges).toHaveLength(1);
    // An explicit domain is signed as given, and the server says what it expected instead.
    const err = await new PmxClient({ baseUrl: srv.url, domain: "localhost:3000" }).auth
      .loginWithKeyPair(randomKeyPair())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect((err as UnauthorizedError).message).toContain(`expected ${domain}`);
  });
});

test("an explicit APP_DOMAIN wins over the listening address", async () => {
  const srv = await startServer({ APP_DOMAIN: "exchange.example" });
  try {
    const res = await srv.http("GET", "/api/v1/auth/challenge");
    expect(res.body.data.domain).toBe("exchange.example");
    const c = new PmxClient({ baseUrl: srv.url });
    await expect(c.auth.loginWithKeyPair(randomKeyPair())).resolves.toMatchObject({
      walletAddress: expect.stringMatching(/^0:[0-9a-f]{64}$/),
    });
  } finally {
    await srv.stop();
  }
});
