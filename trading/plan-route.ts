import type { BookEvent, Order, Outcome, Side } from "../engine/types";
import { cost } from "../engine/money";
import type { Posting } from "../engine/accounts";
import { ammLegPostings, placementLock, poolFunding, settlePlacement, type Settlement, type TradeRecord } from "../engine/settlement";
import { createPool } from "../engine/amm";
import { planAmmOnly, planRoute, planRouteVia, type AmmLeg, type RoutePlan } from "../engine/router";
import { eventPoolVenue, planEventPoolTrade, poolState } from "../engine/event-pool";
import type { LmsrState } from "../engine/lmsr";
import type { EventPoolRecord, EventPoolSnapshot, RouteExecution } from "../models/trading";
import { checkAdmitted } from "./trading-modes";
import { Refusal } from "../engine/refusal";
import type { TradingCode } from "./refusals";
import type { RouteCommand } from "./commands";
import { requireOpen, type AmmPrint, type CommandPlan, type MarketView } from "./plan";

/** The race's pool of a ROUTE order, as its snapshot came with the command; null: none. */
function racePool(cmd: RouteCommand): EventPoolSnapshot | null {
  return cmd.mode === "ROUTE" && cmd.eventPool ? cmd.eventPool : null;
}

const poolBooks = (ep: EventPoolSnapshot) => ({ cash: ep.cash, positions: ep.positions });

/**
 * A market order of a race's market between its book and the race's pool: best price first, the
 * pool's marginal LMSR price against the book's levels (engine/router.ts), the whole quantity.
 */
function racePlan(view: MarketView, cmd: RouteCommand, ep: EventPoolSnapshot): RoutePlan<LmsrState> {
  const state = poolState(ep.b, poolBooks(ep), ep.outcomes);
  const r = planRouteVia(
    { side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity },
    view.book.sweep(cmd.side, cmd.outcome, cmd.quantity, { excludeUserId: cmd.userId }).levels,
    view.fees.takerBps,
    eventPoolVenue(state, view.marketId, ep.feeBps),
    ep.feeBps,
  );
  if (!r.ok)
    throw new Refusal<TradingCode>(
      "rejected",
      r.reason === "INSUFFICIENT_LIQUIDITY" ? "INSUFFICIENT_LIQUIDITY" : r.reason,
      `Cannot fill the whole quantity: ${r.reason}`,
    );
  return r;
}

/** Plan a market order against the book (other users' orders) and/or the pool. */
function routePlan(view: MarketView, cmd: RouteCommand): RoutePlan {
  const order = { side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity };
  const r =
    cmd.mode === "AMM"
      ? planAmmOnly(order, view.pool, view.ammFeeBps)
      : planRoute(order, {
          levels: view.book.sweep(cmd.side, cmd.outcome, cmd.quantity, { excludeUserId: cmd.userId }).levels,
          takerBps: view.fees.takerBps,
          pool: view.pool,
          ammFeeBps: view.ammFeeBps,
        });
  if (!r.ok) {
    if (r.reason === "INSUFFICIENT_LIQUIDITY" && cmd.mode === "AMM" && !view.pool)
      throw new Refusal<TradingCode>("rejected", "NO_AMM", "This market has no AMM pool");
    throw new Refusal<TradingCode>(
      "rejected",
      r.reason === "INSUFFICIENT_LIQUIDITY" ? "INSUFFICIENT_LIQUIDITY" : r.reason,
      `Cannot fill the whole quantity: ${r.reason}`,
    );
  }
  return r;
}

/** Price a market order exactly as `route` would execute it now, without executing. */
export function planQuote(view: MarketView, cmd: RouteCommand): RoutePlan<unknown> {
  requireOpen(view, "");
  checkAdmitted(view.mode, "quote");
  const ep = racePool(cmd);
  return ep ? racePlan(view, cmd, ep) : routePlan(view, cmd);
}

/** What a market order holds before it executes: a BUY's cash for both legs, a SELL's shares. */
function routeLock(view: MarketView, cmd: RouteCommand, bookOrder: Order, amm: Pick<AmmLeg, "cash" | "fee"> | null): Posting[] {
  if (cmd.side !== "BUY")
    return [{ kind: "shares", account: cmd.userId, marketId: view.marketId, outcome: cmd.outcome, locked: cmd.quantity }];
  const lock: Posting[] = [];
  if (bookOrder.quantity) lock.push(...placementLock(bookOrder, view.marketId, cmd.userId, view.fees));
  if (amm) lock.push({ kind: "cash", account: cmd.userId, available: -(amm.cash + amm.fee), locked: amm.cash + amm.fee });
  return lock;
}

/** The book leg: a FOK at the plan's worst book price, settled into `s`; the taker's cash, fee and fills. */
function bookLeg(view: MarketView, bookOrder: Order, s: Settlement) {
  const events: BookEvent[] = view.book.preview(bookOrder);
  // Cannot happen while the plan was made inside this command; refuse cleanly if it does.
  if (events.some((e) => e.type === "rejected"))
    throw new Refusal<TradingCode>("conflict", "BOOK_CHANGED", "The book changed; nothing was executed");
  const bs = settlePlacement(view.marketId, bookOrder, events, view.fees, view.newId);
  const taker = bs.trades.find((t) => t.role === "taker");
  s.postings.push(...bs.postings);
  s.trades.push(...bs.trades.filter((t) => t.role !== "taker"));
  s.fills.push(...bs.fills);
  s.orders.push(...bs.orders.filter((o) => o.orderId !== bookOrder.orderId));
  return { events, cash: taker?.totalCost ?? 0, fee: taker?.fee ?? 0, fillIds: taker?.fillIds ?? [] };
}

/** The AMM leg, settled into `s`; its print. */
function ammLeg(view: MarketView, cmd: RouteCommand, amm: AmmLeg, s: Settlement): AmmPrint {
  s.postings.push(...ammLegPostings(view.marketId, cmd.userId, cmd.side, cmd.outcome, amm));
  return { fillId: view.newId("fil"), side: cmd.side, outcome: cmd.outcome, quantity: amm.quantity, cash: amm.cash };
}

/**
 * The leg against the race's pool, settled into `s` as the ledger would plan it on the pool's books
 * (engine/event-pool.ts), the trader's side out of what the route locked; its print and its
 * record (the ledger plans it again when the entry applies).
 */
function racePoolLeg(
  view: MarketView,
  cmd: RouteCommand,
  ep: EventPoolSnapshot,
  amm: AmmLeg<LmsrState>,
  s: Settlement,
): { print: AmmPrint; record: EventPoolRecord } {
  const trade = {
    eventId: ep.eventId,
    userId: cmd.userId,
    side: cmd.side,
    marketId: view.marketId,
    outcome: cmd.outcome,
    quantity: amm.quantity,
    feeBps: ep.feeBps,
  };
  const plan = planEventPoolTrade(poolState(ep.b, poolBooks(ep), ep.outcomes), poolBooks(ep), trade);
  // Cannot happen while the route was planned on the same snapshot; refuse cleanly if it does.
  if (!plan.ok || plan.quote.cash !== amm.cash || plan.quote.fee !== amm.fee)
    throw new Refusal<TradingCode>("conflict", "BOOK_CHANGED", "The event's pool changed; nothing was executed");
  for (const p of plan.postings) {
    if (p.kind === "cash" && p.account === cmd.userId && cmd.side === "BUY")
      s.postings.push({ kind: "cash", account: p.account, locked: p.available });
    else if (p.kind === "shares" && p.account === cmd.userId && cmd.side === "SELL") s.postings.push({ ...p, locked: p.quantity });
    else s.postings.push(p);
  }
  return {
    print: { fillId: view.newId("fil"), side: cmd.side, outcome: cmd.outcome, quantity: amm.quantity, cash: amm.cash },
    record: { ...trade, b: ep.b, outcomes: ep.outcomes, cash: amm.cash, fee: amm.fee },
  };
}

/**
 * A market order filled completely or not at all: the book leg runs as a FOK at the plan's
 * worst book price, the AMM leg against the pool, both inside this one command, so either every
 * leg is applied (one journal entry, one ledger entry) or none is.
 */
export function planMarketOrder(view: MarketView, cmd: RouteCommand): CommandPlan<RouteExecution> {
  requireOpen(view, "; trades are not accepted");
  checkAdmitted(view.mode, "route");
  const ep = racePool(cmd);
  const plan: RoutePlan<unknown> = ep ? racePlan(view, cmd, ep) : routePlan(view, cmd);
  const orderId = view.newId("ord");
  const bookQty = plan.legs.book.reduce((a, l) => a + l.quantity, 0);
  const worst = plan.legs.book.length ? plan.legs.book[plan.legs.book.length - 1].price : 0;
  const bookOrder: Order = {
    orderId,
    userId: cmd.userId,
    side: cmd.side,
    outcome: cmd.outcome,
    price: worst,
    quantity: bookQty,
    orderType: "FOK",
  };
  const amm = plan.legs.amm;
  const s: Settlement = { postings: routeLock(view, cmd, bookOrder, amm), trades: [], fills: [], orders: [] };
  const checkAfter = s.postings.length;
  const book = bookQty ? bookLeg(view, bookOrder, s) : { events: [], cash: 0, fee: 0, fillIds: [] };
  const race = amm && ep ? racePoolLeg(view, cmd, ep, amm as AmmLeg<LmsrState>, s) : undefined;
  const print = race ? race.print : amm ? ammLeg(view, cmd, amm as AmmLeg, s) : undefined;
  const trade: TradeRecord = {
    tradeId: view.newId("trd"),
    userId: cmd.userId,
    marketId: view.marketId,
    orderId,
    side: cmd.side,
    outcome: cmd.outcome,
    venue: plan.venue,
    role: "taker",
    filledQuantity: plan.filled,
    totalCost: book.cash + (amm?.cash ?? 0),
    fee: book.fee + (amm?.fee ?? 0),
    fillIds: print ? [...book.fillIds, print.fillId] : [...book.fillIds],
  };
  s.trades.push(trade);
  const { tradeId, venue, filledQuantity, totalCost, fee } = trade;
  return {
    value: { tradeId, venue, filledQuantity, totalCost, fee, avgPrice: plan.avgPrice },
    command: { type: "route", orderId, userId: cmd.userId, side: cmd.side, outcome: cmd.outcome, quantity: cmd.quantity, mode: cmd.mode },
    settlement: s,
    bookSeq: book.events.length ? book.events[book.events.length - 1].seq : view.book.seq,
    checkAfter,
    pool: amm && !ep ? (amm as AmmLeg).newState : undefined,
    amm: print,
    ...(race ? { eventPool: race.record } : {}),
    apply: (b) => {
      if (bookQty) b.place(bookOrder);
    },
  };
}

/** The pool's funding: house cash into a new pool of `liquidity` (once per market, the journal sees to it). */
export function planFunding(view: MarketView, liquidity: number): CommandPlan<void> {
  return {
    value: undefined,
    command: { type: "ammFund", liquidity },
    settlement: { postings: poolFunding(view.marketId, liquidity), trades: [], fills: [], orders: [] },
    bookSeq: view.book.seq,
    pool: createPool(liquidity),
    apply: () => undefined,
  };
}

/**
 * What selling `quantity` right now would fetch, without executing: through the router (book
 * and pool) when it can take it all, else the part the book alone can absorb.
 */
export function exitQuote(
  view: Pick<MarketView, "book" | "pool" | "fees" | "ammFeeBps">,
  outcome: Outcome,
  quantity: number,
  side: Side,
  excludeUserId?: string,
): { filled: number; proceeds: number } {
  if (view.pool && quantity > 0) {
    const levels = view.book.sweep(side, outcome, quantity, { excludeUserId }).levels;
    const r = planRoute({ side, outcome, quantity }, { levels, takerBps: view.fees.takerBps, pool: view.pool, ammFeeBps: view.ammFeeBps });
    if (r.ok) return { filled: r.filled, proceeds: r.totalCost };
  }
  const sw = view.book.sweep(side, outcome, quantity, { excludeUserId });
  let proceeds = 0;
  for (const l of sw.levels) proceeds += cost(l.quantity, l.price);
  return { filled: sw.filled, proceeds };
}
