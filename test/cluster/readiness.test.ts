/**
 * Real processes over a real nats-server: two gateways, then the core (auth, catalog, ledger,
 * notifier), an engine and the chain join. A gateway's readiness (`GET /health/ready`) follows the
 * services its routes need; liveness (`GET /health`) stays 200 throughout. With both gateways up,
 * one settlement gives each trade owner exactly one notification (REST through either gateway, one
 * push on a socket at each gateway), also after the core node restarts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { NodeProcess } from "../support/node-process";
import { startNats, type NatsServer } from "../support/nats";
import { connectSocket, type TestSocket } from "../support/socket";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

const SHARE = 1_000_000;
const ADMIN_KEY = "readiness-admin";
const DOMAIN = "readiness.test";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Client = { token: string; userId: string };
type Ready = { status: string; missing: string[]; degraded: string[] };

describe("gateway readiness and settlement notifications in a cluster", () => {
  let nats: NatsServer;
  const dirs = new Map<string, string>();
  const nodes = new Map<string, NodeProcess>();
  const sockets: TestSocket[] = [];
  let env: Record<string, string>;

  const start = async (nodeId: string, services: string, extra: Record<string, string> = {}) => {
    let dataDir = dirs.get(nodeId);
    if (!dataDir) dirs.set(nodeId, (dataDir = mkdtempSync(join(tmpdir(), `pmx-${nodeId}-`))));
    const node = await NodeProcess.start(
      { ...env, NODE_ID: nodeId, SERVICES: services, DATA_DIR: dataDir, ...extra },
      { readyTimeoutMs: 40_000, name: nodeId },
    );
    nodes.set(nodeId, node);
    return node;
  };
  const gw = (n: 1 | 2) => nodes.get(`gw${n}`) as NodeProcess;

  async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  const ready = async (n: 1 | 2) => {
    const res = await gw(n).http("GET", "/health/ready");
    return { code: res.status, ...(res.body as Ready) };
  };
  /** Both gateways answer readiness `code` with `status` (discovery and departures take a moment). */
  const bothReady = (code: number, status: string, missing?: string[]) =>
    until(`readiness ${code} ${status}`, async () => {
      for (const n of [1, 2] as const) {
        const r = await ready(n);
        if (r.code !== code || r.status !== status || (missing && JSON.stringify(r.missing) !== JSON.stringify(missing))) return null;
      }
      return true;
    });

  beforeAll(async () => {
    nats = await startNats();
    env = {
      PATH: process.env.PATH ?? "",
      TRANSPORTER: nats.url,
      JWT_SECRET: randomBytes(32).toString("hex"),
      MASTER_SECRET: randomBytes(32).toString("hex"),
      ADMIN_KEY,
      APP_DOMAIN: DOMAIN,
      SEED_DEMO: "false",
      LOG_LEVEL: "false",
      PORT: "0",
      HOST: "127.0.0.1",
      RATE_LIMIT_READ: "100000",
      RATE_LIMIT_TRADE: "100000",
      SETTLEMENT_INTERVAL_MS: "500",
      SETTLEMENT_MIN_AGE_MS: "1500",
    };
    await Promise.all([start("gw1", "api"), start("gw2", "api")]);
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const n of nodes.values()) await n.stop("SIGKILL").catch(() => undefined);
    await nats?.stop();
    for (const d of dirs.values()) rmSync(d, { recursive: true, force: true });
  });

  test("readiness follows the services the gateway needs; liveness stays 200", async () => {
    for (const n of [1, 2] as const) {
      expect((await gw(n).http("GET", "/health")).body.status).toBe("ok");
      const r = await ready(n);
      expect(r).toMatchObject({ code: 503, status: "unavailable", missing: ["amm", "auth", "book", "catalog", "ledger", "router"] });
    }
    await start("core", "auth,catalog,ledger,notifier");
    await bothReady(503, "unavailable", ["amm", "book", "router"]);
    await start("eng", "engine");
    // Without the chain node the gateways serve everything but deposits, withdrawals and redemption.
    await bothReady(200, "degraded");
    expect((await ready(1)).degraded).toEqual(["chain"]);
    await start("chain", "chain");
    await bothReady(200, "ready");
    for (const n of [1, 2] as const) expect((await gw(n).http("GET", "/health")).status).toBe(200);
  });

  test("one settlement: one notification per owner, one push per socket, through either gateway; a core restart adds none", async () => {
    const login = async (n: 1 | 2): Promise<Client> => {
      const r = await gw(n).http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      expect(r.status).toBe(200);
      return { token: r.body.data.accessToken, userId: r.body.data.userId };
    };
    const maker = await login(1);
    const takers = [await login(2), await login(1), await login(2)];
    for (const u of [maker, ...takers]) {
      await nodes.get("core")!.ctl({
        cmd: "call",
        action: "ledger.post",
        params: {
          key: `fund:${u.userId}`,
          postings: [
            { kind: "cash", account: u.userId, available: 100 * SHARE },
            { kind: "external", flow: "deposit", amount: 100 * SHARE },
          ],
        },
      });
    }
    const ev = await gw(1).http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Readiness event", category: "Tech", markets: [{ title: "Settled once in a cluster?" }] },
    });
    expect(ev.status).toBe(201);
    const market = ev.body.data.markets[0].id as string;

    // The maker watches from a socket on each gateway.
    for (const n of [1, 2] as const) {
      const s = await connectSocket(gw(n).url, { autoPingMs: 2000 });
      sockets.push(s);
      s.subscribe({ channel: "user", token: maker.token });
      await s.waitFor((m) => m.type === "subscribed");
    }
    const place = (n: 1 | 2, u: Client, body: Record<string, unknown>) =>
      gw(n).http("POST", "/api/v1/orders", { token: u.token, body: { marketId: market, orderType: "GTC", ...body } });
    const rest = await until("the maker's order (market ownership settles)", async () => {
      const r = await place(1, maker, { side: "BUY", outcome: "YES", price: 0.4, quantity: 30 * SHARE });
      return r.status === 200 ? r : null;
    });
    expect(rest.body.data.status).toBe("open");
    for (const [i, t] of takers.entries())
      expect((await place(i % 2 ? 1 : 2, t, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE })).body.data.status).toBe(
        "filled",
      );

    type Note = { id: string; type: string; metadata: { tradeIds?: string[] } };
    const settled = (n: 1 | 2, u: Client) =>
      gw(n)
        .http("GET", "/api/v1/notifications?pageSize=100", { token: u.token })
        .then((r) => (r.body.data as Note[]).filter((x) => x.type === "SETTLEMENT_CONFIRMED"));
    // The three fills settle in one batch or in several: one notification per batch, never per fill, never twice.
    for (const n of [1, 2] as const) {
      const list = await until(`all three of the maker's trades notified (gw${n})`, async () => {
        const l = await settled(n, maker);
        return l.flatMap((x) => x.metadata.tradeIds ?? []).length === 3 ? l : null;
      });
      expect(new Set(list.flatMap((x) => x.metadata.tradeIds ?? [])).size).toBe(3);
      expect(new Set(list.map((x) => x.id)).size).toBe(list.length);
    }
    for (const t of takers)
      expect(await until("taker notified", async () => ((await settled(2, t)).length === 1 ? true : null))).toBe(true);

    // Then a later notification of the maker from the same notifier (a deposit): anything that was
    // created twice would have been pushed before it.
    await nodes.get("core")!.ctl({
      cmd: "call",
      action: "ledger.post",
      params: {
        key: `marker:${maker.userId}`,
        postings: [
          { kind: "cash", account: maker.userId, available: SHARE },
          { kind: "external", flow: "deposit", amount: SHARE },
        ],
      },
    });
    type Push = { type: string; data?: { notification?: { id: string; type: string; metadata: { reference?: string } } } };
    const noteOf = (m: unknown) => ((m as Push).type === "update" ? (m as Push).data?.notification : undefined);
    const settlementIds = async (s: TestSocket) => {
      await s.waitFor((m) => noteOf(m)?.metadata.reference === `marker:${maker.userId}`, { timeoutMs: 15_000 });
      return s.since(0, (m) => noteOf(m)?.type === "SETTLEMENT_CONFIRMED").map((m) => noteOf(m)!.id);
    };
    const restIds = (await settled(1, maker)).map((x) => x.id).sort();
    for (const s of sockets) {
      const ids = await settlementIds(s);
      expect(ids.slice().sort()).toEqual(restIds);
      expect(new Set(ids).size).toBe(ids.length);
    }

    // The core (ledger, notifier) restarts: readiness drops and comes back; nothing is added.
    await nodes.get("core")!.stop();
    await bothReady(503, "unavailable", ["auth", "catalog", "ledger"]);
    await start("core", "auth,catalog,ledger,notifier");
    await bothReady(200, "ready");
    await nodes.get("core")!.call("notifier.catchUp");
    await nodes.get("chain")!.call("chain.tick");
    for (const n of [1, 2] as const) expect((await settled(n, maker)).map((x) => x.id).sort()).toEqual(restIds);
    for (const t of takers) expect(await settled(1, t)).toHaveLength(1);
  });
});
