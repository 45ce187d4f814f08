/**
 * Order groups across restarts of a real server process (SIGKILL): a group keeps its terms, its
 * open orders and the fills of its window, so fills before and after a crash trigger it together;
 * a triggered group stays triggered (its orders cancelled, new ones refused, in POST /orders and
 * in a batch's items) until reset, and a reset after the restart works. A stored group no version
 * wrote stops the start, named.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConservationReport } from "../../engine/accounts";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";

jest.setTimeout(240_000);

const DOMAIN = "groups.exchange.test";
const ADMIN_KEY = "groups-admin";
const SHARE = 1_000_000;
const admin = { "x-admin-key": ADMIN_KEY };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Order = { orderId: string; status: string; cancelReason: string | null };

describe("order groups across a crash", () => {
  let dir: string;
  let env: Record<string, string>;
  let node: NodeProcess;

  const until = async <T>(what: string, fn: () => Promise<T | null | false>, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  const restart = async () => {
    await node.stop("SIGKILL");
    node = await NodeProcess.start(env);
  };
  const login = async (wallet: TestWallet) => {
    const r = await node.http("POST", "/api/v1/auth/connect", { body: wallet.connectBody({ domain: DOMAIN }) });
    return { token: r.body.data.accessToken as string, userId: r.body.data.userId as string };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-groups-restart-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000" });
    node = await NodeProcess.start(env);
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a group's window spans a crash; triggered, it stays triggered after another until reset", async () => {
    const [makerWallet, takerWallet] = [TestWallet.random(), TestWallet.random()];
    let maker = await login(makerWallet);
    let taker = await login(takerWallet);
    for (const u of [maker, taker]) await node.ctl({ cmd: "fund", userId: u.userId, amount: 1000 * SHARE });
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Groups", category: "Tech", markets: [{ title: "Group one?" }, { title: "Group two?" }] },
    });
    const [m1, m2] = (created.body.data.markets as Array<{ id: string }>).map((m) => m.id);
    const order = (u: { token: string }, body: Record<string, unknown>) =>
      node.http("POST", "/api/v1/orders", { token: u.token, body: { orderType: "GTC", ...body } });
    const orders = async (status: string) =>
      (await node.http("GET", `/api/v1/orders?status=${status}`, { token: maker.token })).body.data as Order[];
    const groups = async () => (await node.http("GET", "/api/v1/order-groups", { token: maker.token })).body.data;

    const g = (
      await node.http("POST", "/api/v1/order-groups", { token: maker.token, body: { fillLimit: String(10 * SHARE), windowSeconds: 600 } })
    ).body.data;
    const group = g.orderGroupId as string;
    const bid1 = await order(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.45, quantity: 8 * SHARE, orderGroupId: group });
    // A batch: the first item joins the group, the second stays outside it.
    const batch = await node.http("POST", "/api/v1/orders/batch", {
      token: maker.token,
      body: {
        orders: [
          { marketId: m1, side: "BUY", outcome: "YES", price: 0.44, quantity: 8 * SHARE, orderType: "GTC", orderGroupId: group },
          { marketId: m2, side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, orderType: "GTC" },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.map((i: { ok: boolean }) => i.ok)).toEqual([true, true]);
    const [bid2, outside] = batch.body.data.map((i: { order: { orderId: string } }) => i.order.orderId) as string[];
    const bid3 = await order(maker, { marketId: m2, side: "BUY", outcome: "NO", price: 0.4, quantity: 8 * SHARE, orderGroupId: group });
    expect([bid1.status, bid3.status]).toEqual([200, 200]);

    // 6 shares fill before the crash: under the limit.
    expect((await order(taker, { marketId: m1, side: "BUY", outcome: "NO", price: 0.55, quantity: 6 * SHARE })).body.data.status).toBe(
      "filled",
    );
    await restart();
    maker = await login(makerWallet);
    taker = await login(takerWallet);
    expect(await groups()).toEqual([g]);

    // 6 more after it: 12 within the window, counting the fill from before the crash.
    expect((await order(taker, { marketId: m1, side: "BUY", outcome: "NO", price: 0.56, quantity: 6 * SHARE })).body.data.status).toBe(
      "filled",
    );
    await until("the group's orders cancelled", async () => (await orders("open")).length === 1);
    expect((await orders("open")).map((o) => o.orderId)).toEqual([outside]);
    const byGroup = async () =>
      (await orders("closed"))
        .filter((o) => o.cancelReason === "order_group")
        .map((o) => o.orderId)
        .sort();
    expect(await byGroup()).toEqual([bid2, bid3.body.data.orderId].sort());
    expect(await groups()).toEqual([{ ...g, triggered: true }]);

    // Another crash: still triggered, its orders still cancelled, new orders naming it refused.
    await restart();
    maker = await login(makerWallet);
    expect(await groups()).toEqual([{ ...g, triggered: true }]);
    expect((await orders("open")).map((o) => o.orderId)).toEqual([outside]);
    expect(await byGroup()).toEqual([bid2, bid3.body.data.orderId].sort());
    const refused = await order(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.4, quantity: SHARE, orderGroupId: group });
    expect([refused.status, refused.body.error.code]).toEqual([409, "ORDER_GROUP_TRIGGERED"]);
    const mixed = await node.http("POST", "/api/v1/orders/batch", {
      token: maker.token,
      body: {
        orders: [
          { marketId: m1, side: "BUY", outcome: "YES", price: 0.4, quantity: SHARE, orderType: "GTC", orderGroupId: group },
          { marketId: m1, side: "BUY", outcome: "YES", price: 0.39, quantity: SHARE, orderType: "GTC" },
        ],
      },
    });
    expect(mixed.status).toBe(200);
    expect(mixed.body.data[0]).toEqual({ ok: false, error: expect.objectContaining({ code: "ORDER_GROUP_TRIGGERED" }) });
    expect(mixed.body.data[1].ok).toBe(true);

    // Reset after the restart: the group takes orders again, with an empty window.
    const reset = await node.http("POST", `/api/v1/order-groups/${group}/reset`, { token: maker.token });
    expect(reset.body.data).toEqual(g);
    const again = await order(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.4, quantity: 2 * SHARE, orderGroupId: group });
    expect(again.status).toBe(200);
    await restart();
    maker = await login(makerWallet);
    expect(await groups()).toEqual([g]);
    const gone = await node.http("DELETE", `/api/v1/order-groups/${group}`, { token: maker.token });
    expect(gone.body.data).toEqual({ orderGroupId: group, cancelled: [again.body.data.orderId] });

    const report = (await node.ctl({ cmd: "conservation" })) as ConservationReport;
    expect(report.ok).toBe(true);
    const verified = (await node.ctl({ cmd: "call", action: "ledger.verify" })) as { ok: boolean; problems: string[] };
    expect([verified.ok, verified.problems]).toEqual([true, []]);
  });

  test("a damaged stored group stops the start with a message naming it", async () => {
    const maker = await login(TestWallet.random());
    const g = (await node.http("POST", "/api/v1/order-groups", { token: maker.token, body: { fillLimit: "5000000" } })).body.data;
    await node.stop("SIGTERM");
    const copy = mkdtempSync(join(tmpdir(), "pmx-groups-damaged-"));
    try {
      cpSync(dir, copy, { recursive: true });
      rmSync(join(copy, "pmx.sock"), { force: true });
      const db = new Database(join(copy, "money.db"));
      db.prepare("UPDATE order_groups SET window_s = 0 WHERE group_id = ?").run(g.orderGroupId);
      db.close();
      const err = await NodeProcess.start({ ...env, DATA_DIR: copy }, { name: "damaged" }).then(
        async (n) => {
          await n.stop("SIGKILL");
          return null;
        },
        (e: Error) => e,
      );
      expect(err?.message).toMatch(new RegExp(`order group ${g.orderGroupId} in the money store .* is damaged: it has window 0 s`));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    // The data dir itself was not touched: it starts, with the group.
    node = await NodeProcess.start(env);
    const again = await login(TestWallet.random());
    expect(again.token).toBeTruthy();
  });
});
