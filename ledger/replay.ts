import type { Accounts, PreparedChange } from "../engine/accounts";
import type { LedgerEntryDoc, MarketLease } from "../models/trading";

/** A market's lease before its first fence or book entry. */
export function noLease(marketId: string): MarketLease {
  return { marketId, epoch: 0, owner: null, seq: 0, bookSeq: 0, pool: null };
}

/**
 * A journaled entry applied again to books and leases as the ledger applied it when it was posted:
 * its postings (throws the books' refusal when they do not apply), a fence's new lease, a book
 * entry's journal position, event clock and pool. Full verification and a start that catches the
 * stored balances up with the journal both replay through this. Returns what the postings changed.
 */
export function replayEntry(accounts: Accounts, leases: Map<string, MarketLease>, doc: LedgerEntryDoc): PreparedChange {
  const change = accounts.prepare(doc.postings, doc.checkAfter ?? 0);
  accounts.commit(change);
  replayLease(leases, doc);
  return change;
}

/** The leases after the entry (a fence's epoch and writer; a book entry's position, clock and pool). */
export function replayLease(leases: Map<string, MarketLease>, doc: LedgerEntryDoc): void {
  const f = doc.fence;
  if (f) {
    const cur = leases.get(f.marketId) ?? noLease(f.marketId);
    leases.set(f.marketId, { ...cur, epoch: f.epoch, owner: f.node });
  }
  const b = doc.book;
  if (b) {
    const cur = leases.get(b.marketId) ?? noLease(b.marketId);
    leases.set(b.marketId, { ...cur, seq: b.seq, bookSeq: b.bookSeq, pool: b.pool ?? cur.pool });
  }
}
