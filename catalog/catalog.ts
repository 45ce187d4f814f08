/**
 * The catalog's writes, framework-free: events and their markets created and edited, market
 * status transitions with the events they announce, trade prints turned into price history and
 * volumes, and the demo catalog seeded once per data store. The catalog service wires the ports
 * to its store and the broker; reads stay there (they are queries and views).
 */
import { Refusal, isRefusal, type FieldError, type RefusalKind } from "../engine/refusal";
import type { EventMessage } from "../contract/broker-events";
import { SCHEMAS } from "../contract/models";
import { MIN_POOL_LIQUIDITY } from "../engine/amm";
import { canonicalMicroString } from "../engine/money";
import { yesPayoutOfPrice } from "../engine/payout";
import type { Model } from "../contract";
import type {
  CatalogMetaDoc,
  CreateEventParams,
  EventDoc,
  MarketDoc,
  MarketOpenedEvent,
  MarketResult,
  MarketTerms,
  ResolutionDoc,
  SettlementSource,
  MarketLifecycleEvent,
  MarketTradeEvent,
  PrintDoc,
  UpdateEventParams,
} from "../models/catalog";
import { conditionIdFor } from "./condition";
import { DEMO_EVENTS, DEMO_MARKER_ID, demoEventId, demoImageUrl, demoMarketId } from "./demo";
import { ILLEGAL_TRANSITION, planTransition, type MarketCommand } from "./lifecycle";
import { yesPayoutOfResult } from "./resolution";
import { cancelPriceInEvent, planAddOutcome, undecided } from "./exclusive";
import { searchTextOf } from "./search";

/** The codes the catalog refuses with (a resolution step's among them, catalog/resolution.ts). */
export const CATALOG_CODES = [
  "VALIDATION_ERROR",
  "RESOURCE_NOT_FOUND",
  "FORBIDDEN",
  "ILLEGAL_TRANSITION",
  "DUPLICATE_EVENT",
  "MARKET_NOT_OPEN",
  "DISPUTE_WINDOW_CLOSED",
  "ALREADY_DISPUTED",
  "NO_PROPOSAL",
  "PROPOSAL_PENDING",
  "EVENT_ALREADY_DECIDED",
  "EVENT_NOT_OPEN",
  "EVENT_NOT_MUTUALLY_EXCLUSIVE",
] as const;
export type CatalogCode = (typeof CATALOG_CODES)[number];

/** A refusal of the catalog: the one Refusal (engine/refusal.ts), `fields` naming what was invalid. */
export function catalogRefusal(kind: RefusalKind, code: CatalogCode, message: string, fields?: FieldError[]): Refusal {
  return new Refusal(kind, code, message, fields ? { fields } : undefined);
}

export const DUPLICATE_EVENT = "DUPLICATE_EVENT";
/** What a cancelled market pays per YES share when the operator names no price. */
export const DEFAULT_CANCEL_PRICE = "0.50";
/** Attempts of a status change against concurrent ones before giving up. */
const TRANSITION_ATTEMPTS = 3;

const notFound = (what: string) => catalogRefusal("not_found", "RESOURCE_NOT_FOUND", `${what} not found`);
const invalid = (message: string, field: string, rule: string) =>
  catalogRefusal("rejected", "VALIDATION_ERROR", message, [{ field, rule }]);

/** Broker events the catalog announces (payloads: contract/broker-events.ts). */
export type CatalogEvent = EventMessage<
  | "market.opened"
  | "market.closed"
  | "market.cancelled"
  | "market.resolutionFailed"
  | "market.resolved"
  | "event.resolved"
  | "market.resolutionProposed"
  | "market.resolutionDisputed"
>;

/** Where a command's announcements go (the caller's context: they travel with its request). */
export interface CatalogOut {
  /** A market's status changed: every node's cached copy is dropped. */
  changed(marketId: string): Promise<void>;
  emit(event: CatalogEvent): void;
  /** A market's status, resolution or trading mode changed: every gateway tells the market channel. */
  lifecycle(payload: MarketLifecycleEvent): void;
}

export interface CatalogPorts {
  events: {
    get(id: string): Promise<EventDoc | null>;
    /** Insert unless the id or the externalEventId is taken; true when this call inserted it. */
    insertOnce(doc: EventDoc): Promise<boolean>;
    update(id: string, set: Partial<EventDoc>): Promise<void>;
    addVolume(id: string, micro: number): Promise<void>;
    /** Compare-and-set: record the event's decision unless it has one; true when this call did. */
    decide(id: string, decision: NonNullable<EventDoc["decision"]>): Promise<boolean>;
  };
  markets: {
    get(id: string): Promise<MarketDoc | null>;
    /** An event's markets in display order. */
    ofEvent(eventId: string): Promise<MarketDoc[]>;
    insertOnce(doc: MarketDoc): Promise<boolean>;
    removeMany(ids: string[]): Promise<void>;
    retitle(id: string, eventId: string, title: string, updatedAt: string): Promise<void>;
    /** A market's rules and schedule (only while it belongs to `eventId`). */
    edit(id: string, eventId: string, set: Partial<MarketDoc>): Promise<void>;
    /**
     * Compare-and-set: apply `set` only while the status is still `from` and, when given, the
     * resolution's fields still equal `resolution`'s (null: the market still has none); true when it did.
     */
    setIfStatus(
      id: string,
      from: MarketDoc["status"],
      set: Partial<MarketDoc>,
      resolution?: Partial<ResolutionDoc> | null,
    ): Promise<boolean>;
    /** Open markets whose close time is at or before `nowIso`, and closed ones with an undisputed proposal whose window ended. */
    due(nowIso: string): Promise<MarketDoc[]>;
    /** A batch's volume added, and its last trade (YES price in ticks) unless a later one is already recorded: one write. */
    traded(id: string, micro: number, yesPrice: number, atMs: number): Promise<void>;
  };
  prints: {
    /** Those of `ids` already recorded. */
    storedIds(ids: string[]): Promise<string[]>;
    insertMany(prints: PrintDoc[]): Promise<void>;
  };
  /** Bookkeeping (the demo seed marker). */
  meta: {
    get(id: string): Promise<CatalogMetaDoc | null>;
    insertOnce(doc: CatalogMetaDoc): Promise<boolean>;
    markDone(id: string, at: string): Promise<void>;
  };
  newId(prefix: string): string;
  /** This node (recorded on the seed marker it claims). */
  nodeID: string;
  /** Epoch ms. */
  now(): number;
  log: { info(message: string): void; warn(message: string): void };
}

function isoOrThrow(raw: string, field: string): string {
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw invalid("Parameters validation error", field, "date");
  return new Date(ms).toISOString();
}

const MAX_RULES = 4000;

/** Rules and schedule as given (create or update), checked; undefined fields are left as they are. */
export function termsOf(t: MarketTerms, field: string): Partial<MarketDoc> {
  const out: Partial<MarketDoc> = {};
  if (t.rules !== undefined) {
    const rules = t.rules === null ? null : t.rules.trim();
    if (rules !== null && rules.length > MAX_RULES)
      throw invalid(`rules are at most ${MAX_RULES} characters`, `${field}.rules`, "stringMax");
    out.rules = rules || null;
  }
  if (t.settlementSources !== undefined)
    out.settlementSources = t.settlementSources.map((x: SettlementSource) => ({ name: x.name, url: x.url }));
  if (t.closeTime !== undefined) out.closeTime = t.closeTime === null ? null : isoOrThrow(t.closeTime, `${field}.closeTime`);
  return out;
}

/** The wire form of a market's resolution (the contract's Resolution). */
/** What the market channel's `lifecycle` message says of a market. */
export function lifecycleOf(m: MarketDoc): MarketLifecycleEvent {
  return { marketId: m._id, status: m.status, resolution: resolutionView(m.resolution), tradingMode: m.tradingMode ?? "normal" };
}

export function resolutionView(r: ResolutionDoc | null | undefined): Model<"Resolution"> | null {
  if (!r) return null;
  const { proposedResult, note, proposedAt, disputeEndsAt, disputed, disputes, finalizedAt } = r;
  return { proposedResult, note, proposedAt, disputeEndsAt, disputed, disputes, finalizedAt };
}

/** Whether a stored resolution reads as `expect` says (null: no resolution at all). */
function matches(r: ResolutionDoc | null | undefined, expect: Partial<ResolutionDoc>): boolean {
  return Object.entries(expect).every(([k, v]) => (r ? r[k as keyof ResolutionDoc] === v : v === undefined));
}

/**
 * Fields sent as null where the contract's shape takes none: the validator lets null through an
 * optional field, and a patch would store it (or fail later on a null title). Refused naming the field.
 */
function refuseNulls(fields: object, shape: { properties: Record<string, { type?: string }> }): void {
  for (const [field, value] of Object.entries(fields)) {
    if (value !== null) continue;
    const type = shape.properties[field]?.type ?? "value";
    throw invalid(`The '${field}' field must be ${/^[aeiou]/.test(type) ? "an" : "a"} ${type}, not null`, field, type);
  }
}

/** Each market's AMM liquidity: 0 (no pool) or enough to seed one. */
function refuseUnusableLiquidity(markets: CreateEventParams["markets"]): void {
  markets.forEach((m, i) => {
    const L = Number(m.ammLiquidity ?? "0");
    if (L > 0 && L < MIN_POOL_LIQUIDITY)
      throw invalid(
        `ammLiquidity must be 0 (no AMM) or at least ${MIN_POOL_LIQUIDITY} micro-USDT to seed a pool`,
        `markets[${i}].ammLiquidity`,
        "numberMin",
      );
  });
}

/** Markets of an event that is not mutually exclusive, and of one that is. */
export const MAX_MARKETS = 10;
export const MIN_OUTCOMES = 2;
export const MAX_OUTCOMES = 64;

/**
 * A new event's shape: a mutually exclusive event has 2 to 64 markets, each with its own label;
 * `exhaustive` only with it; the event-level AMM only on it and then no pool per market.
 */
function refuseBadShape(p: CreateEventParams): void {
  const me = p.mutuallyExclusive === true;
  if (p.exhaustive && !me) throw invalid("exhaustive needs mutuallyExclusive", "exhaustive", "mutuallyExclusive");
  if (!me && p.markets.length > MAX_MARKETS)
    throw invalid(`An event has at most ${MAX_MARKETS} markets unless mutually exclusive`, "markets", "arrayMax");
  if (me && p.markets.length < MIN_OUTCOMES)
    throw invalid(`A mutually exclusive event has at least ${MIN_OUTCOMES} markets`, "markets", "arrayMin");
  if (me && p.markets.length > MAX_OUTCOMES)
    throw invalid(`A mutually exclusive event has at most ${MAX_OUTCOMES} markets`, "markets", "arrayMax");
  if (me)
    p.markets.forEach((m, i) => {
      if (!m.outcomeLabel?.trim())
        throw invalid("Each market of a mutually exclusive event needs an outcomeLabel", `markets[${i}].outcomeLabel`, "required");
    });
  const labels = p.markets.filter((m) => m.outcomeLabel).map((m) => (m.outcomeLabel as string).trim().toLowerCase());
  if (new Set(labels).size !== labels.length) throw invalid("Outcome labels must differ", "markets", "unique");
  const L = Number(p.ammLiquidity ?? "0");
  if (L > 0) {
    if (!me) throw invalid("An event-level ammLiquidity needs a mutually exclusive event", "ammLiquidity", "mutuallyExclusive");
    if (L < MIN_POOL_LIQUIDITY)
      throw invalid(
        `ammLiquidity must be 0 (no AMM) or at least ${MIN_POOL_LIQUIDITY} micro-USDT to seed a pool`,
        "ammLiquidity",
        "numberMin",
      );
    const i = p.markets.findIndex((m) => Number(m.ammLiquidity ?? "0") > 0);
    if (i >= 0) throw invalid("ammLiquidity is given for the event or per market, not both", `markets[${i}].ammLiquidity`, "forbidden");
  }
}

function uniqueTags(tags: string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

export function openedEvent(m: MarketDoc): MarketOpenedEvent {
  return { marketId: m._id, eventId: m.eventId, ammLiquidity: m.ammLiquidity };
}

const HOUR = 3_600_000;

export class Catalog {
  constructor(private readonly ports: CatalogPorts) {}

  async event(id: string): Promise<EventDoc> {
    const e = await this.ports.events.get(id);
    if (!e) throw notFound("Event");
    return e;
  }

  /** A market's event, or null where none is stored (an event's facts then do not apply). */
  async eventOf(m: MarketDoc): Promise<EventDoc | null> {
    return this.ports.events.get(m.eventId);
  }

  async eventWithMarkets(id: string): Promise<{ event: EventDoc; markets: MarketDoc[] }> {
    const event = await this.event(id);
    return { event, markets: await this.ports.markets.ofEvent(id) };
  }

  async market(id: string): Promise<MarketDoc> {
    const m = await this.ports.markets.get(id);
    if (!m) throw notFound("Market");
    return m;
  }

  /** A new event with open markets (each announced `market.opened`). */
  async createEvent(p: CreateEventParams, out: CatalogOut): Promise<{ event: EventDoc; markets: MarketDoc[] }> {
    refuseNulls(p, SCHEMAS.CreateEventRequest);
    refuseUnusableLiquidity(p.markets);
    refuseBadShape(p);
    const titles = p.markets.map((m) => m.title.toLowerCase());
    if (new Set(titles).size !== titles.length) throw invalid("Market titles must differ", "markets", "unique");
    const ids = { eventId: this.ports.newId("evt"), marketIds: p.markets.map(() => this.ports.newId("mkt")) };
    const { event, markets, opened } = await this.storeEvent(p, ids, this.nowIso());
    for (const m of opened) out.emit({ name: "market.opened", payload: openedEvent(m) });
    return { event, markets };
  }

  /**
   * A new outcome market of an open mutually exclusive event (announced `market.opened`). Should
   * the event be decided meanwhile, the new market resolves NO at once: it did not win.
   */
  async addOutcome(eventId: string, title: string, outcomeLabel: string, out: CatalogOut): Promise<MarketDoc> {
    const label = outcomeLabel.trim();
    const { event, markets } = await this.eventWithMarkets(eventId);
    const plan = planAddOutcome(event, markets, title, label, MAX_OUTCOMES);
    if (!plan.ok)
      throw catalogRefusal(plan.kind, plan.code, plan.message, plan.field ? [{ field: plan.field, rule: plan.rule! }] : undefined);
    const now = this.nowIso();
    const id = this.ports.newId("mkt");
    const m: MarketDoc = {
      _id: id,
      eventId,
      position: plan.position,
      title,
      outcomeLabel: label,
      status: "open",
      result: null,
      outcomes: ["YES", "NO"],
      volume: 0,
      conditionId: conditionIdFor(id),
      ammLiquidity: "0",
      rules: null,
      settlementSources: [],
      closeTime: null,
      resolution: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.ports.markets.insertOnce(m);
    const next: EventDoc = { ...event, marketTitles: [...markets.map((x) => x.title), title], updatedAt: now };
    next.searchText = searchTextOf(next);
    await this.ports.events.update(eventId, { marketTitles: next.marketTitles, searchText: next.searchText, updatedAt: now });
    await this.raceRepriced(eventId, id, out);
    out.emit({ name: "market.opened", payload: openedEvent(m) });
    if ((await this.event(eventId)).decision) return this.transition(id, "resolve", out, { result: "NO" });
    return m;
  }

  /**
   * A race with one pool lost or gained an outcome (alone, not in its one-step resolution): the
   * pool prices its other markets anew, so their cached copies go too.
   */
  private async raceRepriced(eventId: string | null | undefined, except: string, out: CatalogOut): Promise<void> {
    const event = eventId ? await this.ports.events.get(eventId) : null;
    if (!event?.mutuallyExclusive || !(Number(event.ammLiquidity) > 0)) return;
    for (const m of await this.ports.markets.ofEvent(event._id)) if (m._id !== except && undecided(m)) await out.changed(m._id);
  }

  /** Display fields of an event, and titles of its markets; search follows both. */
  async updateEvent(p: UpdateEventParams): Promise<{ event: EventDoc; markets: MarketDoc[] }> {
    refuseNulls(p, SCHEMAS.UpdateEventRequest);
    const { id, markets: retitles, ...fields } = p;
    const event = await this.event(id);
    let markets = await this.ports.markets.ofEvent(id);
    for (const r of retitles ?? []) {
      if (!markets.some((m) => m._id === r.id)) throw notFound("Market");
    }
    // Refused before anything is written.
    const beginAt = fields.beginAt !== undefined ? isoOrThrow(fields.beginAt, "beginAt") : undefined;
    const terms = (retitles ?? []).map((r, i) => termsOf(r, `markets[${i}]`));
    const now = this.nowIso();
    for (const [i, r] of (retitles ?? []).entries()) {
      if (r.title !== undefined) await this.ports.markets.retitle(r.id, id, r.title, now);
      if (Object.keys(terms[i]).length) await this.ports.markets.edit(r.id, id, { ...terms[i], updatedAt: now });
    }
    if (retitles?.length) markets = await this.ports.markets.ofEvent(id);

    const set: Partial<EventDoc> = { updatedAt: now };
    if (fields.title !== undefined) set.title = fields.title;
    if (fields.subtitle !== undefined) set.subtitle = fields.subtitle;
    if (fields.category !== undefined) set.category = fields.category;
    if (fields.subcategory !== undefined) set.subcategory = fields.subcategory;
    if (fields.imageUrl !== undefined) set.imageUrl = fields.imageUrl;
    if (beginAt !== undefined) set.beginAt = beginAt;
    if (fields.tags !== undefined) set.tags = uniqueTags(fields.tags);
    if (fields.isActive !== undefined) set.isActive = fields.isActive;
    if (fields.isLive !== undefined) set.isLive = fields.isLive;
    const next: EventDoc = { ...event, ...set, marketTitles: markets.map((m) => m.title) };
    set.marketTitles = next.marketTitles;
    set.searchText = next.searchText = searchTextOf(next);
    await this.ports.events.update(id, set);
    return { event: next, markets };
  }

  /**
   * One status change as a compare-and-set on the status read: of two concurrent commands only
   * one matches; the other re-reads and is judged against the new status. Every status entered
   * is announced, in order (resolving an open market closes it first).
   */
  async transition(
    id: string,
    command: MarketCommand,
    out: CatalogOut,
    opts: {
      result?: MarketResult;
      reason?: string;
      price?: string;
      /** Only while the market's resolution still reads so (a proposal's identity, its disputes). */
      expect?: Partial<ResolutionDoc>;
      /** How the market's resolution reads after this change (given the market as read). */
      resolution?: (m: MarketDoc, nowIso: string) => ResolutionDoc | null;
      /** The mutually exclusive event whose one-step resolution this is part of. */
      eventStep?: string;
    } = {},
  ): Promise<MarketDoc> {
    // A cancel pays YES `price` and NO the rest, out of the market's own collateral (default 0.50;
    // a race's outcome: 0.00 only, catalog/exclusive.ts).
    let price = opts.price;
    if (command === "cancel") {
      const m = await this.market(id);
      const rule = cancelPriceInEvent(await this.eventOf(m), price);
      if (!rule.ok)
        throw catalogRefusal(rule.kind, rule.code, rule.message, rule.field ? [{ field: rule.field, rule: rule.rule! }] : undefined);
      price = rule.price;
    }
    const yesPayout = command === "cancel" ? yesPayoutOfPrice(price ?? DEFAULT_CANCEL_PRICE) : null;
    if (command === "cancel" && yesPayout === null)
      throw invalid("price must be a decimal from 0.00 to 1.00 with at most 2 decimals, e.g. 0.50", "price", "price");
    for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
      const market = await this.market(id);
      if (opts.expect && !matches(market.resolution, opts.expect))
        throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "The market's proposal changed meanwhile; look again");
      const plan = planTransition(market.status, command);
      if (!plan.ok) throw catalogRefusal("conflict", ILLEGAL_TRANSITION, plan.message);
      const now = this.nowIso();
      const set: Partial<MarketDoc> = { status: plan.to, updatedAt: now };
      for (const s of plan.entered) {
        if (s === "closed") set.closedAt = now;
        if (s === "cancelled") {
          set.cancelledAt = now;
          set.yesPayout = yesPayout as number;
        }
        if (s === "resolution_failed") {
          set.resolutionFailedAt = now;
          if (opts.reason) set.resolutionFailureReason = opts.reason;
        }
        if (s === "resolved") {
          set.resolvedAt = now;
          set.result = opts.result ?? null;
          if (opts.result) set.yesPayout = yesPayoutOfResult(opts.result);
        }
      }
      if (opts.resolution) set.resolution = opts.resolution(market, now);
      // Any resolution read (a pending proposal a dispute may count up) must still be the same.
      const expect = market.resolution
        ? { ...opts.expect, proposedAt: market.resolution.proposedAt, disputes: market.resolution.disputes }
        : null;
      if (!(await this.ports.markets.setIfStatus(id, market.status, set, expect))) continue;

      const updated: MarketDoc = { ...market, ...set };
      await out.changed(id);
      // Announced before the events that cancel the market's orders: a page that sees its book
      // cleared already knows the market is no longer open.
      out.lifecycle(lifecycleOf(updated));
      if (!opts.eventStep && plan.entered.some((s) => s === "resolved" || s === "cancelled"))
        await this.raceRepriced(market.eventId, id, out);
      for (const s of plan.entered) {
        if (s === "closed") out.emit({ name: "market.closed", payload: { marketId: id } });
        if (s === "cancelled") out.emit({ name: "market.cancelled", payload: { marketId: id, yesPayout: updated.yesPayout as number } });
        if (s === "resolution_failed") out.emit({ name: "market.resolutionFailed", payload: { marketId: id } });
        if (s === "resolved")
          out.emit({
            name: "market.resolved",
            payload: {
              marketId: id,
              result: updated.result as MarketResult,
              conditionId: updated.conditionId,
              yesPayout: updated.yesPayout as number,
              ...(opts.eventStep ? { eventStep: opts.eventStep } : {}),
            },
          });
      }
      return updated;
    }
    throw catalogRefusal("conflict", ILLEGAL_TRANSITION, "The market changed concurrently; try again");
  }

  /**
   * A batch of trade prints: each stored once by trade id (a replay changes nothing), prints of
   * unknown markets or with unreadable times dropped, then one volume update per market and event.
   */
  async recordTrades(trades: MarketTradeEvent[]): Promise<void> {
    const markets = new Map<string, MarketDoc | null>();
    const prints: PrintDoc[] = [];
    for (const t of trades) {
      const atMs = Date.parse(t.at);
      if (!Number.isFinite(atMs)) continue;
      if (!markets.has(t.marketId)) markets.set(t.marketId, await this.ports.markets.get(t.marketId));
      if (!markets.get(t.marketId)) {
        this.ports.log.warn(`market.trade for unknown market ${t.marketId} ignored`);
        continue;
      }
      prints.push({
        _id: t.tradeId,
        marketId: t.marketId,
        outcome: t.outcome,
        yesPrice: t.yesPrice,
        quantity: t.quantity,
        notional: t.notional,
        ...(t.takerSide && t.takerOutcome ? { takerSide: t.takerSide, takerOutcome: t.takerOutcome } : {}),
        at: new Date(atMs).toISOString(),
        atMs,
      });
    }
    // A replayed tradeId changes nothing (events reach one catalog node each, so no race here).
    const known = new Set(await this.ports.prints.storedIds(prints.map((p) => p._id)));
    const stored = prints.filter((p) => !known.has(p._id) && (known.add(p._id), true));
    await this.ports.prints.insertMany(stored);
    // Volumes follow the prints; events are at-most-once anyway, so no transaction is pretended here.
    const byMarket = new Map<string, number>();
    const byEvent = new Map<string, number>();
    for (const p of stored) {
      byMarket.set(p.marketId, (byMarket.get(p.marketId) ?? 0) + p.notional);
      const eventId = (markets.get(p.marketId) as MarketDoc).eventId;
      byEvent.set(eventId, (byEvent.get(eventId) ?? 0) + p.notional);
    }
    const last = new Map<string, PrintDoc>();
    for (const p of stored) if ((last.get(p.marketId)?.atMs ?? -1) <= p.atMs) last.set(p.marketId, p);
    for (const [id, v] of byMarket) {
      const p = last.get(id) as PrintDoc;
      await this.ports.markets.traded(id, v, p.yesPrice, p.atMs);
    }
    for (const [id, v] of byEvent) await this.ports.events.addVolume(id, v);
  }

  /**
   * The demo catalog, once per data store: a marker document claimed with insertOnce lets one
   * node seed while others skip; deterministic ids make a rerun after a crash complete the job
   * without duplicates. Answers the `market.opened` events of the markets it created (announced
   * by the caller once every local service listens).
   */
  async seedDemo(): Promise<MarketOpenedEvent[]> {
    const marker = await this.ports.meta.get(DEMO_MARKER_ID);
    if (marker?.done) return [];
    const nowIso = this.nowIso();
    const claimed = await this.ports.meta.insertOnce({ _id: DEMO_MARKER_ID, done: false, claimedBy: this.ports.nodeID, at: nowIso });
    if (!claimed && !marker) return []; // another node claimed it a moment ago and is seeding
    const base = Math.floor(this.ports.now() / HOUR) * HOUR;
    const opened: MarketOpenedEvent[] = [];
    for (const d of DEMO_EVENTS) {
      const stored = await this.storeEvent(
        {
          title: d.title,
          subtitle: d.subtitle,
          category: d.category,
          subcategory: d.subcategory,
          imageUrl: demoImageUrl(d.slug),
          externalEventId: d.externalEventId,
          beginAt: new Date(base + d.beginInDays * 24 * HOUR).toISOString(),
          tags: d.tags,
          isActive: d.isActive,
          isLive: d.isLive,
          mutuallyExclusive: d.mutuallyExclusive,
          exhaustive: d.exhaustive,
          ammLiquidity: d.ammLiquidity,
          markets: d.markets.map((m) => ({
            title: m.title,
            ammLiquidity: m.ammLiquidity,
            outcomeLabel: m.outcomeLabel,
            closeTime: new Date(base + d.closeInDays * 24 * HOUR).toISOString(),
          })),
        },
        { eventId: demoEventId(d.slug), marketIds: d.markets.map((_, i) => demoMarketId(d.slug, i)) },
        nowIso,
      ).catch((err: unknown) => {
        // An operator's event already carries this externalEventId: theirs stays, the demo one is skipped.
        if (isRefusal(err, DUPLICATE_EVENT)) return null;
        throw err;
      });
      if (stored) opened.push(...stored.opened.map(openedEvent));
    }
    await this.ports.meta.markDone(DEMO_MARKER_ID, this.nowIso());
    this.ports.log.info(`Demo catalog seeded: ${DEMO_EVENTS.length} events`);
    return opened;
  }

  /**
   * Markets first, the event last: the event is what lists and search show, so a crash midway
   * leaves nothing visible half-made. Inserts are by id, so a repeated seed inserts nothing.
   */
  private async storeEvent(
    input: CreateEventParams,
    ids: { eventId: string; marketIds: string[] },
    nowIso: string,
  ): Promise<{ event: EventDoc; markets: MarketDoc[]; opened: MarketDoc[] }> {
    const beginAt = input.beginAt ? isoOrThrow(input.beginAt, "beginAt") : nowIso;
    const terms = input.markets.map((m, i) => termsOf(m, `markets[${i}]`));
    const markets: MarketDoc[] = input.markets.map((m, i) => ({
      _id: ids.marketIds[i],
      eventId: ids.eventId,
      position: i,
      title: m.title,
      outcomeLabel: m.outcomeLabel?.trim() || null,
      status: "open",
      result: null,
      outcomes: ["YES", "NO"],
      volume: 0,
      conditionId: conditionIdFor(ids.marketIds[i]),
      ammLiquidity: canonicalMicroString(m.ammLiquidity ?? "0"),
      rules: null,
      settlementSources: [],
      closeTime: null,
      resolution: null,
      ...terms[i],
      createdAt: nowIso,
      updatedAt: nowIso,
    }));
    const opened: MarketDoc[] = [];
    for (const m of markets) if (await this.ports.markets.insertOnce(m)) opened.push(m);

    const event: EventDoc = {
      _id: ids.eventId,
      ...(input.externalEventId ? { externalEventId: input.externalEventId } : {}),
      title: input.title,
      subtitle: input.subtitle ?? "",
      category: input.category,
      subcategory: input.subcategory ?? "",
      imageUrl: input.imageUrl ?? "",
      volumeUsd: 0,
      isActive: input.isActive ?? true,
      isLive: input.isLive ?? false,
      beginAt,
      tags: uniqueTags(input.tags),
      mutuallyExclusive: input.mutuallyExclusive === true,
      exhaustive: input.mutuallyExclusive === true && input.exhaustive === true,
      ammLiquidity: canonicalMicroString(input.ammLiquidity ?? "0"),
      marketTitles: markets.map((m) => m.title),
      searchText: "",
      createdAt: nowIso,
      updatedAt: nowIso,
    };
    event.searchText = searchTextOf(event);
    if (!(await this.ports.events.insertOnce(event))) {
      if (await this.ports.events.get(event._id)) return { event, markets, opened };
      // Lost a race on the unique externalEventId: take back this attempt's markets.
      await this.ports.markets.removeMany(opened.map((m) => m._id));
      throw catalogRefusal("conflict", DUPLICATE_EVENT, `An event with externalEventId ${input.externalEventId} exists`);
    }
    return { event, markets, opened };
  }

  private nowIso(): string {
    return new Date(this.ports.now()).toISOString();
  }
}
