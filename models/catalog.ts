import type { Outcome, Side } from "../engine/types";
import type { TradingMode } from "./trading-mode";

export const CATEGORIES = ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"] as const;
export type Category = (typeof CATEGORIES)[number];

/** How a market resolves: YES or NO wins in full, SPLIT pays 0.50 per YES and per NO share. */
export const MARKET_RESULTS = ["YES", "NO", "SPLIT"] as const;
export type MarketResult = (typeof MARKET_RESULTS)[number];

/** Where a market's result is read from (shown to traders). */
export interface SettlementSource {
  name: string;
  url: string;
}

/** A proposed result and its dispute window (null on the market until proposed). */
export interface ResolutionDoc {
  proposedResult: MarketResult;
  note: string | null;
  /** ISO 8601; also the proposal's identity (a user disputes a proposal once). */
  proposedAt: string;
  disputeEndsAt: string;
  disputed: boolean;
  disputes: number;
  finalizedAt: string | null;
}

/** A market's states (catalog/lifecycle.ts moves it between them). */
export const MARKET_STATUSES = ["open", "closed", "resolved", "resolution_failed", "cancelled"] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

/** Price history intervals (catalog/candles.ts buckets them). */
export const INTERVALS = ["1H", "1D", "1W", "1M", "MAX"] as const;
export type Interval = (typeof INTERVALS)[number];

/** An event as stored. Money is integer micro-units; optional display fields render as "". */
export interface EventDoc {
  _id: string;
  /** Absent when the operator gave none; unique when present (idempotent imports). */
  externalEventId?: string;
  title: string;
  subtitle: string;
  category: Category;
  subcategory: string;
  imageUrl: string;
  /** Micro-USDT traded across the event's markets. */
  volumeUsd: number;
  isActive: boolean;
  isLive: boolean;
  /** ISO 8601 UTC, always `toISOString()` form so it sorts as text. */
  beginAt: string;
  tags: string[];
  /** At most one market ever resolves YES (absent on events made before: false). */
  mutuallyExclusive?: boolean;
  /** Mutually exclusive and exactly one market wins (an "Other" outcome is listed). */
  exhaustive?: boolean;
  /** Micro-USDT of the one AMM across the event's outcomes ("0" or absent: none). */
  ammLiquidity?: string;
  /** A mutually exclusive event's winner, recorded before its markets resolve (null: none won). */
  decision?: { winnerMarketId: string | null; at: string };
  /** The pending proposal of the whole event (its markets carry it with this proposedAt). */
  proposal?: { winnerMarketId: string | null; proposedAt: string; disputeEndsAt: string };
  /** Denormalised for search. */
  marketTitles: string[];
  searchText: string;
  createdAt: string;
  updatedAt: string;
}

/** A binary market as stored. */
export interface MarketDoc {
  _id: string;
  eventId: string;
  /** Display order inside the event. */
  position: number;
  title: string;
  /** The outcome this market stands for in its event ("Alice"); absent or null: none given. */
  outcomeLabel?: string | null;
  status: MarketStatus;
  result: MarketResult | null;
  outcomes: ["YES", "NO"];
  /** Micro-USDT traded. */
  volume: number;
  /** The last trade's YES price in ticks (cents) and when it printed; absent before the first. */
  lastYesPrice?: number;
  lastTradeAtMs?: number;
  conditionId: string;
  /** Micro-USDT the AMM seeds its pool with ("0": no AMM pool). */
  ammLiquidity: string;
  /** Once ended (resolved or cancelled): micro-USDT per YES share; NO pays 1_000_000 minus it. */
  yesPayout?: number;
  /** The operator's trading mode for this market (absent: normal) and the reason given. */
  tradingMode?: TradingMode;
  tradingModeReason?: string | null;
  /** What decides YES (absent on markets created before rules existed: null). */
  rules?: string | null;
  settlementSources?: SettlementSource[];
  /** ISO 8601 (toISOString form, so it compares as text); the market closes by itself then. */
  closeTime?: string | null;
  resolution?: ResolutionDoc | null;
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  resolvedAt?: string;
  cancelledAt?: string;
  resolutionFailedAt?: string;
  resolutionFailureReason?: string;
}

/** One trade as the catalog saw it (`market.trade`), keyed by tradeId so a replay is a no-op. */
export interface PrintDoc {
  _id: string;
  marketId: string;
  outcome: Outcome;
  yesPrice: number;
  quantity: number;
  notional: number;
  /** The taker's side and outcome (the public tape); absent on prints recorded before they were kept. */
  takerSide?: Side;
  takerOutcome?: Outcome;
  at: string;
  atMs: number;
}

/** One user's dispute of one proposal (`<marketId>:<proposedAt>:<userId>`: at most one each). */
export interface DisputeDoc {
  _id: string;
  marketId: string;
  proposedAt: string;
  userId: string;
  reason: string;
  at: string;
}

/** Bookkeeping documents (the demo seed marker). */
export interface CatalogMetaDoc {
  _id: string;
  done: boolean;
  claimedBy: string;
  at: string;
}

/** The exchange-wide trading mode (one record). */
export interface TradingModeDoc {
  _id: string;
  mode: TradingMode;
  reason: string | null;
  updatedAt: string;
}

export type CatalogCollections = {
  events: EventDoc;
  markets: MarketDoc;
  prints: PrintDoc;
  catalogMeta: CatalogMetaDoc;
  tradingModes: TradingModeDoc;
  disputes: DisputeDoc;
};

/** Live prices as the router quotes them: decimal strings, null where there is no liquidity. */
export interface LivePrice {
  buyYesPrice: string | null;
  buyNoPrice: string | null;
  sellYesPrice: string | null;
  sellNoPrice: string | null;
}

/** `catalog.getMarketInternal`: the raw facts other services act on. */
export interface MarketInternal {
  id: string;
  eventId: string;
  title: string;
  outcomeLabel?: string | null;
  status: MarketStatus;
  result: MarketResult | null;
  conditionId: string;
  ammLiquidity: string;
  /** Micro-USDT per YES share the market pays at its end (cancelled: the cancel price); absent until then. */
  yesPayout?: number;
  /** The operator's trading mode for this market (absent: normal). */
  tradingMode?: { mode: TradingMode; reason: string | null };
}

/** Broker events this service emits. */
export interface MarketOpenedEvent {
  marketId: string;
  eventId: string;
  ammLiquidity: string;
}
export interface MarketClosedEvent {
  marketId: string;
}
export interface MarketCancelledEvent {
  marketId: string;
  /** Micro-USDT each YES share is paid (NO: 1_000_000 minus it), out of the market's own collateral. */
  yesPayout: number;
}
export interface MarketResolvedEvent {
  marketId: string;
  result: MarketResult;
  conditionId: string;
  /** Micro-USDT each YES share pays (YES 1_000_000, NO 0, SPLIT 500_000); NO pays the rest. */
  yesPayout: number;
  /** Part of a mutually exclusive event's one-step resolution: settled by its `event.resolved`. */
  eventStep?: string;
}
/** A mutually exclusive event resolved as one step: the markets of that step and their results. */
export interface EventResolvedEvent {
  eventId: string;
  /** null: none of its markets won. */
  winnerMarketId: string | null;
  markets: Array<{ marketId: string; result: "YES" | "NO"; conditionId: string }>;
}
/** A market's status or resolution changed (every gateway tells the market channel). */
export interface MarketLifecycleEvent {
  marketId: string;
  status: MarketStatus;
  /** The wire form of the market's resolution (contract's Resolution: the doc's fields, as stored). */
  resolution: ResolutionDoc | null;
  tradingMode: TradingMode;
}
/** A proposal was made, or first disputed (the notifier tells every holder). */
export interface ResolutionNoticeEvent {
  marketId: string;
  proposedResult: MarketResult;
  proposedAt: string;
  disputeEndsAt: string;
}
export interface MarketResolutionFailedEvent {
  marketId: string;
}

/** `market.trade`, consumed here (emitted by whoever executes trades). */
export interface MarketTradeEvent {
  marketId: string;
  tradeId: string;
  outcome: Outcome;
  yesPrice: number;
  quantity: number;
  notional: number;
  /** The taker's side and outcome, for the public tape. */
  takerSide?: Side;
  takerOutcome?: Outcome;
  at: string;
}

/** `catalog.listEvents` (GET /events). */
export interface ListEventsParams {
  category: Category | "all";
  page: number;
  pageSize: number;
  search?: string;
}
/** `catalog.searchEvents` (GET /events/search). */
export interface SearchEventsParams {
  q: string;
  page: number;
  pageSize: number;
}
/** `catalog.priceHistory` (GET /markets/:marketId/price-history). */
export interface PriceHistoryParams {
  marketId: string;
  outcome: Outcome;
  interval: Interval;
}
/** A market's rules and schedule, as the operator gives them. */
export interface MarketTerms {
  rules?: string | null;
  settlementSources?: SettlementSource[];
  closeTime?: string | null;
}
export interface NewMarketInput extends MarketTerms {
  title: string;
  ammLiquidity?: string;
  /** 1-40 characters; required in a mutually exclusive event. */
  outcomeLabel?: string;
}
/** `catalog.createEvent` (POST /admin/events). */
export interface CreateEventParams {
  title: string;
  subtitle?: string;
  category: Category;
  subcategory?: string;
  imageUrl?: string;
  externalEventId?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  /** One winner at most among the markets (2 to 64 of them, each with an outcomeLabel). */
  mutuallyExclusive?: boolean;
  /** Only with mutuallyExclusive: exactly one of them wins. */
  exhaustive?: boolean;
  /** One AMM across the event's outcomes (micro-USDT), instead of a pool per market. */
  ammLiquidity?: string;
  markets: NewMarketInput[];
}
/** `catalog.updateEvent` (PATCH /admin/events/:id). */
export interface UpdateEventParams {
  id: string;
  title?: string;
  subtitle?: string;
  category?: Category;
  subcategory?: string;
  imageUrl?: string;
  beginAt?: string;
  tags?: string[];
  isActive?: boolean;
  isLive?: boolean;
  /** Retitle markets of this event, or change their rules and schedule. */
  markets?: Array<{ id: string; title?: string } & MarketTerms>;
}
/** `catalog.addOutcome` (POST /admin/events/:id/markets). */
export interface AddOutcomeParams {
  id: string;
  title: string;
  outcomeLabel: string;
}
/** `catalog.resolveEvent`: the winner YES, every other market still undecided NO, as one step. */
export interface ResolveEventParams {
  id: string;
  /** null: none of them won (refused on an exhaustive event). */
  winnerMarketId: string | null;
}
/** `catalog.proposeEvent`: one proposal for the whole event, finalized as one step. */
export interface ProposeEventParams {
  id: string;
  winnerMarketId: string | null;
  note?: string;
}
/** `catalog.getEventInternal`: an event's facts other services act on (conversion, the event AMM). */
export interface EventInternal {
  id: string;
  mutuallyExclusive: boolean;
  exhaustive: boolean;
  /** Micro-USDT of the event-level AMM ("0": none). */
  ammLiquidity: string;
  /** In display order. */
  markets: MarketInternal[];
}
/** `catalog.failResolution`. */
export interface FailResolutionParams {
  id: string;
  reason?: string;
}

/** `catalog.marketTitles`: what a position shows of its market. */
export interface MarketTitle {
  title: string;
  status?: string;
  result?: string | null;
}
