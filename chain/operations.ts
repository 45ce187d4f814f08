/**
 * Chain operations built on the port, the same for both adapters: jetton balances, jetton
 * transfers from our wallets, and reading a transfer's outcome off its trace.
 */
import { Address, internal, type MessageRelaxed } from "@ton/core";
import { commentBody, transferBody } from "./jetton";
import type { ChainPort, Submission } from "./port";
import type { ChainTx } from "./tx";

/** TON attached to a jetton transfer: pays the two jetton wallets' gas; the excess comes back. */
export const JETTON_TRANSFER_TON = 50_000_000n; // 0.05 TON
/** TON forwarded with the transfer_notification to the receiving owner (what wallet apps send too). */
export const NOTIFY_TON = 1n;

/** Canonical USDT (or `minter`'s jetton) held by `owner`; 0 when its jetton wallet does not exist yet. */
export async function jettonBalance(port: ChainPort, owner: Address, minter?: Address): Promise<bigint> {
  const jw = await port.jettonWalletAddress(owner, minter);
  const data = await port.jettonWalletData(jw);
  return data ? data.balance : 0n;
}

export interface JettonSend {
  queryId: bigint;
  amount: bigint;
  destination: Address;
  responseTo: Address;
  comment?: string;
  notifyTon?: bigint;
}

/** The internal message an owner sends to its own jetton wallet to move `amount` to `destination`. */
export function jettonTransferMessage(ownJettonWallet: Address, p: JettonSend): MessageRelaxed {
  const notify = p.notifyTon ?? NOTIFY_TON;
  return internal({
    to: ownJettonWallet,
    value: JETTON_TRANSFER_TON + notify,
    bounce: true,
    body: transferBody({
      queryId: p.queryId,
      amount: p.amount,
      destination: p.destination,
      responseTo: p.responseTo,
      forwardTon: notify,
      forwardPayload: p.comment ? commentBody(p.comment) : null,
    }),
  });
}

export type TransferOutcome =
  | { status: "delivered"; txHash: string }
  | { status: "failed"; txHash: string | null; reason: string }
  | { status: "pending"; txHash: string | null };

const JETTON_EXIT: Record<number, string> = {
  333: "the destination must be a basechain (workchain 0) wallet",
  705: "the sender does not own the jetton wallet",
  706: "the sending jetton wallet holds too few jettons",
  707: "the jetton wallet refused a transfer from an unexpected sender",
  709: "not enough TON attached for the jetton transfer",
};

export function describeExit(tx: ChainTx): string {
  if (tx.exitCode !== null && tx.exitCode !== 0 && tx.exitCode !== 1)
    return JETTON_EXIT[tx.exitCode] ?? `the contract failed with exit code ${tx.exitCode}`;
  if (tx.actionResult !== null && tx.actionResult !== 0)
    return `the contract could not send its messages (action result ${tx.actionResult})`;
  return "the transaction failed";
}

/**
 * Follow a jetton transfer sent by `wallet` through its jetton wallet to the receiving jetton
 * wallet: delivered when every hop succeeded; failed at the first hop that failed (the jettons
 * then stay where they were); pending while a hop is not on chain yet.
 */
export async function transferOutcome(
  port: ChainPort,
  wallet: Address,
  sub: Submission,
  fromJettonWallet: Address,
  toJettonWallet: Address,
): Promise<TransferOutcome> {
  const walletTx =
    sub.trace?.[0] ?? (sub.txHash ? await port.findTransaction(sub.txHash) : null) ?? (await port.findByExternal(wallet, sub.msgHash));
  if (!walletTx) return { status: "pending", txHash: sub.txHash };
  const txHash = walletTx.hash;
  if (!walletTx.success) return { status: "failed", txHash, reason: `the hot wallet refused to send: ${describeExit(walletTx)}` };
  const jwTx = await port.resultOf(walletTx, fromJettonWallet);
  if (!jwTx) return { status: "pending", txHash };
  if (!jwTx.success) return { status: "failed", txHash, reason: describeExit(jwTx) };
  const destTx = await port.resultOf(jwTx, toJettonWallet);
  if (!destTx) return { status: "pending", txHash };
  if (!destTx.success) return { status: "failed", txHash, reason: describeExit(destTx) };
  return { status: "delivered", txHash };
}
