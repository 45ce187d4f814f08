import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBotApi, type BotApiStandIn } from "../support/bot-api";
import { startServer, TEST_DOMAIN, type TestServer } from "../support/server";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";
import { TestWallet } from "../support/wallet";

interface Item {
  id: string;
  type: string;
  title: string;
  body: string;
  delivered: boolean;
}

const nowSec = () => Math.floor(Date.now() / 1000);

async function loginTelegram(srv: TestServer, chatId: number, wallet = TestWallet.random()): Promise<{ token: string; userId: string }> {
  const res = await srv.http("POST", "/api/v1/auth/connect", {
    body: {
      ...wallet.connectBody({ domain: TEST_DOMAIN }),
      messengerInitData: signInitData(TEST_BOT_TOKEN, { id: chatId, firstName: "Tg" }, nowSec()),
    },
  });
  if (res.status !== 200) throw new Error(`telegram login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.data.accessToken, userId: res.body.data.userId };
}

async function notifications(srv: TestServer, token: string): Promise<Item[]> {
  return (await srv.http("GET", "/api/v1/notifications?pageSize=100", { token })).body.data;
}

async function eventually<T>(fn: () => Promise<T>, pred: (x: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const x = await fn();
    if (pred(x)) return x;
    if (Date.now() > until) throw new Error(`condition not met: ${JSON.stringify(x)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const serverEnv = (bot: BotApiStandIn, retryBaseMs = "100") => ({
  ADMIN_KEY,
  RATE_LIMIT_TRADE: "10000",
  RATE_LIMIT_READ: "10000",
  TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN,
  TELEGRAM_API_ROOT: bot.url,
  NOTIFIER_RETRY_BASE_MS: retryBaseMs,
  NOTIFIER_MAX_ATTEMPTS: "3",
});

describe("Telegram push of notifications (Bot API stand-in on loopback)", () => {
  let bot: BotApiStandIn;
  let srv: TestServer;

  beforeAll(async () => {
    bot = await startBotApi(TEST_BOT_TOKEN);
    srv = await startServer(serverEnv(bot));
  });
  afterAll(async () => {
    await srv.stop();
    await bot.close();
  });

  test("a linked user gets each notification as a bot message and `delivered` records it; an unlinked user gets none", async () => {
    const linked = await loginTelegram(srv, 7001);
    const plain = await srv.login();
    await fund(srv.broker, linked.userId, 250 * SHARE);
    await fund(srv.broker, plain.userId, 250 * SHARE);
    await bot.waitFor(() => bot.sent(7001).length === 1);
    expect(bot.sent(7001)[0].text).toBe("Deposit credited\n$250.00 is now available in your account.");
    const items = await eventually(
      () => notifications(srv, linked.token),
      (i) => i[0]?.delivered === true,
    );
    expect(items).toHaveLength(1);

    // A fill for the linked user is pushed too, with the market's title.
    const market = await createMarket(srv, "Will Telegram ping me?");
    await srv.http("POST", "/api/v1/orders", {
      token: plain.token,
      body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.3, quantity: 2 * SHARE },
    });
    await srv.http("POST", "/api/v1/orders", {
      token: linked.token,
      body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.7, quantity: 2 * SHARE },
    });
    await bot.waitFor(() => bot.sent(7001).length === 2);
    expect(bot.sent(7001)[1].text).toBe("Bought NO\nBought 2 NO at 70¢ ($1.40) in “Will Telegram ping me?”, fee $0.0084.");

    const plainItems = await eventually(
      () => notifications(srv, plain.token),
      (i) => i.length === 2,
    );
    expect(plainItems.every((i) => i.delivered === false)).toBe(true);
    expect(new Set(bot.calls.map((c) => c.chatId))).toEqual(new Set([7001]));
  });

  test("the user chooses which kinds the bot pushes: a kind turned off is still listed, not pushed", async () => {
    const u = await loginTelegram(srv, 7010);
    const settings = await srv.http("GET", "/api/v1/account/notification-settings", { token: u.token });
    expect(settings.status).toBe(200);
    expect(settings.body.data).toEqual({ push: { trades: true, settlement: true, results: true, transfers: true } });
    const off = await srv.http("PATCH", "/api/v1/account/notification-settings", { token: u.token, body: { push: { transfers: false } } });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ push: { trades: true, settlement: true, results: true, transfers: false } });
    // An unknown kind is dropped as every unknown field is: nothing changes.
    const unknown = await srv.http("PATCH", "/api/v1/account/notification-settings", {
      token: u.token,
      body: { push: { birthdays: false } },
    });
    expect(unknown.body.data).toEqual(off.body.data);
    // Refusals: a kind that is not a boolean, no push object, no session.
    for (const body of [{ push: { trades: "no" } }, {}]) {
      const bad = await srv.http("PATCH", "/api/v1/account/notification-settings", { token: u.token, body });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await srv.http("GET", "/api/v1/account/notification-settings")).status).toBe(401);
    expect((await srv.http("GET", "/api/v1/account/notification-settings", { token: u.token })).body.data.push.transfers).toBe(false);

    // A deposit: listed, not pushed. Turned back on, the next one is pushed.
    await fund(srv.broker, u.userId, 5 * SHARE);
    await eventually(
      () => notifications(srv, u.token),
      (i) => i.length === 1,
    );
    await srv.http("PATCH", "/api/v1/account/notification-settings", { token: u.token, body: { push: { transfers: true } } });
    await fund(srv.broker, u.userId, 6 * SHARE);
    await bot.waitFor(() => bot.sent(7010).length === 1);
    expect(bot.sent(7010)[0].text).toBe("Deposit credited\n$6.00 is now available in your account.");
    expect((await notifications(srv, u.token)).map((i) => i.delivered)).toEqual([true, false]);
  });

  test("a failed push is retried with growing delays and then recorded as delivered", async () => {
    const u = await loginTelegram(srv, 7002);
    bot.failNext(7002, 2);
    await fund(srv.broker, u.userId, 5 * SHARE);
    await bot.waitFor(() => bot.sent(7002).length === 1);
    const calls = bot.calls.filter((c) => c.chatId === 7002);
    expect(calls.map((c) => c.status)).toEqual([500, 500, 200]);
    const gap1 = calls[1].at - calls[0].at;
    const gap2 = calls[2].at - calls[1].at;
    expect(gap1).toBeGreaterThanOrEqual(100);
    expect(gap2).toBeGreaterThanOrEqual(200);
    const items = await eventually(
      () => notifications(srv, u.token),
      (i) => i[0]?.delivered === true,
    );
    expect(items[0]).toMatchObject({ type: "DEPOSIT_CREDITED", delivered: true });
  });

  test("a push that keeps failing stays undelivered after the maximum attempts; a permanent error is not retried", async () => {
    const u = await loginTelegram(srv, 7003);
    bot.failAlways(7003);
    await fund(srv.broker, u.userId, 5 * SHARE);
    await bot.waitFor(() => bot.calls.filter((c) => c.chatId === 7003).length === 3);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(bot.calls.filter((c) => c.chatId === 7003)).toHaveLength(3);
    expect((await notifications(srv, u.token))[0]).toMatchObject({ type: "DEPOSIT_CREDITED", delivered: false });
    const doc = (await (
      srv.broker.getLocalService("notifier") as unknown as {
        stores: { notifications: { findOne(q: object): Promise<Record<string, unknown>> } };
      }
    ).stores.notifications.findOne({ userId: u.userId })) as Record<string, unknown>;
    expect(doc).toMatchObject({ delivery: "failed", attempts: 3, lastError: expect.stringContaining("500") });
    expect(doc.deliverAt).toBeUndefined();

    const blocked = await loginTelegram(srv, 7004);
    bot.failAlways(7004, { status: 403, description: "Forbidden: bot was blocked by the user" });
    await fund(srv.broker, blocked.userId, 5 * SHARE);
    await bot.waitFor(() => bot.calls.some((c) => c.chatId === 7004));
    await new Promise((r) => setTimeout(r, 600));
    expect(bot.calls.filter((c) => c.chatId === 7004)).toHaveLength(1);
  });

  test("a hung Bot API never slows trading nor other users' pushes", async () => {
    const stuck = await loginTelegram(srv, 7005);
    const other = await loginTelegram(srv, 7006);
    bot.hang(7005);
    await fund(srv.broker, stuck.userId, 50 * SHARE);
    await bot.waitFor(() => bot.calls.some((c) => c.chatId === 7005));
    const market = await createMarket(srv, "Hung bot market");
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await srv.http("POST", "/api/v1/orders", {
        token: stuck.token,
        body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.1 + i / 100, quantity: SHARE },
      });
      expect(res.status).toBe(200);
    }
    expect(Date.now() - t0).toBeLessThan(1_000);
    await fund(srv.broker, other.userId, 1 * SHARE);
    await bot.waitFor(() => bot.sent(7006).length === 1);
    bot.release();
  });
});

describe("pending pushes survive a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "pmx-telegram-"));
  let bot: BotApiStandIn;
  beforeAll(async () => {
    bot = await startBotApi(TEST_BOT_TOKEN);
  });
  afterAll(async () => {
    await bot.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("a push that failed before the stop is found again in storage and delivered after the start", async () => {
    // First run: long backoff so the retry cannot happen before the stop.
    let srv = await startServer(serverEnv(bot, "1500"), { dataDir });
    const wallet = TestWallet.random();
    let u = await loginTelegram(srv, 7101, wallet);
    bot.failNext(7101, 1);
    await fund(srv.broker, u.userId, 3 * SHARE);
    await bot.waitFor(() => bot.calls.some((c) => c.chatId === 7101));
    await srv.stop();
    const stoppedAt = Date.now();
    expect(bot.sent(7101)).toHaveLength(0);
    srv = await startServer(serverEnv(bot), { dataDir });
    try {
      await bot.waitFor(() => bot.sent(7101).length === 1);
      expect(bot.sent(7101)[0].at).toBeGreaterThan(stoppedAt);
      u = await loginTelegram(srv, 7101, wallet);
      const items = await eventually(
        () => notifications(srv, u.token),
        (i) => i[0]?.delivered === true,
      );
      expect(items).toHaveLength(1);
      expect(bot.sent(7101)).toHaveLength(1);
    } finally {
      await srv.stop();
    }
  }, 120_000);
});
