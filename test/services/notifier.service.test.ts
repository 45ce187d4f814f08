/**
 * The notifier service on a real ServiceBroker: its actions and events called through the broker,
 * the services it asks (ledger, catalog, auth) faked as small services on the same broker, Telegram
 * a Bot API stand-in on loopback, storage in memory.
 */
import { ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import NotifierService from "../../services/notifier.service";
import type { LedgerEntryDoc } from "../../models/trading";
import type { PositionState } from "../../engine/accounts";
import type { NotificationItem } from "../../models/notification";
import type { UserDoc } from "../../models/user";
import { startBotApi, type BotApiStandIn } from "../support/bot-api";
import { TEST_BOT_TOKEN } from "../support/telegram";
import { until } from "../support/until";

const CHAT = 4242;

describe("notifier service", () => {
  let broker: ServiceBroker;
  let bot: BotApiStandIn;
  const journal: LedgerEntryDoc[] = [];
  const holders = new Map<string, PositionState[]>();
  const users = new Map<string, UserDoc>();
  const created: Array<{ userId: string; notification: NotificationItem }> = [];
  const entriesAfterCalls: number[] = [];

  const fill = (seq: number, tradeId: string, userId: string): LedgerEntryDoc => ({
    _id: `e${seq}`,
    seq,
    postings: [],
    trades: [
      {
        tradeId,
        userId,
        marketId: "mkt_1",
        orderId: `ord_${tradeId}`,
        side: "SELL",
        outcome: "NO",
        venue: "CLOB",
        role: "maker",
        filledQuantity: 1_000_000,
        totalCost: 400_000,
        fee: 0,
        fillIds: [],
      },
    ],
    at: new Date().toISOString(),
  });

  const fakeLedger: ServiceSchema = {
    name: "ledger",
    actions: {
      entriesAfter(ctx: Context<{ seq: number; limit: number }>) {
        entriesAfterCalls.push(ctx.params.seq);
        return journal.filter((e) => e.seq > ctx.params.seq).slice(0, ctx.params.limit);
      },
      holders: (ctx: Context<{ marketId: string }>) => holders.get(ctx.params.marketId) ?? [],
    },
  };
  const fakeCatalog: ServiceSchema = {
    name: "catalog",
    actions: {
      getMarketInternal: (ctx: Context<{ marketId: string }>) => ({ id: ctx.params.marketId, title: "Will it rain?", status: "open" }),
    },
  };
  const fakeAuth: ServiceSchema = {
    name: "auth",
    actions: { getUser: (ctx: Context<{ userId: string }>) => users.get(ctx.params.userId) ?? null },
  };
  const listener: ServiceSchema = {
    name: "listener",
    events: {
      "notifier.created"(ctx: Context<{ userId: string; notification: NotificationItem }>) {
        created.push(ctx.params);
      },
    },
  };

  const asUser = (id: string) => ({ meta: { user: { id, wallet: `0:${id}`, sid: "ses_1", exp: Math.floor(Date.now() / 1000) + 3600 } } });
  const list = (userId: string, params: object = {}) =>
    broker.call<{ items: NotificationItem[]; pagination: { total: number } }, object>("notifier.list", params, asUser(userId));

  beforeAll(async () => {
    bot = await startBotApi(TEST_BOT_TOKEN);
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
    bindConfig(
      broker,
      loadConfig({
        DATA_DIR: ":memory:",
        JWT_SECRET: "x",
        LOG_LEVEL: "false",
        TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN,
        TELEGRAM_API_ROOT: bot.url,
        NOTIFIER_RETRY_BASE_MS: "50",
        NOTIFIER_MAX_ATTEMPTS: "3",
      }),
    );
    for (const s of [fakeLedger, fakeCatalog, fakeAuth, listener, NotifierService]) broker.createService(s);
    await broker.start();
  });
  afterAll(async () => {
    await broker.stop();
    await bot.close();
  });

  test("params are validated; a user's calls need a session", async () => {
    await expect(broker.call("notifier.tradeSettled", { batchId: "b", status: "confirmed", trades: [] })).rejects.toMatchObject({
      type: "VALIDATION_ERROR",
    });
    await expect(
      broker.call("notifier.tradeSettled", { batchId: "b", status: "pending", trades: [{ tradeId: "t", userId: "usr_a", marketId: "m" }] }),
    ).rejects.toMatchObject({ type: "VALIDATION_ERROR" });
    await expect(broker.call("notifier.list", { pageSize: "101" }, asUser("usr_a"))).rejects.toMatchObject({
      type: "VALIDATION_ERROR",
      data: [expect.objectContaining({ field: "pageSize", type: "numberMax" })],
    });
    await expect(broker.call("notifier.list", {})).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    await expect(broker.call("notifier.markRead", {}, asUser("usr_a"))).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "ids", rule: "required" }] },
    });
  });

  test("the journal is read behind a cursor: each fill once, told on notifier.created, listed and marked read", async () => {
    journal.push(fill(1, "trd_1", "usr_a"), fill(2, "trd_2", "usr_b"));
    expect(await broker.call("notifier.catchUp")).toEqual({ cursor: 2 });
    await until("created events", () => created.length >= 2);
    expect(created.map((c) => [c.userId, c.notification.id])).toEqual([
      ["usr_a", "TRADE_FILLED:trd_1"],
      ["usr_b", "TRADE_FILLED:trd_2"],
    ]);
    const page = await list("usr_a");
    expect(page.items).toEqual([
      {
        id: "TRADE_FILLED:trd_1",
        type: "TRADE_FILLED",
        title: "Sold NO",
        body: "Sold 1 NO at 40¢ ($0.40) in “Will it rain?”.",
        metadata: expect.objectContaining({ tradeId: "trd_1", side: "SELL", outcome: "NO" }),
        delivered: false,
        read: false,
        createdAt: journal[0].at,
      },
    ]);
    expect(await broker.call("notifier.catchUp")).toEqual({ cursor: 2 });
    expect((await list("usr_b")).items).toHaveLength(1);
    expect(await broker.call("notifier.markRead", { all: true }, asUser("usr_a"))).toEqual({ updated: 1, unread: 0 });
    expect((await list("usr_a", { unread: "true" })).pagination.total).toBe(0);
  });

  test("a burst of fill hints is one pull a moment later", async () => {
    const before = entriesAfterCalls.length;
    journal.push(fill(3, "trd_3", "usr_a"), fill(4, "trd_4", "usr_a"));
    for (let i = 0; i < 5; i++) broker.emit("ledger.tradeCreated", { marketId: "mkt_1" });
    broker.emit("ledger.balanceChanged", { account: "usr_a" });
    await until("the two fills", async () => (await list("usr_a")).items.length === 3);
    // Six hints, one read to the end of the journal (the 2-second poll may add one of its own).
    expect(entriesAfterCalls.slice(before).length).toBeLessThanOrEqual(2);
    expect(entriesAfterCalls.slice(before)[0]).toBe(2);
  });

  test("order.updated: a market halt or a lapsed heartbeat notifies, the user's own cancel does not", async () => {
    broker.emit("order.updated", { orderId: "ord_hb", userId: "usr_c", marketId: "mkt_1", status: "cancelled", cancelReason: "heartbeat" });
    broker.emit("order.updated", { orderId: "ord_own", userId: "usr_c", marketId: "mkt_1", status: "cancelled", cancelReason: "user" });
    const items = await until("the cancel notice", async () => {
      const l = await list("usr_c");
      return l.items.length ? l.items : null;
    });
    expect(items.map((i) => [i.id, i.metadata])).toEqual([
      ["ORDER_CANCELLED:ord_hb", { marketId: "mkt_1", orderId: "ord_hb", reason: "HEARTBEAT" }],
    ]);
  });

  test("market.resolved fans out to the market's holders", async () => {
    holders.set("mkt_9", [
      { account: "usr_d", marketId: "mkt_9", outcome: "YES", quantity: 2_000_000, locked: 0, totalCost: 0, realizedPnl: 0, settled: false },
      {
        account: "amm:mkt_9",
        marketId: "mkt_9",
        outcome: "NO",
        quantity: 5_000_000,
        locked: 0,
        totalCost: 0,
        realizedPnl: 0,
        settled: false,
      },
    ]);
    broker.emit("market.resolved", { marketId: "mkt_9", result: "YES", conditionId: "0xabc" });
    const [item] = await until("the resolution notice", async () => {
      const l = await list("usr_d");
      return l.items.length ? l.items : null;
    });
    expect(item).toMatchObject({
      id: "MARKET_RESOLVED:mkt_9:usr_d",
      title: "Market resolved: YES",
      metadata: { marketId: "mkt_9", result: "YES", conditionId: "0xabc", positions: [{ outcome: "YES", quantity: "2000000" }] },
    });
  });

  test("a linked user's notification is pushed to Telegram and marked delivered; a server error is retried", async () => {
    users.set("usr_tg", {
      _id: "usr_tg",
      walletAddress: "0:tg",
      createdAt: new Date().toISOString(),
      telegram: { id: CHAT, verifiedAt: new Date().toISOString() },
    });
    bot.failNext(CHAT, 1);
    expect(
      await broker.call("notifier.tradeSettled", {
        batchId: "stl_1",
        status: "confirmed",
        txHash: null,
        trades: [{ tradeId: "trd_x", userId: "usr_tg", marketId: "mkt_1" }],
      }),
    ).toEqual({ created: 1 });
    await bot.waitFor((calls) => calls.some((c) => c.chatId === CHAT && c.status === 200));
    expect(bot.calls.filter((c) => c.chatId === CHAT).map((c) => c.status)).toEqual([500, 200]);
    expect(bot.sent(CHAT)[0].text).toBe("Trade settled\nYour trade in “Will it rain?” is confirmed on-chain.");
    const [item] = await until("delivered", async () => {
      const l = await list("usr_tg");
      return l.items[0]?.delivered ? l.items : null;
    });
    expect(item.id).toBe("SETTLEMENT_CONFIRMED:stl_1:usr_tg:mkt_1");
    // Told again: nothing new, nothing pushed twice.
    expect(
      await broker.call("notifier.tradeSettled", {
        batchId: "stl_1",
        status: "confirmed",
        trades: [{ tradeId: "trd_x", userId: "usr_tg", marketId: "mkt_1" }],
      }),
    ).toEqual({ created: 0 });
  });

  test("auth.telegramLinked: a link made at login is pushed to at once", async () => {
    broker.emit("auth.telegramLinked", { userId: "usr_new", chatId: CHAT + 1 });
    // auth.getUser knows no such user: only the event's link can name the chat.
    await broker.emit("chain.withdrawalSent", { userId: "usr_new", withdrawalId: "wd_1", amount: "1000000", txHash: null });
    await bot.waitFor((calls) => calls.some((c) => c.chatId === CHAT + 1 && c.status === 200));
    expect(bot.sent(CHAT + 1).map((c) => c.text.split("\n")[0])).toEqual(["Withdrawal sent"]);
  });
});
