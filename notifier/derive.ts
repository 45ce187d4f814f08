/**
 * Which notifications a ledger journal entry implies. Pure: the same entry always yields the same
 * drafts with the same ids, so re-reading the journal (restart, second instance) creates nothing twice.
 */
import { tradeRecordView } from "../engine/settlement";
import type { NotificationMetadata, NotificationType } from "../models/notification";
import type { LedgerEntryDoc } from "../models/trading";
import type { SettledTrade } from "../models/chain";

export interface Draft<T extends NotificationType = NotificationType> {
  /** `<TYPE>:<source id>`: the notification's _id and idempotency key. */
  id: string;
  userId: string;
  type: T;
  metadata: NotificationMetadata[T];
  createdAt: string;
  /** Journal seq of the source entry: orders notifications of the same millisecond. */
  seq?: number;
}

export type AnyDraft = { [T in NotificationType]: Draft<T> }[NotificationType];

const isUser = (account: string) => account.startsWith("usr_");

export function notificationId(type: NotificationType, ...source: string[]): string {
  return [type, ...source].join(":");
}

export function draftsFromEntry(entry: LedgerEntryDoc): AnyDraft[] {
  const out: AnyDraft[] = [];
  for (const t of entry.trades ?? []) {
    if (!isUser(t.userId) || t.filledQuantity <= 0) continue;
    out.push({
      id: notificationId("TRADE_FILLED", t.tradeId),
      userId: t.userId,
      type: "TRADE_FILLED",
      createdAt: entry.at,
      seq: entry.seq,
      metadata: tradeRecordView(t),
    });
  }

  // A market's day of rewards and rebates: one notification per user paid.
  const r = entry.reward;
  if (r?.kind === "payout") {
    const paid = new Map<string, { reward: number; rebate: number }>();
    for (const x of r.rewards) paid.set(x.userId, { reward: x.amount, rebate: 0 });
    for (const x of r.rebates) paid.set(x.userId, { reward: paid.get(x.userId)?.reward ?? 0, rebate: x.amount });
    for (const [userId, p] of paid)
      out.push({
        id: notificationId("REWARD_PAID", entry._id, userId),
        userId,
        type: "REWARD_PAID",
        createdAt: entry.at,
        seq: entry.seq,
        metadata: { marketId: r.marketId, day: r.day, reward: String(p.reward), rebate: String(p.rebate) },
      });
  }

  // Money entering: the external posting says it is a deposit, the user's cash posting whose.
  // (Withdrawals are debited before they are sent, so SENT/FAILED come from the chain's events.)
  let deposit = 0;
  const credit = new Map<string, number>();
  for (const p of entry.postings) {
    if (p.kind === "external" && p.flow === "deposit") deposit += p.amount;
    if (p.kind === "cash" && isUser(p.account)) credit.set(p.account, (credit.get(p.account) ?? 0) + (p.available ?? 0) + (p.locked ?? 0));
  }
  const conv = entry.conversion;
  if (conv) {
    const cash = entry.postings.find((p) => p.kind === "cash" && p.account === conv.userId);
    out.push({
      id: notificationId("POSITIONS_CONVERTED", entry._id),
      userId: conv.userId,
      type: "POSITIONS_CONVERTED",
      createdAt: entry.at,
      seq: entry.seq,
      metadata: {
        eventId: conv.eventId,
        marketIds: conv.marketIds,
        quantity: String(conv.quantity),
        cashCredited: String(cash?.kind === "cash" ? (cash.available ?? 0) : 0),
        yesReceived: conv.otherOpen.map((marketId) => ({ marketId, quantity: String(conv.quantity) })),
      },
    });
  }
  if (deposit > 0) {
    const txHash = entry._id.startsWith("deposit:") ? entry._id.slice("deposit:".length) : null;
    for (const [userId, delta] of credit) {
      if (delta > 0)
        out.push({
          id: notificationId("DEPOSIT_CREDITED", entry._id, userId),
          userId,
          type: "DEPOSIT_CREDITED",
          createdAt: entry.at,
          seq: entry.seq,
          metadata: { amount: String(delta), reference: entry._id, txHash },
        });
    }
  }
  return out;
}

/**
 * A settlement batch's outcome as notifications: one per user and market, naming every trade of
 * theirs it covers (a maker order filled by three takers is three trades in one transaction: one
 * message, not three identical ones). Keyed by batch, user and market, so telling it again adds nothing.
 */
export function settlementDrafts(
  batchId: string,
  status: "confirmed" | "failed",
  txHash: string | null,
  trades: SettledTrade[],
  at: string,
): AnyDraft[] {
  const type = status === "failed" ? "SETTLEMENT_FAILED" : "SETTLEMENT_CONFIRMED";
  const groups = new Map<string, { userId: string; marketId: string; tradeIds: Set<string> }>();
  for (const t of trades) {
    if (!isUser(t.userId)) continue;
    const key = `${t.userId}\u0000${t.marketId}`;
    const g = groups.get(key) ?? { userId: t.userId, marketId: t.marketId, tradeIds: new Set<string>() };
    g.tradeIds.add(t.tradeId);
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => ({
    id: notificationId(type, batchId, g.userId, g.marketId),
    userId: g.userId,
    type,
    createdAt: at,
    metadata: { marketId: g.marketId, tradeIds: [...g.tradeIds].sort(), txHash },
  }));
}

/** The market a draft is about, for its text (title lookup). */
export function marketOf(d: AnyDraft): string | null {
  const m = d.metadata as { marketId?: unknown };
  return typeof m.marketId === "string" ? m.marketId : null;
}
