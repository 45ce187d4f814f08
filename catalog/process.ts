/**
 * The resolution process over the catalog's store, framework-free: proposals, disputes, the
 * operator's finalization and the market clock (close times, windows that end). The rules are
 * catalog/resolution.ts; every ending is one call of `resolveMany` (status `resolved`, the
 * result and its YES payout stored, `market.resolved` announced), whichever way it came.
 */
import type { DisputeDoc, MarketDoc, MarketResult, ResolutionDoc } from "../models/catalog";
import { isRefusal } from "../engine/refusal";
import { Catalog, catalogRefusal, lifecycleOf, type CatalogCode, type CatalogOut, type CatalogPorts } from "./catalog";
import { ILLEGAL_TRANSITION } from "./lifecycle";
import {
  ALREADY_DISPUTED,
  closeDue,
  DISPUTE_WINDOW_CLOSED,
  finalizationDue,
  pendingProposal,
  planDispute,
  planFinalize,
  planProposal,
  type Refusal,
} from "./resolution";

/** Attempts of a proposal or dispute write against concurrent ones before giving up. */
const ATTEMPTS = 5;

export interface ProcessPorts {
  markets: Pick<CatalogPorts["markets"], "get" | "setIfStatus" | "due">;
  disputes: {
    /** Insert unless this user disputed this proposal; true when this call inserted it. */
    insertOnce(doc: DisputeDoc): Promise<boolean>;
    count(marketId: string, proposedAt: string): Promise<number>;
  };
  /** Whether the user holds YES or NO shares of the market. */
  holds(userId: string, marketId: string): Promise<boolean>;
  /** RESOLUTION_DISPUTE_WINDOW_MS. */
  windowMs: number;
  /** Epoch ms. */
  now(): number;
  log: { info(message: string): void; warn(message: string): void };
}

const refusal = (r: Refusal) => catalogRefusal(r.kind, r.code as CatalogCode, r.message);

/** One market of a resolution step, with what its resolution must still read (a proposal's identity). */
export interface Resolving {
  id: string;
  result: MarketResult;
  expect?: Partial<ResolutionDoc>;
}

export class ResolutionProcess {
  constructor(
    private readonly catalog: Catalog,
    private readonly p: ProcessPorts,
  ) {}

  /** A proposed result and its dispute window; an open market closes first. */
  async propose(id: string, result: MarketResult, note: string | null, out: CatalogOut): Promise<MarketDoc> {
    const plan = planProposal(await this.catalog.market(id), result, note, this.p.now(), this.p.windowMs);
    if (!plan.ok) throw refusal(plan);
    // Closed meanwhile by someone else (the clock, the operator): the proposal is judged again below.
    if (plan.closeFirst)
      await this.catalog.transition(id, "close", out).catch((err: unknown) => {
        if (!(isRefusal(err) && err.kind === "conflict")) throw err;
      });
    for (let i = 0; i < ATTEMPTS; i++) {
      const m = await this.catalog.market(id);
      const again = planProposal(m, result, note, this.p.now(), this.p.windowMs);
      if (!again.ok) throw refusal(again);
      const set = { resolution: again.resolution, updatedAt: again.resolution.proposedAt };
      if (!(await this.p.markets.setIfStatus(id, "closed", set, null))) continue;
      const updated: MarketDoc = { ...m, ...set };
      await this.told(updated, out);
      const r = again.resolution;
      out.emit({
        name: "market.resolutionProposed",
        payload: { marketId: id, proposedResult: r.proposedResult, proposedAt: r.proposedAt, disputeEndsAt: r.disputeEndsAt },
      });
      return updated;
    }
    throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "The market changed concurrently; try again");
  }

  /**
   * A holder's dispute of the pending proposal: stored once per user and proposal, then counted on
   * the market (the count is the stored disputes', so a retry after a crash repairs it).
   */
  async dispute(id: string, userId: string, reason: string, out: CatalogOut): Promise<MarketDoc> {
    const first = await this.catalog.market(id);
    const holds = pendingProposal(first) ? await this.p.holds(userId, id) : false;
    const plan = planDispute(first, holds, this.p.now());
    if (!plan.ok) throw refusal(plan);
    const { proposedAt } = plan.proposal;
    const inserted = await this.p.disputes.insertOnce({
      _id: `${id}:${proposedAt}:${userId}`,
      marketId: id,
      proposedAt,
      userId,
      reason,
      at: new Date(this.p.now()).toISOString(),
    });
    for (let i = 0; i < ATTEMPTS; i++) {
      const m = await this.catalog.market(id);
      const cur = pendingProposal(m);
      if (!cur || cur.proposedAt !== proposedAt)
        throw catalogRefusal("conflict", DISPUTE_WINDOW_CLOSED, "The proposal was finalized meanwhile");
      const disputes = await this.p.disputes.count(id, proposedAt);
      if (cur.disputed && cur.disputes === disputes) {
        if (!inserted) throw catalogRefusal("conflict", ALREADY_DISPUTED, "You already disputed this proposal");
        return m;
      }
      const set = { resolution: { ...cur, disputed: true, disputes }, updatedAt: new Date(this.p.now()).toISOString() };
      const expect = { proposedAt, disputes: cur.disputes, finalizedAt: null };
      if (!(await this.p.markets.setIfStatus(id, "closed", set, expect))) continue;
      const updated: MarketDoc = { ...m, ...set };
      await this.told(updated, out);
      if (!cur.disputed)
        out.emit({
          name: "market.resolutionDisputed",
          payload: { marketId: id, proposedResult: cur.proposedResult, proposedAt, disputeEndsAt: cur.disputeEndsAt },
        });
      if (!inserted) throw catalogRefusal("conflict", ALREADY_DISPUTED, "You already disputed this proposal");
      return updated;
    }
    throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "The market changed concurrently; try again");
  }

  /** The operator ends a pending proposal (disputed or not) with `result`, which may amend it. */
  async finalize(id: string, result: MarketResult, out: CatalogOut): Promise<MarketDoc> {
    const plan = planFinalize(await this.catalog.market(id));
    if (!plan.ok) throw refusal(plan);
    const [m] = await this.resolveMany([{ id, result, expect: { proposedAt: plan.proposal.proposedAt, finalizedAt: null } }], out);
    return m;
  }

  /** The operator's immediate resolution (no window); a pending proposal ends with it. */
  async resolve(id: string, result: MarketResult, out: CatalogOut): Promise<MarketDoc> {
    const [m] = await this.resolveMany([{ id, result }], out);
    return m;
  }

  /**
   * The one resolution step: each market resolved with its result (an open one passes through
   * closed), a pending proposal marked finalized. Markets of one decision go in one call.
   */
  async resolveMany(markets: readonly Resolving[], out: CatalogOut): Promise<MarketDoc[]> {
    const done: MarketDoc[] = [];
    for (const r of markets)
      done.push(
        await this.catalog.transition(r.id, "resolve", out, {
          result: r.result,
          expect: r.expect,
          // A proposal still open (also one whose market was marked resolution_failed) ends with it.
          resolution: (m, now) =>
            m.resolution && m.resolution.finalizedAt === null ? { ...m.resolution, finalizedAt: now } : (m.resolution ?? null),
        }),
      );
    return done;
  }

  /**
   * What the clock decided by now: open markets past their close time close, undisputed proposals
   * whose window ended finalize. Safe to repeat and to run after a restart (each is a
   * compare-and-set: a market closes and finalizes once). Answers how many changed.
   */
  async runDeadlines(out: CatalogOut): Promise<number> {
    const nowMs = this.p.now();
    let changed = 0;
    for (const m of await this.p.markets.due(new Date(nowMs).toISOString())) {
      try {
        if (closeDue(m, nowMs)) {
          await this.catalog.transition(m._id, "close", out);
          changed++;
        } else if (finalizationDue(m, nowMs)) {
          const p = pendingProposal(m) as ResolutionDoc;
          await this.resolveMany(
            [{ id: m._id, result: p.proposedResult, expect: { proposedAt: p.proposedAt, disputed: false, finalizedAt: null } }],
            out,
          );
          changed++;
        }
      } catch (err) {
        // Someone else changed it first (the operator, a dispute): judged again on the next run.
        if (isRefusal(err) && err.kind === "conflict") continue;
        this.p.log.warn(`deadline of market ${m._id} failed: ${(err as Error)?.message}`);
      }
    }
    return changed;
  }

  private async told(m: MarketDoc, out: CatalogOut): Promise<void> {
    await out.changed(m._id);
    out.lifecycle(lifecycleOf(m));
  }
}
