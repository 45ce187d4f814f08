import { cost, feeOn, feeWeight, formatAvgPrice, placementBuyLock, restingBuyLock, type FeeSchedule, type MicroUnits } from "./money";
import type { Posting } from "./accounts";
import type { BookEvent, FillEvent, FillKind, Order, Outcome, Side, Tick } from "./types";

/** A user's view of one execution: the trade record behind GET /trades and the TRADE_FILLED notice. */
export interface TradeRecord {
  tradeId: string;
  userId: string;
  marketId: string;
  orderId: string;
  side: Side;
  outcome: Outcome;
  venue: "CLOB" | "AMM" | "HYBRID";
  role: "taker" | "maker";
  filledQuantity: MicroUnits;
  /** BUY: cash paid for the shares; SELL: gross proceeds. Fees are separate. */
  totalCost: MicroUnits;
  fee: MicroUnits;
  fillIds: string[];
}

/** A trade record in the contract's wire shape: amounts as digit strings, avgPrice a decimal. */
export function tradeRecordView(t: TradeRecord) {
  return {
    tradeId: t.tradeId,
    marketId: t.marketId,
    orderId: t.orderId,
    side: t.side,
    outcome: t.outcome,
    venue: t.venue,
    role: t.role,
    filledQuantity: String(t.filledQuantity),
    avgPrice: formatAvgPrice(t.totalCost, t.filledQuantity),
    totalCost: String(t.totalCost),
    fee: String(t.fee),
  };
}

export interface FillRecord {
  fillId: string;
  marketId: string;
  kind: FillKind;
  makerOrderId: string;
  takerOrderId: string;
  makerUserId: string;
  takerUserId: string;
  quantity: MicroUnits;
  /** Execution price in YES terms. */
  yesPrice: Tick;
  seq: number;
}

/** Why a resting order left the book without filling (the trader API's `cancelReason`). */
export type CancelReasonCode =
  "user" | "expired" | "heartbeat" | "self_trade" | "market_closed" | "market_cancelled" | "market_resolved" | "paused" | "order_group";

export interface OrderChange {
  orderId: string;
  userId: string;
  /** Quantity filled by this command (added to the order's filledQuantity). */
  filledDelta: MicroUnits;
  remaining: MicroUnits;
  /** A rejected order is refused before it reaches a journal entry: never "rejected". */
  status: "open" | "partially_filled" | "filled" | "cancelled" | "expired";
  /**
   * What the order still holds after this command: micro-USDT for a BUY, shares for a SELL. Summed
   * over a trader's open orders it is exactly their locked balance (the money check proves it).
   */
  holds: MicroUnits;
  reason?: CancelReasonCode;
  /** An amend: the order's new total quantity, limit and time priority. */
  quantity?: MicroUnits;
  price?: Tick;
  prio?: number;
}

/** What a resting order holds: its price plus the maker fee it can still incur (BUY), or its shares (SELL). */
export function restingHolds(side: Side, price: Tick, remaining: MicroUnits, fees: FeeSchedule): MicroUnits {
  return side === "BUY" ? restingBuyLock(remaining, price, fees) : remaining;
}

export interface Settlement {
  postings: Posting[];
  trades: TradeRecord[];
  fills: FillRecord[];
  orders: OrderChange[];
}

/** The collateral an order holds from acceptance until matching is done. */
export function placementLock(
  order: Pick<Order, "side" | "outcome" | "price" | "quantity">,
  marketId: string,
  userId: string,
  fees: FeeSchedule,
): Posting[] {
  if (order.side === "BUY") {
    const amount = placementBuyLock(order.quantity, order.price, fees);
    return [{ kind: "cash", account: userId, available: -amount, locked: amount }];
  }
  return [{ kind: "shares", account: userId, marketId, outcome: order.outcome, locked: order.quantity }];
}

/** Undo of placementLock (an order that never entered the book). */
export function releasePlacement(
  order: Pick<Order, "side" | "outcome" | "price" | "quantity">,
  marketId: string,
  userId: string,
  fees: FeeSchedule,
): Posting[] {
  return placementLock(order, marketId, userId, fees).map((p) =>
    p.kind === "cash"
      ? { ...p, available: -(p.available ?? 0), locked: -(p.locked ?? 0) }
      : p.kind === "shares"
        ? { ...p, locked: -(p.locked ?? 0) }
        : p,
  );
}

/** Release of what a resting order still holds (cancel, self-trade, market close). */
export function releaseResting(
  side: Side,
  outcome: Outcome,
  price: Tick,
  remaining: MicroUnits,
  marketId: string,
  userId: string,
  fees: FeeSchedule,
): Posting[] {
  if (side === "BUY") {
    const amount = restingBuyLock(remaining, price, fees);
    return [{ kind: "cash", account: userId, available: amount, locked: -amount }];
  }
  return [{ kind: "shares", account: userId, marketId, outcome, locked: -remaining }];
}

const yesPrice = (outcome: Outcome, t: Tick) => (outcome === "YES" ? t : 100 - t);

/**
 * Turn the events of one `place` into money: every fill moves shares and cash between the two
 * traders, the market's collateral (mint/merge) and the fee account; the taker's placement lock
 * shrinks to what its resting remainder needs. Exact: costs are whole micro-units (lots) and each
 * fee is rounded up once.
 */
export function settlePlacement(
  marketId: string,
  taker: Order,
  events: readonly BookEvent[],
  fees: FeeSchedule,
  newId: (prefix: string) => string,
): Settlement {
  const postings: Posting[] = [];
  const trades: TradeRecord[] = [];
  const fills: FillRecord[] = [];
  const orders: OrderChange[] = [];
  const fillEvents = events.filter((e): e is FillEvent => e.type === "fill");

  let takerCash = 0; // BUY: paid; SELL: gross proceeds
  let takerQty = 0;
  let takerWeight = 0n;
  const takerTradeId = fillEvents.length ? newId("trd") : "";
  const takerFillIds: string[] = [];
  const makerFilled = new Map<string, OrderChange>();

  for (const f of fillEvents) {
    const q = f.quantity;
    const makerCost = cost(q, f.makerPrice);
    const takerCost = cost(q, f.takerPrice);
    const fillId = newId("fil");
    takerFillIds.push(fillId);
    fills.push({
      fillId,
      marketId,
      kind: f.kind,
      makerOrderId: f.makerOrderId,
      takerOrderId: f.takerOrderId,
      makerUserId: f.makerUserId,
      takerUserId: f.takerUserId,
      quantity: q,
      yesPrice: yesPrice(f.makerOutcome, f.makerPrice),
      seq: f.seq,
    });

    // Maker side, at the maker's own price.
    const before = f.makerRemaining + q;
    let makerFee = 0;
    if (f.makerSide === "BUY") {
      const paid = restingBuyLock(before, f.makerPrice, fees) - restingBuyLock(f.makerRemaining, f.makerPrice, fees);
      makerFee = paid - makerCost;
      postings.push({ kind: "cash", account: f.makerUserId, locked: -paid });
      postings.push({ kind: "shares", account: f.makerUserId, marketId, outcome: f.makerOutcome, quantity: q, cost: paid });
    } else {
      makerFee = Math.min(
        makerCost,
        feeOn(fees.makerBps, feeWeight(before, f.makerPrice)) - feeOn(fees.makerBps, feeWeight(f.makerRemaining, f.makerPrice)),
      );
      postings.push({
        kind: "shares",
        account: f.makerUserId,
        marketId,
        outcome: f.makerOutcome,
        quantity: -q,
        locked: -q,
        proceeds: makerCost - makerFee,
      });
      postings.push({ kind: "cash", account: f.makerUserId, available: makerCost - makerFee });
    }
    if (makerFee) postings.push({ kind: "fee", amount: makerFee });

    // Where the cash of this fill goes: to the other trader, or into/out of the collateral.
    if (f.kind === "mint") postings.push({ kind: "collateral", marketId, amount: q });
    else if (f.kind === "merge") postings.push({ kind: "collateral", marketId, amount: -q });

    takerCash += takerCost;
    takerQty += q;
    takerWeight += feeWeight(q, f.takerPrice);

    const prev = makerFilled.get(f.makerOrderId);
    makerFilled.set(f.makerOrderId, {
      orderId: f.makerOrderId,
      userId: f.makerUserId,
      filledDelta: (prev?.filledDelta ?? 0) + q,
      remaining: f.makerRemaining,
      status: f.makerRemaining === 0 ? "filled" : "partially_filled",
      holds: restingHolds(f.makerSide, f.makerPrice, f.makerRemaining, fees),
    });
    trades.push({
      tradeId: newId("trd"),
      userId: f.makerUserId,
      marketId,
      orderId: f.makerOrderId,
      side: f.makerSide,
      outcome: f.makerOutcome,
      venue: "CLOB",
      role: "maker",
      filledQuantity: q,
      totalCost: makerCost,
      fee: makerFee,
      fillIds: [fillId],
    });
  }

  // Taker side, aggregated over its fills so its fee is rounded once.
  let takerFee = feeOn(fees.takerBps, takerWeight);
  const lastTakerRemaining = taker.quantity - takerQty;
  if (taker.side === "BUY") {
    const held = placementBuyLock(taker.quantity, taker.price, fees);
    const rests = events.some((e) => e.type === "rested");
    const keep = rests ? restingBuyLock(lastTakerRemaining, taker.price, fees) : 0;
    const release = held - takerCash - takerFee - keep;
    postings.push({ kind: "cash", account: taker.userId, locked: -(held - keep), available: release });
    if (takerQty)
      postings.push({
        kind: "shares",
        account: taker.userId,
        marketId,
        outcome: taker.outcome,
        quantity: takerQty,
        cost: takerCash + takerFee,
      });
  } else {
    takerFee = Math.min(takerFee, takerCash);
    const rests = events.some((e) => e.type === "rested");
    // Shares neither sold nor resting go back to the position.
    const unlock = rests ? 0 : lastTakerRemaining;
    postings.push({
      kind: "shares",
      account: taker.userId,
      marketId,
      outcome: taker.outcome,
      quantity: -takerQty,
      locked: -(takerQty + unlock),
      proceeds: takerCash - takerFee,
    });
    if (takerCash) postings.push({ kind: "cash", account: taker.userId, available: takerCash - takerFee });
  }
  if (takerFee) postings.push({ kind: "fee", amount: takerFee });
  if (takerQty)
    trades.push({
      tradeId: takerTradeId,
      userId: taker.userId,
      marketId,
      orderId: taker.orderId,
      side: taker.side,
      outcome: taker.outcome,
      venue: "CLOB",
      role: "taker",
      filledQuantity: takerQty,
      totalCost: takerCash,
      fee: takerFee,
      fillIds: takerFillIds,
    });

  // Resting orders of the taker's own user cancelled by self-trade prevention release what they held.
  for (const e of events) {
    if (e.type === "cancelled") {
      postings.push(...releaseResting(e.side, e.outcome, e.price, e.remaining, marketId, e.userId, fees));
      orders.push({
        orderId: e.orderId,
        userId: e.userId,
        filledDelta: 0,
        remaining: 0,
        status: "cancelled",
        holds: 0,
        reason: "self_trade",
      });
    }
  }
  orders.push(...makerFilled.values());
  const rested = events.some((e) => e.type === "rested");
  orders.push({
    orderId: taker.orderId,
    userId: taker.userId,
    filledDelta: takerQty,
    remaining: rested ? lastTakerRemaining : 0,
    status: takerQty === taker.quantity ? "filled" : rested ? (takerQty ? "partially_filled" : "open") : "cancelled",
    holds: rested ? restingHolds(taker.side, taker.price, lastTakerRemaining, fees) : 0,
  });
  return { postings, trades, fills, orders };
}

/** The ledger account holding a market's AMM pool: its YES/NO inventory and its LP fee income. */
export const ammAccount = (marketId: string) => `amm:${marketId}`;

/** The house funds a pool with L: L pairs minted into the pool, backed by L of collateral. */
export function poolFunding(marketId: string, liquidity: MicroUnits): Posting[] {
  const amm = ammAccount(marketId);
  return [
    { kind: "external", flow: "house", amount: liquidity },
    { kind: "collateral", marketId, amount: liquidity },
    { kind: "shares", account: amm, marketId, outcome: "YES", quantity: liquidity },
    { kind: "shares", account: amm, marketId, outcome: "NO", quantity: liquidity },
  ];
}

/**
 * One AMM execution, paid from (BUY: cash, SELL: shares) the trader's lock. BUY: the trader's cash
 * mints `cash` pairs into the pool, which hands out `quantity`; SELL: the pool takes the shares,
 * merges `cash` pairs and pays them out. The LP fee goes to the pool's cash account.
 */
export function ammLegPostings(
  marketId: string,
  userId: string,
  side: Side,
  outcome: Outcome,
  leg: { quantity: MicroUnits; cash: MicroUnits; fee: MicroUnits },
): Posting[] {
  const amm = ammAccount(marketId);
  const other: Outcome = outcome === "YES" ? "NO" : "YES";
  const { quantity: q, cash: c, fee: f } = leg;
  const out: Posting[] =
    side === "BUY"
      ? [
          { kind: "cash", account: userId, locked: -(c + f) },
          { kind: "shares", account: userId, marketId, outcome, quantity: q, cost: c + f },
          { kind: "collateral", marketId, amount: c },
          { kind: "shares", account: amm, marketId, outcome, quantity: c - q },
          { kind: "shares", account: amm, marketId, outcome: other, quantity: c },
        ]
      : [
          { kind: "shares", account: userId, marketId, outcome, quantity: -q, locked: -q, proceeds: c - f },
          { kind: "cash", account: userId, available: c - f },
          { kind: "collateral", marketId, amount: -c },
          { kind: "shares", account: amm, marketId, outcome, quantity: q - c },
          { kind: "shares", account: amm, marketId, outcome: other, quantity: -c },
        ];
  if (f) out.push({ kind: "cash", account: amm, available: f });
  return out;
}
