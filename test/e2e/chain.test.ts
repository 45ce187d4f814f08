/**
 * The TON chain over real HTTP on the sandbox chain (real TVM execution of the real jetton
 * contracts): deposits, the deposit rule, withdrawals, settlement, redemption and refunds, with
 * ledger = deposit wallets + hot wallet - pending withdrawals checked after every test.
 */
import { Address, beginCell } from "@ton/core";
import { OP, parseTransfer, standardJettonWallet } from "../../chain/jetton";
import { commitmentOf, parseSettlementBody } from "../../chain/settlement";
import { bodyOfView } from "../../chain/tx";
import { conditionIdFor } from "../../catalog/condition";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, SHARE } from "../support/trading";
import { TestWallet } from "../support/wallet";
import { balance, chainTx, expectChainConserved, faucet, onChainUsdt, startChainServer, waitFor } from "../support/chain";

type U = { token: string; userId: string; wallet: TestWallet };

describe("TON chain on the sandbox", () => {
  let srv: TestServer;
  let info: {
    usdtMinter: string;
    foreignMinter: string;
    hotWallet: string;
    hotJettonWallet: string;
    operatorWallet: string;
    registry: string;
  };

  beforeAll(async () => {
    srv = await startChainServer();
    info = await srv.broker.call("chain.info");
  });
  afterAll(() => srv.stop());
  afterEach(async () => {
    await expectChainConserved(srv.broker);
  });

  const depositAddress = (u: U) => srv.http("GET", "/api/v1/deposit-address", { token: u.token });
  const withdraw = (u: U, body: Record<string, unknown>) => srv.http("POST", "/api/v1/withdraw", { token: u.token, body });
  const order = (u: U, marketId: string, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
  const incidents = (u: U): Promise<Array<{ kind: string; amount: string | null; src: string }>> =>
    srv.broker.call("chain.incidents", { userId: u.userId });
  const funded = async (usdt: number): Promise<U> => {
    const u = await srv.login();
    const res = await faucet(srv, u.token, String(usdt * SHARE));
    expect(res.status).toBe(202);
    await waitFor("deposit credit", async () => (await balance(srv, u.token)).available === String(usdt * SHARE));
    return u;
  };

  test("GET /deposit-address: allocated on first call, stable after, one derivation index per user; jetton wallet null until a deposit", async () => {
    expect((await srv.http("GET", "/api/v1/deposit-address")).status).toBe(401);
    const a = await srv.login();
    const b = await srv.login();
    const first = await depositAddress(a);
    expect(first.status).toBe(200);
    const d = first.body.data;
    expect(d).toEqual({
      address: expect.stringMatching(/^0Q[A-Za-z0-9_-]{46}$/),
      jettonWalletAddress: null,
      derivationIndex: expect.any(Number),
    });
    const parsed = Address.parseFriendly(d.address);
    expect(parsed.isBounceable).toBe(false);
    expect(parsed.isTestOnly).toBe(true);
    expect((await depositAddress(a)).body.data).toEqual(d);
    const other = (await depositAddress(b)).body.data;
    expect(other.derivationIndex).not.toBe(d.derivationIndex);
    expect(other.address).not.toBe(d.address);
  });

  test("faucet USDT: a real mint to the deposit address, credited exactly once; the jetton wallet is the canonical one the minter computes", async () => {
    const u = await srv.login();
    const res = await faucet(srv, u.token, "25000000");
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: "accepted",
      asset: "USDT",
      amount: "25000000",
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await waitFor("credit", async () => (await balance(srv, u.token)).available === "25000000");
    const tx = await chainTx(srv.broker, res.body.data.txHash);
    expect(tx).not.toBeNull();
    const d = (await depositAddress(u)).body.data;
    const owner = Address.parseFriendly(d.address).address;
    expect(
      Address.parseFriendly(d.jettonWalletAddress).address.equals(standardJettonWallet(owner, Address.parseRaw(info.usdtMinter))),
    ).toBe(true);
    expect(Address.parseFriendly(d.jettonWalletAddress).isBounceable).toBe(true);
    // Scanning again (and the timer) never credits it twice.
    await srv.broker.call("chain.tick");
    expect((await balance(srv, u.token)).available).toBe("25000000");
    // Swept: the deposit wallet is empty, the hot wallet holds it.
    expect(await onChainUsdt(srv.broker, owner)).toBe(0n);
  });

  test("faucet TON and FOREIGN_USDT, and a forged transfer_notification: nothing credited, each recorded for support", async () => {
    const u = await funded(3);
    const ton = await faucet(srv, u.token, "2000000000", "TON");
    expect(ton.status).toBe(202);
    const foreign = await faucet(srv, u.token, "9000000", "FOREIGN_USDT");
    expect(foreign.status).toBe(202);
    // A contract writes a transfer_notification claiming 1000 USDT straight to the deposit address.
    const forged = beginCell()
      .storeUint(OP.transferNotification, 32)
      .storeUint(0, 64)
      .storeCoins(1_000_000_000n)
      .storeAddress(Address.parseRaw(info.hotWallet))
      .storeBit(false)
      .endCell();
    await srv.broker.call("chain.sandboxInject", { userId: u.userId, value: "50000000", body: forged.toBoc().toString("base64") });
    await srv.broker.call("chain.tick");
    expect(await balance(srv, u.token)).toEqual({ available: String(3 * SHARE), locked: "0", total: String(3 * SHARE) });
    const kinds = (await incidents(u)).map((i) => `${i.kind}:${i.amount}`).sort();
    expect(kinds).toEqual(["foreign_jetton:9000000", "forged_notification:1000000000", "native_ton:2000000000"]);
    // The look-alike jetton really sits in the deposit address's wallet of the foreign minter.
    const owner = Address.parseFriendly((await depositAddress(u)).body.data.address).address;
    expect(BigInt(await srv.broker.call("chain.jettonBalance", { owner: owner.toRawString(), minter: info.foreignMinter }))).toBe(
      9_000_000n,
    );
    expect((await faucet(srv, u.token, "1", "DOGE")).status).toBe(400);
    expect((await faucet(srv, u.token, "99999999999999")).status).toBe(400);
  });

  test("POST /withdraw: debits, sends from the hot wallet to the session wallet only, and the jettons arrive in its jetton wallet on chain", async () => {
    const u = await funded(20);
    const thief = TestWallet.random();
    const res = await withdraw(u, { amount: "7500000", destination: thief.rawAddress, to: thief.rawAddress });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      status: "accepted",
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      message: expect.any(String),
    });
    expect(await balance(srv, u.token)).toMatchObject({ available: "12500000" });
    // Read back from the chain: the user's jetton wallet holds it, nobody else's.
    expect(await onChainUsdt(srv.broker, u.wallet.rawAddress)).toBe(7_500_000n);
    expect(await onChainUsdt(srv.broker, thief.rawAddress)).toBe(0n);
    // The returned hash is the hot wallet's transaction; its trace leads to the user's jetton wallet.
    const tx = (await chainTx(srv.broker, res.body.data.txHash))!;
    expect(tx.account).toBe(info.hotWallet);
    expect(tx.success).toBe(true);
    const transfer = parseTransfer(bodyOfView(tx.outs[0].body));
    expect(transfer).toMatchObject({ amount: 7_500_000n });
    expect(transfer!.destination.toRawString()).toBe(u.wallet.rawAddress);
    const hop1 = (await chainTx(srv.broker, tx.children![0]))!;
    expect(hop1.account).toBe(info.hotJettonWallet);
    const userJw = standardJettonWallet(Address.parseRaw(u.wallet.rawAddress), Address.parseRaw(info.usdtMinter)).toRawString();
    const next = await Promise.all(hop1.children!.map((h) => chainTx(srv.broker, h)));
    const hop2 = next.find((t) => t?.account === userJw);
    expect(hop2?.success).toBe(true);
  });

  test("an identical withdrawal within the window is a duplicate with no second debit; another amount is a new one", async () => {
    const u = await funded(10);
    const [a, b] = await Promise.all([withdraw(u, { amount: "2000000" }), withdraw(u, { amount: "2000000" })]);
    const statuses = [a.body.data.status, b.body.data.status].sort();
    expect(statuses).toEqual(["accepted", "duplicate"]);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    const again = await withdraw(u, { amount: "2000000" });
    expect(again.body.data).toMatchObject({ status: "duplicate", txHash: (a.body.data.status === "accepted" ? a : b).body.data.txHash });
    expect((await balance(srv, u.token)).available).toBe("8000000");
    expect(await onChainUsdt(srv.broker, u.wallet.rawAddress)).toBe(2_000_000n);
    const other = await withdraw(u, { amount: "3000000" });
    expect(other.body.data.status).toBe("accepted");
    expect((await balance(srv, u.token)).available).toBe("5000000");
  });

  test("withdrawal bounds and balance: clear 400s, nothing debited", async () => {
    const u = await funded(2);
    for (const [amount, code] of [
      ["abc", "VALIDATION_ERROR"],
      ["999999", "VALIDATION_ERROR"],
      ["1000000000001", "VALIDATION_ERROR"],
      ["3000000", "INSUFFICIENT_BALANCE"],
    ] as const) {
      const res = await withdraw(u, { amount });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(code);
    }
    expect((await withdraw(u, {})).status).toBe(400);
    expect((await balance(srv, u.token)).available).toBe("2000000");
  });

  test("a withdrawal the chain refuses (a masterchain wallet cannot hold USDT): failed with a message, the debit reversed, the jettons stay in the hot wallet", async () => {
    const u = (await srv.login(TestWallet.random("v4r2", { workchain: -1 }))) as U;
    expect(u.wallet.rawAddress.startsWith("-1:")).toBe(true);
    await faucet(srv, u.token, "4000000");
    await waitFor("credit", async () => (await balance(srv, u.token)).available === "4000000");
    const before = await srv.broker.call<{ hotWallet: string }>("chain.reconcile");
    const res = await withdraw(u, { amount: "3000000" });
    expect(res.status).toBe(202);
    expect(res.body.data.status).toBe("failed");
    expect(res.body.data.message).toMatch(/basechain/);
    expect(await balance(srv, u.token)).toMatchObject({ available: "4000000" });
    const after = await srv.broker.call<{ hotWallet: string }>("chain.reconcile");
    expect(after.hotWallet).toBe(before.hotWallet);
    // After a failure the same request is a new attempt, not a duplicate.
    expect((await withdraw(u, { amount: "3000000" })).body.data.status).toBe("failed");
  });

  test("settlement: every trade is committed on chain by a real operator transaction whose body commits to the trade ids", async () => {
    const market = await createMarket(srv, "Will the settlement land?");
    const alice = await funded(50);
    const bob = await funded(50);
    expect((await order(alice, market, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE })).status).toBe(200);
    const taker = await order(bob, market, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE });
    expect(taker.body.data.status).toBe("filled");
    const tradeId = taker.body.data.tradeId;
    const trade = await waitFor("confirmed", async () => {
      const t = (await srv.http("GET", `/api/v1/trades/${tradeId}`, { token: bob.token })).body.data;
      return t.settlementStatus === "confirmed" ? t : null;
    });
    expect(trade.settlementTxHash).toMatch(/^[0-9a-f]{64}$/);
    const aliceTrades = (await srv.http("GET", "/api/v1/trades", { token: alice.token })).body.data;
    await waitFor("maker confirmed", async () =>
      (await srv.http("GET", `/api/v1/trades/${aliceTrades[0].id}`, { token: alice.token })).body.data.settlementStatus === "confirmed"
        ? true
        : null,
    );
    // The hash exists on chain: the operator wallet's transaction, its message commits to the batch.
    const tx = (await chainTx(srv.broker, trade.settlementTxHash))!;
    expect(tx).not.toBeNull();
    expect(tx.account).toBe(info.operatorWallet);
    expect(tx.success).toBe(true);
    const body = parseSettlementBody(bodyOfView(tx.outs[0].body))!;
    expect(tx.outs[0].dest).toBe(info.registry);
    const [batch] = (await srv.broker.call("chain.batches", { txHash: trade.settlementTxHash })) as Array<{
      _id: string;
      tradeIds: string[];
      root: string;
    }>;
    expect(batch.tradeIds).toContain(tradeId);
    expect(body).toMatchObject({ batchId: batch._id, count: batch.tradeIds.length, root: commitmentOf(batch.tradeIds).root });
    // The settlement reaches the notifier: SETTLEMENT_CONFIRMED with the hash, keyed by the batch.
    const note = await waitFor("SETTLEMENT_CONFIRMED", async () => {
      const list = (await srv.http("GET", "/api/v1/notifications", { token: bob.token })).body.data as Array<{
        id: string;
        type: string;
        metadata: { tradeIds: string[]; txHash: string };
      }>;
      return list.find((n) => n.type === "SETTLEMENT_CONFIRMED" && n.metadata.tradeIds.includes(tradeId));
    });
    expect(note.metadata.txHash).toBe(trade.settlementTxHash);
    expect(note.id).toBe(`SETTLEMENT_CONFIRMED:${batch._id}:${bob.userId}:${market}`);
  });

  test("redemption: only resolved markets, conditionId and index sets checked, pays 1.000000 per winning share exactly once; losing and empty positions get clear answers", async () => {
    const market = await createMarket(srv, "Will redemption pay once?");
    const conditionId = conditionIdFor(market);
    const alice = await funded(20);
    const bob = await funded(20);
    const carol = await srv.login();
    await order(alice, market, { side: "BUY", outcome: "YES", price: 0.3, quantity: 10 * SHARE });
    expect((await order(bob, market, { side: "BUY", outcome: "NO", price: 0.7, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    const redeem = (u: U, body: Record<string, unknown>, id = market) => srv.http("POST", `/api/v1/redeem/${id}`, { token: u.token, body });

    const open = await redeem(alice, { conditionId, indexSets: ["0x1"] });
    expect(open.status).toBe(400);
    expect(open.body.error.code).toBe("MARKET_NOT_RESOLVED");
    const resolved = await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { result: "YES" },
    });
    expect(resolved.status).toBe(200);

    const bad = async (body: Record<string, unknown>, code: string) => {
      const r = await redeem(alice, body);
      expect([r.status, r.body.error?.code]).toEqual([400, code]);
    };
    await bad({ conditionId: "0x" + "0".repeat(64), indexSets: ["0x1"] }, "CONDITION_MISMATCH");
    await bad({ conditionId: "abc", indexSets: ["0x1"] }, "VALIDATION_ERROR");
    await bad({ conditionId, indexSets: ["0x3"] }, "VALIDATION_ERROR");
    await bad({ conditionId, indexSets: ["1"] }, "VALIDATION_ERROR");
    await bad({ conditionId, indexSets: [] }, "VALIDATION_ERROR");
    await bad({ conditionId, indexSets: ["0x1", "0x01"] }, "VALIDATION_ERROR");
    expect((await redeem(alice, { conditionId, indexSets: ["0x1"] }, "mkt_nope")).status).toBe(404);

    const before = BigInt((await balance(srv, alice.token)).available);
    const ok = await redeem(alice, { conditionId, indexSets: ["0x1", "0x2"] });
    expect(ok.status).toBe(202);
    expect(ok.body.data).toMatchObject({ status: "accepted", payout: String(10 * SHARE), message: expect.any(String) });
    expect(BigInt((await balance(srv, alice.token)).available)).toBe(before + BigInt(10 * SHARE));
    const again = await redeem(alice, { conditionId, indexSets: ["0x1"] });
    expect(again.status).toBe(202);
    expect(again.body.data.status).toBe("duplicate");
    expect(BigInt((await balance(srv, alice.token)).available)).toBe(before + BigInt(10 * SHARE));
    // Settled positions leave GET /positions.
    expect(
      (await srv.http("GET", "/api/v1/positions", { token: alice.token })).body.data.filter(
        (p: { marketId: string }) => p.marketId === market,
      ),
    ).toEqual([]);
    expect(
      (await srv.http("GET", "/api/v1/positions", { token: bob.token })).body.data.filter(
        (p: { marketId: string }) => p.marketId === market,
      ),
    ).toEqual([]);

    const lost = await redeem(bob, { conditionId, indexSets: ["0x2"] });
    expect([lost.status, lost.body.error.code]).toEqual([400, "LOSING_POSITION"]);
    const none = await redeem(carol as U, { conditionId, indexSets: ["0x1"] });
    expect([none.status, none.body.error.code]).toEqual([400, "NO_POSITION"]);
    const conservation = await srv.broker.call<{ ok: boolean; unbalancedMarkets: string[] }>("ledger.conservation");
    expect(conservation.ok).toBe(true);
  });

  test("a cancelled market pays each share 0.50 by default out of its collateral; redeem acknowledges it once", async () => {
    const market = await createMarket(srv, "Will this be called off?");
    const alice = await funded(20);
    const bob = await funded(20);
    await order(alice, market, { side: "BUY", outcome: "YES", price: 0.45, quantity: 10 * SHARE });
    expect((await order(bob, market, { side: "BUY", outcome: "NO", price: 0.55, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    const bobBefore = Number((await balance(srv, bob.token)).available);
    expect(bobBefore).toBeLessThan(14.5 * SHARE);
    expect((await srv.http("POST", `/api/v1/admin/markets/${market}/cancel`, { headers: { "x-admin-key": ADMIN_KEY } })).status).toBe(200);
    await waitFor(
      "payouts",
      async () =>
        (await balance(srv, alice.token)).available === String(20.5 * SHARE) &&
        (await balance(srv, bob.token)).available === String(bobBefore + 5 * SHARE),
    );
    const conditionId = conditionIdFor(market);
    const r1 = await srv.http("POST", `/api/v1/redeem/${market}`, { token: alice.token, body: { conditionId, indexSets: ["0x1"] } });
    expect(r1.body.data).toMatchObject({ status: "accepted", payout: String(5 * SHARE) });
    const r2 = await srv.http("POST", `/api/v1/redeem/${market}`, { token: alice.token, body: { conditionId, indexSets: ["0x1"] } });
    expect(r2.body.data.status).toBe("duplicate");
    expect((await balance(srv, alice.token)).available).toBe(String(20.5 * SHARE));
    const conservation = await srv.broker.call<{ ok: boolean }>("ledger.conservation");
    expect(conservation.ok).toBe(true);
  });

  test("an AMM market: the pool's winning inventory goes to its cash at resolution, the trader redeems exactly once", async () => {
    const market = await createMarket(srv, "Will the pool settle too?", String(100 * SHARE));
    const u = await funded(30);
    const buy = await srv.http("POST", "/api/v1/trade/amm", {
      token: u.token,
      body: { marketId: market, side: "BUY", outcome: "YES", quantity: String(10 * SHARE) },
    });
    expect(buy.status).toBe(200);
    const pool = `amm:${market}`;
    type Acct = { balance: { available: number }; positions: Array<{ outcome: string; quantity: number }> };
    const before = (await srv.broker.call("ledger.account", { account: pool })) as Acct;
    const poolYes = before.positions.find((p) => p.outcome === "YES")!.quantity;
    await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, { headers: { "x-admin-key": ADMIN_KEY }, body: { result: "YES" } });
    await waitFor(
      "pool redeemed",
      async () =>
        ((await srv.broker.call("ledger.account", { account: pool })) as Acct).balance.available === before.balance.available + poolYes,
    );
    const avail = BigInt((await balance(srv, u.token)).available);
    const r = await srv.http("POST", `/api/v1/redeem/${market}`, {
      token: u.token,
      body: { conditionId: conditionIdFor(market), indexSets: ["0x1"] },
    });
    expect(r.body.data).toMatchObject({ status: "accepted", payout: String(10 * SHARE) });
    expect(BigInt((await balance(srv, u.token)).available)).toBe(avail + BigInt(10 * SHARE));
    expect(
      (
        await srv.http("POST", `/api/v1/redeem/${market}`, {
          token: u.token,
          body: { conditionId: conditionIdFor(market), indexSets: ["0x1"] },
        })
      ).body.data.status,
    ).toBe("duplicate");
    const c = await srv.broker.call<{ ok: boolean; unbalancedMarkets: string[] }>("ledger.conservation");
    expect(c).toMatchObject({ ok: true, unbalancedMarkets: [] });
  });
});
