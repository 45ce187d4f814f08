/**
 * The market clock across a crash, on a real server process: SIGKILL between a proposal and the end
 * of its dispute window, and the finalization still happens, once, at the next start; a close time
 * that passes while the exchange is down closes the market at the start, its resting orders
 * cancelled with reason market_closed.
 */
import { conditionIdFor } from "../../catalog/condition";
import type { ConservationReport } from "../../engine/accounts";
import { ExchangeNode, type User as U } from "../support/exchange-node";

jest.setTimeout(180_000);

const DOMAIN = "resolution.exchange.test";
const ADMIN_KEY = "resolution-admin";
const SHARE = 1_000_000;
const WINDOW_MS = 4_000;
const admin = { "x-admin-key": ADMIN_KEY };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the market clock across a crash", () => {
  let ex: ExchangeNode;

  const until = <T>(what: string, fn: () => Promise<T | null | false>) => ex.until(what, fn);
  const user = () => ex.user();
  const createMarket = async (market: Record<string, unknown>): Promise<string> => {
    const res = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Crash", category: "Tech", markets: [market] },
    });
    expect(res.status).toBe(201);
    return res.body.data.markets[0].id;
  };
  const order = (u: U, marketId: string, body: Record<string, unknown>) => ex.order(u, marketId, body);
  const market = async (id: string) => (await ex.node.http("GET", `/api/v1/markets/${id}`)).body.data;
  const restart = (signal: NodeJS.Signals) => ex.restart(signal);

  beforeAll(async () => {
    ex = await ExchangeNode.start("resolution-restart", DOMAIN, ADMIN_KEY, {
      RESOLUTION_DISPUTE_WINDOW_MS: String(WINDOW_MS),
      RESOLUTION_CLOCK_MS: "100",
    });
  });
  afterAll(() => ex?.close());

  test("SIGKILL between a proposal and its window's end: the next start finalizes it, once", async () => {
    const id = await createMarket({ title: "Survives a crash?" });
    const [yes, no] = [await user(), await user()];
    expect((await order(yes, id, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE })).body.data.status).toBe("open");
    expect((await order(no, id, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    const proposed = await ex.node.http("POST", `/api/v1/admin/markets/${id}/propose`, { headers: admin, body: { result: "YES" } });
    expect(proposed.status).toBe(200);
    const endsAt = Date.parse(proposed.body.data.resolution.disputeEndsAt);

    await ex.node.stop("SIGKILL");
    // Down until well past the window's end.
    while (Date.now() < endsAt + 1_000) await sleep(100);
    await ex.restart();

    const done = await until("the finalization", async () => {
      const m = await market(id);
      return m.status === "resolved" && m;
    });
    expect(done).toMatchObject({ result: "YES", resolution: { proposedResult: "YES", disputed: false } });
    expect(Date.parse(done.resolution.finalizedAt)).toBeGreaterThan(endsAt);

    // Once: another restart changes nothing, the winner is paid once and every holder told once.
    await restart("SIGTERM");
    expect(await market(id)).toEqual(done);
    const redeem = () =>
      ex.node.http("POST", `/api/v1/redeem/${id}`, { token: yes.token, body: { conditionId: conditionIdFor(id), indexSets: ["0x1"] } });
    expect((await redeem()).body.data).toMatchObject({ status: "accepted", payout: String(10 * SHARE) });
    expect((await redeem()).body.data.status).toBe("duplicate");
    await ex.node.call("notifier.catchUp");
    const resolvedNotices = async (u: U) =>
      ((await ex.node.http("GET", "/api/v1/notifications", { token: u.token })).body.data as Array<{ type: string }>).filter(
        (n) => n.type === "MARKET_RESOLVED",
      ).length;
    await until("holders told", async () => (await resolvedNotices(no)) === 1);
    expect(await resolvedNotices(yes)).toBe(1);
    const books = await ex.node.ctl<ConservationReport>({ cmd: "conservation" });
    expect(books).toMatchObject({ ok: true, unbalancedMarkets: [] });
  });

  test("a close time that passes while the exchange is down closes the market at the start (market_closed)", async () => {
    const u = await user();
    const closeTime = new Date(Date.now() + 3_000).toISOString();
    const id = await createMarket({ title: "Closes while down?", rules: "Closes on schedule.", closeTime });
    const resting = await order(u, id, { side: "BUY", outcome: "YES", price: 0.25, quantity: 4 * SHARE });
    expect(resting.body.data.status).toBe("open");

    await ex.node.stop("SIGKILL");
    while (Date.now() < Date.parse(closeTime) + 500) await sleep(100);
    await ex.restart();

    const closed = await until("the close at the start", async () => {
      const m = await market(id);
      return m.status === "closed" && m;
    });
    expect(closed).toMatchObject({ closeTime, rules: "Closes on schedule.", resolution: null });
    await until("the order's cancel", async () => {
      const list = (await ex.node.http("GET", "/api/v1/orders?status=all", { token: u.token })).body.data as Array<Record<string, unknown>>;
      const o = list.find((x) => x.orderId === resting.body.data.orderId);
      return o?.status === "cancelled" && o.cancelReason === "market_closed";
    });
    expect((await ex.node.http("GET", "/api/v1/balance", { token: u.token })).body.data.locked).toBe("0");
  });
});
