/**
 * Trading modes and the operator's audit log over real HTTP, on a real server process: each mode
 * refuses exactly what it should (409 TRADING_PAUSED naming the mode and the reason) and lets the
 * rest through, on every order path (orders, batch items, amend, cancels, AMM, router, quotes);
 * cancelOnPause orders are cancelled on a pause and the others stay; the exchange-wide mode; the
 * post-only window after a restart (REOPEN_POST_ONLY_MS); modes and the audit log survive it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { until } from "../support/until";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

const DOMAIN = "modes.exchange.test";
const ADMIN_KEY = "modes-admin";
const SHARE = 1_000_000;
const MODES = ["post_only", "cancel_only", "halted"] as const;
type Mode = (typeof MODES)[number];
type Attempt = "order" | "postOnly" | "batch" | "amend" | "amm" | "market" | "quote" | "cancel" | "cancelAll";
/** What each mode lets through (markets-api.md section 3); every other attempt is refused. */
const ALLOWED: Record<Mode, Attempt[]> = {
  post_only: ["postOnly", "amend", "cancel", "cancelAll"],
  cancel_only: ["cancel", "cancelAll"],
  halted: [],
};
const ATTEMPTS: Attempt[] = ["order", "postOnly", "batch", "amend", "amm", "market", "quote", "cancel", "cancelAll"];

describe("trading modes and the audit log over HTTP", () => {
  let dir: string;
  let env: Record<string, string>;
  let node: NodeProcess;
  let market: string;
  let other: string;
  let maker: { token: string; userId: string };
  let taker: { token: string; userId: string };

  const admin = (method: "POST" | "GET", path: string, body?: unknown, note?: string) =>
    node.http(method, `/api/v1${path}`, { headers: { "x-admin-key": ADMIN_KEY, ...(note ? { "x-admin-note": note } : {}) }, body });
  const setMode = (marketId: string, mode: string, reason: string, note?: string) =>
    admin("POST", `/admin/markets/${marketId}/trading-mode`, { mode, reason }, note);
  const order = (u: { token: string }, body: Record<string, unknown>, marketId = market) =>
    node.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", quantity: SHARE, ...body } });
  const orderOf = async (u: { token: string }, orderId: string) => {
    const all = (await node.http("GET", "/api/v1/orders?status=all&pageSize=500", { token: u.token })).body.data as Array<{
      orderId: string;
      status: string;
      cancelReason: string | null;
    }>;
    return all.find((o) => o.orderId === orderId);
  };
  const paused = (r: { status: number; body: { error?: { code?: string; message?: string } } }, mode: string, reason: string) => {
    expect(r.status).toBe(409);
    expect(r.body.error?.code).toBe("TRADING_PAUSED");
    expect(r.body.error?.message).toContain(mode);
    expect(r.body.error?.message).toContain(reason);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-modes-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000" });
    node = await NodeProcess.start(env);
    const created = await admin(
      "POST",
      "/admin/events",
      {
        title: "Pauses",
        category: "Tech",
        markets: [
          { title: "Pause A?", ammLiquidity: String(100 * SHARE) },
          { title: "Pause B?", ammLiquidity: String(100 * SHARE) },
        ],
      },
      "launch",
    );
    expect(created.status).toBe(201);
    market = created.body.data.markets[0].id;
    other = created.body.data.markets[1].id;
    expect(created.body.data.markets[0].tradingMode).toBe("normal");
    const login = async () => {
      const r = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      await node.ctl({ cmd: "fund", userId: r.body.data.userId, amount: 10_000 * SHARE });
      return { token: r.body.data.accessToken as string, userId: r.body.data.userId as string };
    };
    maker = await login();
    taker = await login();
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("each market mode refuses exactly what it should, naming the mode and the reason, and lets the rest through", async () => {
    for (const mode of MODES) {
      // Resting orders to amend and cancel, placed while the market trades normally.
      const toAmend = (await order(maker, { side: "BUY", outcome: "YES", price: 0.3 })).body.data.orderId as string;
      const toCancel = (await order(maker, { side: "BUY", outcome: "YES", price: 0.31 })).body.data.orderId as string;
      await order(maker, { side: "BUY", outcome: "YES", price: 0.32 });
      const reason = `check ${mode}`;
      const set = await setMode(market, mode, reason);
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ id: market, tradingMode: mode });
      expect((await node.http("GET", `/api/v1/markets/${market}`)).body.data.tradingMode).toBe(mode);
      const balanceBefore = (await node.http("GET", "/api/v1/balance", { token: taker.token })).body.data;

      const results: Record<Attempt, { status: number; body: { error?: { code?: string; message?: string } } }> = {
        order: await order(taker, { side: "BUY", outcome: "YES", price: 0.2 }),
        postOnly: await order(taker, { side: "BUY", outcome: "YES", price: 0.21, postOnly: true }),
        batch: await node
          .http("POST", "/api/v1/orders/batch", {
            token: taker.token,
            body: { orders: [{ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.22, quantity: SHARE }] },
          })
          .then((r) => (r.body.data?.[0]?.ok === false ? { status: 409, body: { error: r.body.data[0].error } } : r)),
        amend: await node.http("PATCH", `/api/v1/orders/${toAmend}`, { token: maker.token, body: { price: 0.29 } }),
        amm: await node.http("POST", "/api/v1/trade/amm", {
          token: taker.token,
          body: { marketId: market, side: "BUY", outcome: "NO", quantity: String(SHARE) },
        }),
        market: await node.http("POST", "/api/v1/trade/market", {
          token: taker.token,
          body: { marketId: market, side: "BUY", outcome: "NO", quantity: String(SHARE) },
        }),
        quote: await node.http("POST", `/api/v1/markets/${market}/quote`, {
          token: taker.token,
          body: { side: "BUY", outcome: "NO", quantity: String(SHARE) },
        }),
        cancel: await node.http("DELETE", `/api/v1/orders/${toCancel}`, { token: maker.token }),
        cancelAll: await node.http("DELETE", `/api/v1/orders?marketId=${market}`, { token: maker.token }),
      };
      for (const a of ATTEMPTS) {
        if (ALLOWED[mode].includes(a)) expect([a, results[a].status]).toEqual([a, 200]);
        else paused(results[a], mode, reason);
      }
      if (mode !== "post_only") {
        // Refused commands changed nothing: the taker's money and the maker's resting orders are as they were.
        expect((await node.http("GET", "/api/v1/balance", { token: taker.token })).body.data).toEqual(balanceBefore);
        if (mode === "halted") expect((await orderOf(maker, toCancel))?.status).toBe("open");
      }
      expect((await setMode(market, "normal", "resumed")).body.data.tradingMode).toBe("normal");
      await node.http("DELETE", "/api/v1/orders", { token: maker.token });
      await node.http("DELETE", "/api/v1/orders", { token: taker.token });
    }
    // Back to normal everything trades again.
    expect((await order(taker, { side: "BUY", outcome: "YES", price: 0.2 })).status).toBe(200);
    expect(
      (
        await node.http("POST", "/api/v1/trade/amm", {
          token: taker.token,
          body: { marketId: market, side: "BUY", outcome: "NO", quantity: String(SHARE) },
        })
      ).status,
    ).toBe(200);
    // A bad mode is a 400 and changes nothing.
    const bad = await setMode(market, "paused", "x");
    expect(bad.status).toBe(400);
    expect((await node.http("GET", `/api/v1/markets/${market}`)).body.data.tradingMode).toBe("normal");
  });

  test("cancelOnPause orders are cancelled (reason paused) when their market pauses, or the exchange does; the others stay; the exchange-wide mode applies to every market", async () => {
    const keep = (await order(maker, { side: "BUY", outcome: "YES", price: 0.1 })).body.data.orderId as string;
    const go = (await order(maker, { side: "BUY", outcome: "YES", price: 0.11, cancelOnPause: true })).body.data.orderId as string;
    const otherGo = (await order(maker, { side: "BUY", outcome: "YES", price: 0.12, cancelOnPause: true }, other)).body.data
      .orderId as string;
    await setMode(market, "post_only", "market pause");
    // The owner applied the mode before the answer: the order is already cancelled.
    expect(await orderOf(maker, go)).toMatchObject({ status: "cancelled", cancelReason: "paused" });
    expect(await orderOf(maker, keep)).toMatchObject({ status: "open" });
    expect(await orderOf(maker, otherGo)).toMatchObject({ status: "open" });
    await setMode(market, "normal", "over");

    const again = (await order(maker, { side: "BUY", outcome: "YES", price: 0.11, cancelOnPause: true })).body.data.orderId as string;
    const wide = await admin("POST", "/admin/trading-mode", { mode: "cancel_only", reason: "exchange maintenance" }, "ticket 7");
    expect(wide.status).toBe(200);
    expect(wide.body.data).toMatchObject({ mode: "cancel_only", reason: "exchange maintenance" });
    expect(typeof wide.body.data.updatedAt).toBe("string");
    for (const id of [again, otherGo]) expect(await orderOf(maker, id)).toMatchObject({ status: "cancelled", cancelReason: "paused" });
    expect(await orderOf(maker, keep)).toMatchObject({ status: "open" });
    // Every market obeys it, and the stricter of a market's own mode and the exchange's applies.
    paused(await order(taker, { side: "BUY", outcome: "YES", price: 0.2 }, other), "cancel_only", "exchange maintenance");
    await setMode(other, "halted", "market halt");
    paused(await node.http("DELETE", `/api/v1/orders?marketId=${other}`, { token: maker.token }), "halted", "market halt");
    await setMode(other, "post_only", "market post-only");
    paused(await order(taker, { side: "BUY", outcome: "YES", price: 0.2, postOnly: true }, other), "cancel_only", "exchange maintenance");
    expect((await node.http("DELETE", `/api/v1/orders/${keep}`, { token: maker.token })).status).toBe(200);

    expect((await admin("POST", "/admin/trading-mode", { mode: "normal", reason: "done" })).body.data.mode).toBe("normal");
    paused(await order(taker, { side: "BUY", outcome: "YES", price: 0.2 }, other), "post_only", "market post-only");
    expect((await order(taker, { side: "BUY", outcome: "YES", price: 0.2 }, market)).status).toBe(200);
  });

  test("GET /admin/audit lists every operator action with its parameters and X-Admin-Note, newest first, paged", async () => {
    const close = await admin("POST", `/admin/markets/${other}/close`, undefined, "closing B");
    expect(close.status).toBe(200);
    const first = await admin("GET", "/admin/audit?page=1&pageSize=3");
    expect(first.status).toBe(200);
    const items = first.body.data as Array<{
      action: string;
      params: Record<string, unknown>;
      note: string | null;
      at: string;
      seq: number;
    }>;
    expect(items.map((i) => i.action)).toEqual(["adminCloseMarket", "adminSetExchangeTradingMode", "adminSetMarketTradingMode"]);
    expect(items[0]).toMatchObject({
      method: "POST",
      path: `/api/v1/admin/markets/${other}/close`,
      params: { id: other },
      note: "closing B",
    });
    expect(items[1]).toMatchObject({ path: "/api/v1/admin/trading-mode", params: { mode: "normal", reason: "done" }, note: null });
    expect(items[2]).toMatchObject({ params: { id: other, mode: "post_only", reason: "market post-only" }, note: null });
    expect(items[0].seq).toBeGreaterThan(items[1].seq);
    const total = first.body.pagination.total as number;
    // Every operator request of this file so far, journaled before it ran: the event, 3 x 2 market
    // modes, the one the service refused (it stays in the log as asked), 6 more, the close.
    expect(total).toBe(1 + 6 + 1 + 6 + 1);
    const all = (await admin("GET", `/admin/audit?pageSize=100`)).body.data as typeof items;
    expect(all.length).toBe(total);
    expect(all[all.length - 1]).toMatchObject({ action: "adminCreateEvent", note: "launch" });
    expect(all.filter((i) => i.action === "adminSetExchangeTradingMode")[1]).toMatchObject({
      params: { mode: "cancel_only", reason: "exchange maintenance" },
      note: "ticket 7",
    });
    expect(all.map((i) => i.seq)).toEqual([...all.map((i) => i.seq)].sort((a, b) => b - a));
    const second = await admin("GET", "/admin/audit?page=2&pageSize=3");
    expect((second.body.data as typeof items).map((i) => i.seq)).toEqual(all.slice(3, 6).map((i) => i.seq));
    // Operators only.
    expect((await node.http("GET", "/api/v1/admin/audit")).status).toBe(401);
  });

  test("after a restart: every open market trades post-only for REOPEN_POST_ONLY_MS, set modes and the audit log survive", async () => {
    await setMode(market, "cancel_only", "kept across restarts", "before restart");
    const before = (await admin("GET", "/admin/audit?pageSize=100")).body.data as Array<{ id: string }>;
    await setMode(market, "normal", "reopen");
    const third = (await admin("POST", "/admin/events", { title: "Third", category: "Tech", markets: [{ title: "Third?" }] })).body.data
      .markets[0].id as string;
    await setMode(third, "halted", "kept across restarts");
    await node.stop("SIGTERM");

    const started = Date.now();
    node = await NodeProcess.start({ ...env, REOPEN_POST_ONLY_MS: "6000" });
    // The set mode is still there.
    expect((await node.http("GET", `/api/v1/markets/${third}`)).body.data.tradingMode).toBe("halted");
    paused(await order(taker, { side: "BUY", outcome: "YES", price: 0.2, postOnly: true }, third), "halted", "kept across restarts");
    // The reopen window: takers wait, makers quote.
    const early = await order(taker, { side: "BUY", outcome: "YES", price: 0.2 });
    if (Date.now() - started < 5_000) paused(early, "post_only", "reopening");
    expect((await order(maker, { side: "BUY", outcome: "YES", price: 0.25, postOnly: true })).status).toBe(200);
    // Once it ends, the market trades normally again.
    await until(
      "the reopen window to end",
      async () => (await order(taker, { side: "BUY", outcome: "YES", price: 0.2 })).status === 200,
      30_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);

    const after = (await admin("GET", "/admin/audit?pageSize=100")).body.data as Array<{ id: string; action: string }>;
    expect(after.slice(after.length - before.length).map((i) => i.id)).toEqual(before.map((i) => i.id));
    expect(after.slice(0, 3).map((i) => i.action)).toEqual(["adminSetMarketTradingMode", "adminCreateEvent", "adminSetMarketTradingMode"]);

    // The exchange-wide mode survives a restart too.
    await admin("POST", "/admin/trading-mode", { mode: "cancel_only", reason: "exchange kept" });
    await node.stop("SIGTERM");
    node = await NodeProcess.start(env);
    paused(await order(taker, { side: "BUY", outcome: "YES", price: 0.2, postOnly: true }), "cancel_only", "exchange kept");
    await admin("POST", "/admin/trading-mode", { mode: "normal", reason: "done" });
    expect((await order(taker, { side: "BUY", outcome: "YES", price: 0.2 })).status).toBe(200);
  });
});
