/**
 * Mass quotes across a crash, on a real server process: the book is rebuilt from the journal with
 * the last quote set standing, the Idempotency-Key of that set answers its first answer again, and
 * the next mass quote replaces exactly the set that was standing before the crash.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";
import { until } from "../support/until";

jest.setTimeout(120_000);

const DOMAIN = "quotes-restart.exchange.test";
const ADMIN_KEY = "quotes-restart-admin";
const SHARE = 1_000_000;

describe("mass quotes across a crash", () => {
  let dir: string;
  let env: Record<string, string>;
  let node: NodeProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-quotes-restart-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000" });
    node = await NodeProcess.start(env);
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("after a SIGKILL the book and the standing set are rebuilt; the set's key replays; the next set replaces it", async () => {
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Quotes restart", category: "Tech", markets: [{ title: "Quotes survive?" }] },
    });
    const market = created.body.data.markets[0].id as string;
    const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
    const mm = { token: login.body.data.accessToken as string };
    await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 100 * SHARE });
    const quote = (quotes: Array<[string, string, number]>, key: string) =>
      node.http("POST", "/api/v1/quotes", {
        token: mm.token,
        headers: { "idempotency-key": key },
        body: {
          marketId: market,
          postOnly: true,
          quotes: quotes.map(([side, outcome, price]) => ({ side, outcome, price, quantity: SHARE })),
        },
      });
    const ids = (r: { body: { data: { orders: Array<{ orderId: string }> } } }) => r.body.data.orders.map((o) => o.orderId);
    const open = async () =>
      ((await node.http("GET", "/api/v1/orders", { token: mm.token })).body.data as Array<{ orderId: string; quote: boolean }>)
        .map((o) => [o.orderId, o.quote])
        .sort();
    const depth = async () => (await node.http("GET", `/api/v1/markets/${market}/orderbook`)).body.data;

    const a = await quote(
      [
        ["BUY", "YES", 0.4],
        ["BUY", "NO", 0.5],
      ],
      "set-a",
    );
    expect(a.status).toBe(200);
    const b = await quote(
      [
        ["BUY", "YES", 0.42],
        ["BUY", "YES", 0.41],
        ["BUY", "NO", 0.52],
      ],
      "set-b",
    );
    expect(b.body.data.cancelled).toEqual(ids(a));
    const before = { open: await open(), depth: await depth() };
    expect(before.open).toEqual(
      ids(b)
        .map((id) => [id, true])
        .sort(),
    );

    await node.stop("SIGKILL");
    node = await NodeProcess.start(env);
    expect(await open()).toEqual(before.open);
    expect(await depth()).toEqual(before.depth);
    const again = await quote(
      [
        ["BUY", "YES", 0.42],
        ["BUY", "YES", 0.41],
        ["BUY", "NO", 0.52],
      ],
      "set-b",
    );
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(again.body.data).toEqual(b.body.data);
    const c = await quote([["BUY", "YES", 0.43]], "set-c");
    expect(c.body.data.cancelled).toEqual(ids(b));
    expect(await open()).toEqual(ids(c).map((id) => [id, true]));
    const bal = await node.http("GET", "/api/v1/balance", { token: mm.token });
    expect(bal.body.data.locked).toBe(String(0.43 * SHARE));
    expect((await node.call<{ ok: boolean }>("ledger.conservation")).ok).toBe(true);
    expect((await node.call<{ problems: string[] }>("ledger.verify")).problems).toEqual([]);
  });

  test("a quote set's order group survives the crash: a fill after the restart triggers it and cancels the rest of the set", async () => {
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Quotes group restart", category: "Tech", markets: [{ title: "Grouped quotes survive?" }] },
    });
    const market = created.body.data.markets[0].id as string;
    const users: Array<{ token: string }> = [];
    for (let i = 0; i < 2; i++) {
      const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      users.push({ token: login.body.data.accessToken as string });
      await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 100 * SHARE });
    }
    const [mm, taker] = users;
    const group = (
      await node.http("POST", "/api/v1/order-groups", { token: mm.token, body: { fillLimit: String(SHARE), windowSeconds: 600 } })
    ).body.data.orderGroupId as string;
    const body = (price: number) => ({
      marketId: market,
      orderGroupId: group,
      quotes: [
        { side: "BUY", outcome: "YES", price, quantity: SHARE },
        { side: "BUY", outcome: "YES", price: price - 0.01, quantity: SHARE },
      ],
    });
    const set = await node.http("POST", "/api/v1/quotes", { token: mm.token, body: body(0.4) });
    expect(set.status).toBe(200);

    await node.stop("SIGKILL");
    node = await NodeProcess.start(env);
    const hit = await node.http("POST", "/api/v1/orders", {
      token: taker.token,
      body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: SHARE },
    });
    expect(hit.body.data.status).toBe("filled");
    const closed = async () =>
      (await node.http("GET", "/api/v1/orders?status=closed", { token: mm.token })).body.data as Array<{
        orderId: string;
        cancelReason: string | null;
      }>;
    const rest = set.body.data.orders[1].orderId as string;
    const cancelled = await until("the rest of the set cancelled by its group", async () =>
      (await closed()).find((o) => o.orderId === rest),
    );
    expect(cancelled.cancelReason).toBe("order_group");
    const refused = await node.http("POST", "/api/v1/quotes", { token: mm.token, body: body(0.38) });
    expect([refused.status, refused.body.error.code]).toEqual([409, "ORDER_GROUP_TRIGGERED"]);
    expect((await node.call<{ ok: boolean }>("ledger.conservation")).ok).toBe(true);
  });
});
