/**
 * The catalog's facts of markets and events as one node's price reads use them (the event pools'
 * live prices behind every listing). With the catalog on another node, asking it for each market of
 * each listing crossed the link once per market; here a market's and an event's facts are kept for
 * the catalog's own cache time and forgotten when the catalog announces the market changed
 * (`catalog.marketChanged`, heard before the command's answer). Only prices are read through it: a
 * trade still asks the catalog.
 */
import type { EventInternal, MarketInternal } from "../models/catalog";

/** As long as the catalog keeps `catalog.getMarketInternal` (5 s, the spec's GET /markets/:id). */
export const CATALOG_FACTS_TTL_MS = 5_000;

/** Past this many entries the whole memo starts over (no listing needs more). */
const MAX_ENTRIES = 10_000;

interface Kept<T> {
  until: number;
  value: Promise<T>;
  /** Set once it resolved (before any caller's continuation runs). */
  got?: T;
}

export class CatalogFacts {
  private readonly markets = new Map<string, Kept<MarketInternal>>();
  private readonly events = new Map<string, Kept<EventInternal>>();
  /** The event of each market seen, so a market's change forgets its event too. */
  private readonly eventOf = new Map<string, string>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  market(marketId: string, load: () => Promise<MarketInternal>): Promise<MarketInternal> {
    return this.kept(this.markets, marketId, load, (m) => {
      if (!m.eventId) return;
      this.eventOf.set(marketId, m.eventId);
      // A market its kept event does not list (an outcome added since): the event is asked again.
      const e = this.events.get(m.eventId)?.got;
      if (e && !e.markets.some((x) => x.id === marketId)) this.events.delete(m.eventId);
    });
  }

  event(eventId: string, load: () => Promise<EventInternal>): Promise<EventInternal> {
    return this.kept(this.events, eventId, load, (e) => {
      for (const m of e.markets) this.eventOf.set(m.id, eventId);
    });
  }

  /** The catalog changed this market: its facts and its event's are asked again. */
  forget(marketId: string): void {
    this.markets.delete(marketId);
    const eventId = this.eventOf.get(marketId);
    if (eventId) this.events.delete(eventId);
  }

  private kept<T>(map: Map<string, Kept<T>>, key: string, load: () => Promise<T>, seen: (v: T) => void): Promise<T> {
    const now = this.now();
    const hit = map.get(key);
    if (hit && hit.until > now) return hit.value;
    if (this.markets.size + this.events.size >= MAX_ENTRIES) this.clear();
    const entry: Kept<T> = { until: now + this.ttlMs, value: load() };
    map.set(key, entry);
    entry.value.then(
      (v) => {
        entry.got = v;
        seen(v);
      },
      () => {
        // A failure is not kept: the next read asks again.
        if (map.get(key) === entry) map.delete(key);
      },
    );
    return entry.value;
  }

  private clear(): void {
    this.markets.clear();
    this.events.clear();
    this.eventOf.clear();
  }
}
