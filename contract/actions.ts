/**
 * Every action one service calls on another, written once: its name, the params it takes and
 * the result it answers. The handlers declare `ActionParams<A>` / `ActionResult<A>` (so the
 * compiler holds each handler to its entry) and callers go through `call()` (contract/call.ts),
 * so a call names an action that exists, passes what it takes and gets what it answers.
 * The routed actions (contract/routes.ts) are in the same map, with their wire types.
 * The shapes themselves live in models/ (and engine/, lib/): the contract imports no core.
 */
import type { PoolState } from "../engine/amm";
import type { CashAccount, PositionState } from "../engine/accounts";
import type { CancelReasonCode } from "../engine/settlement";
import type { Outcome, Side } from "../engine/types";
import type { RoutePlan } from "../engine/router";
import type { EventInternal, LivePrice, MarketInternal, MarketTitle } from "../models/catalog";
import { TRADING_MODES, type TradingMode } from "../models/trading-mode";
import type {
  BookJournalDoc,
  CommittedRestingOrder,
  IdemKey,
  IdemRecord,
  LedgerEntryDoc,
  MarketLease,
  OrderDoc,
  SettlementRecord,
  IdemClaim,
  MoneyCheck,
  PostInput,
  PostOutcome,
  RewardPaid,
  VerifyReport,
  OrderQuery,
  CancelManyResult,
  PlaceResult,
  RouteExecution,
  EventPoolSnapshot,
  EventPoolView,
  RouteRequest,
  AmendTerms,
  CancelResult,
  PlaceTerms,
  QuoteSetTerms,
  TopOfBook,
  QueuePosition,
} from "../models/trading";
import type { UserDoc, TokenUser, UserTier } from "../models/user";
import { AMOUNT } from "../lib/params";
import type { ChainIncidentDoc, ChainReconciliation, SettlementBatchDoc, SubmissionResult, ChainInfo, ChainTxView } from "../models/chain";
import type { Model, ParamsOf, RequestOf, ResultOf } from "./wire";
import type { RoutedAction } from "./routes";
import { ID, toRule, type FvRule } from "./schema";
import type { TradeSettledParams } from "../models/notification";

/** `ledger.post`: an entry (models/trading.ts PostInput, without the ledger's own records). */
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
  "ledger.restingOrders": Entry<{ marketId: string; afterPrio: number; limit: number }, CommittedRestingOrder[]>;
  "ledger.lease": Entry<{ marketId: string }, MarketLease>;
  "ledger.bookEntries": Entry<
    { marketId: string; afterSeq: number; limit?: number },
    BookJournalDoc[],
    { marketId: string; afterSeq: number; limit: number }
  >;
  "ledger.openOrders": Entry<{ userId: string; marketId?: string }, OrderDoc[]>;
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
  "ledger.verify": Entry<void, VerifyReport>;
  /** An operator action, journaled; answered once durable. */
  "ledger.recordAudit": Entry<
    { action: string; method: string; path: string; params: Record<string, unknown>; note: string | null },
    Model<"AuditRecord">
  >;
  // book (the market actors)
  "book.placeTerms": Entry<PlaceTerms, Model<"PlacedOrder">>;
  /** A checked mass quote, placed by the market's owner (a POST /quotes that reached another node). */
  "book.quotesTerms": Entry<QuoteSetTerms, Model<"MassQuoteResult">>;
  "book.amendOrder": Entry<AmendTerms, PlaceResult>;
  "book.cancelMany": Entry<{ marketId: string; userId?: string; orderIds?: string[]; reason: CancelReasonCode }, CancelManyResult>;
  "book.cancel": Entry<{ marketId: string; orderId: string; userId: string }, CancelResult>;
  /** The user's quote set in the market, cancelled by the market's owner (DELETE /quotes). */
  "book.cancelQuotesOf": Entry<{ marketId: string; userId: string }, CancelManyResult>;
  "book.route": Entry<RouteRequest, RouteExecution>;
  /** A market order on a market of an event with one pool, against that pool; null: no event pool. */
  "ledger.eventPoolRoute": Entry<RouteRequest, RouteExecution | null>;
  "ledger.eventPoolQuote": Entry<RouteRequest, Pick<RoutePlan, "venue" | "filled" | "totalCost" | "fee" | "avgPrice"> | null>;
  "ledger.eventPool": Entry<{ eventId: string }, EventPoolView | null>;
  /** The YES price of each listed market that trades with an event pool there (live prices). */
  "ledger.eventPoolPrices": Entry<{ marketIds: string[] }, Record<string, { num: string; den: string }>>;
  "ledger.eventPoolSnapshot": Entry<{ marketId: string }, EventPoolSnapshot | null>;
  "ledger.eventPoolPublish": Entry<{ marketId: string }, boolean>;
  "book.quote": Entry<RouteRequest, Pick<RoutePlan, "venue" | "filled" | "totalCost" | "fee" | "avgPrice">>;
  "book.ensureMarket": Entry<{ marketId: string }, { loaded: boolean; pool: PoolState | null; nodeID: string }>;
  "book.depth": Entry<
    { marketId: string; levels?: number },
    { seq: number; yes: Model<"OrderBook">; no: Model<"OrderBook"> },
    { marketId: string; levels: number }
  >;
  "book.top": Entry<{ marketId: string }, TopOfBook>;
  /** May the caller's new order name this group (404 / 409 ORDER_GROUP_TRIGGERED)? */
  "ledger.orderGroupAdmit": Entry<{ orderGroupId: string; userId: string }, true>;
  /** A placed order joins its group; what it filled at once counts. */
  "ledger.orderGroupJoin": Entry<{ orderGroupId: string; orderId: string; marketId: string; open: boolean; filled: number }, true>;
  /** The liquidity rewards and maker rebates paid to a user (GET /transfers lists them). */
  "ledger.rewardPayouts": Entry<{ userId: string }, RewardPaid[]>;
  /** What rests before a resting order at its level, answered by the market's owner (null: not resting). */
  "book.queuePositionAt": Entry<{ marketId: string; orderId: string }, QueuePosition | null>;
  "book.topOfBook": Entry<{ marketIds: string[] }, Record<string, TopOfBook>>;
  "book.halt": Entry<{ marketId: string; status: string }, { released: number }>;
  /** The market's own trading mode, applied by its owner (cancelOnPause orders cancelled when paused). */
  "book.setTradingMode": Entry<{ marketId: string; mode: TradingMode; reason: string | null }, { cancelled: number }>;
  /** The exchange-wide trading mode, applied by one engine node (each is called) to the markets it serves. */
  "book.exchangeModeChanged": Entry<{ mode: TradingMode; reason: string | null }, { cancelled: number }>;
  "book.exitQuote": Entry<
    { marketId: string; outcome: Outcome; quantity: number; side?: Side; userId?: string },
    { filled: number; proceeds: number },
    { marketId: string; outcome: Outcome; quantity: number; side: Side; userId?: string }
  >;
  // catalog
  "catalog.getMarketInternal": Entry<{ marketId: string }, MarketInternal>;
  "catalog.marketTitles": Entry<{ marketIds: string[] }, Record<string, MarketTitle>>;
  /** An event's facts and its markets' (404 when unknown). */
  "catalog.getEventInternal": Entry<{ eventId: string }, EventInternal>;
  /** The exchange-wide trading mode as stored. */
  "catalog.exchangeMode": Entry<void, { mode: TradingMode; reason: string | null; updatedAt: string | null }>;
  // router
  "router.livePrices": Entry<{ marketIds: string[] }, Record<string, LivePrice>>;
  // amm
  "amm.pool": Entry<{ marketId: string }, { yes: string; no: string; liquidity: string } | null>;
  // notifier
  "notifier.tradeSettled": Entry<TradeSettledParams, { created: number }>;
  "notifier.catchUp": Entry<void, { cursor: number }>;
  // auth
  "auth.checkSession": Entry<{ sid: string; userId: string }, boolean>;
  /** A gateway forgets a session it confirmed (called on every gateway before a logout answers). */
  "api.forgetSession": Entry<{ sid: string }, { forgotten: boolean }>;
  "auth.resolveToken": Entry<{ token: string }, TokenUser | null>;
  "auth.getUser": Entry<{ userId: string }, UserDoc | null>;
  /** Every user granted a rate tier other than `default` (a gateway learns them as it starts). */
  "auth.tiersGranted": Entry<void, UserTier[]>;
  // chain (operators, tests, the REPL; withdrawalAnswer: POST /withdraw's Idempotency-Key replay)
  "chain.withdrawalAnswer": Entry<{ withdrawalId: string }, SubmissionResult>;
  "chain.reconcile": Entry<void, ChainReconciliation>;
  "chain.transaction": Entry<{ hash: string }, ChainTxView | null>;
  "chain.jettonBalance": Entry<{ owner: string; minter?: string }, string>;
  "chain.info": Entry<void, ChainInfo>;
  "chain.incidents": Entry<{ userId?: string }, ChainIncidentDoc[]>;
  "chain.batches": Entry<{ txHash?: string }, SettlementBatchDoc[]>;
  "chain.tick": Entry<void, true>;
  "chain.sandboxInject": Entry<{ userId: string; value: string; body?: string }, { txHash: string; from: string }>;
}

/** Internal and routed actions: name -> params and result. */
export type ActionMap = InternalActions & { [A in RoutedAction]: Entry<RequestOf<A>, ResultOf<A>, ParamsOf<A>> };
export type ActionName = keyof ActionMap;
export type ActionParams<A extends ActionName> = ActionMap[A]["params"];
export type ActionResult<A extends ActionName> = ActionMap[A]["result"];
/** What the action's handler finds in `ctx.params`. */
export type HandlerParams<A extends ActionName> = ActionMap[A]["handled"];
/** What a handler of the action returns (Moleculer takes a value or a promise). */
export type Answer<A extends ActionName> = ActionResult<A> | Promise<ActionResult<A>>;

// ---------------------------------------------------------------------------------------------
// The internal actions' fastest-validator params (what the broker checks on each call), by name.

const ID_RULE = toRule(ID, {});
const SIDE = { type: "enum", values: ["BUY", "SELL"] } as const;
const OUTCOME = { type: "enum", values: ["YES", "NO"] } as const;
const MODE_RULE = { type: "enum", values: [...TRADING_MODES] } as const;
/** A market order inside the market's actor (book.route, book.quote). */
const ROUTE_PARAMS = {
  marketId: ID_RULE,
  userId: "string",
  side: SIDE,
  outcome: OUTCOME,
  quantity: { type: "number", integer: true, positive: true },
  mode: { type: "enum", values: ["AMM", "ROUTE"] },
} as const;

/** Every internal action with its params (null: it takes none); the keys are the map's names. */
export const INTERNAL_PARAMS = {
  "ledger.post": {
    key: { type: "string", min: 1, max: 200 },
    postings: { type: "array", items: "object" },
    checkAfter: { type: "number", integer: true, min: 0, optional: true },
    trades: { type: "array", items: "object", optional: true },
    book: { type: "object", optional: true },
    idem: { type: "object", optional: true },
    eventPool: { type: "object", optional: true },
    payout: {
      type: "object",
      optional: true,
      props: { marketId: "string", yesPayout: { type: "number", integer: true, min: 0, max: 1_000_000 } },
    },
    part: {
      type: "object",
      optional: true,
      props: { group: "string", index: { type: "number", integer: true, min: 0 }, count: { type: "number", integer: true, min: 2 } },
    },
    durable: { type: "boolean", optional: true },
  },
  "ledger.sync": { seq: { type: "number", integer: true, min: 0 }, instance: { type: "string", optional: true } },
  "ledger.acquireMarket": { marketId: "string", node: "string" },
  "ledger.lease": { marketId: "string" },
  "ledger.bookEntries": {
    marketId: "string",
    afterSeq: { type: "number", integer: true, min: 0 },
    limit: { type: "number", integer: true, min: 1, max: 10000, optional: true, default: 10000 },
  },
  "ledger.openOrders": { userId: "string", marketId: { type: "string", optional: true } },
  "ledger.restingOrders": {
    marketId: "string",
    afterPrio: { type: "number", integer: true, min: 0 },
    limit: { type: "number", integer: true, min: 1, max: 5000 },
  },
  "ledger.markSettlement": {
    tradeIds: { type: "array", items: "string" },
    status: { type: "enum", values: ["confirmed", "failed"] },
    txHash: { type: "string", optional: true },
  },
  "ledger.conservation": null,
  "ledger.account": { account: "string" },
  "ledger.holders": { marketId: "string" },
  "ledger.entriesAfter": {
    seq: { type: "number", integer: true, min: 0 },
    limit: { type: "number", integer: true, min: 1, max: 1000, optional: true, default: 200 },
  },
  "ledger.orders": {
    userId: "string",
    marketId: { type: "string", optional: true },
    status: { type: "enum", values: ["open", "closed", "all"] },
    clientOrderId: { type: "string", optional: true },
    page: "number",
    pageSize: "number",
  },
  "ledger.openMarketsOf": { userId: "string" },
  "ledger.getOrder": { orderId: "string" },
  "ledger.idemClaim": { scope: "string", key: { type: "string", max: 300 }, fingerprint: "string" },
  "ledger.idemRelease": { scope: "string", key: "string" },
  "ledger.idemAnswer": { scope: "string", key: "string", fingerprint: "string", status: "number", response: "any" },
  "ledger.verify": null,
  "ledger.recordAudit": {
    action: { type: "string", max: 100 },
    method: { type: "string", max: 10 },
    path: { type: "string", max: 1000 },
    params: "object",
    note: { type: "string", max: 1000, nullable: true },
  },
  "book.placeTerms": {
    marketId: ID_RULE,
    userId: "string",
    side: "string",
    outcome: "string",
    orderType: "string",
    price: "number",
    quantity: "number",
    idem: { type: "object", optional: true },
  },
  "book.quotesTerms": {
    marketId: ID_RULE,
    userId: "string",
    quotes: {
      type: "array",
      items: { type: "object", props: { side: "string", outcome: "string", price: "number", quantity: "number" } },
    },
    postOnly: "boolean",
    orderGroupId: { type: "string", optional: true },
    idem: { type: "object", optional: true },
  },
  "book.amendOrder": {
    marketId: ID_RULE,
    orderId: "string",
    userId: "string",
    price: { type: "number", optional: true },
    quantity: { type: "number", optional: true },
    postOnly: { type: "boolean", optional: true },
  },
  "book.cancelMany": {
    marketId: ID_RULE,
    userId: { type: "string", optional: true },
    orderIds: { type: "array", items: "string", optional: true },
    reason: { type: "enum", values: ["user", "expired", "heartbeat", "order_group"] },
  },
  "book.cancel": { marketId: ID_RULE, orderId: "string", userId: "string" },
  "book.cancelQuotesOf": { marketId: ID_RULE, userId: "string" },
  "book.route": { ...ROUTE_PARAMS, idem: { type: "object", optional: true }, eventPool: { type: "object", optional: true } },
  "book.quote": { ...ROUTE_PARAMS, eventPool: { type: "object", optional: true } },
  "ledger.eventPoolRoute": { ...ROUTE_PARAMS, idem: { type: "object", optional: true } },
  "ledger.eventPoolQuote": ROUTE_PARAMS,
  "ledger.eventPool": { eventId: ID_RULE },
  "ledger.eventPoolPrices": { marketIds: { type: "array", items: ID_RULE } },
  "ledger.eventPoolSnapshot": { marketId: ID_RULE },
  "ledger.eventPoolPublish": { marketId: ID_RULE },
  "book.ensureMarket": { marketId: ID_RULE },
  "book.depth": { marketId: ID_RULE, levels: { type: "number", optional: true, default: 10 } },
  "book.top": { marketId: ID_RULE },
  "ledger.orderGroupAdmit": { orderGroupId: "string", userId: "string" },
  "ledger.orderGroupJoin": { orderGroupId: "string", orderId: "string", marketId: ID_RULE, open: "boolean", filled: "number" },
  "ledger.rewardPayouts": { userId: "string" },
  "book.queuePositionAt": { marketId: ID_RULE, orderId: "string" },
  "book.topOfBook": { marketIds: { type: "array", items: "string", max: 200 } },
  "book.halt": { marketId: ID_RULE, status: "string" },
  "book.setTradingMode": { marketId: ID_RULE, mode: MODE_RULE, reason: { type: "string", nullable: true } },
  "book.exchangeModeChanged": { mode: MODE_RULE, reason: { type: "string", nullable: true } },
  "book.exitQuote": {
    marketId: ID_RULE,
    outcome: OUTCOME,
    quantity: { type: "number", integer: true, min: 0 },
    side: { ...SIDE, optional: true, default: "SELL" },
    userId: { type: "string", optional: true },
  },
  "catalog.getMarketInternal": { marketId: ID_RULE },
  "catalog.marketTitles": { marketIds: { type: "array", max: 500, items: ID_RULE } },
  "catalog.getEventInternal": { eventId: ID_RULE },
  "catalog.exchangeMode": null,
  "router.livePrices": { marketIds: { type: "array", items: "string", max: 200 } },
  "amm.pool": { marketId: "string" },
  "notifier.catchUp": null,
  "notifier.tradeSettled": {
    batchId: { type: "string", min: 1, max: 100 },
    status: { type: "enum", values: ["confirmed", "failed"] },
    txHash: { type: "string", optional: true, nullable: true },
    trades: {
      type: "array",
      min: 1,
      max: 100_000,
      items: { type: "object", strict: "remove", props: { tradeId: "string", userId: "string", marketId: "string" } },
    },
  },
  "auth.checkSession": { sid: { type: "string", max: 128 }, userId: { type: "string", max: 128 } },
  "api.forgetSession": { sid: { type: "string", max: 128 } },
  "auth.resolveToken": { token: { type: "string", max: 4096 } },
  "auth.getUser": { userId: { type: "string", max: 128 } },
  "auth.tiersGranted": null,
  "chain.withdrawalAnswer": { withdrawalId: { type: "string", min: 1, max: 64 } },
  "chain.reconcile": null,
  "chain.transaction": { hash: { type: "string", pattern: /^[0-9a-fA-F]{64}$/ } },
  "chain.jettonBalance": { owner: { type: "string", min: 3, max: 100 }, minter: { type: "string", optional: true } },
  "chain.info": null,
  "chain.incidents": { userId: { type: "string", optional: true } },
  "chain.batches": { txHash: { type: "string", optional: true } },
  "chain.tick": null,
  "chain.sandboxInject": { userId: "string", value: AMOUNT, body: { type: "string", optional: true } },
} as const satisfies { [A in keyof InternalActions]: Record<string, FvRule | string> | null };

/** The internal actions by name (a test checks each one is a service's action). */
export const INTERNAL_ACTIONS = Object.keys(INTERNAL_PARAMS) as Array<keyof InternalActions>;

/** An internal action's options: callable from other nodes, its params from the contract. */
export function internalAction(action: keyof InternalActions): { visibility: "public"; params?: Record<string, FvRule | string> } {
  const params: Record<string, FvRule | string> | null = INTERNAL_PARAMS[action];
  return params ? { visibility: "public", params } : { visibility: "public" };
}
