/**
 * The market page's recent trades, from what the exchange publishes: the API has no public
 * per-trade list or socket message, so the first page is the prints per minute of the last hour
 * (GET /markets/:id/price-history, 1H) and each later read of them, asked when the market channel
 * says the market moved, adds what is new since the read before as one row (usually one trade):
 * the shares traded since and the last price. A row is coloured by the tick rule (a YES price up
 * from the print before is a buy of YES, down a buy of NO); a row holding the signed-in user's own
 * trade (the user channel's trade message) says which side and outcome it was.
 */
import type { Candle } from "@pmx/client/models";

export type Tick = "up" | "down" | "same";

export interface TapeRow {
  key: string;
  /** When it traded (first page: the minute) or, for a live row, when it was seen. */
  at: number;
  /** A first-page row stands for a minute's prints. */
  minute: boolean;
  /** The (last) YES price, in ticks (cents). */
  tick: number;
  /** Shares, in micro-units. */
  shares: number;
  move: Tick;
  /** The signed-in user's own trade in it, as the user channel told it. */
  mine?: OwnTrade;
}

/** What the user channel says of one of the user's own trades. */
export interface OwnTrade {
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** Micro-shares. */
  shares: number;
}

export const TAPE_ROWS = 12;

const micro = (v: number) => Math.round(v * 1e6);
const ticks = (p: number) => Math.round(p * 100);
const moveOf = (tick: number, before: number | undefined): Tick =>
  before === undefined || tick === before ? "same" : tick > before ? "up" : "down";

/** The first page: minutes with prints, newest first. */
export function firstPage(candles: readonly Candle[]): TapeRow[] {
  const traded = candles.filter((c) => c.volume > 0);
  return traded
    .map((c, i) => ({
      key: `m:${c.timestamp}`,
      at: Date.parse(c.timestamp),
      minute: true,
      tick: ticks(c.close),
      shares: micro(c.volume),
      move: moveOf(ticks(c.close), i > 0 ? ticks(traded[i - 1].close) : undefined),
    }))
    .reverse();
}

/**
 * What `next` holds beyond `prev` (two reads of the same hour's minutes): one row per minute whose
 * volume grew, newest first, seen at `at`; `lastTick` is the newest price already shown.
 */
export function newPrints(prev: readonly Candle[], next: readonly Candle[], at: number, lastTick: number | undefined): TapeRow[] {
  const before = new Map(prev.map((c) => [c.timestamp, micro(c.volume)]));
  const rows: TapeRow[] = [];
  let last = lastTick;
  for (const c of next) {
    const grew = micro(c.volume) - (before.get(c.timestamp) ?? 0);
    if (grew <= 0) continue;
    const tick = ticks(c.close);
    rows.push({ key: `t:${c.timestamp}:${micro(c.volume)}`, at, minute: false, tick, shares: grew, move: moveOf(tick, last) });
    last = tick;
  }
  return rows.reverse();
}

/**
 * The user's own trades heard since the last read, matched to the new rows: each goes to the
 * newest row with at least its shares not yet taken by another (a trade's print is in the read
 * after it). Answers the rows and the trades not matched (their print is still to come).
 */
export function markMine<T extends OwnTrade>(rows: readonly TapeRow[], own: readonly T[]): { rows: TapeRow[]; left: T[] } {
  const out = rows.map((r) => ({ ...r }));
  const left: T[] = [];
  for (const t of own) {
    const row = out.find((r) => !r.mine && r.shares >= t.shares);
    if (row) row.mine = { side: t.side, outcome: t.outcome, shares: t.shares };
    else left.push(t);
  }
  return { rows: out, left };
}

/** The list after `added` arrived: newest first, at most `max` rows. */
export function prepend(rows: readonly TapeRow[], added: readonly TapeRow[], max = TAPE_ROWS): TapeRow[] {
  return [...added, ...rows].slice(0, max);
}
