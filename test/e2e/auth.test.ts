import jwt from "jsonwebtoken";
import { startServer, TEST_DOMAIN, type TestServer } from "../support/server";
import { TestWallet } from "../support/wallet";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";
import { issueToken } from "../../auth/tokens";

const now = () => Math.floor(Date.now() / 1000);

describe("auth over HTTP", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN });
  });
  afterAll(() => srv.stop());

  const connect = (body: unknown) => srv.http("POST", "/api/v1/auth/connect", { body });

  test("a valid proof logs in and issues a 24 h token with the spec's fields", async () => {
    const w = TestWallet.random("v4r2");
    const res = await connect(w.connectBody({ domain: TEST_DOMAIN }));
    expect(res.status).toBe(200);
    expect(typeof res.body.requestId).toBe("string");
    expect(res.headers.get("x-request-id")).toBe(res.body.requestId);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(["accessToken", "expiresAt", "userId", "walletAddress"]);
    expect(Math.abs(d.expiresAt - (now() + 86400))).toBeLessThanOrEqual(2);
    expect(d.walletAddress).toBe(w.rawAddress);
    const decoded = jwt.decode(d.accessToken, { complete: true });
    expect(decoded?.header.alg).toBe("HS256");
  });

  test.each(["v3r2", "v4r2", "v5r1"] as const)("wallet %s is accepted, with and without stateInit", async (v) => {
    const w = TestWallet.random(v);
    expect((await connect(w.connectBody({ domain: TEST_DOMAIN }))).status).toBe(200);
    expect((await connect(w.connectBody({ domain: TEST_DOMAIN, withStateInit: true }))).status).toBe(200);
  });

  test("raw and friendly forms of an address are the same user", async () => {
    const w = TestWallet.random();
    const a = await connect(w.connectBody({ domain: TEST_DOMAIN, address: w.rawAddress }));
    const b = await connect(w.connectBody({ domain: TEST_DOMAIN, address: w.friendlyAddress }));
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.data.userId).toBe(a.body.data.userId);
  });

  describe("every failure is 401 UNAUTHORIZED and logs nobody in", () => {
    const w = TestWallet.random();
    const good = () => w.connectBody({ domain: TEST_DOMAIN });
    const cases: Array<[string, () => unknown]> = [
      ["missing address", () => ({ ...good(), address: undefined })],
      ["missing publicKey", () => ({ ...good(), publicKey: undefined })],
      ["missing proof", () => ({ ...good(), proof: undefined })],
      ["empty body", () => ({})],
      ["stale proof (over 5 min)", () => w.connectBody({ domain: TEST_DOMAIN, timestamp: now() - 301 })],
      ["proof from the future", () => w.connectBody({ domain: TEST_DOMAIN, timestamp: now() + 600 })],
      ["wrong domain", () => w.connectBody({ domain: "evil.example" })],
      [
        "domain length lies",
        () => {
          const b = good();
          b.proof.domain.lengthBytes += 1;
          return b;
        },
      ],
      [
        "bad signature",
        () => {
          const b = good();
          b.proof.payload = b.proof.payload + "x";
          return b;
        },
      ],
      [
        "garbage signature",
        () => {
          const b = good();
          b.proof.signature = "!!!";
          return b;
        },
      ],
      [
        "key does not own the address",
        () => {
          const other = TestWallet.random();
          // Signed correctly by `w`, but for someone else's address.
          return w.connectBody({ domain: TEST_DOMAIN, address: other.rawAddress });
        },
      ],
      ["malformed public key", () => ({ ...good(), publicKey: "zz" })],
      ["address is an object", () => ({ ...good(), address: { $ne: null } })],
    ];
    test.each(cases)("%s", async (_name, make) => {
      const res = await connect(make());
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHORIZED");
      expect(typeof res.body.error.message).toBe("string");
      expect(res.body.requestId).toBeTruthy();
      expect(res.body.data).toBeUndefined();
    });
  });

  test("a proof is accepted only once", async () => {
    const w = TestWallet.random();
    const body = w.connectBody({ domain: TEST_DOMAIN });
    expect((await connect(body)).status).toBe(200);
    const again = await connect(body);
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/already used/i);
  });

  describe("Telegram init data", () => {
    const user = { id: 777001, firstName: "Ada", username: "ada" };
    test("valid init data attaches the profile", async () => {
      const w = TestWallet.random();
      const res = await connect({
        ...w.connectBody({ domain: TEST_DOMAIN }),
        messengerInitData: signInitData(TEST_BOT_TOKEN, user, now()),
      });
      expect(res.status).toBe(200);
      const stored = (await srv.broker.call("auth.getUser", { userId: res.body.data.userId })) as {
        telegram?: { id: number; username?: string };
      };
      expect(stored.telegram?.id).toBe(777001);
      expect(stored.telegram?.username).toBe("ada");
    });
    test("forged init data (other bot token) is refused", async () => {
      const w = TestWallet.random();
      const res = await connect({
        ...w.connectBody({ domain: TEST_DOMAIN }),
        messengerInitData: signInitData("999:other-token", user, now()),
      });
      expect(res.status).toBe(401);
    });
    test("tampered init data is refused", async () => {
      const w = TestWallet.random();
      const raw = signInitData(TEST_BOT_TOKEN, user, now()).replace("ada", "eve");
      const res = await connect({ ...w.connectBody({ domain: TEST_DOMAIN }), messengerInitData: raw });
      expect(res.status).toBe(401);
    });
    test("stale init data is refused", async () => {
      const w = TestWallet.random();
      const res = await connect({
        ...w.connectBody({ domain: TEST_DOMAIN }),
        messengerInitData: signInitData(TEST_BOT_TOKEN, user, now() - 2 * 86400),
      });
      expect(res.status).toBe(401);
    });
  });

  describe("tokens on protected routes", () => {
    const protectedCall = (token?: string, headers?: Record<string, string>) => srv.http("POST", "/api/v1/auth/logout", { token, headers });

    test("missing, malformed, tampered, expired, alg none and wrong-secret tokens are 401", async () => {
      const { token, userId } = await srv.login();
      const [h, p, s] = token.split(".");
      const claims = JSON.parse(Buffer.from(p, "base64url").toString());
      const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: "usr_other" })).toString("base64url")}.${s}`;
      const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${p}.`;
      const expired = issueToken(srv.cfg.jwtSecret, { userId, walletAddress: claims.wal, sessionId: claims.sid }, now() - 90000).token;
      const wrongSecret = issueToken("not-the-secret", { userId, walletAddress: claims.wal, sessionId: claims.sid }, now()).token;
      for (const t of [undefined, "abc", tampered, none, expired, wrongSecret]) {
        const res = await protectedCall(t);
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
      expect((await protectedCall(undefined, { authorization: `Basic ${token}` })).status).toBe(401);
    });

    test("logout answers 204, then the token is dead immediately", async () => {
      const { token } = await srv.login();
      const out = await protectedCall(token);
      expect(out.status).toBe(204);
      expect(out.body).toBeNull();
      const again = await protectedCall(token);
      expect(again.status).toBe(401);
      const refresh = await srv.http("POST", "/api/v1/auth/refresh", { token });
      expect(refresh.status).toBe(401);
    });
  });

  describe("refresh", () => {
    test("refused with more than an hour left, or with no token", async () => {
      const { token } = await srv.login();
      const early = await srv.http("POST", "/api/v1/auth/refresh", { token });
      expect(early.status).toBe(401);
      expect(early.body.error.message).toMatch(/1 hour/);
      expect((await srv.http("POST", "/api/v1/auth/refresh", {})).status).toBe(401);
      expect((await srv.http("POST", "/api/v1/auth/refresh", { body: { token: "junk" } })).status).toBe(401);
    });

    test.each(["header", "body"])("in the last hour a new token is issued (token in %s), and the old one stops working", async (where) => {
      const { token } = await srv.login();
      const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
      // Same session, issued 23.5 h ago: 30 minutes of validity left.
      const old = issueToken(
        srv.cfg.jwtSecret,
        { userId: claims.sub, walletAddress: claims.wal, sessionId: claims.sid },
        now() - 84600,
      ).token;
      const res =
        where === "header"
          ? await srv.http("POST", "/api/v1/auth/refresh", { token: old })
          : await srv.http("POST", "/api/v1/auth/refresh", { body: { token: old } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(["accessToken", "expiresAt", "userId", "walletAddress"]);
      expect(res.body.data.userId).toBe(claims.sub);
      expect(res.body.data.expiresAt).toBeGreaterThan(now() + 86000);
      expect((await srv.http("POST", "/api/v1/auth/logout", { token: old })).status).toBe(401);
      expect((await srv.http("POST", "/api/v1/auth/logout", { token: res.body.data.accessToken })).status).toBe(204);
    });
  });
});
