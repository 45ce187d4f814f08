/**
 * GET /transfers: a user's deposits (credited, and what arrived and was not credited, with the
 * reason), withdrawals, and the liquidity rewards and maker rebates paid to them, newest first, in
 * the trader API's shape (../shared/spec/trading-api.md, markets-api.md).
 */
import type { Model } from "../contract";
import type { ChainIncidentDoc, DepositDoc, IncidentKind, WithdrawalDoc, WithdrawalStatus } from "../models/chain";
import type { RewardPaid } from "../models/trading";

/** One transfer as GET /transfers answers it (the contract's Transfer). */
export type TransferView = Model<"Transfer">;

const REASON: Record<IncidentKind, string> = {
  native_ton: "native_coin",
  foreign_jetton: "foreign_jetton",
  forged_notification: "forged_notification",
  bounced: "bounced",
  unknown_message: "unknown_message",
  bad_amount: "bad_amount",
};

const WITHDRAWAL: Record<WithdrawalStatus, TransferView["status"]> = {
  debiting: "pending",
  submitted: "pending",
  sent: "confirmed",
  failed: "failed",
};

export function depositView(d: DepositDoc): TransferView {
  return {
    id: d._id,
    type: "deposit",
    amount: String(d.amount),
    asset: "USDT",
    status: "credited",
    txHash: d._id,
    address: d.address,
    createdAt: d.at,
  };
}

export function incidentView(i: ChainIncidentDoc): TransferView {
  return {
    id: i._id,
    type: "deposit",
    amount: i.amount ?? "0",
    asset: i.kind === "native_ton" ? "TON" : i.kind === "foreign_jetton" ? "OTHER_JETTON" : null,
    status: "not_credited",
    reason: REASON[i.kind],
    txHash: i._id,
    address: i.address,
    createdAt: i.at,
  };
}

export function withdrawalView(w: WithdrawalDoc): TransferView {
  return {
    id: w._id,
    type: "withdrawal",
    amount: String(w.amount),
    asset: "USDT",
    status: WITHDRAWAL[w.status],
    txHash: w.txHash,
    address: w.destination,
    createdAt: w.createdAt,
  };
}

/** A reward or rebate: paid by a journal entry of the ledger (no chain transaction, no address). */
export function payoutView(p: RewardPaid): TransferView {
  return {
    id: `${p.kind}:${p.day}:${p.marketId}`,
    type: p.kind,
    amount: String(p.amount),
    asset: "USDT",
    status: "confirmed",
    txHash: null,
    address: null,
    marketId: p.marketId,
    day: p.day,
    createdAt: p.at,
  };
}

/** Newest first; ties by id so pages are stable. */
export function newestFirst(a: TransferView, b: TransferView): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Where a user's transfers are read from. */
export interface TransferSource {
  deposits(userId: string): Promise<DepositDoc[]>;
  incidents(userId: string): Promise<ChainIncidentDoc[]>;
  withdrawals(userId: string): Promise<WithdrawalDoc[]>;
  /** Rewards and rebates paid to the user (the ledger keeps them). */
  payouts(userId: string): Promise<RewardPaid[]>;
}

/** A user's transfers of one type (or all of them), newest first. */
export async function transfersOf(source: TransferSource, userId: string, type?: TransferView["type"]): Promise<TransferView[]> {
  const all: TransferView[] = [];
  if (!type || type === "deposit") {
    all.push(...(await source.deposits(userId)).map(depositView));
    all.push(...(await source.incidents(userId)).map(incidentView));
  }
  if (!type || type === "withdrawal") all.push(...(await source.withdrawals(userId)).map(withdrawalView));
  if (!type || type === "reward" || type === "rebate")
    all.push(...(await source.payouts(userId)).filter((p) => !type || p.kind === type).map(payoutView));
  return all.sort(newestFirst);
}
