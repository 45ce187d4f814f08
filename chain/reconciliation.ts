/** The ledger against the chain: net deposits in the ledger = deposit wallets + hot wallet - debited withdrawals still pending. */
import { Address } from "@ton/core";
import type { ChainReconciliation } from "../models/chain";
import { jettonBalance } from "./operations";
import type { ChainLedger, ChainSide } from "./ports";

export async function reconcileChain(p: {
  ledger: Pick<ChainLedger, "conservation">;
  chain: ChainSide;
  /** Raw addresses of every deposit wallet. */
  depositAddresses(): Promise<string[]>;
  /** Debited withdrawals not yet out of the hot wallet (micro-USDT). */
  pendingWithdrawals(): Promise<bigint>;
}): Promise<ChainReconciliation> {
  const { port, keys } = p.chain;
  const report = await p.ledger.conservation();
  let deposits = 0n;
  for (const a of await p.depositAddresses()) deposits += await jettonBalance(port, Address.parseRaw(a));
  const hot = await jettonBalance(port, (await keys.wallet("hot")).address);
  const pending = await p.pendingWithdrawals();
  const net = BigInt(report.deposits) - BigInt(report.withdrawals);
  return {
    ok: net === deposits + hot - pending,
    ledgerDeposits: String(report.deposits),
    ledgerWithdrawals: String(report.withdrawals),
    ledgerNet: net.toString(),
    depositWallets: deposits.toString(),
    hotWallet: hot.toString(),
    pendingWithdrawals: pending.toString(),
    ledgerConservation: report.ok,
  };
}
