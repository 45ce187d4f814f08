/**
 * A day's liquidity rewards and maker rebates across a crash on the day boundary, on a real server
 * process whose rewards clock is set (REWARDS_CLOCK_AT): SIGKILL before midnight, a start after it
 * pays the day once, and a further restart pays nothing more.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConservationReport } from "../../engine/accounts";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";

jest.setTimeout(240_000);

const DOMAIN = "rewards.exchange.test";
const ADMIN_KEY = "rewards-admin";
const SHARE = 1_000_000;
const DAY = "2026-03-01";
const admin = { "x-admin-key": ADMIN_KEY };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("rewards and rebates across a restart on the day boundary", () => {
  let dir: string;
  let base: Record<string, string>;
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
  const start = async (clockAt: string) => {
    node = await NodeProcess.start({ ...base, REWARDS_CLOCK_AT: clockAt });
  };
  const login = async (wallet: TestWallet) => {
    const r = await node.http("POST", "/api/v1/auth/connect", { body: wallet.connectBody({ domain: DOMAIN }) });
    return { token: r.body.data.accessToken as string, userId: r.body.data.userId as string };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-rewards-restart-"));
    base = embeddedEnv(dir, DOMAIN, ADMIN_KEY, {
      RATE_LIMIT_TRADE: "100000",
      RATE_LIMIT_READ: "100000",
      REWARDS_TICK_MS: "200",
      MAKER_REBATE_BPS: "5000",
    });
  });
  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test("the day is paid once: after a SIGKILL before midnight, at the start after it, and not again after another restart", async () => {
    // Down over midnight: the day's last hour before the crash, the next day's first seconds after it.
    await start(`${DAY}T23:00:00.000Z`);
    const makerWallet = TestWallet.random();
    const maker = await login(makerWallet);
    const taker = await login(TestWallet.random());
    for (const u of [maker, taker]) await node.ctl({ cmd: "fund", userId: u.userId, amount: 100 * SHARE });
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Rewards", category: "Tech", markets: [{ title: "Paid at midnight?" }] },
    });
    const market = created.body.data.markets[0].id as string;
    // The maker quotes both sides (YES bid 0.48, YES ask 0.52 as a NO bid); the taker lifts 2 of the ask.
    const order = (u: { token: string }, body: Record<string, unknown>) =>
      node.http("POST", "/api/v1/orders", { token: u.token, body: { marketId: market, orderType: "GTC", ...body } });
    const bid = await order(maker, { side: "BUY", outcome: "YES", price: 0.48, quantity: 10 * SHARE });
    await order(maker, { side: "BUY", outcome: "NO", price: 0.48, quantity: 10 * SHARE });
    const lifted = await order(taker, { side: "BUY", outcome: "YES", price: 0.52, quantity: 2 * SHARE });
    expect(lifted.body.data.status).toBe("filled");
    const takerFee = Number((await node.http("GET", "/api/v1/trades", { token: taker.token })).body.data[0].fee);
    expect(takerFee).toBeGreaterThan(0);
    // Terms after the quotes: the first minute scored already sees them.
    expect((await node.http("POST", "/api/v1/admin/rewards/fund", { headers: admin, body: { amount: String(50 * SHARE) } })).status).toBe(
      200,
    );
    const terms = await node.http("POST", `/api/v1/admin/markets/${market}/rewards`, {
      headers: admin,
      body: { dailyPool: String(10 * SHARE), maxSpread: "0.05", minSize: String(SHARE) },
    });
    expect(terms.body.data).toEqual({ marketId: market, dailyPool: String(10 * SHARE), maxSpread: "0.05", minSize: String(SHARE) });
    expect((await node.http("GET", "/api/v1/rewards/markets")).body.data).toEqual([terms.body.data]);

    expect((await node.http("GET", `/api/v1/orders/${bid.body.data.orderId}/scoring`, { token: maker.token })).body.data).toEqual({
      scoring: true,
      reason: "scoring",
    });
    // Scored before midnight (the minute's sample), then the crash.
    await until("a score", async () => {
      const e = (await node.http("GET", `/api/v1/rewards/earnings?date=${DAY}`, { token: maker.token })).body.data;
      return e.length === 1 && e[0].score !== "0";
    });
    const before = Number((await node.http("GET", "/api/v1/balance", { token: maker.token })).body.data.available);
    await node.stop("SIGKILL");

    // Back at midnight: the day is paid, once. (Entries the crashed run had not read yet are dated on
    // this run's clock, which starts at 00:00: they fall before it, on the day being paid.)
    await start(`${DAY.slice(0, 8)}02T00:00:00.000Z`);
    const again = await login(makerWallet);
    const paid = await until("the day's payout", async () => {
      const e = (await node.http("GET", `/api/v1/rewards/earnings?date=${DAY}`, { token: again.token })).body.data;
      return e.length === 1 && e[0].reward !== "0" ? e[0] : null;
    });
    const rebate = Math.floor((takerFee * 5000) / 10_000);
    expect(paid).toMatchObject({ marketId: market, reward: String(10 * SHARE), rebate: String(rebate) });
    const after = Number((await node.http("GET", "/api/v1/balance", { token: again.token })).body.data.available);
    expect(after - before).toBe(10 * SHARE + rebate);
    // Both payouts are the maker's transfers, newest first with the rest, and filtered by type.
    const transfers = (await node.http("GET", "/api/v1/transfers", { token: again.token })).body;
    const paidAt = transfers.data[0].createdAt as string;
    expect(transfers.data.slice(0, 2)).toEqual([
      {
        id: `reward:${DAY}:${market}`,
        type: "reward",
        amount: String(10 * SHARE),
        asset: "USDT",
        status: "confirmed",
        txHash: null,
        address: null,
        marketId: market,
        day: DAY,
        createdAt: paidAt,
      },
      {
        id: `rebate:${DAY}:${market}`,
        type: "rebate",
        amount: String(rebate),
        asset: "USDT",
        status: "confirmed",
        txHash: null,
        address: null,
        marketId: market,
        day: DAY,
        createdAt: paidAt,
      },
    ]);
    const rebates = (await node.http("GET", "/api/v1/transfers?type=rebate&pageSize=1", { token: again.token })).body;
    expect(rebates.data.map((t: { id: string }) => t.id)).toEqual([`rebate:${DAY}:${market}`]);
    expect(rebates.pagination).toMatchObject({ page: 1, pageSize: 1, total: 1, hasNext: false });
    const notices = async () =>
      ((await node.http("GET", "/api/v1/notifications", { token: again.token })).body.data as Array<{ type: string }>).filter(
        (n) => n.type === "REWARD_PAID",
      );
    await until("the notification", async () => (await notices()).length === 1);

    // Another restart (the same day boundary): nothing is paid again.
    await node.stop("SIGTERM");
    await start(`${DAY.slice(0, 8)}02T00:00:00.000Z`);
    const third = await login(makerWallet);
    await sleep(1_500);
    expect(Number((await node.http("GET", "/api/v1/balance", { token: third.token })).body.data.available)).toBe(after);
    const n = ((await node.http("GET", "/api/v1/notifications", { token: third.token })).body.data as Array<{ type: string }>).filter(
      (x) => x.type === "REWARD_PAID",
    );
    expect(n).toHaveLength(1);
    const report = (await node.ctl({ cmd: "conservation" })) as ConservationReport;
    expect(report.ok).toBe(true);
    // The journal verifies: the rewards and rebate entry keeps to its rules, the day paid once.
    const verified = (await node.ctl({ cmd: "call", action: "ledger.verify" })) as { ok: boolean; problems: string[] };
    expect([verified.ok, verified.problems]).toEqual([true, []]);
  });
});
