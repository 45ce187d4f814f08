import type { Model } from "../contract";
import type { EventDoc, EventInternal, LivePrice, MarketDoc, MarketInternal, PrintDoc } from "../models/catalog";
import { formatAvgPrice, formatMicro, formatTick } from "../engine/money";
import { resolutionView } from "./catalog";

/** MarketItem of the spec, plus the additive `eventId` and `conditionId` (the contract's shape). */
export type MarketView = Model<"MarketItem">;

/** Event of the spec (the contract's shape). */
export type EventView = Model<"Event">;

/** One row of an event's `outcomes` (the contract's shape). */
export type OutcomeView = Model<"EventOutcome">;

/** `catalog.priceHistory` response data (the contract's shape). */
export type PriceHistoryView = Model<"PriceHistory">;

export const NO_PRICES: LivePrice = Object.freeze({ buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: null });

const PRICE_FIELDS = ["buyYesPrice", "buyNoPrice", "sellYesPrice", "sellNoPrice"] as const;

/** A decimal price strictly between 0 and 1, e.g. "0.55"; anything else is not shown. */
const PRICE_RE = /^0\.[0-9]{1,6}$/;

/**
 * The router's answer for one market, kept only where it is a well-formed price: a missing or
 * malformed side shows null, never a guess.
 */
export function cleanLivePrice(raw: unknown): LivePrice {
  if (!raw || typeof raw !== "object") return NO_PRICES;
  const r = raw as Record<string, unknown>;
  const out = { ...NO_PRICES };
  for (const f of PRICE_FIELDS) {
    const v = r[f];
    if (typeof v === "string" && PRICE_RE.test(v) && Number(v) > 0) out[f] = v;
  }
  return out;
}

export function renderMarket(m: MarketDoc, live: LivePrice = NO_PRICES): MarketView {
  return {
    id: m._id,
    eventId: m.eventId,
    title: m.title,
    outcomeLabel: m.outcomeLabel ?? null,
    status: m.status,
    result: m.result,
    outcomes: [...m.outcomes],
    buyYesPrice: live.buyYesPrice,
    buyNoPrice: live.buyNoPrice,
    sellYesPrice: live.sellYesPrice,
    sellNoPrice: live.sellNoPrice,
    volume: formatMicro(m.volume),
    conditionId: m.conditionId,
    tradingMode: m.tradingMode ?? "normal",
    rules: m.rules ?? null,
    settlementSources: (m.settlementSources ?? []).map((x) => ({ name: x.name, url: x.url })),
    closeTime: m.closeTime ?? null,
    resolution: resolutionView(m.resolution),
  };
}

/** A decimal price string ("0.55", "0.625", "1.00") of micro-USDT per share, at least two decimals. */
export function priceOfMicro(micro: number): string {
  const whole = Math.floor(micro / 1_000_000);
  const frac = String(micro % 1_000_000)
    .padStart(6, "0")
    .replace(/0+$/, "")
    .padEnd(2, "0");
  return `${whole}.${frac}`;
}

const microOfPrice = (p: string): number => {
  const [w, f = ""] = p.split(".");
  return Number(w) * 1_000_000 + Number(f.padEnd(6, "0").slice(0, 6));
};

/** Widest spread at which the midpoint still counts as the market's chance (0.10). */
export const CHANCE_MAX_SPREAD = 100_000;

/**
 * The probability a trader sees: the midpoint of the best YES bid and ask (book and AMM, as the
 * live prices carry them) when at most 0.10 apart, else the last trade's price, else null. A
 * market that ended shows what a YES share pays.
 */
export function chanceOf(m: MarketDoc, live: LivePrice = NO_PRICES): string | null {
  if (m.status === "resolved" || m.status === "cancelled") return m.yesPayout === undefined ? null : priceOfMicro(m.yesPayout);
  return midpointChance(live) ?? (m.lastYesPrice !== undefined ? formatTick(m.lastYesPrice) : null);
}

/** The midpoint of the best YES bid and ask when at most 0.10 apart, else null (chanceOf's first choice). */
export function midpointChance(live: LivePrice): string | null {
  if (live.sellYesPrice === null || live.buyYesPrice === null) return null;
  const bid = microOfPrice(live.sellYesPrice);
  const ask = microOfPrice(live.buyYesPrice);
  return ask >= bid && ask - bid <= CHANCE_MAX_SPREAD ? priceOfMicro(Math.floor((bid + ask) / 2)) : null;
}

/**
 * Listed events rendered without prices (each open outcome's chance is then its last trade's
 * price) shown with these live prices: what rendering them with the prices gives, without the
 * markets' documents. The rows are new; the given ones are not changed.
 */
export function withLiveChances(events: readonly EventView[], live: Readonly<Record<string, LivePrice>>): EventView[] {
  return events.map((e) => ({
    ...e,
    outcomes: e.outcomes.map((o) => {
      const p = o.status === "open" ? live[o.marketId] : undefined;
      const mid = p ? midpointChance(p) : null;
      return mid === null ? o : { ...o, chance: mid };
    }),
  }));
}

export function renderOutcome(m: MarketDoc, live: LivePrice = NO_PRICES): OutcomeView {
  return { marketId: m._id, label: m.outcomeLabel ?? m.title, status: m.status, chance: chanceOf(m, live) };
}

/** The earliest close time among the open markets (what an event card's "Ends" shows), or null. */
export function eventCloseTime(markets: Pick<MarketDoc, "status" | "closeTime">[]): string | null {
  let first: string | null = null;
  for (const m of markets)
    if (m.status === "open" && m.closeTime && (first === null || Date.parse(m.closeTime) < Date.parse(first))) first = m.closeTime;
  return first;
}

export function renderEvent(
  e: EventDoc,
  markets: MarketView[] = [],
  outcomes: OutcomeView[] = [],
  closeTime: string | null = null,
): EventView {
  return {
    id: e._id,
    externalEventId: e.externalEventId ?? "",
    title: e.title,
    subtitle: e.subtitle,
    category: e.category,
    subcategory: e.subcategory,
    imageUrl: e.imageUrl,
    volumeUsd: formatMicro(e.volumeUsd),
    isActive: e.isActive,
    isLive: e.isLive,
    beginAt: e.beginAt,
    tags: [...e.tags],
    mutuallyExclusive: e.mutuallyExclusive ?? false,
    exhaustive: e.exhaustive ?? false,
    ammLiquidity: e.ammLiquidity ?? "0",
    markets,
    outcomes,
    closeTime,
  };
}

/** `catalog.dispute`'s answer: the dispute as recorded, with the resolution that now counts it. */
export function renderDispute(m: MarketDoc, reason: string): Model<"Dispute"> {
  return { marketId: m._id, reason, createdAt: m.updatedAt, resolution: resolutionView(m.resolution)! };
}

export function renderInternal(m: MarketDoc): MarketInternal {
  return {
    id: m._id,
    eventId: m.eventId,
    title: m.title,
    outcomeLabel: m.outcomeLabel ?? null,
    status: m.status,
    result: m.result,
    conditionId: m.conditionId,
    ammLiquidity: m.ammLiquidity,
    ...(m.yesPayout !== undefined ? { yesPayout: m.yesPayout } : {}),
    ...(m.tradingMode ? { tradingMode: { mode: m.tradingMode, reason: m.tradingModeReason ?? null } } : {}),
  };
}

export function renderEventInternal(e: EventDoc, markets: MarketDoc[]): EventInternal {
  return {
    id: e._id,
    mutuallyExclusive: e.mutuallyExclusive ?? false,
    exhaustive: e.exhaustive ?? false,
    ammLiquidity: e.ammLiquidity ?? "0",
    markets: markets.map(renderInternal),
  };
}

export type PublicTradeView = Model<"PublicTrade">;

/**
 * A print on the public tape: its exact price from its notional (a pool's leg is an average, not
 * a tick). A print recorded before the taker was kept shows as a YES buy.
 */
export function publicTradeView(p: PrintDoc): PublicTradeView {
  const outcome = p.takerOutcome ?? "YES";
  const yesCash = p.notional;
  return {
    marketId: p.marketId,
    tradeId: p._id,
    outcome,
    side: p.takerSide ?? "BUY",
    price: formatAvgPrice(outcome === "YES" ? yesCash : p.quantity - yesCash, p.quantity),
    quantity: String(p.quantity),
    yesPrice: formatAvgPrice(yesCash, p.quantity),
    at: p.at,
  };
}
