/**
 * The market clock in a cluster of real processes over NATS: the core node (auth, catalog, ledger,
 * notifier) is the one catalog and so the one clock; the book runs on an engine node, sockets on
 * two gateways. A close time closes the market once (the engine cancels its resting orders with
 * reason market_closed) and both gateways tell their sockets once; a proposal finalizes once, also
 * when the core node is SIGKILLed before its window ends and comes back after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { NodeProcess } from "../support/node-process";
import { startNats, type NatsServer } from "../support/nats";
import { startRedis, type RedisServer } from "../support/redis";
import { connectSocket, type TestSocket } from "../support/socket";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

const SHARE = 1_000_000;
const ADMIN_KEY = "cluster-admin";
const DOMAIN = "cluster-resolution.test";
const WINDOW_MS = 4_000;
const admin = { "x-admin-key": ADMIN_KEY };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Client = { token: string; userId: string };

describe("the market clock in a cluster", () => {
  let nats: NatsServer;
  let redis: RedisServer;
  const dirs = new Map<string, string>();
  const nodes = new Map<string, NodeProcess>();
  let env: Record<string, string>;

  const start = async (nodeId: string, services: string) => {
    const dataDir = dirs.get(nodeId) ?? mkdtempSync(join(tmpdir(), `pmx-${nodeId}-`));
    dirs.set(nodeId, dataDir);
    const node = await NodeProcess.start(
      { ...env, NODE_ID: nodeId, SERVICES: services, DATA_DIR: dataDir },
      { readyTimeoutMs: 40_000, name: nodeId },
    );
    nodes.set(nodeId, node);
    return node;
  };
  const node = (id: string) => nodes.get(id) as NodeProcess;
  const until = async <T>(what: string, fn: () => Promise<T | null | false>, timeoutMs = 40_000): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  };
  const user = async (): Promise<Client> => {
    const login = await until("a login", async () => {
      const r = await node("gw1").http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      return r.status === 200 && r;
    });
    await node("core").ctl({ cmd: "fund", userId: login.body.data.userId, amount: 100 * SHARE });
    return { token: login.body.data.accessToken, userId: login.body.data.userId };
  };
  const create = async (market: Record<string, unknown>): Promise<string> => {
    const r = await node("gw1").http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Clock", category: "Tech", markets: [market] },
    });
    expect(r.status).toBe(201);
    return r.body.data.markets[0].id;
  };
  const order = (u: Client, marketId: string, body: Record<string, unknown>) =>
    until("an order", async () => {
      const r = await node("gw2").http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
      return r.status === 200 && r;
    });
  const market = async (id: string) => (await node("gw2").http("GET", `/api/v1/markets/${id}`)).body.data;
  const follow = async (gw: string, marketId: string): Promise<TestSocket> => {
    const s = await connectSocket(node(gw).url, { autoPingMs: 3000 });
    s.subscribe({ channel: "market", marketIds: [marketId] });
    await s.waitFor((m) => m.type === "subscribed");
    return s;
  };
  const lifecycles = (s: TestSocket) =>
    s.since(0, (m) => m.type === "lifecycle").map((m) => (m.type === "lifecycle" ? m.data.status : null));

  beforeAll(async () => {
    nats = await startNats();
    redis = await startRedis();
    env = {
      PATH: process.env.PATH ?? "",
      TRANSPORTER: nats.url,
      JWT_SECRET: randomBytes(32).toString("hex"),
      ADMIN_KEY,
      APP_DOMAIN: DOMAIN,
      SEED_DEMO: "false",
      LOG_LEVEL: "false",
      PORT: "0",
      HOST: "127.0.0.1",
      REDIS_URL: redis.url,
      RATE_LIMIT_READ: "100000",
      RATE_LIMIT_TRADE: "100000",
      RESOLUTION_DISPUTE_WINDOW_MS: String(WINDOW_MS),
      RESOLUTION_CLOCK_MS: "100",
    };
    await Promise.all([start("core", "auth,catalog,ledger,notifier"), start("gw1", "api"), start("gw2", "api"), start("eng1", "engine")]);
  });
  afterAll(async () => {
    await Promise.all([...nodes.values()].map((n) => n.stop("SIGKILL").catch(() => undefined)));
    await redis?.stop();
    await nats?.stop();
    for (const d of dirs.values()) rmSync(d, { recursive: true, force: true });
  });

  test("a close time closes the market once: the engine cancels its resting orders, each gateway tells its sockets once", async () => {
    const u = await user();
    const closeTime = new Date(Date.now() + 5_000).toISOString();
    const id = await create({ title: "Closes in the cluster?", closeTime });
    const resting = await order(u, id, { side: "BUY", outcome: "YES", price: 0.2, quantity: 5 * SHARE });
    expect(resting.body.data.status).toBe("open");
    const [s1, s2] = [await follow("gw1", id), await follow("gw2", id)];

    await until("the close", async () => (await market(id)).status === "closed");
    await until("the order's cancel", async () => {
      const list = (await node("gw1").http("GET", "/api/v1/orders?status=all", { token: u.token })).body.data as Array<
        Record<string, unknown>
      >;
      const o = list.find((x) => x.orderId === resting.body.data.orderId);
      return o?.status === "cancelled" && o.cancelReason === "market_closed";
    });
    await s1.waitFor((m) => m.type === "lifecycle");
    await s2.waitFor((m) => m.type === "lifecycle");
    await Promise.all([s1.sync(), s2.sync()]);
    expect([lifecycles(s1), lifecycles(s2)]).toEqual([["closed"], ["closed"]]);
    s1.close();
    s2.close();
  });

  test("SIGKILL of the core node between a proposal and its window's end: finalized once when it is back", async () => {
    const [yes, no] = [await user(), await user()];
    const id = await create({ title: "Finalizes in the cluster?" });
    await order(yes, id, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE });
    expect((await order(no, id, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    const proposed = await node("gw1").http("POST", `/api/v1/admin/markets/${id}/propose`, { headers: admin, body: { result: "NO" } });
    expect(proposed.status).toBe(200);
    const endsAt = Date.parse(proposed.body.data.resolution.disputeEndsAt);

    await node("core").stop("SIGKILL");
    while (Date.now() < endsAt + 1_000) await sleep(100);
    await start("core", "auth,catalog,ledger,notifier");

    const done = await until("the finalization", async () => {
      const m = await market(id);
      return m?.status === "resolved" && m;
    });
    expect(done).toMatchObject({ result: "NO", resolution: { proposedResult: "NO", disputed: false } });
    expect(Date.parse(done.resolution.finalizedAt)).toBeGreaterThan(endsAt);
    // Once: every holder told once, the ledger still balanced.
    const resolvedNotices = async (u: Client) =>
      ((await node("gw1").http("GET", "/api/v1/notifications", { token: u.token })).body.data as Array<{ type: string }>).filter(
        (n) => n.type === "MARKET_RESOLVED",
      ).length;
    await until("holders told", async () => (await resolvedNotices(no)) === 1 && (await resolvedNotices(yes)) === 1);
    expect(await node("core").ctl({ cmd: "conservation" })).toMatchObject({ ok: true });
  });
});
