import type { OrderBook } from "../engine/book";
import type { BookEvent, Outcome, Side } from "../engine/types";
import { formatTick, type FeeSchedule } from "../engine/money";
import type { Posting } from "../engine/accounts";
import type { Settlement } from "../engine/settlement";
import type { PoolState } from "../engine/amm";
import type { BookCommand, EventPoolRecord } from "../models/trading";
import type { ModeSetting } from "./trading-modes";
import { Refusal } from "../engine/refusal";
import type { TradingCode } from "./refusals";

/**
 * What a planner reads of a market: the book as it stands (only previewed, never changed), the
 * market's status, mode and pool, and the exchange's fees. Planners are pure: they decide a
 * command and say what its one ledger entry holds; the actor commits it and then applies it.
 */
export interface MarketView {
  marketId: string;
  book: OrderBook;
  status: string | null;
  mode: ModeSetting;
  pool: PoolState | null;
  fees: FeeSchedule;
  /** The AMM's LP fee in basis points of the cash traded. */
  ammFeeBps: number;
  newId(prefix: string): string;
  /** The command's time (an order's createdAt). */
  now: string;
}

/** The AMM leg of a route as printed (price history and volume count every venue). */
export interface AmmPrint {
  fillId: string;
  side: Side;
  outcome: Outcome;
  quantity: number;
  cash: number;
}

/** A planned command: its answer, its journal command and money, and what the book does once the ledger applied it. */
export interface CommandPlan<T> {
  value: T;
  command: BookCommand;
  settlement: Settlement;
  /** The book's event clock once `apply` ran (the actor checks it). */
  bookSeq: number;
  /** The first n postings are the placement lock (it must hold on its own). */
  checkAfter?: number;
  pool?: PoolState;
  amm?: AmmPrint;
  /** The AMM leg was against the market's race pool (the ledger's): what it traded there. */
  eventPool?: EventPoolRecord;
  apply(book: OrderBook): void;
}

/** Orders and trades are refused while the market is not open. */
export function requireOpen(view: MarketView, what: string): void {
  if (view.status !== "open") throw new Refusal<TradingCode>("rejected", "MARKET_NOT_OPEN", `Market is ${view.status ?? "unknown"}${what}`);
}

/** The fills of a placement as the answer lists them. */
export function fillsOf(events: BookEvent[]): Array<{ price: string; quantity: string }> {
  return events.flatMap((e) => (e.type === "fill" ? [{ price: formatTick(e.takerPrice), quantity: String(e.quantity) }] : []));
}

/** The opposite movement of a posting's available and locked parts (a release turned into a hold). */
export function negate(p: Posting): Posting {
  if (p.kind === "cash") return { ...p, available: -(p.available ?? 0), locked: -(p.locked ?? 0) };
  if (p.kind === "shares") return { ...p, locked: -(p.locked ?? 0) };
  return p;
}

/** The cash a BUY's release gives back (its first posting); a SELL's releases shares only. */
export function releasedCash(side: Side, release: Posting[]): number {
  return side === "BUY" ? ((release[0] as { available?: number }).available ?? 0) : 0;
}
