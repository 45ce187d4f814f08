/**
 * Redemption's decision tree (POST /redeem/:marketId) and the settlement of resolved and cancelled
 * markets, on the postings of ./redemption: a winner is paid once (ledger key
 * `redeem:<user>:<market>`); a cancelled market is paid out at its cancel price from its own
 * collateral once for everyone (`refund:<market>`) and each holder's redeem acknowledges it once.
 */
import { conflicting, invalid, refused } from "../engine/refusal";
import { sharesText, usdtText } from "../lib/units";
import type { Posting } from "../engine/accounts";
import type { Outcome } from "../engine/types";
import type { MarketInternal } from "../models/catalog";
import type { Model } from "../contract";
import type { MarketSettlementDoc, RedemptionDoc } from "../models/chain";
import type { IdemRecord } from "../models/trading";
import { errorType, type ChainLedger, type Clock, type EmitChainEvent, type Log } from "./ports";
import {
  DEFAULT_CANCEL_YES_PAYOUT,
  eventResolutionKey,
  isPayoutRefusal,
  payoutKey,
  priceOfYesPayout,
  resolutionKey,
} from "../engine/payout";
import { cancelledPayout, other, outcomeOfIndexSet, redeemWinner, resolutionPostings } from "./redemption";

export interface RedemptionStore {
  /** Records a redemption once; false when the user's redemption of the market exists. */
  insertRedemption(doc: RedemptionDoc): Promise<boolean>;
  redemption(id: string): Promise<RedemptionDoc | null>;
  settlement(marketId: string): Promise<MarketSettlementDoc | null>;
  /** Inserts unless the market has one; false when it had. */
  insertSettlement(doc: MarketSettlementDoc): Promise<boolean>;
  putSettlement(doc: MarketSettlementDoc): Promise<void>;
  /** Cancelled markets whose refund is not done yet. */
  pendingSettlements(): Promise<MarketSettlementDoc[]>;
}

export interface RedemptionPorts {
  ledger: Pick<ChainLedger, "post" | "positions" | "holders">;
  store: RedemptionStore;
  clock: Clock;
  emit: EmitChainEvent;
  log: Log;
}

export interface RedeemRequest {
  userId: string;
  marketId: string;
  conditionId: string;
  /** "0x1" (YES) and/or "0x2" (NO). */
  indexSets: string[];
}

/** The catalog's facts about the market (its errors, e.g. not found, pass through). */
export type MarketLookup = (marketId: string) => Promise<MarketInternal>;

/** The answer of POST /redeem/:marketId (a redemption is a ledger entry: it never fails on chain). */
export type RedeemAnswer = Model<"RedeemResult">;

const ALREADY_REDEEMED: RedeemAnswer = { status: "duplicate", message: "These positions were already redeemed; nothing new was paid" };

export class Redemptions {
  constructor(private readonly p: RedemptionPorts) {}

  private iso(): string {
    return new Date(this.p.clock.now()).toISOString();
  }

  /**
   * POST /redeem/:marketId. With `key`, a winner's payout entry carries the request's
   * Idempotency-Key and its answer: a replay after a crash answers the payout, not "duplicate".
   */
  async redeem(req: RedeemRequest, market: MarketLookup, key?: Omit<IdemRecord, "response" | "answerFrom">): Promise<RedeemAnswer> {
    const { userId, marketId, conditionId, indexSets } = req;
    const { ledger, store } = this.p;
    const selected = new Set<Outcome>();
    indexSets.forEach((s, i) => {
      const o = outcomeOfIndexSet(s);
      if (!o) throw invalid(`indexSets[${i}] must be "0x1" (YES) or "0x2" (NO)`, [{ field: `indexSets[${i}]`, rule: "indexSet" }]);
      if (selected.has(o)) throw invalid("indexSets must not repeat an outcome", [{ field: "indexSets", rule: "unique" }]);
      selected.add(o);
    });
    const m = await market(marketId);
    if (m.conditionId.toLowerCase() !== conditionId.toLowerCase())
      throw refused("CONDITION_MISMATCH", "conditionId does not match this market's condition");
    const redemptionId = `${userId}:${marketId}`;
    const mine = (await ledger.positions(userId)).filter((p) => p.marketId === marketId);

    // A cancelled market, and one resolved SPLIT, pay every holder at their price per share.
    const split = m.status === "resolved" && m.result === "SPLIT";
    if (m.status === "cancelled" || split) {
      await this.cancelled(marketId, m.yesPayout ?? DEFAULT_CANCEL_YES_PAYOUT);
      const done = await this.refundMarket(marketId);
      if (!done || done.status !== "done")
        throw conflicting("REFUND_PENDING", "The market's payout is not done yet (orders still hold shares); try again shortly");
      const refund = done.refunds.find((r) => r.account === userId);
      if (!refund && !mine.length) throw refused("NO_POSITION", "You hold no position in this market");
      const payout = refund?.amount ?? 0;
      if (
        !(await store.insertRedemption({
          _id: redemptionId,
          userId,
          marketId,
          kind: "refund",
          payout,
          ledgerKey: payoutKey(marketId),
          at: this.iso(),
        }))
      ) {
        return { status: "duplicate", message: "This market's refund was already acknowledged; nothing new was paid" };
      }
      const yes = done.yesPayout ?? DEFAULT_CANCEL_YES_PAYOUT;
      if (split)
        return {
          status: "accepted",
          payout: String(payout),
          message: `Market resolved SPLIT: each YES and each NO share paid ${usdtText(yes)}; ${usdtText(payout)} credited to your available balance`,
        };
      return {
        status: "accepted",
        payout: String(payout),
        message: `Market cancelled at ${priceOfYesPayout(yes)}: each YES share paid ${usdtText(yes)}, each NO share ${usdtText(1_000_000 - yes)}; ${usdtText(payout)} credited to your available balance`,
      };
    }
    if (m.status !== "resolved" || (m.result !== "YES" && m.result !== "NO"))
      throw refused("MARKET_NOT_RESOLVED", `Only resolved markets can be redeemed; this market is ${m.status}`);

    const winner = m.result;
    const loser = other(winner);
    const win = mine.find((p) => p.outcome === winner);
    const q = win ? win.quantity : 0;
    if (selected.has(winner) && q > 0) {
      if (win && win.locked > 0)
        throw conflicting("SHARES_LOCKED", "Some of your winning shares are held by open orders; cancel them first");
      // The market's resolution rides along: whatever the sweep at resolution could not move yet.
      const postings: Posting[] = [
        ...resolutionPostings(marketId, winner, await ledger.holders(marketId)),
        ...redeemWinner(marketId, userId, winner, q),
      ];
      const entryKey = `redeem:${userId}:${marketId}`;
      const answer = {
        status: "accepted" as const,
        payout: String(q),
        message: `Redeemed ${sharesText(q)} ${winner} shares for ${usdtText(q)}`,
      };
      let res: { applied: boolean };
      try {
        res = await ledger.post({ key: entryKey, postings, ...(key ? { idem: { ...key, response: answer } } : {}) });
      } catch (err) {
        if (errorType(err) === "INSUFFICIENT_SHARES")
          throw conflicting("RESOLUTION_PENDING", "Losing shares of this market are still held by open orders; try again shortly");
        throw err;
      }
      await store.insertRedemption({ _id: redemptionId, userId, marketId, kind: "redeem", payout: q, ledgerKey: entryKey, at: this.iso() });
      if (!res.applied) return ALREADY_REDEEMED;
      this.p.emit("chain.redeemed", { userId, marketId, payout: String(q) });
      return answer;
    }
    if (await store.redemption(redemptionId)) return ALREADY_REDEEMED;
    const lost = mine.find((p) => p.outcome === loser);
    if (selected.has(loser) && lost)
      throw refused(
        "LOSING_POSITION",
        `The market resolved ${winner}: ${loser} shares pay nothing${lost.quantity > 0 ? "" : " (your position was settled at 0)"}`,
      );
    if (!mine.length) throw refused("NO_POSITION", "You hold no position in this market");
    throw refused("NO_POSITION", `You hold no ${[...selected].join(" or ")} shares of this market to redeem`);
  }

  /**
   * At resolution: losing positions settle at 0 (into the market's escrow), so GET /positions
   * drops them, and the AMM pool's winning inventory is redeemed into its cash. Whatever orders
   * still held is carried by the next redemption's entry instead.
   */
  async sweepResolved(marketId: string, result: Outcome): Promise<void> {
    const holders = await this.p.ledger.holders(marketId);
    const postings = resolutionPostings(marketId, result, holders);
    // With nothing to move the entry is still written (the ledger learns the market is decided), unless orders hold shares.
    if (!postings.length && holders.some((h) => h.locked > 0)) return;
    await this.p.ledger.post({ key: resolutionKey(marketId), postings }).catch((err: unknown) => {
      if (errorType(err) !== "INSUFFICIENT_SHARES") throw err;
      this.p.log.info(`resolution of ${marketId}: shares still locked by orders; the first redemption settles the rest`);
    });
  }

  /**
   * A mutually exclusive event resolved as one step: every market of that step settled as
   * `sweepResolved` settles one, all in ONE entry (`resolve-event:<eventId>`), so the journal
   * never holds the winner settled and a loser not.
   */
  async sweepEventResolved(eventId: string, markets: ReadonlyArray<{ marketId: string; result: Outcome }>): Promise<void> {
    const postings: Posting[] = [];
    let locked = false;
    for (const m of markets) {
      const holders = await this.p.ledger.holders(m.marketId);
      locked ||= holders.some((h) => h.locked > 0);
      postings.push(...resolutionPostings(m.marketId, m.result, holders));
    }
    if (!postings.length && locked) return;
    await this.p.ledger.post({ key: eventResolutionKey(eventId), postings }).catch((err: unknown) => {
      if (errorType(err) !== "INSUFFICIENT_SHARES") throw err;
      this.p.log.info(`resolution of event ${eventId}: shares still locked by orders; each market's first redemption settles the rest`);
    });
  }

  /**
   * A cancelled market, or one resolved SPLIT: its payout at `yesPayout` per YES share is owed
   * from now on (kept until done, across restarts).
   */
  async cancelled(marketId: string, yesPayout: number): Promise<void> {
    await this.p.store.insertSettlement({ _id: marketId, kind: "refund", status: "pending", yesPayout, refunds: [], at: this.iso() });
  }

  /** Markets whose payout is still owed. */
  async pendingRefunds(): Promise<string[]> {
    return (await this.p.store.pendingSettlements()).map((m) => m._id);
  }

  /**
   * Pay a cancelled market's holders at its cancel price out of its own collateral, once
   * (`refund:<marketId>`). Null while orders still hold shares, or before the market's payout is owed.
   */
  async refundMarket(marketId: string): Promise<MarketSettlementDoc | null> {
    const { ledger, store } = this.p;
    const cur = await store.settlement(marketId);
    if (!cur) return null;
    if (cur.status === "done") return cur;
    const yesPayout = cur.yesPayout ?? DEFAULT_CANCEL_YES_PAYOUT;
    let plan;
    try {
      plan = cancelledPayout(marketId, yesPayout, await ledger.holders(marketId));
    } catch (err) {
      if (!isPayoutRefusal(err)) throw err;
      this.p.log.info(`payout of ${marketId} postponed: ${err.message}`);
      return null;
    }
    // Written even when nobody holds a share: the ledger learns the market is paid out.
    await ledger.post({ key: payoutKey(marketId), postings: plan.postings, payout: { marketId, yesPayout } });
    const refunds = plan.payouts.map((r) => ({ account: r.account, amount: r.amount }));
    const doc: MarketSettlementDoc = { ...cur, status: "done", yesPayout, refunds, at: this.iso() };
    await store.putSettlement(doc);
    this.p.emit("chain.refunded", {
      marketId,
      yesPayout,
      refunds: refunds.map((r) => ({ account: r.account, amount: String(r.amount) })),
      dust: String(plan.dust),
    });
    return doc;
  }
}
