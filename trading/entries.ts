import type { Posting } from "../engine/accounts";
import type { Settlement, TradeRecord } from "../engine/settlement";
import type { BookJournalDoc, EventPoolRecord, IdemRecord } from "../models/trading";
import type { IdemRequest } from "./commands";

/** What the ledger takes from an actor: one entry per command (or per part of one), its money and its book command together. */
export interface LedgerPost {
  key: string;
  postings: Posting[];
  /** The first n postings are the placement lock (it must hold on its own). */
  checkAfter?: number;
  trades?: TradeRecord[];
  book: BookJournalDoc;
  /** The answer to the request's Idempotency-Key, journaled with the command. */
  idem?: IdemRecord;
  /** A market order's leg against its race's pool (with the last part). */
  eventPool?: EventPoolRecord;
  part?: { group: string; index: number; count: number };
}

export interface LedgerAck {
  applied: boolean;
  seq: number;
  instance: string;
}

/** Fills, trades or order changes per journal entry at most: a command over this is split. */
export const MAX_PER_ENTRY = 500;

/**
 * A command's entry, or its parts when it is too large for one: the arrays cut into consecutive
 * slices, so the placement lock (the first postings) is in the first part and the taker's own
 * settlement (the last postings, trade and order change) in the last, which carries the command;
 * each part holds on its own when the journal is replayed entry by entry.
 */
export function splitCommand(doc: BookJournalDoc, s: Settlement, checkAfter: number): LedgerPost[] {
  const n = Math.max(s.fills.length, s.trades.length, s.orders.length);
  const count = Math.ceil(n / MAX_PER_ENTRY);
  if (count <= 1)
    return [
      { key: `book:${doc.marketId}:${doc.seq}`, postings: s.postings, checkAfter: checkAfter || undefined, trades: s.trades, book: doc },
    ];
  // Boundaries of part i: [at(i), at(i + 1)); the first part holds at least `least` items.
  const cut = (len: number, i: number, least = 0) => (i === 0 ? 0 : i === count ? len : Math.max(least, Math.floor((len * i) / count)));
  const slice = <T>(a: T[], i: number, least = 0): T[] => a.slice(cut(a.length, i, least), cut(a.length, i + 1, least));
  const parts: LedgerPost[] = [];
  for (let i = 0; i < count; i++) {
    const last = i === count - 1;
    // The lock must be whole in the first part (it is checked there).
    const postings = slice(s.postings, i, checkAfter);
    const book: BookJournalDoc = {
      ...doc,
      seq: doc.seq + i,
      command: last ? doc.command : { type: "part", of: doc.seq + count - 1 },
      fills: slice(s.fills, i),
      orders: slice(s.orders, i),
    };
    if (!last) {
      delete book.pool;
      delete book.amm;
    }
    parts.push({
      key: `book:${doc.marketId}:${doc.seq + i}`,
      postings,
      checkAfter: i === 0 && checkAfter ? checkAfter : undefined,
      trades: slice(s.trades, i),
      book,
    });
  }
  return parts;
}

/** The journaled answer of an idempotent request: the first answer, to be replayed as it was. */
export function idemRecord<T>(idem: IdemRequest<T> | undefined, value: T): IdemRecord | undefined {
  return idem ? { scope: idem.scope, key: idem.key, fingerprint: idem.fingerprint, status: 200, response: idem.render(value) } : undefined;
}
