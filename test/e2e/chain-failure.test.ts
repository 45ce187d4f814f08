/**
 * Failure paths made real: a settlement operator without gas (its external message is refused in
 * the TVM), a hot wallet holding fewer jettons than the ledger pays out, and the `ton` adapter
 * wired through config (no faucet there).
 */
import { readFileSync } from "node:fs";
import { Address } from "@ton/core";
import type { TestServer } from "../support/server";
import { createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { balance, faucet, onChainUsdt, startChainServer, waitFor } from "../support/chain";
import { FIXTURE_FILE, serveToncenter, type ToncenterFixture } from "../support/chain-toncenter";
import { KeyRing, friendlyWallet } from "../../chain/keys";

describe("chain failure paths on the sandbox", () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startChainServer({ SANDBOX_OPERATOR_NANO: "0", SETTLEMENT_MAX_ATTEMPTS: "2" });
  });
  afterAll(() => srv.stop());
  afterEach(() => expectConserved(srv.broker));

  test("settlement fails for real when the operator wallet has no gas: retried, then `failed`, no hash", async () => {
    const market = await createMarket(srv, "Will the operator run dry?");
    const [alice, bob] = [await srv.login(), await srv.login()];
    for (const u of [alice, bob]) await fund(srv.broker, u.userId, 100 * SHARE);
    await srv.http("POST", "/api/v1/orders", {
      token: alice.token,
      body: { marketId: market, orderType: "GTC", side: "BUY", outcome: "YES", price: 0.5, quantity: 2 * SHARE },
    });
    const taker = await srv.http("POST", "/api/v1/orders", {
      token: bob.token,
      body: { marketId: market, orderType: "GTC", side: "BUY", outcome: "NO", price: 0.5, quantity: 2 * SHARE },
    });
    const tradeId = taker.body.data.tradeId;
    const trade = await waitFor("failed", async () => {
      const t = (await srv.http("GET", `/api/v1/trades/${tradeId}`, { token: bob.token })).body.data;
      return t.settlementStatus === "failed" ? t : null;
    });
    expect(trade.settlementTxHash).toBeNull();
    const batches = (await srv.broker.call("chain.batches", {})) as Array<{
      tradeIds: string[];
      status: string;
      error: string;
      txHash: string | null;
    }>;
    const mine = batches.filter((b) => b.tradeIds.includes(tradeId));
    expect(mine).toHaveLength(2);
    for (const b of mine) {
      expect(b.status).toBe("failed");
      expect(b.txHash).toBeNull();
      expect(b.error).toMatch(/operator wallet did not accept the message/);
    }
  });

  test("a hot wallet short of jettons: the transfer bounces in the TVM, the withdrawal is `failed` and the debit reversed", async () => {
    const u = await srv.login();
    await faucet(srv, u.token, "5000000");
    await waitFor("credit", async () => (await balance(srv, u.token)).available === "5000000");
    await fund(srv.broker, u.userId, 50 * SHARE); // credited off chain: the hot wallet holds only the 5 USDT deposit
    const res = await srv.http("POST", "/api/v1/withdraw", { token: u.token, body: { amount: String(40 * SHARE) } });
    expect(res.status).toBe(202);
    expect(res.body.data.status).toBe("failed");
    expect(res.body.data.message).toMatch(/too few jettons/);
    expect((await balance(srv, u.token)).available).toBe(String(55 * SHARE));
    expect(await onChainUsdt(srv.broker, u.wallet.rawAddress)).toBe(0n);
    const ok = await srv.http("POST", "/api/v1/withdraw", { token: u.token, body: { amount: String(4 * SHARE) } });
    expect(ok.body.data.status).toBe("accepted");
    expect(await onChainUsdt(srv.broker, u.wallet.rawAddress)).toBe(BigInt(4 * SHARE));
  });
});

describe("CHAIN=ton: the TonClient adapter through config (recorded toncenter on loopback)", () => {
  test("deposit addresses come from MASTER_SECRET; the sandbox faucet does not exist", async () => {
    const fx: ToncenterFixture = JSON.parse(readFileSync(FIXTURE_FILE, "utf8"));
    const toncenter = await serveToncenter(fx);
    const srv = await startChainServer({
      CHAIN: "ton",
      TON_ENDPOINT: toncenter.url,
      TON_API_KEY: fx.meta.apiKey,
      USDT_MINTER: Address.parseRaw(fx.meta.usdtMinter).toString(),
      MASTER_SECRET: fx.meta.masterSecret,
      SETTLEMENT_INTERVAL_MS: "0",
      DEPOSIT_POLL_MS: "0",
    });
    try {
      const u = await srv.login();
      const res = await srv.http("GET", "/api/v1/deposit-address", { token: u.token });
      expect(res.status).toBe(200);
      const expected = friendlyWallet((await new KeyRing(fx.meta.masterSecret).deposit(res.body.data.derivationIndex)).address, true);
      expect(res.body.data).toEqual({ address: expected, jettonWalletAddress: null, derivationIndex: 0 });
      const f = await faucet(srv, u.token, "1000000");
      expect(f.status).toBe(404);
      // The watcher asked toncenter about the new address, with the key.
      await srv.broker.call("chain.tick");
      expect(
        toncenter.calls.some(
          (c) =>
            c.method === "getTransactions" &&
            Address.parse(String(c.params.address)).toRawString() === Address.parseFriendly(expected).address.toRawString(),
        ),
      ).toBe(true);
      expect(toncenter.calls.every((c) => c.apiKey === fx.meta.apiKey)).toBe(true);
    } finally {
      await srv.stop();
      await toncenter.close();
    }
  });
});
