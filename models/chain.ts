/** Documents of the chain service (deposit addresses, deposits, incidents, withdrawals, settlement, redemption). */

/** One user's deposit address: derivation index and address are unique. */
export interface DepositAddressDoc {
  /** userId */
  _id: string;
  index: number;
  /** Raw `0:<hex>` of the v4r2 wallet derived at m/44'/607'/0'/<index>'. */
  address: string;
  /** Canonical USDT jetton wallet of `address`, as the minter's get_wallet_address answers (raw); computed on first scan. */
  canonicalJettonWallet: string | null;
  /** Set with the first credited deposit: what GET /deposit-address shows from then on. */
  firstDepositAt: string | null;
  /** Watcher cursor: transactions of `address` up to this logical time are processed. */
  lastLt: string;
  /** Credited USDT waits in the deposit wallet until swept to the hot wallet. */
  needsSweep: boolean;
  /** Epoch ms before which no new sweep is sent (one still in flight on a real network). */
  sweepAfter?: number;
  createdAt: string;
}

/** A credited deposit (one per on-chain transaction; the ledger entry is `deposit:<txHash>`). */
export interface DepositDoc {
  /** Hash of the deposit address's transaction that received the transfer_notification. */
  _id: string;
  userId: string;
  amount: number;
  address: string;
  jettonWallet: string;
  lt: string;
  at: string;
}

export type IncidentKind = "native_ton" | "foreign_jetton" | "forged_notification" | "bounced" | "unknown_message" | "bad_amount";

/** Something arrived at a deposit address and was not credited: kept for support. */
export interface ChainIncidentDoc {
  /** Transaction hash. */
  _id: string;
  userId: string;
  address: string;
  kind: IncidentKind;
  /** Sender of the inbound message (raw). */
  src: string | null;
  /** Jetton units (notifications) or nanoTON (native TON), as a digit string. */
  amount: string | null;
  detail: string;
  lt: string;
  at: string;
}

export type WithdrawalStatus = "debiting" | "submitted" | "sent" | "failed";

export interface WithdrawalDoc {
  _id: string;
  userId: string;
  amount: number;
  /** The session's wallet (raw): the only destination a withdrawal ever has. */
  destination: string;
  status: WithdrawalStatus;
  queryId: string;
  /** Normalized hash of the hot wallet's external message. */
  msgHash: string | null;
  txHash: string | null;
  message: string | null;
  /** The hot wallet refuses the message after this (unix seconds). */
  validUntil: number | null;
  createdAt: string;
  updatedAt: string;
}

/** At most one live withdrawal per (user, amount): the dedup window. */
export interface WithdrawalLockDoc {
  /** `<userId>:<amount>` */
  _id: string;
  withdrawalId: string;
  /** Epoch ms until which an identical request is a duplicate. */
  until: number;
}

export type SettlementStatus = "pending" | "confirmed" | "failed";

/** A trade waiting for (or done with) its on-chain commitment. */
export interface SettlementItemDoc {
  /** tradeId */
  _id: string;
  userId: string;
  marketId: string;
  status: SettlementStatus;
  attempts: number;
  batchId: string | null;
  txHash: string | null;
  createdAt: string;
  /**
   * `<createdAt>|<tradeId>` while pending, absent after: the settlement queue's sparse index. One
   * distinct key per item (a `status` index made each status change cost O(items in that status)).
   */
  queue?: string;
}

export interface SettlementBatchDoc {
  _id: string;
  tradeIds: string[];
  count: number;
  /** sha256 of the sorted trade ids joined by "\n" (hex). */
  root: string;
  status: "sending" | "confirmed" | "failed";
  /** Normalized hash of the operator's external message and its validity end (unix s), once submitted. */
  msgHash: string | null;
  validUntil: number | null;
  txHash: string | null;
  error: string | null;
  at: string;
}

/** A trade of a settlement outcome, with whom it belongs to. */
export interface SettledTrade {
  tradeId: string;
  userId: string;
  marketId: string;
}

/**
 * A settlement outcome still to be told to the ledger (trade read model) and the notifier; stored
 * before the batch's own status changes and removed once both took it, so a crash, a restart or a
 * notifier that is down delays it and never loses it. Both sides are idempotent.
 */
export interface SettlementNoticeDoc {
  /** `<batchId>:<status>` */
  _id: string;
  batchId: string;
  status: "confirmed" | "failed";
  txHash: string | null;
  trades: SettledTrade[];
  /** The ledger's trades carry the outcome. */
  ledgerDone: boolean;
  at: string;
}

/** A user's redemption (resolved market) or refund acknowledgement (cancelled market). */
export interface RedemptionDoc {
  /** `<userId>:<marketId>` */
  _id: string;
  userId: string;
  marketId: string;
  kind: "redeem" | "refund";
  /** micro-USDT paid into the available balance */
  payout: number;
  ledgerKey: string;
  at: string;
}

/** Cancelled markets whose positions the chain service still has to pay out, at the cancel price. */
export interface MarketSettlementDoc {
  /** marketId */
  _id: string;
  kind: "refund";
  status: "pending" | "done";
  /** Micro-USDT paid per YES share (NO: 1_000_000 minus it); absent on records older than the cancel price (0.50). */
  yesPayout?: number;
  /** Per account paid amount (micro-USDT), once done. */
  refunds: Array<{ account: string; amount: number }>;
  at: string;
}

/** Counters and cursors: `nextIndex`, `ledgerCursor`. */
export interface ChainMetaDoc {
  _id: string;
  value: number;
}

/** What POST /withdraw and POST /redeem answer (202). */
export interface SubmissionResult {
  status: "accepted" | "duplicate" | "failed";
  txHash?: string;
  message: string;
}

/** `chain.reconcile`: the ledger against the chain (tests, operators). */
export interface ChainReconciliation {
  ok: boolean;
  /** Ledger: deposits credited and withdrawals debited (micro-USDT). */
  ledgerDeposits: string;
  ledgerWithdrawals: string;
  ledgerNet: string;
  /** Chain: canonical USDT held by the deposit wallets and the hot wallet. */
  depositWallets: string;
  hotWallet: string;
  /** Debited withdrawals not yet out of the hot wallet. */
  pendingWithdrawals: string;
  ledgerConservation: boolean;
}

/** `chain.info`: the chain's fixed addresses, raw form. */
export interface ChainInfo {
  kind: string;
  testnet: boolean;
  usdtMinter: string;
  foreignMinter: string | null;
  hotWallet: string;
  hotJettonWallet: string;
  operatorWallet: string;
  registry: string;
}

/** A chain message as actions and tests see it (chain/tx.ts txView; the adapters' ChainMessage carries a bigint and a Cell). */
export interface ChainMessageView {
  kind: "internal" | "external-in" | "external-out";
  /** Raw `wc:hex`; null for an external-in source. */
  src: string | null;
  dest: string | null;
  /** nanoTON carried (internal only), as digits. */
  value: string;
  bounce: boolean;
  bounced: boolean;
  /** The body as a base64 BOC. */
  body: string;
  createdLt: string;
}

/** A transaction whichever adapter read it, as `chain.transaction` answers it (chain/tx.ts ChainTx, messages as views). */
export interface ChainTxView {
  /** Transaction hash, 64 lowercase hex chars. */
  hash: string;
  lt: string;
  now: number;
  /** Raw address of the account the transaction ran on. */
  account: string;
  in: ChainMessageView | null;
  outs: ChainMessageView[];
  /** Normalized hash (TEP-467) of the inbound external message, when it is one. */
  externalHash: string | null;
  computeSkipped: boolean;
  /** TVM exit code; null when the compute phase was skipped. */
  exitCode: number | null;
  /** Action phase result code; null when there was no action phase. */
  actionResult: number | null;
  aborted: boolean;
  /** Compute (when it ran) and action phases (when there was one) succeeded and nothing aborted. */
  success: boolean;
  /** Transactions caused by this one's outbound messages, when the adapter knows them (sandbox). */
  children?: string[];
  parent?: string;
}
