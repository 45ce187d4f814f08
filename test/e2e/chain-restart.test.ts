/**
 * A restart of the embedded server keeps the sandbox chain and the ledger in step: balances on
 * both sides, deposit addresses, transactions by hash, no deposit credited twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestWallet } from "../support/wallet";
import { balance, chainTx, expectChainConserved, faucet, onChainUsdt, startChainServer, waitFor } from "../support/chain";

test("restart keeps chain and ledger in step", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "pmx-chain-"));
  const wallet = TestWallet.random();
  try {
    let srv = await startChainServer({}, { dataDir });
    let u = await srv.login(wallet);
    const address = (await srv.http("GET", "/api/v1/deposit-address", { token: u.token })).body.data;
    const dep = await faucet(srv, u.token, "10000000");
    await waitFor("credit", async () => (await balance(srv, u.token)).available === "10000000");
    const wd = await srv.http("POST", "/api/v1/withdraw", { token: u.token, body: { amount: "3000000" } });
    expect(wd.body.data.status).toBe("accepted");
    const before = await expectChainConserved(srv.broker);
    await srv.stop();

    srv = await startChainServer({}, { dataDir });
    try {
      u = await srv.login(wallet);
      expect(await balance(srv, u.token)).toEqual({ available: "7000000", locked: "0", total: "7000000" });
      expect((await srv.http("GET", "/api/v1/deposit-address", { token: u.token })).body.data).toMatchObject({
        address: address.address,
        derivationIndex: address.derivationIndex,
        jettonWalletAddress: expect.any(String),
      });
      expect(await onChainUsdt(srv.broker, wallet.rawAddress)).toBe(3_000_000n);
      expect(await chainTx(srv.broker, dep.body.data.txHash)).not.toBeNull();
      expect(await chainTx(srv.broker, wd.body.data.txHash)).not.toBeNull();
      expect(await expectChainConserved(srv.broker)).toEqual(before);
      // The old deposit is not credited again; a new one is, once; the dedup window survived.
      await srv.broker.call("chain.tick");
      expect((await balance(srv, u.token)).available).toBe("7000000");
      expect((await srv.http("POST", "/api/v1/withdraw", { token: u.token, body: { amount: "3000000" } })).body.data.status).toBe(
        "duplicate",
      );
      await faucet(srv, u.token, "2000000");
      await waitFor("second credit", async () => (await balance(srv, u.token)).available === "9000000");
      await expectChainConserved(srv.broker);
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
