/**
 * The market page's recent trades: one row per execution, as the exchange's public tape tells it
 * (GET /markets/:id/trades for the first page, then each `trade` message of the market channel
 * prepended): when, the taker's side and outcome, the outcome's price, the shares. A row holding
 * the signed-in user's own trade (the user channel's trade message) says which side and outcome
 * was theirs.
 */
import type { PublicTrade } from "@pmx/client/models";

export interface TapeRow {
  /** The execution's id (the list's and the socket's alike). */
  key: string;
  at: number;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** The outcome's price, a decimal string. */
  price: string;
  /** Shares, in micro-units. */
  shares: number;
  /** Arrived over the socket after the first page. */
  live: boolean;
  /** The signed-in user's own trade in it, as the user channel told it. */
  mine?: { side: "BUY" | "SELL"; outcome: "YES" | "NO" };
}

/** What the user channel says of one of the user's own trades (shares not yet matched to a row). */
export interface OwnTrade {
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** Micro-shares. */
  shares: number;
  heard: number;
}

export const TAPE_ROWS = 12;
/** An own trade and its rows arrive together: one not matched within this long is dropped. */
export const OWN_MATCH_MS = 5_000;

export function rowOf(t: PublicTrade, live: boolean): TapeRow {
  return {
    key: t.tradeId,
    at: Date.parse(t.at),
    side: t.side,
    outcome: t.outcome,
    price: t.price,
    shares: Number(t.quantity),
    live,
  };
}

/** The list after `added` (newest first) arrived: newest first, each execution once, at most `max` rows. */
export function prepend(rows: readonly TapeRow[], added: readonly TapeRow[], max = TAPE_ROWS): TapeRow[] {
  const seen = new Set<string>();
  return [...added, ...rows].filter((r) => !seen.has(r.key) && (seen.add(r.key), true)).slice(0, max);
}

/**
 * The user's own trades matched to live rows not yet marked: each takes the newest rows whose
 * shares it still holds (a taker's trade spans one row per maker it met). Answers the rows and
 * what is left of the own trades (their rows are still to come), those older than `OWN_MATCH_MS` dropped.
 */
export function markMine(rows: readonly TapeRow[], own: readonly OwnTrade[], now: number): { rows: TapeRow[]; own: OwnTrade[] } {
  const out = rows.map((r) => ({ ...r }));
  const left: OwnTrade[] = [];
  for (const t of own) {
    let shares = t.shares;
    for (const r of out) {
      if (!shares) break;
      if (!r.live || r.mine || r.shares > shares) continue;
      r.mine = { side: t.side, outcome: t.outcome };
      shares -= r.shares;
    }
    if (shares && now - t.heard < OWN_MATCH_MS) left.push({ ...t, shares });
  }
  return { rows: out, own: left };
}
