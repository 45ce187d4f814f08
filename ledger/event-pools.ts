/**
 * The LMSR pool across a mutually exclusive event (engine/event-pool.ts), owned by the ledger.
 *
 * Why here: a trade against the event's pool moves the pool's cash and one market's shares and
 * collateral, and its price depends on the pool's shares across every market of the event. The
 * markets' actors each write one market (and may live on different engines); the ledger is the one
 * writer of all of them, applies an entry in one turn, and the pool's state is a function of its
 * books. So quote, plan and post happen in one synchronous step here, with no lease, journal or
 * store of the pool's own. (The book legs of these markets stay with their actors: a market order
 * on a market of such an event trades with the pool.)
 */
import type { CashAccount, PositionState } from "../engine/accounts";
import { eventPoolAccount, eventPoolFunding, planEventPoolTrade, poolState } from "../engine/event-pool";
import { liquidityParameter, NONE_OUTCOME, prices, type LmsrState } from "../engine/lmsr";
import type { TradeRecord } from "../engine/settlement";
import { Refusal } from "../engine/refusal";
import type { EventInternal, MarketInternal, MarketTradeEvent } from "../models/catalog";
import type {
  EventPoolRecord,
  EventPoolSnapshot,
  EventPoolView,
  IdemKey,
  PostInput,
  PostOutcome,
  RouteExecution,
  RouteRequest,
} from "../models/trading";

/** The codes a trade against an event's pool is refused with (besides the ledger's own). */
export const EVENT_POOL_CODES = ["MARKET_NOT_OPEN", "TRADING_PAUSED", "VALIDATION_ERROR", "INSUFFICIENT_LIQUIDITY"] as const;
export type EventPoolCode = (typeof EVENT_POOL_CODES)[number];

const refused = (code: EventPoolCode, message: string) => new Refusal<EventPoolCode>("rejected", code, message);
const conflicting = (code: EventPoolCode, message: string) => new Refusal<EventPoolCode>("conflict", code, message);

export interface EventPoolPorts {
  market(marketId: string): Promise<MarketInternal>;
  event(eventId: string): Promise<EventInternal>;
  balance(account: string): CashAccount;
  positionsOf(account: string): PositionState[];
  /** Applied in memory at once (the ledger's post), durable later. */
  post(entry: PostInput): PostOutcome;
  waitDurable(seq: number): Promise<void>;
  /** The exchange-wide trading mode (the catalog's). */
  exchangeMode(): Promise<{ mode: string; reason: string | null }>;
  feeBps: number;
  newId(prefix: string): string;
}

/** A market order or its quote is admitted only while the market and the exchange trade normally. */
async function checkNormal(p: EventPoolPorts, m: MarketInternal): Promise<void> {
  const ex = await p.exchangeMode();
  const s = m.tradingMode && m.tradingMode.mode !== "normal" ? m.tradingMode : ex.mode !== "normal" ? ex : null;
  if (s)
    throw conflicting(
      "TRADING_PAUSED",
      `Trading is ${s.mode} in this market${s.reason ? `: ${s.reason}` : ""}; a market order is not accepted`,
    );
}

/** The event's pool, when the market's event has one (mutually exclusive with event-level liquidity). */
async function eventOf(p: EventPoolPorts, marketId: string): Promise<EventInternal | null> {
  const m = await p.market(marketId);
  // A market with a pool of its own is not one of an event pool's (the catalog funds one or the other).
  if (!m.eventId || Number(m.ammLiquidity) > 0) return null;
  const e = await p.event(m.eventId);
  return e.mutuallyExclusive && Number(e.ammLiquidity) > 0 ? e : null;
}

/** The pool's LMSR state: outcomes are the markets not yet resolved or cancelled (and none). */
function stateOf(p: EventPoolPorts, e: EventInternal): LmsrState {
  const funding = Number(e.ammLiquidity);
  const b = liquidityParameter(funding, e.markets.length + (e.exhaustive ? 0 : 1));
  const outcomes = [
    ...e.markets.filter((m) => m.status === "open" || m.status === "closed").map((m) => m.id),
    ...(e.exhaustive ? [] : [NONE_OUTCOME]),
  ];
  return poolState(b, books(p, e.id), outcomes);
}

function books(p: EventPoolPorts, eventId: string) {
  const account = eventPoolAccount(eventId);
  return { cash: p.balance(account).available, positions: p.positionsOf(account) };
}

/** The house funds the pool once, before its first trade (the key makes a second funding a no-op). */
function ensureFunded(p: EventPoolPorts, e: EventInternal): void {
  const account = eventPoolAccount(e.id);
  const b = p.balance(account);
  if (b.available !== 0 || b.locked !== 0 || p.positionsOf(account).length) return;
  p.post({ key: `evpool-fund:${e.id}`, postings: eventPoolFunding(e.id, Number(e.ammLiquidity)) });
}

export async function eventPoolView(p: EventPoolPorts, eventId: string): Promise<EventPoolView | null> {
  const e = await p.event(eventId);
  if (!e.mutuallyExclusive || !(Number(e.ammLiquidity) > 0)) return null;
  // Before its funding the pool's books are empty: every outcome worth the same, as funded.
  const s = stateOf(p, e);
  return { eventId, b: s.b, prices: Object.fromEntries([...prices(s)].map(([k, v]) => [k, String(v)])) };
}

/**
 * The pool of this market's race as the market's actor routes a market order against it (with its
 * book): its parameters and its books now, funded first. Null: the market has no race pool, or is
 * not open (the actor refuses that itself).
 */
export async function eventPoolSnapshot(p: EventPoolPorts, marketId: string): Promise<EventPoolSnapshot | null> {
  const e = await eventOf(p, marketId);
  if (!e || e.markets.find((m) => m.id === marketId)?.status !== "open") return null;
  ensureFunded(p, e);
  const s = stateOf(p, e);
  const { cash, positions } = books(p, e.id);
  return {
    eventId: e.id,
    b: s.b,
    outcomes: s.outcomes.map((o) => o.id),
    cash,
    positions: positions.map(({ marketId: m, outcome, quantity, totalCost, realizedPnl, settled }) => ({
      marketId: m,
      outcome,
      quantity,
      totalCost,
      realizedPnl,
      settled,
    })),
    feeBps: p.feeBps,
  };
}

/** The market is open and trading normally (the catalog's facts, asked before planning). */
async function admit(p: EventPoolPorts, e: EventInternal, r: RouteRequest): Promise<void> {
  const m = e.markets.find((x) => x.id === r.marketId);
  if (!m || m.status !== "open") throw conflicting("MARKET_NOT_OPEN", `Market ${r.marketId} is not open`);
  await checkNormal(p, m);
}

/**
 * Synchronous from reading the books to the caller's post: no other entry may apply in between,
 * or the trade would be priced on a pool that has moved.
 */
/**
 * The YES price each market of an event pool has there (micro-units over 1000000, for the markets'
 * live prices); markets without an event pool are left out.
 */
export async function eventPoolPrices(
  p: EventPoolPorts,
  marketIds: readonly string[],
): Promise<Record<string, { num: string; den: string }>> {
  const out: Record<string, { num: string; den: string }> = {};
  const events = new Map<string, EventInternal | null>();
  for (const id of marketIds) {
    const m = await p.market(id).catch(() => null);
    if (!m?.eventId || Number(m.ammLiquidity) > 0) continue;
    if (!events.has(m.eventId)) events.set(m.eventId, await eventOf(p, id));
  }
  for (const e of events.values()) {
    if (!e) continue;
    for (const [id, price] of prices(stateOf(p, e))) if (marketIds.includes(id)) out[id] = { num: String(price), den: "1000000" };
  }
  return out;
}

function plan(p: EventPoolPorts, e: EventInternal, r: RouteRequest) {
  ensureFunded(p, e);
  const state = stateOf(p, e);
  const t = {
    eventId: e.id,
    userId: r.userId,
    side: r.side,
    marketId: r.marketId,
    outcome: r.outcome,
    quantity: r.quantity,
    feeBps: p.feeBps,
  };
  const pl = planEventPoolTrade(state, books(p, e.id), t);
  if (!pl.ok)
    throw pl.reason === "INVALID_QUANTITY"
      ? refused("VALIDATION_ERROR", "quantity must be a positive multiple of 100 micro-units")
      : refused("INSUFFICIENT_LIQUIDITY", `The event's pool cannot take this trade: ${pl.reason}`);
  // The ledger checks the trade against this record as it applies it (a market whose end it journaled is refused).
  const record: EventPoolRecord = { ...t, b: state.b, outcomes: state.outcomes.map((o) => o.id), cash: pl.quote.cash, fee: pl.quote.fee };
  return { ...pl, record };
}

/** What the trade would cost now, without executing (POST /markets/:id/quote); null: no event pool. */
export async function eventPoolQuote(p: EventPoolPorts, r: RouteRequest) {
  const e = await eventOf(p, r.marketId);
  if (!e) return null;
  await admit(p, e, r);
  const { quote } = plan(p, e, r);
  return { venue: "AMM" as const, filled: r.quantity, totalCost: quote.cash, fee: quote.fee, avgPrice: quote.avgPrice };
}

/** POST /trade/amm or /trade/market on a market of an event with one pool; null: no event pool. */
export async function eventPoolTrade(p: EventPoolPorts, r: RouteRequest): Promise<RouteExecution | null> {
  const e = await eventOf(p, r.marketId);
  if (!e) return null;
  await admit(p, e, r);
  const { quote, postings, record } = plan(p, e, r);
  const tradeId = p.newId("trd");
  const trade: TradeRecord = {
    tradeId,
    userId: r.userId,
    marketId: r.marketId,
    orderId: p.newId("ord"),
    side: r.side,
    outcome: r.outcome,
    venue: "AMM",
    role: "taker",
    filledQuantity: r.quantity,
    totalCost: quote.cash,
    fee: quote.fee,
    // The pool's one fill is the trade itself: its print and the public tape name it alike.
    fillIds: [tradeId],
  };
  const value: RouteExecution = {
    tradeId: trade.tradeId,
    venue: "AMM",
    filledQuantity: r.quantity,
    totalCost: quote.cash,
    fee: quote.fee,
    avgPrice: quote.avgPrice,
  };
  const out = p.post({
    key: `evamm:${trade.tradeId}`,
    postings,
    trades: [trade],
    eventPool: record,
    ...(r.idem ? { idem: { ...(r.idem as IdemKey), status: 200, response: tradeAnswer(value) } } : {}),
  });
  await p.waitDurable(out.seq);
  return value;
}

/** The route's answer as the gateway sends it (the key's stored answer). */
function tradeAnswer(r: RouteExecution) {
  return {
    tradeId: r.tradeId,
    venue: r.venue,
    filledQuantity: String(r.filledQuantity),
    avgPrice: r.avgPrice,
    totalCost: String(r.totalCost),
    fee: String(r.fee),
  };
}

/**
 * The print of a trade against an event's pool for price history and volume, as a market's own
 * pool prints: its average price to the cent in YES terms, its notional in YES terms.
 */
export function eventPoolPrint(r: Pick<RouteRequest, "marketId" | "outcome" | "side">, x: RouteExecution, at: string): MarketTradeEvent {
  const ticks = Math.min(99, Math.max(1, Math.round((x.totalCost * 100) / x.filledQuantity)));
  return {
    marketId: r.marketId,
    tradeId: x.tradeId,
    outcome: "YES",
    yesPrice: r.outcome === "YES" ? ticks : 100 - ticks,
    quantity: x.filledQuantity,
    notional: r.outcome === "YES" ? x.totalCost : x.filledQuantity - x.totalCost,
    takerSide: r.side,
    takerOutcome: r.outcome,
    at,
  };
}

/** The pool's YES price of every market of this market's event (a trade moves them all); {} without an event pool. */
export async function eventPoolPricesAround(p: EventPoolPorts, marketId: string): Promise<Record<string, { num: string; den: string }>> {
  const e = await eventOf(p, marketId);
  return e
    ? eventPoolPrices(
        p,
        e.markets.map((m) => m.id),
      )
    : {};
}
