import type { Model } from "../contract";
import type { EventDoc, LivePrice, MarketDoc, MarketInternal } from "../models/catalog";
import { formatMicro } from "../engine/money";
import { resolutionView } from "./catalog";

/** MarketItem of the spec, plus the additive `eventId` and `conditionId` (the contract's shape). */
export type MarketView = Model<"MarketItem">;

/** Event of the spec (the contract's shape). */
export type EventView = Model<"Event">;

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

export function renderEvent(e: EventDoc, markets: MarketView[] = []): EventView {
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
    markets,
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
    status: m.status,
    result: m.result,
    conditionId: m.conditionId,
    ammLiquidity: m.ammLiquidity,
    ...(m.yesPayout !== undefined ? { yesPayout: m.yesPayout } : {}),
    ...(m.tradingMode ? { tradingMode: { mode: m.tradingMode, reason: m.tradingModeReason ?? null } } : {}),
  };
}
