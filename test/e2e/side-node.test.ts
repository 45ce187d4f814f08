/**
 * The embedded process's two nodes (SIDE_NODE=thread; side-node.ts) on a real process:
 * the catalog, notifier and chain answer from the side node, the order path from the main node;
 * the price history follows each trade within a print batch and the notifications once the
 * notifier caught up, as on one node; SIGTERM stops both; SIDE_NODE=off is one node.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { until } from "../support/until";
import { TestWallet } from "../support/wallet";

jest.setTimeout(180_000);

const DOMAIN = "side.exchange.test";
const ADMIN_KEY = "side-admin";
const SHARE = 1_000_000;

type U = { token: string; userId: string };
type NodeInfo = { id: string; available: boolean };
type ServiceInfo = { name: string; nodes: string[] };

async function servicesByNode(node: NodeProcess): Promise<Record<string, string[]>> {
  const list = await node.call<ServiceInfo[]>("$node.services", { skipInternal: true, withEndpoints: false, onlyAvailable: true });
  const out: Record<string, string[]> = {};
  for (const s of list) for (const n of s.nodes) (out[n] ??= []).push(s.name);
  for (const k of Object.keys(out)) out[k].sort();
  return out;
}

describe("embedded process with its side node", () => {
  let dir: string;
  let node: NodeProcess;

  const user = async (): Promise<U> => {
    const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
    await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 100 * SHARE });
    return { token: login.body.data.accessToken, userId: login.body.data.userId };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-side-"));
    node = await NodeProcess.start(embeddedEnv(join(dir, "data"), DOMAIN, ADMIN_KEY, { SIDE_NODE: "thread" }));
  });
  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("two nodes: the order path on the main node, the catalog, notifier and chain on the side node", async () => {
    const nodes = await node.call<NodeInfo[]>("$node.list", { onlyAvailable: true });
    const ids = nodes.map((n) => n.id).sort();
    expect(ids).toHaveLength(2);
    const [main, side] = ids;
    expect(side).toBe(`${main}-side`);
    expect(await servicesByNode(node)).toEqual({
      [main]: ["amm", "api", "auth", "book", "ledger", "router"],
      [side]: ["catalog", "chain", "notifier"],
    });
  });

  test("each trade is in the price history within a print batch, and in the notifications once the notifier caught up", async () => {
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Side node event", category: "Tech", markets: [{ title: "Does the side node keep up?" }] },
    });
    expect(created.status).toBe(201);
    const marketId: string = created.body.data.markets[0].id;
    const [maker, taker] = [await user(), await user()];
    const trades = [
      [0.4, 2],
      [0.55, 3],
      [0.62, 1],
    ];
    for (const t of trades) {
      const [price, q] = t;
      const rest = await node.http("POST", "/api/v1/orders", {
        token: maker.token,
        body: { marketId, side: "BUY", outcome: "YES", orderType: "GTC", price, quantity: q * SHARE },
      });
      expect(rest.body.data.status).toBe("open");
      const fill = await node.http("POST", "/api/v1/orders", {
        token: taker.token,
        body: { marketId, side: "BUY", outcome: "NO", orderType: "GTC", price: Math.round((1 - price) * 100) / 100, quantity: q * SHARE },
      });
      expect(fill.body.data.status).toBe("filled");
      // Prints are written in batches (catalog/cores.ts PRINTS_GATHER_MS): the history follows within one.
      const candles = await until(`the print at ${price}`, async () => {
        const history = await node.http("GET", `/api/v1/markets/${marketId}/price-history?outcome=YES&interval=1D`);
        const c = history.body.data?.candles as Array<{ close: number; volume: number }> | undefined;
        return c?.length && c[c.length - 1].close === price ? c : null;
      });
      expect(candles.reduce((a, c) => a + c.volume, 0)).toBe(trades.slice(0, trades.indexOf(t) + 1).reduce((a, [, q]) => a + q, 0));
    }
    await node.call("notifier.catchUp");
    const notes = await node.http("GET", "/api/v1/notifications", { token: maker.token });
    expect(notes.status).toBe(200);
    expect((notes.body.data as Array<{ type: string }>).filter((n) => n.type === "TRADE_FILLED").length).toBeGreaterThanOrEqual(3);
  });

  test("the side node's notifier is not sent each group commit's changes, yet a fill notifies without being asked to catch up", async () => {
    const events = await node.call<Array<{ name: string; nodes?: string[]; endpoints?: Array<{ nodeID: string }> }>>("$node.events", {
      onlyAvailable: true,
      withEndpoints: true,
    });
    const heardOn = (name: string) => (events.find((e) => e.name === name)?.endpoints ?? []).map((e) => e.nodeID).sort();
    const [main, side] = (await node.call<NodeInfo[]>("$node.list", { onlyAvailable: true })).map((n) => n.id).sort();
    expect(heardOn("ledger.committed")).toEqual([main]);
    expect(heardOn("market.trades")).toEqual([side]);
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Side node notices", category: "Tech", markets: [{ title: "Is the notifier woken?" }] },
    });
    const marketId: string = created.body.data.markets[0].id;
    const [maker, taker] = [await user(), await user()];
    await node.http("POST", "/api/v1/orders", {
      token: maker.token,
      body: { marketId, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    const fill = await node.http("POST", "/api/v1/orders", {
      token: taker.token,
      body: { marketId, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    expect(fill.body.data.status).toBe("filled");
    for (const u of [maker, taker])
      await until("the fill's notification", async () => {
        const notes = await node.http("GET", "/api/v1/notifications", { token: u.token });
        return (notes.body.data as Array<{ type: string }>).some((n) => n.type === "TRADE_FILLED") ? true : null;
      });
  });

  test("a market's status change is seen by the next read, though the main node keeps the catalog's cached reads", async () => {
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Side node close", category: "Tech", markets: [{ title: "Is the close seen at once?" }] },
    });
    const marketId: string = created.body.data.markets[0].id;
    for (let i = 0; i < 3; i++) expect((await node.http("GET", `/api/v1/markets/${marketId}`)).body.data.status).toBe("open");
    const closed = await node.http("POST", `/api/v1/admin/markets/${marketId}/close`, { headers: { "x-admin-key": ADMIN_KEY } });
    expect(closed.status).toBe(200);
    expect((await node.http("GET", `/api/v1/markets/${marketId}`)).body.data.status).toBe("closed");
  });

  test("GET /events shows a new event, a price move and a close in the next answer, though the main node keeps the list", async () => {
    const row = async (eventId: string) => {
      const list = await node.http("GET", "/api/v1/events?category=Crypto&pageSize=100");
      expect(list.status).toBe(200);
      return (list.body.data as Array<{ id: string; outcomes: Array<{ marketId: string; status: string; chance: string | null }> }>).find(
        (e) => e.id === eventId,
      );
    };
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Side node list", category: "Crypto", markets: [{ title: "Is the list fresh?" }, { title: "Is it still fresh?" }] },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const marketId: string = created.body.data.markets[0].id;
    expect((await row(eventId))?.outcomes.map((o) => o.chance)).toEqual([null, null]);
    const maker = await user();
    for (const [outcome, price] of [
      ["YES", 0.4],
      ["NO", 0.55],
    ] as const) {
      const placed = await node.http("POST", "/api/v1/orders", {
        token: maker.token,
        body: { marketId, side: "BUY", outcome, orderType: "GTC", price, quantity: SHARE },
      });
      expect(placed.body.data.status).toBe("open");
    }
    // Bid 0.40, ask 0.45: the midpoint, at once.
    expect((await row(eventId))?.outcomes[0]).toMatchObject({ marketId, status: "open", chance: "0.425" });
    const closed = await node.http("POST", `/api/v1/admin/markets/${marketId}/close`, { headers: { "x-admin-key": ADMIN_KEY } });
    expect(closed.status).toBe(200);
    expect((await row(eventId))?.outcomes[0]).toMatchObject({ marketId, status: "closed", chance: null });
  });

  test("SIGTERM stops both nodes and the process exits 0", async () => {
    node.child.kill("SIGTERM");
    expect(await node.exited).toBe(0);
  });
});

describe("a side node that dies (SIDE_NODE unset: thread)", () => {
  test("stops the process with its message; the data dir starts again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-side-dies-"));
    const env = embeddedEnv(join(dir, "data"), DOMAIN, ADMIN_KEY);
    try {
      const node = await NodeProcess.start(env);
      await node.ctl({ cmd: "endSideThread" }).catch(() => undefined);
      expect(await node.exited).toBe(1);
      expect(node.stderr).toContain("The side node (catalog, chain, notifier) failed: its thread exited");
      expect(node.stderr).toContain("Stopping the exchange.");
      // It let go of its data dir: the next start takes it and runs both nodes again.
      const again = await NodeProcess.start(env);
      try {
        expect(await again.call<NodeInfo[]>("$node.list", { onlyAvailable: true })).toHaveLength(2);
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SIDE_NODE=off", () => {
  test("one node runs every service", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-side-off-"));
    const node = await NodeProcess.start(embeddedEnv(join(dir, "data"), DOMAIN, ADMIN_KEY, { SIDE_NODE: "off" }));
    try {
      const nodes = await node.call<NodeInfo[]>("$node.list", { onlyAvailable: true });
      expect(nodes).toHaveLength(1);
      expect(Object.values(await servicesByNode(node))).toEqual([
        ["amm", "api", "auth", "book", "catalog", "chain", "ledger", "notifier", "router"],
      ]);
    } finally {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
