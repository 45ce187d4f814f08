/**
 * The auth service on a real ServiceBroker: its actions called through the broker, what it
 * announces heard by a listener, storage in memory. Proofs come from a software wallet.
 */
import { ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import AuthService from "../../services/auth.service";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_SESSIONS_PER_USER, type SessionResponse } from "../../auth/auth";
import type { SessionDoc, UsedProofDoc, UserDoc } from "../../models/user";
import type { Store } from "../../lib/store";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";
import { TestWallet } from "../support/wallet";

const DOMAIN = "exchange.test";
const nowSec = () => Math.floor(Date.now() / 1000);

describe("auth service", () => {
  let broker: ServiceBroker;
  const heard: Array<{ name: string; params: unknown }> = [];
  const listener: ServiceSchema = {
    name: "listener",
    events: Object.fromEntries(
      ["auth.userCreated", "auth.telegramLinked", "auth.sessionRevoked"].map((name) => [
        name,
        (ctx: Context) => {
          heard.push({ name, params: ctx.params });
        },
      ]),
    ),
  };
  const viaGateway = { meta: { proofDomain: DOMAIN } };
  const login = (w: TestWallet, extra: object = {}) =>
    broker.call<SessionResponse, object>("auth.connect", { ...w.connectBody({ domain: DOMAIN }), ...extra }, viaGateway);

  beforeAll(async () => {
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
    bindConfig(
      broker,
      loadConfig({ DATA_DIR: ":memory:", JWT_SECRET: "j".repeat(64), LOG_LEVEL: "false", TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN }),
    );
    for (const s of [listener, AuthService]) broker.createService(s);
    await broker.start();
  });
  afterAll(() => broker.stop());
  beforeEach(() => {
    heard.length = 0;
  });

  test("the challenge names the gateway's domain; without one it is a 500 that says what to set", async () => {
    expect(await broker.call("auth.challenge", {}, viaGateway)).toEqual({
      domain: DOMAIN,
      payload: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: expect.any(String),
    });
    await expect(broker.call("auth.challenge", {})).rejects.toMatchObject({ code: 500, type: "NO_PROOF_DOMAIN" });
    await expect(broker.call("auth.connect", TestWallet.random().connectBody({ domain: DOMAIN }))).rejects.toMatchObject({
      code: 500,
      type: "NO_PROOF_DOMAIN",
    });
  });

  test("connect: params validated; every refusal is 401 UNAUTHORIZED; a login announces a new user and a Telegram link", async () => {
    const w = TestWallet.random();
    await expect(
      broker.call("auth.connect", { ...w.connectBody({ domain: DOMAIN }), messengerInitData: 42 }, viaGateway),
    ).rejects.toMatchObject({ name: "ValidationError", data: [expect.objectContaining({ field: "messengerInitData" })] });
    await expect(broker.call("auth.connect", {}, viaGateway)).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    await expect(broker.call("auth.connect", w.connectBody({ domain: "evil.test" }), viaGateway)).rejects.toMatchObject({
      code: 401,
      type: "UNAUTHORIZED",
    });
    await expect(login(w, { messengerInitData: "hash=00" })).rejects.toMatchObject({
      code: 401,
      type: "UNAUTHORIZED",
      message: "Invalid Telegram init data",
    });
    expect(heard).toEqual([]);

    const s = await login(w, { messengerInitData: signInitData(TEST_BOT_TOKEN, { id: 99, username: "w" }, nowSec()) });
    expect(s).toMatchObject({ userId: expect.stringMatching(/^usr_/), walletAddress: w.rawAddress, accessToken: expect.any(String) });
    expect(heard).toEqual([
      { name: "auth.userCreated", params: { userId: s.userId, walletAddress: w.rawAddress } },
      { name: "auth.telegramLinked", params: { userId: s.userId, chatId: 99 } },
    ]);
    expect(await broker.call<UserDoc | null, object>("auth.getUser", { userId: s.userId })).toMatchObject({
      _id: s.userId,
      telegram: { id: 99, username: "w" },
    });
    expect(await broker.call("auth.getUser", { userId: "usr_nope" })).toBeNull();

    heard.length = 0;
    const again = await login(w);
    expect(again.userId).toBe(s.userId);
    expect(heard).toEqual([]);
  });

  test("sessions: resolved and checked while live; logout ends them and is broadcast; refresh waits for the last hour", async () => {
    const w = TestWallet.random();
    const s = await login(w);
    const user = await broker.call<{ id: string; wallet: string; sid: string; exp: number } | null, object>("auth.resolveToken", {
      token: s.accessToken,
    });
    expect(user).toEqual({ id: s.userId, wallet: w.rawAddress, sid: expect.stringMatching(/^ses_/), exp: s.expiresAt });
    const sid = user!.sid;
    expect(await broker.call("auth.checkSession", { sid, userId: s.userId })).toBe(true);
    expect(await broker.call("auth.resolveToken", { token: "junk" })).toBeNull();
    await expect(broker.call("auth.checkSession", { sid })).rejects.toMatchObject({ name: "ValidationError" });

    await expect(broker.call("auth.refresh", { token: s.accessToken })).rejects.toMatchObject({
      code: 401,
      message: "Token has more than 1 hour of validity left",
    });
    await expect(broker.call("auth.refresh", { token: 5 })).rejects.toMatchObject({ name: "ValidationError" });
    await expect(broker.call("auth.refresh", {})).rejects.toMatchObject({ code: 401, message: "A valid token is required" });

    await expect(broker.call("auth.logout", {})).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    heard.length = 0;
    const meta = { user: { id: s.userId, wallet: w.rawAddress, sid, exp: s.expiresAt } };
    expect(await broker.call("auth.logout", {}, { meta })).toBeNull();
    expect(heard).toEqual([{ name: "auth.sessionRevoked", params: { sid, userId: s.userId } }]);
    expect(await broker.call("auth.checkSession", { sid, userId: s.userId })).toBe(false);
    expect(await broker.call("auth.resolveToken", { token: s.accessToken })).toBeNull();
  });

  test("refresh inside the last hour (the session named by the gateway) ends the old session and opens a new one", async () => {
    const w = TestWallet.random();
    const s = await login(w);
    const { sid } = (await broker.call<{ sid: string }, object>("auth.resolveToken", { token: s.accessToken }))!;
    heard.length = 0;
    // The gateway vouches for the session; its token ends within the hour.
    const meta = { user: { id: s.userId, wallet: w.rawAddress, sid, exp: nowSec() + 60 } };
    const next = await broker.call<SessionResponse, object>("auth.refresh", {}, { meta });
    expect(next.userId).toBe(s.userId);
    expect(heard).toEqual([{ name: "auth.sessionRevoked", params: { sid, userId: s.userId } }]);
    expect(await broker.call("auth.checkSession", { sid, userId: s.userId })).toBe(false);
    await expect(broker.call("auth.refresh", {}, { meta })).rejects.toMatchObject({ code: 401, message: "Session not found" });
  });
});

describe("auth service: what logins leave behind stays bounded (embedded store files)", () => {
  let broker: ServiceBroker;
  let dataDir: string;
  const revoked: unknown[] = [];
  const viaGateway = { meta: { proofDomain: DOMAIN } };
  const login = (w: TestWallet) => broker.call<SessionResponse, object>("auth.connect", w.connectBody({ domain: DOMAIN }), viaGateway);
  const svc = () =>
    broker.getLocalService("auth") as unknown as {
      stores: { sessions: Store<SessionDoc>; usedProofs: Store<UsedProofDoc> };
      auth: { sweep(): Promise<number> };
    };
  const fileOf = (collection: string) => readFileSync(join(dataDir, `${collection}.db`), "utf8");

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "pmx-auth-svc-"));
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
    bindConfig(broker, loadConfig({ DATA_DIR: dataDir, JWT_SECRET: "j".repeat(64), LOG_LEVEL: "false" }));
    broker.createService({ name: "listener", events: { "auth.sessionRevoked": (ctx: Context) => void revoked.push(ctx.params) } });
    broker.createService(AuthService);
    await broker.start();
    // The sweeps here are the test's own: the service's minute timer must not take one of them.
    clearInterval((broker.getLocalService("auth") as unknown as { sweepTimer: NodeJS.Timeout }).sweepTimer);
  });
  afterAll(async () => {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(`one wallet logging in again and again keeps ${MAX_SESSIONS_PER_USER} sessions; the ended ones are announced and refused`, async () => {
    const w = TestWallet.random();
    const tokens: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_USER + 2; i++) tokens.push((await login(w)).accessToken);
    const user = (await broker.call<{ id: string } | null, object>("auth.resolveToken", { token: tokens[tokens.length - 1] }))!;
    expect(await svc().stores.sessions.count({ userId: user.id })).toBe(MAX_SESSIONS_PER_USER);
    expect(revoked).toHaveLength(2);
    for (const t of tokens.slice(0, 2)) expect(await broker.call("auth.resolveToken", { token: t })).toBeNull();
    for (const t of tokens.slice(2)) expect(await broker.call("auth.resolveToken", { token: t })).not.toBeNull();
  });

  test("the sweep drops stale used proofs and sessions a day past expiry from the store and its file, not live ones", async () => {
    const live = await login(TestWallet.random());
    const nowS = nowSec();
    const stale = Array.from({ length: 1000 }, (_, i) => ({ _id: `stale_proof_${i}`, staleAt: nowS - 1 }));
    await svc().stores.usedProofs.insertMany(stale);
    await svc().stores.sessions.insert({
      _id: "ses_long_expired",
      userId: "usr_gone",
      walletAddress: `0:${"cd".repeat(32)}`,
      expiresAt: nowS - 86_400 - 10,
      createdAt: new Date((nowS - 2 * 86_400) * 1000).toISOString(),
    });
    expect(fileOf("usedProofs")).toContain("stale_proof_999");
    expect(fileOf("sessions")).toContain("ses_long_expired");

    expect(await svc().auth.sweep()).toBe(1001);
    expect(await svc().stores.usedProofs.count({ _id: { $regex: /^stale_proof_/ } })).toBe(0);
    expect(await svc().stores.sessions.findOne({ _id: "ses_long_expired" })).toBeNull();
    // 1,000 drops: the files were rewritten without them (NeDB had only appended the removals).
    expect(fileOf("usedProofs")).not.toContain("stale_proof_");
    expect(fileOf("sessions")).not.toContain("ses_long_expired");
    // The live session and the fresh proof of its login stay.
    expect(await broker.call("auth.resolveToken", { token: live.accessToken })).not.toBeNull();
    expect(await svc().stores.usedProofs.count({})).toBeGreaterThan(0);
  });
});
