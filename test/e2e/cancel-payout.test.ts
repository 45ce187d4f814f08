/**
 * A cancelled market pays out of its own collateral, over real HTTP on the sandbox chain: three
 * colluding wallets that trade one share at two prices and have the market cancelled get back no
 * more than they funded (minus fees); the fee account and the house stay out of it.
 */
import { conditionIdFor } from "../../catalog/condition";
import type { ConservationReport } from "../../engine/accounts";
import type { VerifyReport } from "../../models/trading";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, SHARE } from "../support/trading";
import { balance, expectChainConserved, faucet, startChainServer, waitFor } from "../support/chain";

type U = { token: string; userId: string };

describe("a cancelled market pays from its own collateral", () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startChainServer();
  });
  afterAll(() => srv.stop());
  afterEach(async () => {
    await expectChainConserved(srv.broker);
  });

  const funded = async (usdt: number): Promise<U> => {
    const u = await srv.login();
    expect((await faucet(srv, u.token, String(usdt * SHARE))).status).toBe(202);
    await waitFor("deposit credit", async () => (await balance(srv, u.token)).available === String(usdt * SHARE));
    return u;
  };
  const order = (u: U, marketId: string, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
  const cancel = (marketId: string, body?: Record<string, unknown>) =>
    srv.http("POST", `/api/v1/admin/markets/${marketId}/cancel`, { headers: { "x-admin-key": ADMIN_KEY }, ...(body ? { body } : {}) });
  const redeem = (u: U, marketId: string, indexSets: string[]) =>
    srv.http("POST", `/api/v1/redeem/${marketId}`, { token: u.token, body: { conditionId: conditionIdFor(marketId), indexSets } });
  const available = async (u: U) => Number((await balance(srv, u.token)).available);
  const books = () => srv.broker.call<ConservationReport>("ledger.conservation");

  test("the collusion: C buys NO at 0.80, A buys YES at 0.20 (minted), A sells it to D at 0.90; cancelled at the default 0.50 each side gets 25 of the 50 of collateral", async () => {
    const market = await createMarket(srv, "Will the colluders profit?");
    const [c, a, d] = [await funded(100), await funded(100), await funded(100)];
    const start = await books();

    expect((await order(c, market, { side: "BUY", outcome: "NO", price: 0.8, quantity: 50 * SHARE })).body.data.status).toBe("open");
    expect((await order(a, market, { side: "BUY", outcome: "YES", price: 0.2, quantity: 50 * SHARE })).body.data.status).toBe("filled");
    expect((await order(d, market, { side: "BUY", outcome: "YES", price: 0.9, quantity: 50 * SHARE })).body.data.status).toBe("open");
    expect((await order(a, market, { side: "SELL", outcome: "YES", price: 0.9, quantity: 50 * SHARE })).body.data.status).toBe("filled");
    const traded = await books();
    // A was the taker both times: its two fees are all the fees of the sequence.
    const fees = traded.fees - start.fees;
    expect(fees).toBe(250_000);

    const res = await cancel(market);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: market, status: "cancelled" });
    await waitFor(
      "the payout",
      async () => (await available(c)) === 60 * SHARE + 25 * SHARE && (await available(d)) === 55 * SHARE + 25 * SHARE,
    );

    const rc = await redeem(c, market, ["0x2"]);
    const rd = await redeem(d, market, ["0x1"]);
    expect([rc.status, rc.body.data.payout, rd.status, rd.body.data.payout]).toEqual([202, String(25 * SHARE), 202, String(25 * SHARE)]);
    expect(rc.body.data.message).toMatch(/cancelled at 0\.50/);
    // The payouts are exactly the market's collateral: 50 pairs minted, 50 paid.
    expect(Number(rc.body.data.payout) + Number(rd.body.data.payout)).toBe(50 * SHARE);

    const end = await books();
    const wallets = (await available(c)) + (await available(a)) + (await available(d));
    // Together they end with what they funded minus the fees their trades paid: nothing gained.
    // (Refunding each position's cost basis paid C 40 and D 45 and ended them at 334.75, the fee
    // account drained to 0 and 34.75 of house funding drawn.)
    expect(wallets).toBe(299_750_000);
    expect(wallets).toBe(300 * SHARE - fees);
    expect(wallets).toBeLessThanOrEqual(300 * SHARE);
    expect(end.fees).toBe(traded.fees);
    expect(end.house).toBe(start.house);
    expect(end).toMatchObject({ ok: true, unbalancedMarkets: [] });
    // The whole journal replays under the fee, house and payout rules.
    const verify = await srv.broker.call<VerifyReport>("ledger.verify");
    expect(verify.problems).toEqual([]);
  });

  test("cancelled at 0.20: YES paid 0.20 and NO 0.80 a share; a bad price is a 400 and changes nothing", async () => {
    const market = await createMarket(srv, "Will it end at a fifth?");
    const [x, y] = [await funded(10), await funded(10)];
    await order(x, market, { side: "BUY", outcome: "YES", price: 0.3, quantity: 10 * SHARE });
    expect((await order(y, market, { side: "BUY", outcome: "NO", price: 0.7, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    const [ax, ay] = [await available(x), await available(y)];

    for (const price of ["1.01", "0.505", "-0.1", "abc", 0.2, ""]) {
      const bad = await cancel(market, { price });
      expect([bad.status, bad.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(bad.body.error.fields).toEqual([expect.objectContaining({ field: "price" })]);
    }
    expect((await srv.http("GET", `/api/v1/markets/${market}`)).body.data.status).toBe("open");

    const res = await cancel(market, { price: "0.20" });
    expect([res.status, res.body.data.status]).toEqual([200, "cancelled"]);
    await waitFor("the payout", async () => (await available(x)) === ax + 2 * SHARE && (await available(y)) === ay + 8 * SHARE);
    expect((await redeem(y, market, ["0x1", "0x2"])).body.data).toMatchObject({ status: "accepted", payout: String(8 * SHARE) });
    expect((await redeem(x, market, ["0x1"])).body.data).toMatchObject({ status: "accepted", payout: String(2 * SHARE) });
    expect((await redeem(x, market, ["0x1"])).body.data.status).toBe("duplicate");
    // A second cancel is an illegal transition, whatever its price.
    expect((await cancel(market, { price: "1.00" })).status).toBe(409);
    expect(await available(x)).toBe(ax + 2 * SHARE);
  });

  test("an AMM market: the pool's inventory is paid at the price like any holder's; house funding and fees untouched", async () => {
    const market = await createMarket(srv, "Will the pool be paid too?", String(100 * SHARE));
    const u = await funded(30);
    const buy = await srv.http("POST", "/api/v1/trade/amm", {
      token: u.token,
      body: { marketId: market, side: "BUY", outcome: "YES", quantity: String(10 * SHARE) },
    });
    expect(buy.status).toBe(200);
    const before = await books();
    const after = await available(u);
    expect((await cancel(market, { price: "0.70" })).status).toBe(200);
    await waitFor("the payout", async () => (await available(u)) === after + 7 * SHARE);
    const end = await books();
    expect([end.fees, end.house, end.ok]).toEqual([before.fees, before.house, true]);
    type Acct = { balance: { available: number }; positions: Array<{ quantity: number }> };
    const pool = await srv.broker.call<Acct, { account: string }>("ledger.account", { account: `amm:${market}` });
    expect(pool.positions.every((p) => p.quantity === 0)).toBe(true);
  });
});
