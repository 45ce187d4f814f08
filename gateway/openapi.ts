/**
 * OpenAPI 3.0 description of every REST route the gateway serves: the contract's routes, the
 * README's decisions where the contract says "not shown", and the additions (operator API,
 * sandbox faucet, notifications read, this document). Served at GET /api/v1/openapi.json.
 *
 * Written as one `as const` literal so that a test can derive TypeScript types from the schemas
 * and compare them with the client SDK's models; another test compares the paths with the
 * gateway's alias tables and validates real responses against the schemas. Response objects are
 * closed (additionalProperties: false) so an undocumented field fails those checks.
 */

import { MAX_PAGE } from "../lib/params";
import { CLIENT_ORDER_ID, MAX_BATCH } from "../trading/order-rules";
import { MAX_IDEMPOTENCY_KEY } from "../mixins/idempotency.middleware";

const ref = <const N extends string>(name: N) => ({ $ref: `#/components/schemas/${name}` }) as const;
const str = { type: "string" } as const;
const nullableStr = { type: "string", nullable: true } as const;
const int = { type: "integer" } as const;
const num = { type: "number" } as const;
const bool = { type: "boolean" } as const;
const time = { type: "string", format: "date-time" } as const;
const micro = { type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent" } as const;
const signedMicro = { type: "string", pattern: "^(0|-?[1-9][0-9]*)$", description: "Integer micro-units, may be negative" } as const;
const decimal = { type: "string", pattern: "^[0-9]+\\.[0-9]+$", description: "Decimal price, e.g. 0.55 or 0.50125" } as const;
const nullableDecimal = { ...decimal, nullable: true } as const;
const units = { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?$", description: "Decimal amount of USDT, e.g. 0 or 12.5" } as const;
const outcome = { type: "string", enum: ["YES", "NO"] } as const;
const side = { type: "string", enum: ["BUY", "SELL"] } as const;
const venue = { type: "string", enum: ["AMM", "CLOB", "HYBRID"] } as const;
const orderType = { type: "string", enum: ["GTC", "GTD", "FOK", "FAK"] } as const;
const orderStatus = { type: "string", enum: ["open", "partially_filled", "filled", "cancelled", "expired"] } as const;
const cancelReason = {
  type: "string",
  nullable: true,
  enum: ["user", "expired", "heartbeat", "self_trade", "market_closed", "market_cancelled", "market_resolved"],
  description: "Why the order left the book unfilled; null while it is open or filled, and for the cancelled rest of a FAK",
} as const;
const clientOrderId = { type: "string", pattern: CLIENT_ORDER_ID.source, description: "The caller's own id: 1 to 64 of A-Z a-z 0-9 . _ : -; unique among the caller's open orders" } as const;
/** What GET /orders and every answer about an order add to the contract's fields (trading-api.md). */
const orderOptions = {
  cancelledQuantity: micro,
  cancelReason,
  clientOrderId: { ...clientOrderId, nullable: true },
  expiresAt: { ...time, nullable: true, description: "GTD only: when the rest is cancelled with status expired" },
  postOnly: bool,
} as const;
const category = { type: "string", enum: ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"] } as const;
const marketStatus = { type: "string", enum: ["open", "closed", "resolved", "resolution_failed", "cancelled"] } as const;
const faucetAsset = { type: "string", enum: ["USDT", "TON", "FOREIGN_USDT"] } as const;

/** Closed object with the given required keys. */
const obj = <const P extends Record<string, object>, const R extends readonly (keyof P & string)[]>(properties: P, required: R) =>
  ({ type: "object", additionalProperties: false, required, properties }) as const;

const envelope = <const D extends object>(data: D) => obj({ data, requestId: str }, ["data", "requestId"]);
const pagedEnvelope = <const D extends object>(items: D) => obj({ data: { type: "array", items }, pagination: ref("Pagination"), requestId: str }, ["data", "pagination", "requestId"]);
const json = <const S extends object>(schema: S) => ({ "application/json": { schema } }) as const;
const body = <const S extends object>(schema: S, required = true) => ({ required, content: json(schema) }) as const;
const success = <const S extends object>(description: string, data: S) => ({ description, content: json(envelope(data)) }) as const;

const errors = {
  "400": { $ref: "#/components/responses/BadRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/Forbidden" },
  "404": { $ref: "#/components/responses/NotFound" },
  "409": { $ref: "#/components/responses/Conflict" },
  "413": { $ref: "#/components/responses/PayloadTooLarge" },
  "429": { $ref: "#/components/responses/TooManyRequests" },
  "500": { $ref: "#/components/responses/InternalError" },
  "503": { $ref: "#/components/responses/ServiceUnavailable" },
} as const;
type ErrorStatus = keyof typeof errors;
/** The errors every route can answer (limits and failures), plus the given ones. */
const failures = <const S extends readonly ErrorStatus[]>(...statuses: S) => {
  const out: Partial<Record<ErrorStatus, (typeof errors)[ErrorStatus]>> = {};
  for (const s of [...statuses, "429", "500", "503"] as const) out[s] = errors[s];
  return out as { [K in S[number] | "429" | "500" | "503"]: (typeof errors)[K] };
};

const pathParam = <const N extends string>(name: N, description: string) => ({ name, in: "path", required: true, description, schema: { type: "string", pattern: "^[A-Za-z0-9_:-]{1,64}$" } }) as const;
const query = <const N extends string, const S extends object>(name: N, schema: S, description: string, required = false) => ({ name, in: "query", required, description, schema }) as const;
const pageParamsOf = <const D extends number, const M extends number>(pageSize: D, max: M) =>
  [query("page", { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1 }, "Page number, from 1 (plain digits)"), query("pageSize", { type: "integer", minimum: 1, maximum: max, default: pageSize }, `Items per page, 1 to ${max}`)] as const;
const pageParams = pageParamsOf(20, 100);
/** The trade writes that take an Idempotency-Key (trading-api.md): the header, and the replay flag on their answer. */
const idempotencyKey = { $ref: "#/components/parameters/IdempotencyKey" } as const;
const replayable = <const R extends object>(response: R) => ({ ...response, headers: { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } } }) as const;
const bearer = [{ bearerAuth: [] }] as const;
const admin = [{ adminKey: [] }] as const;

const schemas = {
  Pagination: obj({ total: int, page: int, pageSize: int, hasNext: bool }, ["total", "page", "pageSize", "hasNext"]),
  FieldError: obj({ field: str, rule: str }, ["field", "rule"]),
  ErrorDetail: obj({ code: str, message: str, fields: { type: "array", items: ref("FieldError") } }, ["code", "message"]),
  ErrorEnvelope: obj({ error: ref("ErrorDetail"), requestId: str }, ["error", "requestId"]),
  Health: obj({ status: str, nodeID: str, uptime: int }, ["status", "nodeID", "uptime"]),

  ConnectRequest: {
    type: "object",
    required: ["address", "publicKey", "proof"],
    properties: {
      address: { type: "string", description: "Wallet address, raw (0:<hex>) or friendly" },
      publicKey: { type: "string", pattern: "^[0-9a-fA-F]{64}$" },
      proof: {
        type: "object",
        required: ["timestamp", "domain", "payload", "signature"],
        properties: {
          timestamp: { type: "integer", description: "Unix seconds; at most 5 minutes old" },
          domain: { type: "object", required: ["lengthBytes", "value"], properties: { lengthBytes: int, value: str } },
          payload: str,
          signature: { type: "string", description: "Base64 ed25519 signature of the TON Connect ton_proof message" },
          stateInit: { type: "string", description: "Base64 BOC of the wallet StateInit (optional)" },
        },
      },
      messengerInitData: { type: "string", description: "Telegram Mini App init data" },
    },
  },
  Challenge: obj(
    {
      domain: { type: "string", description: "The domain POST /auth/connect checks (APP_DOMAIN, else the server's listening host:port)" },
      payload: { type: "string", pattern: "^[0-9a-f]{64}$", description: "A fresh random payload to sign (client-made payloads are accepted too)" },
      expiresAt: { ...time, description: "A proof made now is fresh (5 minutes) until then" },
    },
    ["domain", "payload", "expiresAt"],
  ),
  RefreshRequest: { type: "object", properties: { token: { type: "string", description: "Alternative to the Authorization header" } } },
  Session: obj({ accessToken: str, expiresAt: { type: "integer", description: "Unix seconds" }, userId: str, walletAddress: str }, ["accessToken", "expiresAt", "userId", "walletAddress"]),

  MarketItem: obj(
    {
      id: str,
      eventId: str,
      title: str,
      status: marketStatus,
      result: { ...outcome, nullable: true },
      outcomes: { type: "array", items: outcome },
      buyYesPrice: nullableDecimal,
      buyNoPrice: nullableDecimal,
      sellYesPrice: nullableDecimal,
      sellNoPrice: nullableDecimal,
      volume: units,
      conditionId: { type: "string", pattern: "^0x[0-9a-f]{64}$" },
    },
    ["id", "eventId", "title", "status", "result", "outcomes", "buyYesPrice", "buyNoPrice", "sellYesPrice", "sellNoPrice", "volume", "conditionId"],
  ),
  Event: obj(
    {
      id: str,
      externalEventId: str,
      title: str,
      subtitle: str,
      category,
      subcategory: str,
      imageUrl: str,
      volumeUsd: units,
      isActive: bool,
      isLive: bool,
      beginAt: time,
      tags: { type: "array", items: str },
      markets: { type: "array", items: ref("MarketItem") },
    },
    ["id", "externalEventId", "title", "subtitle", "category", "subcategory", "imageUrl", "volumeUsd", "isActive", "isLive", "beginAt", "tags", "markets"],
  ),
  BookLevel: obj({ price: { type: "string", pattern: "^0\\.[0-9]{2}$" }, quantity: micro, numOrders: int }, ["price", "quantity", "numOrders"]),
  OrderBook: obj({ bids: { type: "array", items: ref("BookLevel") }, asks: { type: "array", items: ref("BookLevel") } }, ["bids", "asks"]),
  Candle: obj({ timestamp: time, open: num, high: num, low: num, close: num, volume: num }, ["timestamp", "open", "high", "low", "close", "volume"]),
  PriceHistory: obj(
    {
      marketId: str,
      outcome,
      interval: { type: "string", enum: ["1H", "1D", "1W", "1M", "MAX"] },
      candles: { type: "array", items: ref("Candle") },
      currentPrice: num,
      priceChange: num,
      priceChangePercent: num,
      volume24h: num,
    },
    ["marketId", "outcome", "interval", "candles", "currentPrice", "priceChange", "priceChangePercent", "volume24h"],
  ),

  QuoteRequest: {
    type: "object",
    required: ["side", "outcome", "quantity"],
    properties: {
      side,
      outcome,
      quantity: micro,
      venue: { type: "string", enum: ["AUTO", "AMM"], default: "AUTO", description: "AUTO prices POST /trade/market (the router), AMM prices POST /trade/amm" },
    },
  },
  Quote: obj({ estimatedPrice: decimal, estimatedCost: micro, source: venue, fee: micro }, ["estimatedPrice", "estimatedCost", "source", "fee"]),
  PlaceOrderRequest: {
    type: "object",
    required: ["marketId", "side", "outcome", "orderType", "price", "quantity"],
    properties: {
      marketId: str,
      side,
      outcome,
      orderType,
      price: { type: "number", minimum: 0.01, maximum: 0.99, description: "On the 0.01 grid" },
      quantity: { type: "integer", minimum: 100, description: "Micro-shares, a positive multiple of 100" },
      expiresAt: { ...time, description: "Required for GTD (5 s to 365 days ahead), refused otherwise" },
      postOnly: { type: "boolean", default: false, description: "GTC and GTD only: refused whole (POST_ONLY_WOULD_CROSS) if any part would execute at once" },
      clientOrderId,
    },
  },
  BatchOrderRequest: { type: "object", required: ["orders"], properties: { orders: { type: "array", minItems: 1, maxItems: MAX_BATCH, items: ref("PlaceOrderRequest") } } },
  BatchOrderResult: {
    oneOf: [
      obj({ ok: { type: "boolean", enum: [true] }, order: ref("PlacedOrder") }, ["ok", "order"]),
      obj({ ok: { type: "boolean", enum: [false] }, error: ref("ErrorDetail") }, ["ok", "error"]),
    ],
  },
  AmendOrderRequest: {
    type: "object",
    minProperties: 1,
    description: "At least one of price and quantity; quantity is the new open remainder",
    properties: {
      price: { type: "number", minimum: 0.01, maximum: 0.99, description: "On the 0.01 grid; a new price loses time priority" },
      quantity: { type: "integer", minimum: 100, description: "Micro-shares, a positive multiple of 100; lower keeps time priority, higher loses it" },
    },
  },
  CancelAllResult: obj({ cancelled: { type: "array", items: str, description: "Order ids" }, releasedAmount: micro }, ["cancelled", "releasedAmount"]),
  HeartbeatRequest: { type: "object", required: ["timeoutSeconds"], properties: { timeoutSeconds: { type: "integer", minimum: 0, maximum: 300, description: "0 disarms; else 5 to 300" } } },
  Heartbeat: obj({ armed: bool, expiresAt: { ...time, nullable: true, description: "When every open order is cancelled unless another heartbeat comes first" } }, ["armed", "expiresAt"]),
  Fill: obj({ price: decimal, quantity: micro }, ["price", "quantity"]),
  PlacedOrder: obj(
    {
      orderId: str,
      marketId: str,
      side,
      outcome,
      orderType,
      price: decimal,
      quantity: micro,
      status: orderStatus,
      filledQuantity: micro,
      remainingQuantity: micro,
      avgPrice: nullableDecimal,
      totalCost: micro,
      fee: micro,
      tradeId: nullableStr,
      fills: { type: "array", items: ref("Fill") },
      ...orderOptions,
      createdAt: time,
      updatedAt: time,
    },
    [
      "orderId", "marketId", "side", "outcome", "orderType", "price", "quantity", "status", "filledQuantity", "remainingQuantity", "avgPrice", "totalCost", "fee", "tradeId", "fills",
      "cancelledQuantity", "cancelReason", "clientOrderId", "expiresAt", "postOnly", "createdAt", "updatedAt",
    ],
  ),
  CancelledOrder: obj(
    {
      orderId: str,
      status: { type: "string", enum: ["cancelled"] },
      cancelledQuantity: { type: "string", pattern: "^[0-9]+$", description: "Micro-shares left unfilled" },
      releasedAmount: { type: "string", pattern: "^[0-9]+$", description: "Micro-USDT returned to the available balance" },
    },
    ["orderId", "status", "cancelledQuantity", "releasedAmount"],
  ),
  Order: obj(
    {
      id: str,
      orderId: str,
      marketId: str,
      side,
      outcome,
      orderType,
      price: decimal,
      quantity: micro,
      filledQuantity: micro,
      remainingQuantity: micro,
      status: orderStatus,
      ...orderOptions,
      createdAt: time,
      updatedAt: time,
    },
    [
      "id", "orderId", "marketId", "side", "outcome", "orderType", "price", "quantity", "filledQuantity", "remainingQuantity", "status",
      "cancelledQuantity", "cancelReason", "clientOrderId", "expiresAt", "postOnly", "createdAt", "updatedAt",
    ],
  ),
  TradeRequest: { type: "object", required: ["marketId", "side", "outcome", "quantity"], properties: { marketId: str, side, outcome, quantity: micro } },
  TradeExecution: obj({ tradeId: str, venue, filledQuantity: micro, avgPrice: decimal, totalCost: micro, fee: micro }, ["tradeId", "venue", "filledQuantity", "avgPrice", "totalCost", "fee"]),

  Balance: obj({ available: micro, locked: micro, total: micro }, ["available", "locked", "total"]),
  Position: obj(
    {
      id: str,
      marketId: str,
      outcome,
      quantity: micro,
      lockedQuantity: micro,
      avgEntryPrice: decimal,
      totalCost: micro,
      realizedPnl: signedMicro,
      status: { type: "string", enum: ["open", "settled"] },
      market: obj({ id: str, title: nullableStr }, ["id", "title"]),
      markPrice: nullableDecimal,
      unrealizedPnl: { ...signedMicro, nullable: true },
    },
    ["id", "marketId", "outcome", "quantity", "lockedQuantity", "avgEntryPrice", "totalCost", "realizedPnl", "status", "market", "markPrice", "unrealizedPnl"],
  ),
  Trade: obj(
    {
      id: str,
      tradeId: str,
      marketId: str,
      orderId: str,
      side,
      outcome,
      venue,
      role: { type: "string", enum: ["taker", "maker"] },
      filledQuantity: micro,
      avgPrice: decimal,
      totalCost: micro,
      fee: micro,
      settlementStatus: { type: "string", enum: ["pending", "confirmed", "failed"] },
      settlementTxHash: nullableStr,
      createdAt: time,
    },
    ["id", "tradeId", "marketId", "orderId", "side", "outcome", "venue", "role", "filledQuantity", "avgPrice", "totalCost", "fee", "settlementStatus", "settlementTxHash", "createdAt"],
  ),

  DepositAddress: obj({ address: str, jettonWalletAddress: nullableStr, derivationIndex: int }, ["address", "jettonWalletAddress", "derivationIndex"]),
  WithdrawRequest: { type: "object", required: ["amount"], properties: { amount: micro } },
  WithdrawResult: obj({ status: { type: "string", enum: ["accepted", "duplicate", "failed"] }, txHash: str, message: str }, ["status", "message"]),
  RedeemRequest: {
    type: "object",
    required: ["conditionId", "indexSets"],
    properties: { conditionId: { type: "string", pattern: "^0x[0-9a-fA-F]{64}$" }, indexSets: { type: "array", items: { type: "string", description: '"0x1" = YES, "0x2" = NO' } } },
  },
  RedeemResult: obj({ status: { type: "string", enum: ["accepted", "duplicate"] }, payout: micro, message: str }, ["status", "message"]),
  Transfer: obj(
    {
      id: str,
      type: { type: "string", enum: ["deposit", "withdrawal"] },
      amount: { ...micro, description: "Micro-USDT; for a deposit not credited, the units that arrived (nanoTON, the foreign jetton's units)" },
      asset: { type: "string", nullable: true, enum: ["USDT", "TON", "OTHER_JETTON"], description: "What amount counts; null when it cannot be told" },
      status: { type: "string", enum: ["credited", "not_credited", "pending", "confirmed", "failed"], description: "Deposits: credited or not_credited; withdrawals: pending, confirmed or failed" },
      reason: { type: "string", description: "Only on not_credited deposits: native_coin, foreign_jetton, forged_notification, bounced, unknown_message, bad_amount" },
      txHash: nullableStr,
      address: { type: "string", description: "Deposits: the deposit address; withdrawals: the destination wallet" },
      createdAt: time,
    },
    ["id", "type", "amount", "asset", "status", "txHash", "address", "createdAt"],
  ),
  FaucetRequest: { type: "object", required: ["amount"], properties: { amount: micro, asset: faucetAsset } },
  FaucetResult: obj({ status: { type: "string", enum: ["accepted"] }, txHash: str, asset: faucetAsset, amount: micro, address: str }, ["status", "txHash", "asset", "amount", "address"]),

  Notification: obj(
    {
      id: str,
      type: { type: "string", description: "TRADE_FILLED, ORDER_CANCELLED, SETTLEMENT_CONFIRMED, SETTLEMENT_FAILED, MARKET_RESOLVED, MARKET_CANCELLED, DEPOSIT_CREDITED, WITHDRAWAL_SENT, ..." },
      title: str,
      body: str,
      metadata: { type: "object", additionalProperties: true, description: "Shape depends on type" },
      delivered: bool,
      read: bool,
      createdAt: time,
    },
    ["id", "type", "title", "body", "metadata", "delivered", "read", "createdAt"],
  ),
  MarkReadRequest: { type: "object", properties: { ids: { type: "array", items: str }, all: bool } },
  MarkReadResult: obj({ updated: int, unread: int }, ["updated", "unread"]),

  CreateEventRequest: {
    type: "object",
    required: ["title", "category", "markets"],
    properties: {
      title: str,
      subtitle: str,
      category,
      subcategory: str,
      imageUrl: str,
      externalEventId: str,
      beginAt: time,
      tags: { type: "array", items: str },
      isActive: bool,
      isLive: bool,
      markets: { type: "array", items: { type: "object", required: ["title"], properties: { title: str, ammLiquidity: micro } } },
    },
  },
  UpdateEventRequest: {
    type: "object",
    properties: {
      title: str,
      subtitle: str,
      category,
      subcategory: str,
      imageUrl: str,
      beginAt: time,
      tags: { type: "array", items: str },
      isActive: bool,
      isLive: bool,
      markets: { type: "array", items: { type: "object", required: ["id", "title"], properties: { id: str, title: str } } },
    },
  },
  ResolveMarketRequest: { type: "object", required: ["result"], properties: { result: outcome } },
} as const;

const errorResponse = (description: string) => ({ description, content: json(ref("ErrorEnvelope")) }) as const;
const rateHeaders = {
  "X-RateLimit-Limit": { schema: int },
  "X-RateLimit-Remaining": { schema: int },
  "X-Request-ID": { schema: str },
} as const;

export const openApiDocument = {
  openapi: "3.0.3",
  info: {
    title: "Prediction-market exchange API",
    version: "1.0.0",
    description:
      "REST API of the exchange. Quantities and money are strings of micro-units unless noted; prices are decimals. Every response carries `requestId`; errors use the error envelope. Rate limits: trade category (POST /orders, POST /orders/batch, PATCH /orders/{orderId}, /trade/amm, /trade/market, /withdraw, /redeem/{marketId}) 10 per sliding 60 s, other contract routes 100 per 60 s, the faucet 5 per 60 s; 429 answers carry Retry-After (seconds); every response carries X-RateLimit-Limit and X-RateLimit-Remaining (/health, this document and the operator API show the read budget without spending it).",
  },
  servers: [{ url: "/api/v1" }],
  tags: [
    { name: "auth" },
    { name: "catalog" },
    { name: "trading" },
    { name: "portfolio" },
    { name: "chain" },
    { name: "notifications" },
    { name: "operator", description: "X-Admin-Key; disabled when the server has no ADMIN_KEY" },
    { name: "meta" },
  ],
  paths: {
    "/health": {
      servers: [{ url: "/" }],
      get: { operationId: "health", tags: ["meta"], summary: "Health check (outside /api/v1)", responses: { "200": { description: "Up", content: json(ref("Health")) } } },
    },
    "/openapi.json": {
      get: { operationId: "openapi", tags: ["meta"], summary: "This document", responses: { "200": { description: "OpenAPI 3 document", content: json({ type: "object" }) } } },
    },
    "/auth/challenge": {
      get: {
        operationId: "challenge",
        tags: ["auth"],
        summary: "The login domain and a fresh payload for a ton_proof",
        responses: { "200": success("What to sign", ref("Challenge")), ...failures() },
      },
    },
    "/auth/connect": {
      post: {
        operationId: "connect",
        tags: ["auth"],
        summary: "Log in with a TON Connect ton_proof",
        requestBody: body(ref("ConnectRequest")),
        responses: { "200": success("Session", ref("Session")), ...failures("400", "401", "413") },
      },
    },
    "/auth/refresh": {
      post: {
        operationId: "refresh",
        tags: ["auth"],
        summary: "New token, only in the last hour of the current one (header or body token)",
        requestBody: body(ref("RefreshRequest"), false),
        responses: { "200": success("Session", ref("Session")), ...failures("400", "401") },
      },
    },
    "/auth/logout": {
      post: { operationId: "logout", tags: ["auth"], summary: "End the session now", security: bearer, responses: { "204": { description: "Logged out" }, ...failures("401") } },
    },
    "/events": {
      get: {
        operationId: "listEvents",
        tags: ["catalog"],
        summary: "Published events, soonest first",
        parameters: [query("category", { type: "string", enum: ["all", ...category.enum], default: "all" }, "Category filter"), ...pageParams, query("search", { type: "string", maxLength: 200 }, "Free-text filter")],
        responses: { "200": { description: "Events (markets empty)", content: json(pagedEnvelope(ref("Event"))) }, ...failures("400") },
      },
    },
    "/events/search": {
      get: {
        operationId: "searchEvents",
        tags: ["catalog"],
        summary: "Events matching every word, best match first",
        parameters: [query("q", { type: "string", minLength: 1, maxLength: 200 }, "Search words", true), ...pageParams],
        responses: { "200": { description: "Events", content: json(pagedEnvelope(ref("Event"))) }, ...failures("400") },
      },
    },
    "/events/{id}": {
      get: {
        operationId: "getEvent",
        tags: ["catalog"],
        summary: "One event with its markets' live prices",
        parameters: [pathParam("id", "Event id")],
        responses: { "200": success("Event", ref("Event")), ...failures("400", "404") },
      },
    },
    "/markets/{id}": {
      get: {
        operationId: "getMarket",
        tags: ["catalog"],
        summary: "One market with live prices (cached 5 s)",
        parameters: [pathParam("id", "Market id")],
        responses: { "200": success("Market", ref("MarketItem")), ...failures("400", "404") },
      },
    },
    "/markets/{marketId}/orderbook": {
      get: {
        operationId: "getOrderBook",
        tags: ["catalog"],
        summary: "Top 10 levels of the YES or NO view",
        parameters: [pathParam("marketId", "Market id"), query("outcome", { ...outcome, default: "YES" }, "Book view")],
        responses: { "200": success("Order book", ref("OrderBook")), ...failures("400", "404") },
      },
    },
    "/markets/{marketId}/price-history": {
      get: {
        operationId: "getPriceHistory",
        tags: ["catalog"],
        summary: "Candles and price change",
        parameters: [pathParam("marketId", "Market id"), query("outcome", { ...outcome, default: "YES" }, "Outcome"), query("interval", { type: "string", enum: ["1H", "1D", "1W", "1M", "MAX"], default: "1D" }, "Interval")],
        responses: { "200": success("Price history", ref("PriceHistory")), ...failures("400", "404") },
      },
    },
    "/markets/{marketId}/quote": {
      post: {
        operationId: "quote",
        tags: ["trading"],
        summary: "Price a market or AMM order without executing it",
        security: bearer,
        parameters: [pathParam("marketId", "Market id")],
        requestBody: body(ref("QuoteRequest")),
        responses: { "200": success("Quote", ref("Quote")), ...failures("400", "401", "404", "409") },
      },
    },
    "/orders": {
      post: {
        operationId: "placeOrder",
        tags: ["trading"],
        summary: "Limit order: GTC, GTD, FOK or FAK, optionally post-only, with a client order id (trade rate category)",
        description:
          "Refusals: 400 VALIDATION_ERROR (fields name the parameter: expiresAt, postOnly, clientOrderId, price rule tick, quantity rule lot), INSUFFICIENT_BALANCE, INSUFFICIENT_SHARES, FOK_NOT_FILLED, POST_ONLY_WOULD_CROSS, MARKET_NOT_OPEN; 404 RESOURCE_NOT_FOUND (market); 409 DUPLICATE_CLIENT_ORDER_ID, IDEMPOTENCY_KEY_REUSED; 503 MARKET_MOVED (nothing executed; retry after Retry-After). A FAK answers status filled or cancelled (cancelledQuantity: the rest, cancelReason null).",
        security: bearer,
        parameters: [idempotencyKey],
        requestBody: body(ref("PlaceOrderRequest")),
        responses: { "200": replayable(success("Order placed", ref("PlacedOrder"))), ...failures("400", "401", "404", "409") },
      },
      get: {
        operationId: "listOrders",
        tags: ["trading"],
        summary: "The caller's orders, newest first: open (default), closed or all",
        security: bearer,
        parameters: [
          query("marketId", str, "Only this market"),
          query("status", { type: "string", enum: ["open", "closed", "all"], default: "open" }, "open: open and partially filled; closed: filled, cancelled and expired; all"),
          query("clientOrderId", clientOrderId, "Only orders with this client order id"),
          // The bounds of book.listOrders (services/book.service.ts).
          ...pageParamsOf(100, 500),
        ],
        responses: { "200": { description: "Orders", content: json(pagedEnvelope(ref("Order"))) }, ...failures("400", "401") },
      },
      delete: {
        operationId: "cancelAllOrders",
        tags: ["trading"],
        summary: "Cancel every open order of the caller, or of one market (read rate category)",
        security: bearer,
        parameters: [query("marketId", str, "Only this market")],
        responses: { "200": success("What was cancelled and released", ref("CancelAllResult")), ...failures("400", "401") },
      },
    },
    "/orders/batch": {
      post: {
        operationId: "placeOrderBatch",
        tags: ["trading"],
        summary: `1 to ${MAX_BATCH} orders in one request, each standing alone; answers in request order (trade rate category, one request)`,
        description:
          "Each item is {ok: true, order} or {ok: false, error {code, message, fields?}}; one refusal changes no other order. With an Idempotency-Key the whole answer is replayed, and each order is kept under the sub-key <key>#<index>. 409 IDEMPOTENCY_KEY_REUSED.",
        security: bearer,
        parameters: [idempotencyKey],
        requestBody: body(ref("BatchOrderRequest")),
        responses: { "200": replayable(success("One result per order", { type: "array", items: ref("BatchOrderResult") })), ...failures("400", "401", "409") },
      },
    },
    "/orders/{orderId}": {
      patch: {
        operationId: "amendOrder",
        tags: ["trading"],
        summary: "Atomic cancel-and-replace of the open remainder under the same orderId (trade rate category)",
        description:
          "A lower quantity keeps time priority; a new price or a higher quantity loses it (and may execute at once). The new terms are checked like a new order; refused (400 VALIDATION_ERROR, INSUFFICIENT_BALANCE, INSUFFICIENT_SHARES, POST_ONLY_WOULD_CROSS, MARKET_NOT_OPEN), the order stands unchanged. The same terms again change nothing. 404 ORDER_NOT_FOUND for unknown, finished or others' orders.",
        security: bearer,
        parameters: [pathParam("orderId", "Order id")],
        requestBody: body(ref("AmendOrderRequest")),
        responses: { "200": success("The order with its new terms", ref("PlacedOrder")), ...failures("400", "401", "404", "409") },
      },
      delete: {
        operationId: "cancelOrder",
        tags: ["trading"],
        summary: "Cancel an open order (404 ORDER_NOT_FOUND for unknown, finished or others' orders)",
        security: bearer,
        parameters: [pathParam("orderId", "Order id")],
        responses: { "200": success("Cancelled", ref("CancelledOrder")), ...failures("400", "401", "404", "409") },
      },
    },
    "/heartbeats": {
      post: {
        operationId: "heartbeat",
        tags: ["trading"],
        summary: "Dead man's switch: arm or re-arm (5 to 300 s), or disarm (0) (read rate category)",
        description:
          "When no heartbeat comes within timeoutSeconds, every open order of the caller is cancelled with cancelReason heartbeat (user channel update, ORDER_CANCELLED notification with reason HEARTBEAT). A restart keeps armed switches and their deadlines.",
        security: bearer,
        requestBody: body(ref("HeartbeatRequest")),
        responses: { "200": success("The switch's state", ref("Heartbeat")), ...failures("400", "401") },
      },
    },
    "/trade/amm": {
      post: {
        operationId: "tradeAmm",
        tags: ["trading"],
        summary: "Trade against the AMM only (trade rate category)",
        security: bearer,
        parameters: [idempotencyKey],
        requestBody: body(ref("TradeRequest")),
        responses: { "200": replayable(success("Executed", ref("TradeExecution"))), ...failures("400", "401", "404", "409") },
      },
    },
    "/trade/market": {
      post: {
        operationId: "tradeMarket",
        tags: ["trading"],
        summary: "Smart-routed market order: CLOB, AMM or HYBRID (trade rate category)",
        security: bearer,
        parameters: [idempotencyKey],
        requestBody: body(ref("TradeRequest")),
        responses: { "200": replayable(success("Executed", ref("TradeExecution"))), ...failures("400", "401", "404", "409") },
      },
    },
    "/deposit-address": {
      get: {
        operationId: "getDepositAddress",
        tags: ["chain"],
        summary: "The caller's deposit address (allocated on first call)",
        security: bearer,
        responses: { "200": success("Deposit address", ref("DepositAddress")), ...failures("401") },
      },
    },
    "/withdraw": {
      post: {
        operationId: "withdraw",
        tags: ["chain"],
        summary: "Withdraw to the session's wallet (trade rate category)",
        security: bearer,
        parameters: [idempotencyKey],
        requestBody: body(ref("WithdrawRequest")),
        responses: { "202": replayable(success("Submitted, duplicate or failed", ref("WithdrawResult"))), ...failures("400", "401", "409") },
      },
    },
    "/redeem/{marketId}": {
      post: {
        operationId: "redeem",
        tags: ["chain"],
        summary: "Redeem winning positions of a resolved market, or the refund of a cancelled one (trade rate category)",
        security: bearer,
        parameters: [pathParam("marketId", "Market id"), idempotencyKey],
        requestBody: body(ref("RedeemRequest")),
        responses: { "202": replayable(success("Accepted or duplicate", ref("RedeemResult"))), ...failures("400", "401", "404", "409") },
      },
    },
    "/balance": {
      get: { operationId: "getBalance", tags: ["portfolio"], summary: "Available, locked, total", security: bearer, responses: { "200": success("Balance", ref("Balance")), ...failures("401") } },
    },
    "/positions": {
      get: {
        operationId: "listPositions",
        tags: ["portfolio"],
        summary: "Open positions with mark price",
        security: bearer,
        responses: { "200": success("Positions", { type: "array", items: ref("Position") }), ...failures("401") },
      },
    },
    "/trades": {
      get: {
        operationId: "listTrades",
        tags: ["portfolio"],
        summary: "The caller's trades, newest first",
        security: bearer,
        parameters: [...pageParams],
        responses: { "200": { description: "Trades", content: json(pagedEnvelope(ref("Trade"))) }, ...failures("400", "401") },
      },
    },
    "/transfers": {
      get: {
        operationId: "listTransfers",
        tags: ["portfolio"],
        summary: "The caller's deposits (credited, and not credited with the reason) and withdrawals, newest first",
        security: bearer,
        parameters: [query("type", { type: "string", enum: ["deposit", "withdrawal"] }, "Only deposits or only withdrawals"), ...pageParams],
        responses: { "200": { description: "Transfers", content: json(pagedEnvelope(ref("Transfer"))) }, ...failures("400", "401") },
      },
    },
    "/trades/{id}": {
      get: {
        operationId: "getTrade",
        tags: ["portfolio"],
        summary: "One trade (poll settlement)",
        security: bearer,
        parameters: [pathParam("id", "Trade id")],
        responses: { "200": success("Trade", ref("Trade")), ...failures("400", "401", "404") },
      },
    },
    "/notifications": {
      get: {
        operationId: "listNotifications",
        tags: ["notifications"],
        summary: "The caller's notifications, newest first",
        security: bearer,
        parameters: [...pageParams, query("unread", { type: "boolean" }, "Only unread ones (pagination.total is then the unread count)")],
        responses: { "200": { description: "Notifications", content: json(pagedEnvelope(ref("Notification"))) }, ...failures("400", "401") },
      },
    },
    "/notifications/read": {
      post: {
        operationId: "markNotificationsRead",
        tags: ["notifications"],
        summary: "Mark {ids} or {all: true} read",
        security: bearer,
        requestBody: body(ref("MarkReadRequest")),
        responses: { "200": success("Counts", ref("MarkReadResult")), ...failures("400", "401") },
      },
    },
    "/sandbox/faucet": {
      post: {
        operationId: "faucet",
        tags: ["chain"],
        summary: "Sandbox chain only: mint test tokens to the caller's deposit address (own rate limit)",
        security: bearer,
        requestBody: body(ref("FaucetRequest")),
        responses: { "202": success("Sent", ref("FaucetResult")), ...failures("400", "401", "404") },
      },
    },
    "/admin/events": {
      post: {
        operationId: "adminCreateEvent",
        tags: ["operator"],
        summary: "New event with 1 to 10 open markets (409 DUPLICATE_EVENT on a reused externalEventId)",
        security: admin,
        requestBody: body(ref("CreateEventRequest")),
        responses: { "201": success("Created", ref("Event")), ...failures("400", "401", "403", "404", "409") },
      },
    },
    "/admin/events/{id}": {
      patch: {
        operationId: "adminUpdateEvent",
        tags: ["operator"],
        summary: "Display fields of an event, market titles",
        security: admin,
        parameters: [pathParam("id", "Event id")],
        requestBody: body(ref("UpdateEventRequest")),
        responses: { "200": success("Updated", ref("Event")), ...failures("400", "401", "403", "404") },
      },
    },
    "/admin/markets/{id}/close": {
      post: {
        operationId: "adminCloseMarket",
        tags: ["operator"],
        summary: "Stop trading (open -> closed)",
        security: admin,
        parameters: [pathParam("id", "Market id")],
        responses: { "200": success("Market", ref("MarketItem")), ...failures("400", "401", "403", "404", "409") },
      },
    },
    "/admin/markets/{id}/cancel": {
      post: {
        operationId: "adminCancelMarket",
        tags: ["operator"],
        summary: "Void the market (positions refunded at cost)",
        security: admin,
        parameters: [pathParam("id", "Market id")],
        responses: { "200": success("Market", ref("MarketItem")), ...failures("400", "401", "403", "404", "409") },
      },
    },
    "/admin/markets/{id}/resolve": {
      post: {
        operationId: "adminResolveMarket",
        tags: ["operator"],
        summary: "Settle the outcome (open passes through closed)",
        security: admin,
        parameters: [pathParam("id", "Market id")],
        requestBody: body(ref("ResolveMarketRequest")),
        responses: { "200": success("Market", ref("MarketItem")), ...failures("400", "401", "403", "404", "409") },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      adminKey: { type: "apiKey", in: "header", name: "X-Admin-Key" },
    },
    parameters: {
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "IETF httpapi Idempotency-Key, scoped to the caller: the same key with the same body answers the first answer again (status and data; fresh requestId) with Idempotent-Replayed: true, and nothing executes twice, also while the first is in flight; another body is 409 IDEMPOTENCY_KEY_REUSED; a refused request does not keep its key. Kept with the ledger's journal.",
        schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY },
      },
    },
    headers: {
      ...rateHeaders,
      IdempotentReplayed: { description: "true when this is the stored answer of an earlier request with the same Idempotency-Key", schema: { type: "string", enum: ["true"] } },
      RetryAfter: { description: "Seconds to wait before trying again", schema: int },
    },
    responses: {
      BadRequest: errorResponse("VALIDATION_ERROR (with fields) or a business refusal such as INSUFFICIENT_BALANCE, FOK_NOT_FILLED, POST_ONLY_WOULD_CROSS"),
      Unauthorized: errorResponse("UNAUTHORIZED"),
      Forbidden: errorResponse("FORBIDDEN"),
      NotFound: errorResponse("RESOURCE_NOT_FOUND, ORDER_NOT_FOUND"),
      Conflict: errorResponse("The resource's state forbids it (ILLEGAL_TRANSITION, SHARES_LOCKED, DUPLICATE_CLIENT_ORDER_ID, ...), or IDEMPOTENCY_KEY_REUSED"),
      PayloadTooLarge: errorResponse("PAYLOAD_TOO_LARGE (over 64 KiB)"),
      TooManyRequests: { description: "RATE_LIMIT_EXCEEDED", headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } }, content: json(ref("ErrorEnvelope")) },
      InternalError: errorResponse("INTERNAL_ERROR"),
      ServiceUnavailable: { description: "SERVICE_UNAVAILABLE, MARKET_MOVED (nothing executed): retry after Retry-After", headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } }, content: json(ref("ErrorEnvelope")) },
    },
    schemas,
  },
} as const;

export type OpenApiDocument = typeof openApiDocument;

/** Serialized once: the route answers these bytes. */
export const OPENAPI_JSON = JSON.stringify(openApiDocument);
