/**
 * The resolution process over the catalog's store, framework-free: proposals, disputes, the
 * operator's finalization and the market clock (close times, windows that end). The rules are
 * catalog/resolution.ts; every ending is one call of `resolveMany` (status `resolved`, the
 * result and its YES payout stored, `market.resolved` announced), whichever way it came.
 */
import type { DisputeDoc, EventDoc, MarketDoc, MarketResult, ResolutionDoc } from "../models/catalog";
import { isRefusal } from "../engine/refusal";
import { Catalog, catalogRefusal, lifecycleOf, type CatalogCode, type CatalogOut, type CatalogPorts } from "./catalog";
import { ILLEGAL_TRANSITION } from "./lifecycle";
import {
  EVENT_ALREADY_DECIDED,
  eventFinalizationDue,
  isExclusive,
  marketResultInEvent,
  planEventResolution,
  undecided,
  type EventOutcomeResult,
  type ExclusiveRefusal,
} from "./exclusive";
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
  events: Pick<CatalogPorts["events"], "update" | "decide">;
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
const exclusiveRefusal = (r: ExclusiveRefusal) =>
  catalogRefusal(r.kind, r.code, r.message, r.field ? [{ field: r.field, rule: r.rule ?? r.field }] : undefined);
const isConflict = (err: unknown) => isRefusal(err) && err.kind === "conflict";

/** An event with its markets in display order (what the event-level routes answer). */
export interface EventWithMarkets {
  event: EventDoc;
  markets: MarketDoc[];
}

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

  /**
   * A proposed result and its dispute window; an open market closes first. In a mutually
   * exclusive event a market proposes NO alone; its winner is proposed for the whole event.
   */
  async propose(id: string, result: MarketResult, note: string | null, out: CatalogOut): Promise<MarketDoc> {
    const how = await this.inEvent(await this.catalog.market(id), result);
    if (how === "event")
      throw catalogRefusal(
        "rejected",
        "VALIDATION_ERROR",
        "Propose the winner of a mutually exclusive event with POST /admin/events/:id/propose",
        [{ field: "result", rule: "eventWinner" }],
      );
    return this.proposeOne(id, result, note, out, this.p.now());
  }

  /** One market's proposal made at `nowMs` (an event's markets share the moment: it is the proposal's identity). */
  private async proposeOne(id: string, result: MarketResult, note: string | null, out: CatalogOut, nowMs: number): Promise<MarketDoc> {
    const plan = planProposal(await this.catalog.market(id), result, note, nowMs, this.p.windowMs);
    if (!plan.ok) throw refusal(plan);
    // Closed meanwhile by someone else (the clock, the operator): the proposal is judged again below.
    if (plan.closeFirst)
      await this.catalog.transition(id, "close", out).catch((err: unknown) => {
        if (!(isRefusal(err) && err.kind === "conflict")) throw err;
      });
    for (let i = 0; i < ATTEMPTS; i++) {
      const m = await this.catalog.market(id);
      const again = planProposal(m, result, note, nowMs, this.p.windowMs);
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

  /**
   * The operator ends a pending proposal (disputed or not) with `result`, which may amend it. In
   * a mutually exclusive event YES names the winner: the whole event resolves as one step.
   */
  async finalize(id: string, result: MarketResult, out: CatalogOut): Promise<MarketDoc> {
    const market = await this.catalog.market(id);
    const plan = planFinalize(market);
    if (!plan.ok) throw refusal(plan);
    if ((await this.inEvent(market, result)) === "event") {
      await this.resolveEvent(market.eventId, id, out);
      return this.catalog.market(id);
    }
    const [m] = await this.resolveMany([{ id, result, expect: { proposedAt: plan.proposal.proposedAt, finalizedAt: null } }], out);
    return m;
  }

  /**
   * The operator's immediate resolution (no window); a pending proposal ends with it. In a
   * mutually exclusive event YES names the winner (the whole event as one step), NO resolves
   * this market alone while the others trade on.
   */
  async resolve(id: string, result: MarketResult, out: CatalogOut): Promise<MarketDoc> {
    const market = await this.catalog.market(id);
    if ((await this.inEvent(market, result)) === "event") {
      await this.resolveEvent(market.eventId, id, out);
      return this.catalog.market(id);
    }
    const [m] = await this.resolveMany([{ id, result }], out);
    return m;
  }

  /** What a market's result means in its event; refusals as the event's rules say. */
  private async inEvent(market: MarketDoc, result: MarketResult): Promise<"event" | "alone"> {
    const event = await this.catalog.eventOf(market);
    if (!event) return "alone";
    const how = marketResultInEvent(event, result);
    if (typeof how === "object") throw exclusiveRefusal(how);
    // The decided winner cannot lose alone while its event's step completes.
    if (how === "alone" && event.decision?.winnerMarketId === market._id)
      throw catalogRefusal("conflict", EVENT_ALREADY_DECIDED, "This market was named the event's winner");
    if (how === "alone" && isExclusive(event) && !event.decision) {
      // Every outcome of an exhaustive event losing would leave it without its one winner.
      const { markets } = await this.catalog.eventWithMarkets(event._id);
      const left = markets.filter((m) => undecided(m) && m._id !== market._id);
      if (event.exhaustive && undecided(market) && left.length === 0)
        throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "The last outcome of an exhaustive event wins: name it the winner");
    }
    return how;
  }

  /**
   * A mutually exclusive event resolved as one step: the winner YES and every other market not
   * yet resolved or cancelled NO (null: none won). The event records its decision first (a second
   * winner is refused, nothing changed; a retry of the same decision completes it); every open
   * market closes before any resolves, and the winner resolves last, so no reader sees the winner
   * resolved while a loser still trades. Announced `event.resolved`: its settlement is one entry.
   */
  async resolveEvent(eventId: string, winner: string | null, out: CatalogOut): Promise<EventWithMarkets> {
    for (let i = 0; i < ATTEMPTS; i++) {
      const { event, markets } = await this.catalog.eventWithMarkets(eventId);
      const plan = planEventResolution(event, markets, winner);
      if (!plan.ok) throw exclusiveRefusal(plan);
      const at = new Date(this.p.now()).toISOString();
      if (!plan.retry && !(await this.p.events.decide(eventId, { winnerMarketId: winner, at }))) continue;
      const byId = new Map(markets.map((m) => [m._id, m]));
      for (const s of plan.steps)
        if (byId.get(s.marketId)?.status === "open") await this.catalog.transition(s.marketId, "close", out).catch(skipConflict);
      const done = await this.resolveSteps(plan.steps, eventId, out);
      out.emit({
        name: "event.resolved",
        payload: {
          eventId,
          winnerMarketId: winner,
          markets: done.map((m) => ({ marketId: m._id, result: m.result as "YES" | "NO", conditionId: m.conditionId })),
        },
      });
      return this.catalog.eventWithMarkets(eventId);
    }
    throw catalogRefusal("conflict", EVENT_ALREADY_DECIDED, "The event was decided concurrently; look again");
  }

  /** The event step's markets resolved in order; one decided meanwhile by someone else (a NO alone, a cancel) is left as it is. */
  private async resolveSteps(steps: readonly EventOutcomeResult[], eventId: string, out: CatalogOut): Promise<MarketDoc[]> {
    const done: MarketDoc[] = [];
    for (const s of steps) {
      try {
        done.push(...(await this.resolveMany([{ id: s.marketId, result: s.result }], out, eventId)));
      } catch (err) {
        if (!isConflict(err) || undecided(await this.catalog.market(s.marketId))) throw err;
      }
    }
    return done;
  }

  /**
   * The winner of a mutually exclusive event proposed for the whole event: every undecided
   * market gets the proposal (the winner YES, the others NO) with one proposedAt and dispute
   * window, open ones closing first. Undisputed, the event finalizes as one step when the window
   * ends; a dispute of any of its markets makes it wait for the operator.
   */
  async proposeEvent(eventId: string, winner: string | null, note: string | null, out: CatalogOut): Promise<EventWithMarkets> {
    const { event, markets } = await this.catalog.eventWithMarkets(eventId);
    const plan = planEventResolution(event, markets, winner);
    if (!plan.ok) throw exclusiveRefusal(plan);
    if (plan.retry) throw catalogRefusal("conflict", EVENT_ALREADY_DECIDED, "The event is already decided");
    if (!plan.steps.length) throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "No market of this event is left to resolve");
    const nowMs = this.p.now();
    // Every market must take the proposal before any does.
    for (const s of plan.steps) {
      const check = planProposal(
        markets.find((m) => m._id === s.marketId)!,
        s.result,
        note,
        nowMs,
        this.p.windowMs,
      );
      if (!check.ok) throw refusal(check);
    }
    const proposedAt = new Date(nowMs).toISOString();
    const disputeEndsAt = new Date(nowMs + this.p.windowMs).toISOString();
    await this.p.events.update(eventId, { proposal: { winnerMarketId: winner, proposedAt, disputeEndsAt }, updatedAt: proposedAt });
    for (const s of plan.steps) await this.proposeOne(s.marketId, s.result, note, out, nowMs);
    return this.catalog.eventWithMarkets(eventId);
  }

  /**
   * The one resolution step: each market resolved with its result (an open one passes through
   * closed), a pending proposal marked finalized. Markets of one decision go in one call.
   */
  async resolveMany(markets: readonly Resolving[], out: CatalogOut, eventStep?: string): Promise<MarketDoc[]> {
    const done: MarketDoc[] = [];
    for (const r of markets)
      done.push(
        await this.catalog.transition(r.id, "resolve", out, {
          result: r.result,
          expect: r.expect,
          ...(eventStep ? { eventStep } : {}),
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
    const events = new Set<string>();
    for (const m of await this.p.markets.due(new Date(nowMs).toISOString())) {
      try {
        if (closeDue(m, nowMs)) {
          await this.catalog.transition(m._id, "close", out);
          changed++;
        } else if (finalizationDue(m, nowMs)) {
          const p = pendingProposal(m) as ResolutionDoc;
          // A proposal of a whole mutually exclusive event finalizes as one step, once all of it may.
          const event = await this.catalog.eventOf(m);
          if (event?.proposal && isExclusive(event) && event.proposal.proposedAt === p.proposedAt) {
            if (events.has(event._id)) continue;
            events.add(event._id);
            const { markets } = await this.catalog.eventWithMarkets(event._id);
            if (!eventFinalizationDue(markets, p.proposedAt, nowMs)) continue;
            await this.resolveEvent(event._id, event.proposal.winnerMarketId, out);
            changed++;
            continue;
          }
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

/** Someone else changed the market first (the clock, the operator): judged again on the next step. */
function skipConflict(err: unknown): void {
  if (!isConflict(err)) throw err;
}
