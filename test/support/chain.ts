import type { ServiceBroker } from "moleculer";
import { Address } from "@ton/core";
import { startServer, type TestServer } from "./server";
import { ADMIN_KEY } from "./trading";
import type { ChainReconciliation, ChainTxView } from "../../models/chain";

/** A node on the sandbox chain with fast settlement and limits out of the way. */
export function startChainServer(
  env: Record<string, string> = {},
  opts: { persist?: boolean; dataDir?: string } = {},
): Promise<TestServer> {
  return startServer(
    {
      ADMIN_KEY,
      RATE_LIMIT_TRADE: "1000",
      RATE_LIMIT_READ: "10000",
      RATE_LIMIT_FAUCET: "1000",
      SETTLEMENT_INTERVAL_MS: "150",
      SETTLEMENT_MIN_AGE_MS: "0",
      DEPOSIT_POLL_MS: "500",
      ...env,
    },
    opts,
  );
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function faucet(srv: TestServer, token: string, amount: string, asset?: string) {
  return srv.http("POST", "/api/v1/sandbox/faucet", { token, body: { amount, ...(asset ? { asset } : {}) } });
}

export async function balance(srv: TestServer, token: string): Promise<{ available: string; locked: string; total: string }> {
  return (await srv.http("GET", "/api/v1/balance", { token })).body.data;
}

export function reconcile(broker: ServiceBroker): Promise<ChainReconciliation> {
  return broker.call("chain.reconcile");
}

/** Ledger conservation and ledger = deposit wallets + hot wallet - pending withdrawals. */
export async function expectChainConserved(broker: ServiceBroker): Promise<ChainReconciliation> {
  const r = await reconcile(broker);
  if (!r.ok || !r.ledgerConservation) throw new Error(`chain and ledger disagree: ${JSON.stringify(r)}`);
  return r;
}

export function chainTx(broker: ServiceBroker, hash: string): Promise<ChainTxView | null> {
  return broker.call("chain.transaction", { hash });
}

export async function onChainUsdt(broker: ServiceBroker, owner: string | Address): Promise<bigint> {
  return BigInt((await broker.call("chain.jettonBalance", { owner: typeof owner === "string" ? owner : owner.toRawString() })) as string);
}
