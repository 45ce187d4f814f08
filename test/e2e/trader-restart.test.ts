/**
 * What the trader API promises across restarts and crashes, on a real server process: a GTD order
 * whose time passed while the exchange was stopped expires at the start; an armed dead man's switch
 * survives a restart (and fires if it lapsed meanwhile); an Idempotency-Key answers the first
 * answer again after a SIGKILL between the execution and the answer, never executing twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";

jest.setTimeout(120_000);

const DOMAIN = "restart.exchange.test";
const ADMIN_KEY = "restart-admin";
const SHARE = 1_000_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("trader API across restarts and crashes", () => {
  let dir: string;
  let env: Record<string, string>;
  let node: NodeProcess;
  let market: string;
  const users: Array<{ token: string; userId: string }> = [];

  const until = async <T>(what: string, fn: () => Promise<T | null>, ms = 20_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v !== null) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  const order = (u: { token: string }, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    node.http("POST", "/api/v1/orders", { token: u.token, headers, body: { marketId: market, orderType: "GTC", ...body } });
  const orders = async (u: { token: string }, qs = "") => (await node.http("GET", `/api/v1/orders${qs}`, { token: u.token })).body;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-trader-restart-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000" });
    node = await NodeProcess.start(env);
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Restarts", category: "Tech", markets: [{ title: "Restarts?" }] },
    });
    market = created.body.data.markets[0].id;
    for (let i = 0; i < 3; i++) {
      const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      users.push({ token: login.body.data.accessToken, userId: login.body.data.userId });
      await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 1000 * SHARE });
    }
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a GTD whose time passes while the exchange is stopped expires at the start; an armed heartbeat survives a restart and fires once it lapsed", async () => {
    const [a, b] = users;
    const gtd = await order(a, {
      orderType: "GTD",
      side: "BUY",
      outcome: "YES",
      price: 0.2,
      quantity: SHARE,
      expiresAt: new Date(Date.now() + 6_000).toISOString(),
    });
    expect(gtd.status).toBe(200);
    const keep = await order(a, { side: "BUY", outcome: "YES", price: 0.21, quantity: SHARE });
    // b arms a switch with a long timeout: a restart keeps it (and its deadline).
    await order(b, { side: "BUY", outcome: "NO", price: 0.3, quantity: SHARE });
    const armed = await node.http("POST", "/api/v1/heartbeats", { token: b.token, body: { timeoutSeconds: 8 } });
    expect(armed.body.data.armed).toBe(true);

    await node.stop("SIGTERM");
    await sleep(9_000);
    node = await NodeProcess.start(env);
    // Both deadlines passed while stopped: they fire at the start.
    await until("the GTD expired", async () => {
      const closed = (await orders(a, "?status=closed")).data.find((o: { orderId: string }) => o.orderId === gtd.body.data.orderId);
      return closed?.status === "expired" ? closed : null;
    });
    expect((await orders(a)).data.map((o: { orderId: string }) => o.orderId)).toEqual([keep.body.data.orderId]);
    await until("the switch fired", async () => ((await orders(b)).data.length === 0 ? true : null));
    expect((await orders(b, "?status=closed")).data[0]).toMatchObject({ status: "cancelled", cancelReason: "heartbeat" });
    const bal = await node.http("GET", "/api/v1/balance", { token: a.token });
    expect(bal.body.data.locked).toBe(String(0.21 * SHARE));
  });

  test("Idempotency-Key across a SIGKILL: every key executes once; a retry gets the first answer (replayed) or executes now if it never did", async () => {
    const [, , c] = users;
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      side: "BUY",
      outcome: i % 2 ? "YES" : "NO",
      price: 0.1 + (i % 5) / 100,
      quantity: SHARE,
      clientOrderId: `idem-${i}`,
    }));
    const first = new Map<number, unknown>();
    const inflight = bodies.map((b, i) =>
      order(c, b, { "idempotency-key": `crash-${i}` })
        .then((r) => {
          if (r.status === 200) first.set(i, r.body.data);
        })
        .catch(() => undefined),
    );
    // Killed while answers are coming back: some keys executed and answered, some executed and
    // not answered (the case a client retry must not double), some never reached the journal.
    await until("the first answers", async () => (first.size >= 3 ? true : null), 10_000);
    await node.stop("SIGKILL");
    await Promise.all(inflight);
    node = await NodeProcess.start(env);
    let unanswered = 0;
    for (let i = 0; i < bodies.length; i++) {
      const r = await order(c, bodies[i], { "idempotency-key": `crash-${i}` });
      expect(r.status).toBe(200);
      const replayed = r.headers.get("idempotent-replayed") === "true";
      if (first.has(i)) {
        expect(replayed).toBe(true);
        expect(r.body.data).toEqual(first.get(i));
      } else if (replayed) unanswered++;
    }
    // Exactly one order per key, whatever the crash cut.
    const all = await orders(c, "?status=all&pageSize=500");
    const perKey = new Map<string, number>();
    for (const o of all.data as Array<{ clientOrderId: string }>) perKey.set(o.clientOrderId, (perKey.get(o.clientOrderId) ?? 0) + 1);
    expect([...perKey.values()].every((n) => n === 1)).toBe(true);
    expect(perKey.size).toBe(bodies.length);
    const check = await node.call<{ ok: boolean }>("ledger.conservation");
    expect(check.ok).toBe(true);
    console.log(
      `${first.size} of ${bodies.length} answered before the kill, ${unanswered} executed but unanswered (replayed after the restart), ${bodies.length - first.size - unanswered} executed only after it`,
    );
  });
});
