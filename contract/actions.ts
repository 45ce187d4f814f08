/**
 * Every action one service calls on another, written once: its name, the params it takes and
 * the result it answers. The handlers declare `ActionParams<A>` / `ActionResult<A>` (so the
 * compiler holds each handler to its entry) and callers go through `call()` (contract/call.ts),
 * so a call names an action that exists, passes what it takes and gets what it answers.
 * The routed actions (contract/routes.ts) are in the same map, with their wire types.
 * The shapes themselves live in the cores and models they belong to; only type imports here.
 */
import type { PoolState } from "../engine/amm";
import type { CashAccount, PositionState } from "../engine/accounts";
import type { CancelReasonCode } from "../engine/settlement";
import type { Outcome, RestingOrder, Side } from "../engine/types";
import type { RoutePlan } from "../engine/router";
import type { IdemClaim, MoneyCheck, PostInput, PostOutcome } from "../ledger/ledger";
import type { MarketTitle } from "../ledger/positions";
import type { OrderQuery } from "../ledger/store";
import type { LivePrice, MarketInternal } from "../models/catalog";
import type { IdemKey, IdemRecord, LedgerEntryDoc, MarketLease, OrderDoc, SettlementRecord } from "../models/trading";
import type { UserDoc } from "../models/user";
import type { TokenUser } from "../auth/auth";
import type { TradeSettledParams } from "../notifier/notifier";
import type { CancelManyResult, PlaceResult, RouteExecution } from "../trading/market-actor";
import type { RouteRequest } from "../trading/market-order";
import type { AmendTerms, CancelResult, PlaceTerms } from "../trading/order-desk";
import type { PlaceView, TopOfBook } from "../trading/order-views";
import type { Model, ParamsOf, RequestOf, ResultOf } from "./index";
import type { RoutedAction } from "./routes";

/** `ledger.post`: an entry (ledger/ledger.ts PostInput, without the ledger's own records). */
export type PostParams = Omit<PostInput, "fence" | "settlement" | "heartbeat"> & {
  /** false: answer once applied in memory; the caller waits for durability itself (`sync` or `ledger.durable`). */
  durable?: boolean;
};

/** P: what a caller passes; R: what it gets; H: what the handler sees (defaults filled in). */
type Entry<P, R, H = P> = { params: P; result: R; handled: H };

export interface InternalActions {
  // ledger
  "ledger.post": Entry<PostParams, PostOutcome>;
  "ledger.sync": Entry<{ seq: number; instance?: string }, { durableSeq: number; instance: string }>;
  "ledger.acquireMarket": Entry<{ marketId: string; node: string }, MarketLease & { instance: string }>;
  "ledger.restingOrders": Entry<{ marketId: string; afterPrio: number; limit: number }, RestingOrder[]>;
  "ledger.markSettlement": Entry<{ tradeIds: string[]; status: SettlementRecord["status"]; txHash?: string }, { updated: number }>;
  "ledger.conservation": Entry<void, MoneyCheck>;
  "ledger.account": Entry<{ account: string }, { balance: CashAccount & { total: number }; positions: PositionState[] }>;
  "ledger.holders": Entry<{ marketId: string }, PositionState[]>;
  "ledger.entriesAfter": Entry<{ seq: number; limit?: number }, LedgerEntryDoc[], { seq: number; limit: number }>;
  "ledger.orders": Entry<OrderQuery, { items: OrderDoc[]; total: number }>;
  "ledger.openMarketsOf": Entry<{ userId: string }, string[]>;
  "ledger.getOrder": Entry<{ orderId: string }, OrderDoc | null>;
  "ledger.idemClaim": Entry<IdemKey, IdemClaim>;
  "ledger.idemRelease": Entry<{ scope: string; key: string }, { released: true }>;
  "ledger.idemAnswer": Entry<IdemRecord, { stored: true }>;
  // book (the market actors)
  "book.placeTerms": Entry<PlaceTerms, PlaceView>;
  "book.amendOrder": Entry<AmendTerms, PlaceResult>;
  "book.cancelMany": Entry<{ marketId: string; userId?: string; orderIds?: string[]; reason: CancelReasonCode }, CancelManyResult>;
  "book.cancel": Entry<{ marketId: string; orderId: string; userId: string }, CancelResult>;
  "book.route": Entry<RouteRequest, RouteExecution>;
  "book.quote": Entry<RouteRequest, Pick<RoutePlan, "venue" | "filled" | "totalCost" | "fee" | "avgPrice">>;
  "book.ensureMarket": Entry<{ marketId: string }, { loaded: boolean; pool: PoolState | null; nodeID: string }>;
  "book.depth": Entry<{ marketId: string; levels?: number }, { seq: number; yes: Model<"OrderBook">; no: Model<"OrderBook"> }, { marketId: string; levels: number }>;
  "book.top": Entry<{ marketId: string }, TopOfBook>;
  "book.topOfBook": Entry<{ marketIds: string[] }, Record<string, TopOfBook>>;
  "book.halt": Entry<{ marketId: string; status: string }, { released: number }>;
  "book.exitQuote": Entry<{ marketId: string; outcome: Outcome; quantity: number; side?: Side; userId?: string }, { filled: number; proceeds: number }, { marketId: string; outcome: Outcome; quantity: number; side: Side; userId?: string }>;
  // catalog
  "catalog.getMarketInternal": Entry<{ marketId: string }, MarketInternal>;
  "catalog.marketTitles": Entry<{ marketIds: string[] }, Record<string, MarketTitle>>;
  // router
  "router.livePrices": Entry<{ marketIds: string[] }, Record<string, LivePrice>>;
  // notifier
  "notifier.tradeSettled": Entry<TradeSettledParams, { created: number }>;
  // auth
  "auth.checkSession": Entry<{ sid: string; userId: string }, boolean>;
  "auth.resolveToken": Entry<{ token: string }, TokenUser | null>;
  "auth.getUser": Entry<{ userId: string }, UserDoc | null>;
}

/** The internal actions by name (a test checks each one is a service's action). */
export const INTERNAL_ACTIONS = [
  "ledger.post",
  "ledger.sync",
  "ledger.acquireMarket",
  "ledger.restingOrders",
  "ledger.markSettlement",
  "ledger.conservation",
  "ledger.account",
  "ledger.holders",
  "ledger.entriesAfter",
  "ledger.orders",
  "ledger.openMarketsOf",
  "ledger.getOrder",
  "ledger.idemClaim",
  "ledger.idemRelease",
  "ledger.idemAnswer",
  "book.placeTerms",
  "book.amendOrder",
  "book.cancelMany",
  "book.cancel",
  "book.route",
  "book.quote",
  "book.ensureMarket",
  "book.depth",
  "book.top",
  "book.topOfBook",
  "book.halt",
  "book.exitQuote",
  "catalog.getMarketInternal",
  "catalog.marketTitles",
  "router.livePrices",
  "notifier.tradeSettled",
  "auth.checkSession",
  "auth.resolveToken",
  "auth.getUser",
] as const satisfies readonly (keyof InternalActions)[];
/** Compile-time: the list names every entry of the map. */
export type MissingInternalAction = Exclude<keyof InternalActions, (typeof INTERNAL_ACTIONS)[number]>;
type AssertNone<T extends never> = T;
export type InternalActionsListed = AssertNone<MissingInternalAction>;

/** Internal and routed actions: name -> params and result. */
export type ActionMap = InternalActions & { [A in RoutedAction]: Entry<RequestOf<A>, ResultOf<A>, ParamsOf<A>> };
export type ActionName = keyof ActionMap;
export type ActionParams<A extends ActionName> = ActionMap[A]["params"];
export type ActionResult<A extends ActionName> = ActionMap[A]["result"];
/** What the action's handler finds in `ctx.params`. */
export type HandlerParams<A extends ActionName> = ActionMap[A]["handled"];
/** What a handler of the action returns (Moleculer takes a value or a promise). */
export type Answer<A extends ActionName> = ActionResult<A> | Promise<ActionResult<A>>;
