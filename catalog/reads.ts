/**
 * The catalog's reads, framework-free: published events listed, filtered and searched, events and
 * markets shown with live prices where they trade, price history from the recorded prints.
 */
import type { Category, EventDoc, Interval, LivePrice, MarketDoc, PrintDoc } from "../models/catalog";
import { buildPriceHistory, printsSince, type Outcome } from "./candles";
import { queryTokens, rankBySearch } from "./search";
import {
  cleanLivePrice,
  NO_PRICES,
  eventCloseTime,
  renderEvent,
  renderMarket,
  renderOutcome,
  type EventView,
  type MarketView,
  type PriceHistoryView,
  publicTradeView,
  type PublicTradeView,
} from "./views";

/** No price source: every price null. */
const NO_QUOTES: QuoteSource = async () => null;

/** Markets per price request (router.livePrices takes up to 200). */
const QUOTE_CHUNK = 200;

/** Published events, optionally of one category and matching every search token. */
export interface EventFilter {
  category?: Category;
  tokens: string[];
}

/** The router's raw quotes for these markets; null when there is no price source; throws when it failed. */
export type QuoteSource = (marketIds: string[]) => Promise<unknown>;

export interface CatalogReadPorts {
  events: {
    count(filter: EventFilter): Promise<number>;
    /** Soonest `beginAt` first (then by id); all of them without a range. */
    list(filter: EventFilter, range?: { skip: number; limit: number }): Promise<EventDoc[]>;
  };
  markets: {
    ofEvent(eventId: string): Promise<MarketDoc[]>;
    /** The markets of these events, each event's in display order. */
    ofEvents(eventIds: string[]): Promise<MarketDoc[]>;
    byIds(ids: string[]): Promise<MarketDoc[]>;
  };
  prints: {
    /** A market's prints at or after `sinceMs`, oldest first. */
    since(marketId: string, sinceMs: number): Promise<PrintDoc[]>;
    /** Its last print before `sinceMs`. */
    lastBefore(marketId: string, sinceMs: number): Promise<PrintDoc | null>;
    /** Its latest `limit` prints, newest first. */
    latest(marketId: string, limit: number): Promise<PrintDoc[]>;
  };
  now(): number;
  log: { warn(message: string): void };
}

/** A page of results with the total they were taken from. */
export interface Slice<T> {
  items: T[];
  total: number;
}

export class CatalogReads {
  constructor(private readonly ports: CatalogReadPorts) {}

  /** Published events in list order; `search` filters with the matching of search() and keeps the order. */
  async listEvents(
    p: { category: Category | "all"; search?: string; page: number; pageSize: number },
    quotes: QuoteSource = NO_QUOTES,
  ): Promise<Slice<EventView>> {
    const filter: EventFilter = { tokens: queryTokens(p.search ?? "") };
    if (p.category !== "all") filter.category = p.category;
    const total = await this.ports.events.count(filter);
    const skip = (p.page - 1) * p.pageSize;
    const docs = skip < total ? await this.ports.events.list(filter, { skip, limit: p.pageSize }) : [];
    return { items: await this.listed(docs, quotes), total };
  }

  /** Published events matching every word of `q`, best match first. */
  async searchEvents(p: { q: string; page: number; pageSize: number }, quotes: QuoteSource = NO_QUOTES): Promise<Slice<EventView>> {
    const tokens = queryTokens(p.q);
    if (!tokens.length) return { items: [], total: 0 };
    const ranked = rankBySearch(await this.ports.events.list({ tokens }), tokens);
    const skip = (p.page - 1) * p.pageSize;
    return { items: await this.listed(ranked.slice(skip, skip + p.pageSize), quotes), total: ranked.length };
  }

  /**
   * Events as lists show them: `markets` empty, `outcomes` one row per market with its chance.
   * One store read and one price request for the whole page, whatever its number of markets.
   */
  private async listed(events: EventDoc[], quotes: QuoteSource): Promise<EventView[]> {
    if (!events.length) return [];
    const markets = await this.ports.markets.ofEvents(events.map((e) => e._id));
    const live = await this.livePrices(markets, quotes);
    const byEvent = new Map<string, MarketDoc[]>();
    for (const m of markets) byEvent.set(m.eventId, [...(byEvent.get(m.eventId) ?? []), m]);
    return events.map((e) => {
      const own = (byEvent.get(e._id) ?? []).sort((a, b) => a.position - b.position);
      return renderEvent(
        e,
        [],
        own.map((m) => renderOutcome(m, live[m._id])),
        eventCloseTime(own),
      );
    });
  }

  /** The event with its markets in display order and their live prices. */
  async eventView(event: EventDoc, quotes: QuoteSource, markets?: MarketDoc[]): Promise<EventView> {
    const list = markets ?? (await this.ports.markets.ofEvent(event._id));
    const live = await this.livePrices(list, quotes);
    return renderEvent(
      event,
      list.map((m) => renderMarket(m, live[m._id])),
      list.map((m) => renderOutcome(m, live[m._id])),
      eventCloseTime(list),
    );
  }

  async marketView(market: MarketDoc, quotes: QuoteSource): Promise<MarketView> {
    const live = await this.livePrices([market], quotes);
    return renderMarket(market, live[market._id]);
  }

  /** Titles, statuses and results of many markets; unknown ids are left out. */
  async marketTitles(marketIds: string[]): Promise<Record<string, { title: string; status: string; result: string | null }>> {
    const ids = [...new Set(marketIds)];
    const found = ids.length ? await this.ports.markets.byIds(ids) : [];
    return Object.fromEntries(found.map((m) => [m._id, { title: m.title, status: m.status, result: m.result ?? null }]));
  }

  async priceHistory(market: MarketDoc, outcome: Outcome, interval: Interval): Promise<PriceHistoryView> {
    const nowMs = this.ports.now();
    const since = printsSince(interval, nowMs);
    const [prints, prior] = await Promise.all([
      this.ports.prints.since(market._id, since),
      this.ports.prints.lastBefore(market._id, since),
    ]);
    return { marketId: market._id, outcome, interval, ...buildPriceHistory({ interval, outcome, nowMs, prints, prior }) };
  }

  /** GET /markets/:id/trades: the market's latest executions, newest first (one print each). */
  async marketTrades(market: MarketDoc, limit: number): Promise<{ items: PublicTradeView[] }> {
    return { items: (await this.ports.prints.latest(market._id, limit)).map(publicTradeView) };
  }

  /**
   * Live prices of the open markets among these. Without a price source, on its failure, and for
   * markets not trading, every price is null: nothing is made up.
   */
  async livePrices(markets: MarketDoc[], quotes: QuoteSource): Promise<Record<string, LivePrice>> {
    return livePricesOf(
      markets.filter((m) => m.status === "open").map((m) => m._id),
      quotes,
      this.ports.log,
    );
  }
}

/** The open markets of listed events (the ones whose chance follows live prices). */
export function openOutcomeIds(events: readonly EventView[]): string[] {
  const ids: string[] = [];
  for (const e of events) for (const o of e.outcomes) if (o.status === "open") ids.push(o.marketId);
  return ids;
}

/**
 * Live prices of these open markets, `QUOTE_CHUNK` per request. Without a price source and on its
 * failure every price is null: nothing is made up.
 */
export async function livePricesOf(
  open: string[],
  quotes: QuoteSource,
  log: { warn(message: string): void },
): Promise<Record<string, LivePrice>> {
  const out: Record<string, LivePrice> = {};
  for (let i = 0; i < open.length; i += QUOTE_CHUNK) {
    const ids = open.slice(i, i + QUOTE_CHUNK);
    let raw: unknown;
    try {
      raw = await quotes(ids);
    } catch (err) {
      log.warn(`router.livePrices failed; showing no prices: ${(err as Error).message}`);
      return out;
    }
    if (raw === null) return out;
    const byId: Record<string, unknown> = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    for (const id of ids) out[id] = Object.prototype.hasOwnProperty.call(byId, id) ? cleanLivePrice(byId[id]) : NO_PRICES;
  }
  return out;
}
