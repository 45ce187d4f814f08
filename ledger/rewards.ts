/**
 * Liquidity rewards and maker rebates, framework-free. Every minute each rewarded market's resting
 * orders are scored (engine/rewards.ts) and the minute's scores stored once (a second runner, or a
 * restart in the same minute, finds the minute taken); the journal is tailed for the trades' taker
 * fees and maker fills (stored once per trade). After 00:00 UTC each market's day is paid in ONE
 * ledger entry under the key `reward:<day>:<market>`, so a restart, a crash between the entry and
 * the records or a second runner never pays a day twice: the ledger answers the key's first entry.
 */
import { formatTick } from "../engine/money";
import {
  doubledMidpoint,
  orderScoring,
  proRata,
  rebatePool,
  REWARDS_ACCOUNT,
  scoreMinute,
  yesView,
  type RewardTerms,
  type ScoringReason,
} from "../engine/rewards";
import type { RestingOrder } from "../engine/types";
import { invalid, notFoundFault } from "../engine/refusal";
import type { Store } from "../lib/store";
import type { LedgerEntryDoc, OrderDoc, PostInput, PostOutcome, RewardPaid, RewardRecord } from "../models/trading";
import { rewardPostings } from "./entry-rules";

/** A market's reward terms as stored (its id is the market's). */
export interface RewardTermsDoc extends RewardTerms {
  _id: string;
  updatedAt: string;
}

/** One minute's scores of one market (numerators as digit strings), stored once. */
export interface ScoreSampleDoc {
  /** `<marketId>|<minute ISO>` */
  _id: string;
  day: string;
  marketId: string;
  scores: Record<string, string>;
}

/** One trade's part in a day's rebates: its taker fee or its maker fill. */
export interface FillDoc {
  /** The trade id. */
  _id: string;
  day: string;
  marketId: string;
  userId: string;
  role: "taker" | "maker";
  fee: number;
  filled: number;
}

/** What one user got for one market's day (GET /rewards/earnings). */
export interface EarningDoc {
  /** `<day>|<marketId>|<userId>` */
  _id: string;
  day: string;
  marketId: string;
  userId: string;
  score: string;
  reward: number;
  rebate: number;
  /** When the day's payout entry was journaled (absent on earnings an earlier version stored). */
  paidAt?: string;
}

/** The runner's place: how far the journal was read, which days are paid through. */
export interface RewardMetaDoc {
  _id: "cursor" | "paidThrough";
  seq?: number;
  day?: string;
}

export type RewardCollections = {
  rewardTerms: RewardTermsDoc;
  rewardScores: ScoreSampleDoc;
  rewardFills: FillDoc;
  rewardEarnings: EarningDoc;
  rewardMeta: RewardMetaDoc;
};

export interface RewardPorts {
  stores(): { [K in keyof RewardCollections]: Store<RewardCollections[K]> };
  /** A market's resting orders in time priority (the ledger's read model). */
  resting(marketId: string): Promise<RestingOrder[]>;
  /** Journal entries after `seq`, at most `limit`. */
  entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  /** The entry written under `key`, if any. */
  entryByKey(key: string): Promise<LedgerEntryDoc | null>;
  post(entry: PostInput): Promise<PostOutcome>;
  /** Available cash of an account, and the fee account's balance, as the ledger holds them now. */
  available(account: string): number;
  feeBalance(): number;
  order(orderId: string): Promise<OrderDoc | null>;
  /** Is there such a market (the catalog)? */
  marketExists(marketId: string): Promise<boolean>;
  /** MAKER_REBATE_BPS. */
  rebateBps: number;
  newId(prefix: string): string;
  /** Epoch ms: the injected clock of the day boundary. */
  now(): number;
  /** The UTC day a journal entry's time (ISO) falls on, on that clock. */
  dayOfEntry(at: string): string;
  warn(message: string): void;
}

/** A day's payout of a market as posted: who got what. */
export interface DayPayout {
  key: string;
  applied: boolean;
  record: Extract<RewardRecord, { kind: "payout" }> | null;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const JOURNAL_PAGE = 1_000;
const PRICE = /^0\.(0[1-9]|[1-9][0-9])$/;

/** YYYY-MM-DD (UTC) of an epoch ms. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
const nextDay = (day: string) => dayOf(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS);
const sumScores = (into: Map<string, bigint>, scores: Record<string, string>) => {
  for (const [u, s] of Object.entries(scores)) into.set(u, (into.get(u) ?? 0n) + BigInt(s));
};

export class RewardsDesk {
  constructor(private readonly ports: RewardPorts) {}

  private get s() {
    return this.ports.stores();
  }

  /** POST /admin/markets/:id/rewards: a market's terms (a pool of 0 stops its rewards from the next day on). */
  async setTerms(marketId: string, p: { dailyPool: string; maxSpread: string; minSize: string }): Promise<RewardTermsDoc> {
    if (!PRICE.test(p.maxSpread)) throw invalid("maxSpread is a price from 0.01 to 0.99", [{ field: "maxSpread", rule: "pattern" }]);
    const dailyPool = Number(p.dailyPool);
    const minSize = Number(p.minSize);
    if (!Number.isSafeInteger(dailyPool)) throw invalid("dailyPool is too large", [{ field: "dailyPool", rule: "max" }]);
    if (!Number.isSafeInteger(minSize)) throw invalid("minSize is too large", [{ field: "minSize", rule: "max" }]);
    if (!(await this.ports.marketExists(marketId))) throw notFoundFault("Market");
    const doc: RewardTermsDoc = {
      _id: marketId,
      dailyPool,
      maxSpreadTicks: Math.round(Number(p.maxSpread) * 100),
      minSize,
      updatedAt: new Date(this.ports.now()).toISOString(),
    };
    await this.s.rewardTerms.put(doc);
    return doc;
  }

  /** GET /rewards/markets: the markets that pay, in the contract's shape. */
  async markets(): Promise<Array<{ marketId: string; dailyPool: string; maxSpread: string; minSize: string }>> {
    const docs = await this.s.rewardTerms.find({ dailyPool: { $gt: 0 } }, { sort: { _id: 1 } });
    return docs.map((t) => ({
      marketId: t._id,
      dailyPool: String(t.dailyPool),
      maxSpread: formatTick(t.maxSpreadTicks),
      minSize: String(t.minSize),
    }));
  }

  /** The operator funds the rewards account with house money: one journaled entry. */
  async fund(amount: number): Promise<{ amount: string; balance: string }> {
    if (!(Number.isSafeInteger(amount) && amount > 0)) throw invalid("amount must be positive", [{ field: "amount", rule: "min" }]);
    const reward: RewardRecord = { kind: "fund", amount };
    await this.ports.post({ key: `reward-fund:${this.ports.newId("rfd")}`, postings: rewardPostings(reward), reward });
    return { amount: String(amount), balance: String(this.ports.available(REWARDS_ACCOUNT)) };
  }

  /** GET /orders/:id/scoring: whether the caller's open order scores now, and why not. */
  async orderScoring(userId: string, orderId: string): Promise<{ scoring: boolean; reason: ScoringReason | "not_resting" }> {
    const o = await this.ports.order(orderId);
    if (!o || o.userId !== userId) throw notFoundFault("Order", "ORDER_NOT_FOUND");
    if (o.status !== "open" && o.status !== "partially_filled") return { scoring: false, reason: "not_resting" };
    const terms = await this.terms(o.marketId);
    const mid2 = terms ? doubledMidpoint(bestOf(await this.ports.resting(o.marketId))) : null;
    const { reason } = orderScoring(o, mid2, terms);
    return { scoring: reason === "scoring", reason };
  }

  /** GET /rewards/earnings?date=: the caller's score, reward and rebate per market for that day. */
  async earnings(userId: string, date?: string): Promise<Array<{ marketId: string; score: string; reward: string; rebate: string }>> {
    const day = date ?? dayOf(this.ports.now());
    const paid = new Map((await this.s.rewardEarnings.find({ day, userId })).map((e) => [e.marketId, e]));
    const scores = new Map<string, bigint>();
    for (const sample of await this.s.rewardScores.find({ day })) {
      const s = sample.scores[userId];
      if (s) scores.set(sample.marketId, (scores.get(sample.marketId) ?? 0n) + BigInt(s));
    }
    const markets = [...new Set([...paid.keys(), ...scores.keys()])].sort();
    return markets.map((m) => ({
      marketId: m,
      score: String(scores.get(m) ?? BigInt(paid.get(m)?.score ?? "0")),
      reward: String(paid.get(m)?.reward ?? 0),
      rebate: String(paid.get(m)?.rebate ?? 0),
    }));
  }

  /** One run: this minute's scores, the journal's new trades, then every finished day not paid yet. */
  async tick(): Promise<DayPayout[]> {
    const now = this.ports.now();
    await this.scoreNow(now);
    await this.readJournal();
    return this.payFinishedDays(dayOf(now));
  }

  private async terms(marketId: string): Promise<RewardTermsDoc | null> {
    const t = await this.s.rewardTerms.findOne({ _id: marketId });
    return t && t.dailyPool > 0 ? t : null;
  }

  private async scoreNow(now: number): Promise<void> {
    const minute = new Date(Math.floor(now / MINUTE_MS) * MINUTE_MS).toISOString();
    for (const t of await this.s.rewardTerms.find({ dailyPool: { $gt: 0 } })) {
      const id = `${t._id}|${minute}`;
      if (await this.s.rewardScores.findOne({ _id: id })) continue;
      const orders = await this.ports.resting(t._id);
      const scores = scoreMinute(orders, doubledMidpoint(bestOf(orders)), t);
      const doc: ScoreSampleDoc = { _id: id, day: dayOf(now), marketId: t._id, scores: {} };
      for (const [u, s] of scores) doc.scores[u] = String(s);
      // Taken by another runner meanwhile: that one's sample stands.
      await this.s.rewardScores.insertOnce(doc);
    }
  }

  private async readJournal(): Promise<void> {
    let seq = (await this.s.rewardMeta.findOne({ _id: "cursor" }))?.seq ?? 0;
    for (;;) {
      const docs = await this.ports.entriesAfter(seq, JOURNAL_PAGE);
      if (!docs.length) break;
      const fills: FillDoc[] = [];
      for (const d of docs)
        for (const t of d.trades ?? [])
          fills.push({
            _id: t.tradeId,
            day: this.ports.dayOfEntry(d.at),
            marketId: t.marketId,
            userId: t.userId,
            role: t.role,
            fee: t.fee,
            filled: t.role === "maker" ? t.filledQuantity : 0,
          });
      // Once per trade: a run that stopped before moving the cursor reads them again harmlessly.
      for (const f of fills) await this.s.rewardFills.insertOnce(f);
      seq = docs[docs.length - 1].seq;
      await this.s.rewardMeta.put({ _id: "cursor", seq });
      if (docs.length < JOURNAL_PAGE) break;
    }
  }

  private async payFinishedDays(today: string): Promise<DayPayout[]> {
    const mark = await this.s.rewardMeta.findOne({ _id: "paidThrough" });
    // The first run starts with the day before it: days before rewards existed are not paid.
    let day = mark?.day ? nextDay(mark.day) : today;
    if (!mark) await this.s.rewardMeta.put({ _id: "paidThrough", day: dayOf(Date.parse(`${today}T00:00:00.000Z`) - DAY_MS) });
    const out: DayPayout[] = [];
    for (; day < today; day = nextDay(day)) {
      const markets = new Set<string>([
        ...(await this.s.rewardScores.find({ day })).map((x) => x.marketId),
        ...(this.ports.rebateBps > 0 ? (await this.s.rewardFills.find({ day, role: "taker" })).map((f) => f.marketId) : []),
      ]);
      for (const marketId of [...markets].sort()) out.push(await this.payDay(day, marketId));
      await this.s.rewardMeta.put({ _id: "paidThrough", day });
    }
    return out;
  }

  /** One market's day: rewards pro rata to its scores, rebates pro rata to maker fills, one entry under one key. */
  async payDay(day: string, marketId: string): Promise<DayPayout> {
    const key = `reward:${day}:${marketId}`;
    const done = await this.ports.entryByKey(key);
    let record = done?.reward?.kind === "payout" ? done.reward : null;
    let applied = false;
    if (!done) {
      const plan = await this.plan(day, marketId);
      if (plan.rewards.length || plan.rebates.length) {
        const r = await this.ports.post({ key, postings: rewardPostings(plan), reward: plan });
        applied = r.applied;
        record = r.applied ? plan : (((await this.ports.entryByKey(key))?.reward as typeof plan | undefined) ?? null);
      }
    }
    if (record) await this.recordEarnings(record, (done ?? (await this.ports.entryByKey(key)))?.at);
    return { key, applied, record };
  }

  private async plan(day: string, marketId: string): Promise<Extract<RewardRecord, { kind: "payout" }>> {
    const scores = new Map<string, bigint>();
    for (const sample of await this.s.rewardScores.find({ day, marketId })) sumScores(scores, sample.scores);
    const terms = await this.s.rewardTerms.findOne({ _id: marketId });
    // What the rewards account holds caps the day: an underfunded account pays what it has.
    const pool = Math.min(terms?.dailyPool ?? 0, Math.max(0, this.ports.available(REWARDS_ACCOUNT)));
    const fills = await this.s.rewardFills.find({ day, marketId });
    let takerFees = 0;
    const made = new Map<string, bigint>();
    for (const f of fills) {
      if (f.role === "taker") takerFees += f.fee;
      else if (f.filled > 0) made.set(f.userId, (made.get(f.userId) ?? 0n) + BigInt(f.filled));
    }
    const rebateBps = this.ports.rebateBps;
    const rebates = proRata(Math.min(rebatePool(takerFees, rebateBps), Math.max(0, this.ports.feeBalance())), made);
    return {
      kind: "payout",
      marketId,
      day,
      pool,
      takerFees,
      rebateBps,
      rewards: [...proRata(pool, scores)].map(([userId, amount]) => ({ userId, amount, score: String(scores.get(userId)) })),
      rebates: [...rebates].map(([userId, amount]) => ({ userId, amount, filled: Number(made.get(userId)) })),
    };
  }

  /**
   * GET /transfers' rewards and rebates: what the user was paid, one item per market, day and
   * kind, from the earnings each payout recorded.
   */
  async payouts(userId: string): Promise<RewardPaid[]> {
    const out: RewardPaid[] = [];
    for (const e of await this.s.rewardEarnings.find({ userId })) {
      // Paid by the run after the day (earnings an earlier version stored carry no time).
      const at = e.paidAt ?? `${nextDay(e.day)}T00:00:00.000Z`;
      if (e.reward > 0) out.push({ kind: "reward", marketId: e.marketId, day: e.day, amount: e.reward, at });
      if (e.rebate > 0) out.push({ kind: "rebate", marketId: e.marketId, day: e.day, amount: e.rebate, at });
    }
    return out;
  }

  private async recordEarnings(r: Extract<RewardRecord, { kind: "payout" }>, paidAt?: string): Promise<void> {
    const by = new Map<string, EarningDoc>();
    const of = (userId: string) => {
      let e = by.get(userId);
      if (!e)
        by.set(
          userId,
          (e = {
            _id: `${r.day}|${r.marketId}|${userId}`,
            day: r.day,
            marketId: r.marketId,
            userId,
            score: "0",
            reward: 0,
            rebate: 0,
            ...(paidAt ? { paidAt } : {}),
          }),
        );
      return e;
    };
    for (const x of r.rewards) Object.assign(of(x.userId), { score: x.score, reward: x.amount });
    for (const x of r.rebates) of(x.userId).rebate = x.amount;
    for (const e of by.values()) await this.s.rewardEarnings.put(e);
  }
}

/** Best YES bid and ask of a market's resting orders. */
function bestOf(orders: readonly RestingOrder[]): { bid: number | null; ask: number | null } {
  let bid: number | null = null;
  let ask: number | null = null;
  for (const o of orders) {
    const v = yesView(o);
    if (v.bid) bid = bid === null ? v.tick : Math.max(bid, v.tick);
    else ask = ask === null ? v.tick : Math.min(ask, v.tick);
  }
  return { bid, ask };
}
