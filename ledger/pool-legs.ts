/**
 * A trade's leg against a race's pool (engine/event-pool.ts), priced again from the pool's books:
 * the ledger does it as the entry applies (ledger/ledger.ts `checkPoolLeg`), verification for every
 * journaled pool leg on the books replayed up to it (ledger/verify.ts), so an entry whose pool
 * amounts are not the LMSR's on the pool as it then was is named, whoever wrote it.
 */
import type { CashAccount, PositionState, Posting } from "../engine/accounts";
import { EVENT_POOL_PREFIX } from "../engine/conversion-guarantee";
import { eventPoolAccount, planEventPoolTrade, poolState, type EventPoolPlan } from "../engine/event-pool";
import { liquidityParameter } from "../engine/lmsr";
import { eventResolutionKey, payoutKey, resolutionKey } from "../engine/payout";
import type { LedgerEntryDoc, EventPoolRecord } from "../models/trading";
import { canonical } from "./entry-rules";

/** What a pool leg reads of the books before its entry. */
export interface PoolBooksBefore {
  balance(account: string): CashAccount;
  positionsOf(account: string): PositionState[];
}

/** The outcomes an event pool may list at most: 64 markets and "none of them". */
const MAX_POOL_OUTCOMES = 65;

/** The pool account's cash and shares postings, comparable as a multiset. */
export function poolPostingsOf(account: string, ps: readonly Posting[]): string[] {
  return ps
    .filter((p) => (p.kind === "cash" || p.kind === "shares") && p.account === account)
    .map(canonical)
    .sort();
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The record's trade planned on the pool's books before its entry (its b and outcomes as recorded). */
export function replanPoolLeg(rec: EventPoolRecord, books: PoolBooksBefore): EventPoolPlan {
  const account = eventPoolAccount(rec.eventId);
  const pool = { cash: books.balance(account).available, positions: books.positionsOf(account) };
  return planEventPoolTrade(poolState(rec.b, pool, rec.outcomes), pool, rec);
}

/**
 * Every pool leg of a journal replayed in order: `check` before an entry applies (on the books
 * before it), `after` once it applied. Besides the price, what the journal itself says of the pool
 * is held against the record: its funding (b is the LMSR parameter of that funding over at least
 * as many outcomes as the pool ever listed), the markets whose end was journaled (no longer traded
 * there), and a trade that moves a pool without a record of its leg.
 */
export class PoolLegReplay {
  private readonly funding = new Map<string, number>();
  private readonly listed = new Map<string, Set<string>>();
  private readonly ended = new Set<string>();
  private readonly bs = new Map<string, number>();

  check(doc: LedgerEntryDoc, books: PoolBooksBefore, label: string): string[] {
    const rec = doc.eventPool;
    if (!rec) {
      const moved = doc.trades?.length ? doc.postings.find((p) => "account" in p && p.account.startsWith(EVENT_POOL_PREFIX)) : undefined;
      return moved && "account" in moved ? [`${label} executes trades that move ${moved.account} without the record of a pool leg`] : [];
    }
    const account = eventPoolAccount(rec.eventId);
    const out: string[] = [];
    if (
      this.ended.has(eventResolutionKey(rec.eventId)) ||
      this.ended.has(resolutionKey(rec.marketId)) ||
      this.ended.has(payoutKey(rec.marketId))
    )
      out.push(`${label} trades market ${rec.marketId} against ${account} after the market's end was settled`);
    const outcomes = new Set(rec.outcomes);
    if (outcomes.size !== rec.outcomes.length) out.push(`${label} lists an outcome of ${account} twice`);
    const funded = this.funding.get(account) ?? 0;
    const listed = new Set([...(this.listed.get(rec.eventId) ?? []), ...outcomes]);
    if (!this.bFits(funded, listed.size, rec.b))
      out.push(
        `${label} prices its pool leg with liquidity ${rec.b}, not the parameter of ${account}'s funding of ${funded} over ${listed.size} or more outcomes`,
      );
    const plan = replanPoolLeg(rec, books);
    if (!plan.ok) out.push(`${label} trades against ${account}, which could not take it on its books before the entry (${plan.reason})`);
    else if (plan.quote.cash !== rec.cash || plan.quote.fee !== rec.fee)
      out.push(
        `${label} prices its pool leg at ${rec.cash} (fee ${rec.fee}); the LMSR on ${account}'s books before it prices it at ${plan.quote.cash} (fee ${plan.quote.fee})`,
      );
    else if (!same(poolPostingsOf(account, plan.postings), poolPostingsOf(account, doc.postings)))
      out.push(`${label} moves ${account} other than its pool leg`);
    else if (!doc.book && !this.pureTradeMatches(doc, rec, plan))
      out.push(`${label} moves money or records a trade other than its pool leg`);
    return out;
  }

  /** After the entry applied: a pool's funding, the outcomes it listed, a market's end. */
  after(doc: LedgerEntryDoc): void {
    const key = doc._id;
    if (key.startsWith("resolve:") || key.startsWith("resolve-event:") || key.startsWith("refund:")) this.ended.add(key);
    if (doc.eventPool) {
      const seen = this.listed.get(doc.eventPool.eventId) ?? new Set<string>();
      for (const o of doc.eventPool.outcomes) seen.add(o);
      this.listed.set(doc.eventPool.eventId, seen);
    }
    if (!doc.postings.some((p) => p.kind === "external" && p.flow === "house")) return;
    for (const p of doc.postings)
      if (p.kind === "cash" && p.account.startsWith(EVENT_POOL_PREFIX))
        this.funding.set(p.account, (this.funding.get(p.account) ?? 0) + (p.available ?? 0));
  }

  /** A trade against the pool alone: its postings are the plan's and its one trade the record's. */
  private pureTradeMatches(doc: LedgerEntryDoc, rec: EventPoolRecord, plan: Extract<EventPoolPlan, { ok: true }>): boolean {
    if (!same(plan.postings.map(canonical).sort(), doc.postings.map(canonical).sort())) return false;
    const t = doc.trades ?? [];
    return (
      t.length === 1 &&
      t[0].userId === rec.userId &&
      t[0].marketId === rec.marketId &&
      t[0].side === rec.side &&
      t[0].outcome === rec.outcome &&
      t[0].filledQuantity === rec.quantity &&
      t[0].totalCost === rec.cash &&
      t[0].fee === rec.fee
    );
  }

  /** b is what the pool's funding gives over n outcomes, n at least those it ever listed. */
  private bFits(funded: number, atLeast: number, b: number): boolean {
    for (let n = Math.max(2, atLeast); n <= MAX_POOL_OUTCOMES; n++) {
      const k = `${funded}|${n}`;
      let v = this.bs.get(k);
      if (v === undefined) this.bs.set(k, (v = liquidityParameter(funded, n)));
      if (v === b) return true;
      if (v < b) return false;
    }
    return false;
  }
}
