/**
 * The contract's shapes, written once: every request body and every result the REST routes carry
 * (api-spec.md, trading-api.md, and the README's decisions where the spec says "not shown").
 * The OpenAPI document's components, the SDK's models and the services' param rules follow from
 * these. Results are closed (additionalProperties: false) so an undocumented field fails the
 * document's checks; requests are open (the validator removes unknown fields).
 */
import { AMOUNT, digitsParam, POSITIVE_SAFE_INTEGER, QUANTITY } from "../lib/params";
import { CLIENT_ORDER_ID, MAX_BATCH, MAX_QUOTES } from "../lib/order-rules";
import { bool, ID, int, ISO_DATE_PATTERN, nullableStr, num, obj, ref, req, str, time } from "./schema";

const micro = {
  type: "string",
  pattern: "^(0|[1-9][0-9]*)$",
  description: "Integer micro-units (1 share or 1 USDT = 1000000), plain digits: no sign, spaces, leading zeros or exponent",
} as const;
const signedMicro = { type: "string", pattern: "^(0|-?[1-9][0-9]*)$", description: "Integer micro-units, may be negative" } as const;
const decimal = { type: "string", pattern: "^[0-9]+\\.[0-9]+$", description: "Decimal price, e.g. 0.55 or 0.50125" } as const;
const nullableDecimal = { ...decimal, nullable: true } as const;
const units = { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?$", description: "Decimal amount of USDT, e.g. 0 or 12.5" } as const;
const outcome = { type: "string", enum: ["YES", "NO"] } as const;
const marketResult = {
  type: "string",
  enum: ["YES", "NO", "SPLIT"],
  description: "YES or NO wins in full; SPLIT pays 0.500000 per YES and per NO share",
} as const;
const side = { type: "string", enum: ["BUY", "SELL"] } as const;
const venue = { type: "string", enum: ["AMM", "CLOB", "HYBRID"] } as const;
const orderType = { type: "string", enum: ["GTC", "GTD", "FOK", "FAK"] } as const;
const orderStatus = { type: "string", enum: ["open", "partially_filled", "filled", "cancelled", "expired"] } as const;
const tradingMode = {
  type: "string",
  enum: ["normal", "post_only", "cancel_only", "halted"],
  description: "normal; post_only: post-only limit orders and cancels; cancel_only: cancels; halted: no order changes",
} as const;
const cancelReason = {
  type: "string",
  nullable: true,
  enum: ["user", "expired", "heartbeat", "self_trade", "market_closed", "market_cancelled", "market_resolved", "paused", "order_group"],
  description: "Why the order left the book unfilled; null while it is open or filled, and for the cancelled rest of a FAK",
} as const;
const clientOrderId = {
  type: "string",
  pattern: CLIENT_ORDER_ID.source,
  description: "The caller's own id: 1 to 64 of A-Z a-z 0-9 . _ : -; unique among the caller's open orders",
} as const;
/** What GET /orders and every answer about an order add to the contract's fields (trading-api.md). */
const orderOptions = {
  cancelledQuantity: micro,
  cancelReason,
  clientOrderId: { ...clientOrderId, nullable: true },
  expiresAt: { ...time, nullable: true, description: "GTD only: when the rest is cancelled with status expired" },
  postOnly: bool,
  quote: { type: "boolean", description: "Placed by a mass quote (POST /quotes): replaced by the caller's next quote set in its market" },
} as const;
const category = { type: "string", enum: ["Sports", "Crypto", "Politics", "E-sports", "Culture", "Economics", "Tech"] } as const;
const marketStatus = { type: "string", enum: ["open", "closed", "resolved", "resolution_failed", "cancelled"] } as const;
const faucetAsset = { type: "string", enum: ["USDT", "TON", "FOREIGN_USDT"] } as const;

// Validator hints (contract/schema.ts `x-fv`): what JSON Schema cannot tell fastest-validator.
const TRIM = { trim: true } as const;
const STRICT_REMOVE = { strict: "remove" } as const;
const PROOF_CHECKED = { type: "any", optional: true } as const;
/** Digit strings with the canonical-number refusal (lib/params.ts). */
const quantityString = { ...micro, "x-fv": QUANTITY } as const;
const amountString = { ...micro, "x-fv": AMOUNT } as const;
/** A limit order's quantity: a safe positive integer here, the lot (multiple of 100) in the order rules. */
const orderQuantity = {
  type: "integer",
  minimum: 100,
  description: "Micro-shares, a positive multiple of 100",
  "x-fv": POSITIVE_SAFE_INTEGER,
} as const;
const title = { type: "string", minLength: 1, maxLength: 200, "x-fv": TRIM } as const;
const outcomeLabel = {
  type: "string",
  minLength: 1,
  maxLength: 40,
  description: "The outcome the market stands for in its event (1 to 40 characters)",
  "x-fv": TRIM,
} as const;
/** An event's winning market, or null: none of them won (refused on an exhaustive event). */
const winnerMarketId = {
  ...ID,
  nullable: true,
  description: "The winning market of the event; null: none of them won (not on an exhaustive event)",
  "x-fv": { type: "string", min: 1, max: ID.maxLength, pattern: new RegExp(ID.pattern), nullable: true },
} as const;
/** A market's rules and schedule, as created and as updated. */
const marketTerms = {
  rules: { type: "string", maxLength: 4000, nullable: true, description: "What decides YES (up to 4,000 characters), or null" },
  settlementSources: {
    type: "array",
    maxItems: 10,
    items: {
      type: "object",
      required: ["name", "url"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100, "x-fv": TRIM },
        url: { type: "string", format: "uri", maxLength: 2048, "x-fv": { type: "url", max: 2048 } },
      },
      "x-fv": STRICT_REMOVE,
    },
    description: "Where the result is read from (may be empty)",
  },
  closeTime: {
    ...time,
    maxLength: 40,
    pattern: ISO_DATE_PATTERN,
    nullable: true,
    description: "ISO 8601: the market closes by itself then (resting orders cancelled, reason market_closed); null: no close time",
  },
} as const;
/** A proposed result and its dispute window (inlined where it may be null: a $ref cannot be). */
export const resolution = obj(
  {
    proposedResult: marketResult,
    note: nullableStr,
    proposedAt: time,
    disputeEndsAt: { ...time, description: "Disputes are taken until then; undisputed, the proposal then finalizes by itself" },
    disputed: bool,
    disputes: int,
    finalizedAt: { ...time, nullable: true },
  },
  ["proposedResult", "note", "proposedAt", "disputeEndsAt", "disputed", "disputes", "finalizedAt"],
);
/** An event's display fields, as created and as updated. */
const displayFields = {
  subtitle: { type: "string", maxLength: 500, "x-fv": TRIM },
  category,
  subcategory: { type: "string", maxLength: 60, "x-fv": TRIM },
  imageUrl: { type: "string", format: "uri", maxLength: 2048, "x-fv": { type: "url", max: 2048, optional: true } },
  beginAt: { ...time, maxLength: 40, pattern: ISO_DATE_PATTERN },
  tags: { type: "array", maxItems: 20, items: { type: "string", minLength: 1, maxLength: 40, "x-fv": TRIM } },
  isActive: bool,
  isLive: bool,
} as const;

export const SCHEMAS = {
  Pagination: obj({ total: int, page: int, pageSize: int, hasNext: bool }, ["total", "page", "pageSize", "hasNext"]),
  FieldError: obj({ field: str, rule: str }, ["field", "rule"]),
  ErrorDetail: obj({ code: str, message: str, fields: { type: "array", items: ref("FieldError") } }, ["code", "message"]),
  ErrorEnvelope: obj({ error: ref("ErrorDetail"), requestId: str }, ["error", "requestId"]),
  Health: obj({ status: str, nodeID: str, uptime: int }, ["status", "nodeID", "uptime"]),

  ConnectRequest: {
    type: "object",
    required: ["address", "publicKey", "proof"],
    properties: {
      // The validator lets these through: the proof verifier checks them, so a missing or malformed proof is the contract's 401.
      address: { type: "string", description: "Wallet address, raw (0:<hex>) or friendly", "x-fv": PROOF_CHECKED },
      publicKey: { type: "string", pattern: "^[0-9a-fA-F]{64}$", "x-fv": PROOF_CHECKED },
      proof: {
        "x-fv": PROOF_CHECKED,
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
      messengerInitData: { type: "string", maxLength: 8192, description: "Telegram Mini App init data" },
    },
  },
  Challenge: obj(
    {
      domain: { type: "string", description: "The domain POST /auth/connect checks (APP_DOMAIN, else the server's listening host:port)" },
      payload: {
        type: "string",
        pattern: "^[0-9a-f]{64}$",
        description: "A fresh random payload to sign (client-made payloads are accepted too)",
      },
      expiresAt: { ...time, description: "A proof made now is fresh (5 minutes) until then" },
    },
    ["domain", "payload", "expiresAt"],
  ),
  RefreshRequest: {
    type: "object",
    properties: { token: { type: "string", maxLength: 4096, description: "Alternative to the Authorization header" } },
  },
  Session: obj({ accessToken: str, expiresAt: { type: "integer", description: "Unix seconds" }, userId: str, walletAddress: str }, [
    "accessToken",
    "expiresAt",
    "userId",
    "walletAddress",
  ]),

  MarketItem: obj(
    {
      id: str,
      eventId: str,
      title: str,
      outcomeLabel: { ...nullableStr, description: "The outcome this market stands for in its event, or null" },
      status: marketStatus,
      result: { ...marketResult, nullable: true },
      outcomes: { type: "array", items: outcome },
      buyYesPrice: nullableDecimal,
      buyNoPrice: nullableDecimal,
      sellYesPrice: nullableDecimal,
      sellNoPrice: nullableDecimal,
      volume: units,
      conditionId: { type: "string", pattern: "^0x[0-9a-f]{64}$" },
      tradingMode: {
        ...tradingMode,
        description: "The market's own trading mode; an exchange-wide mode, when stricter, applies over it",
      },
      rules: nullableStr,
      settlementSources: { type: "array", items: ref("SettlementSource") },
      closeTime: { ...time, nullable: true },
      resolution: { ...resolution, nullable: true, description: "The proposed result and its dispute window; null until proposed" },
    },
    [
      "id",
      "eventId",
      "title",
      "outcomeLabel",
      "status",
      "result",
      "outcomes",
      "buyYesPrice",
      "buyNoPrice",
      "sellYesPrice",
      "sellNoPrice",
      "volume",
      "conditionId",
      "tradingMode",
      "rules",
      "settlementSources",
      "closeTime",
      "resolution",
    ],
  ),
  TradingModeRequest: req(
    {
      mode: tradingMode,
      reason: { type: "string", maxLength: 500, description: "Why: shown in every refusal the mode causes" },
    },
    ["mode"],
  ),
  ExchangeTradingMode: obj(
    {
      mode: tradingMode,
      reason: { type: "string", nullable: true },
      updatedAt: { ...time, nullable: true, description: "When the operator set it; null: never set" },
    },
    ["mode", "reason", "updatedAt"],
  ),
  AuditRecord: obj(
    {
      id: str,
      at: time,
      action: { type: "string", description: "The operator route's operation, e.g. adminCloseMarket" },
      method: str,
      path: { type: "string", description: "The request path under /api/v1" },
      params: { type: "object", description: "The request's parameters (path ids and body)" },
      note: { type: "string", nullable: true, description: "The X-Admin-Note header, if sent" },
      seq: { type: "integer", description: "The ledger journal entry that holds the record" },
    },
    ["id", "at", "action", "method", "path", "params", "note", "seq"],
  ),
  SettlementSource: obj({ name: str, url: str }, ["name", "url"]),
  Resolution: resolution,
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
      mutuallyExclusive: { ...bool, description: "At most one of its markets resolves YES" },
      exhaustive: { ...bool, description: "Mutually exclusive and exactly one of its markets wins" },
      ammLiquidity: { ...micro, description: 'Micro-USDT of the one AMM across the event\'s outcomes; "0": none' },
      markets: { type: "array", items: ref("MarketItem") },
      outcomes: { type: "array", items: ref("EventOutcome"), description: "One row per market, in display order (lists too)" },
      closeTime: { ...time, nullable: true, description: "The earliest close time among the event's open markets; null: none set" },
    },
    [
      "id",
      "externalEventId",
      "title",
      "subtitle",
      "category",
      "subcategory",
      "imageUrl",
      "volumeUsd",
      "isActive",
      "isLive",
      "beginAt",
      "tags",
      "mutuallyExclusive",
      "exhaustive",
      "ammLiquidity",
      "markets",
      "outcomes",
      "closeTime",
    ],
  ),
  EventOutcome: obj(
    {
      marketId: str,
      label: { type: "string", description: "The market's outcomeLabel, else its title" },
      status: marketStatus,
      chance: {
        ...nullableDecimal,
        description: "Midpoint of the best YES bid and ask (book and AMM) when at most 0.10 apart, else the last trade price, else null",
      },
    },
    ["marketId", "label", "status", "chance"],
  ),
  BookLevel: obj({ price: { type: "string", pattern: "^0\\.[0-9]{2}$" }, quantity: micro, numOrders: int }, [
    "price",
    "quantity",
    "numOrders",
  ]),
  OrderBook: obj({ bids: { type: "array", items: ref("BookLevel") }, asks: { type: "array", items: ref("BookLevel") } }, ["bids", "asks"]),
  Candle: obj({ timestamp: time, open: num, high: num, low: num, close: num, volume: num }, [
    "timestamp",
    "open",
    "high",
    "low",
    "close",
    "volume",
  ]),
  /** One execution on the public tape (GET /markets/:id/trades, the market channel's `trade`): no user ids. */
  PublicTrade: obj(
    {
      marketId: str,
      tradeId: str,
      outcome,
      side: { type: "string", enum: ["BUY", "SELL"], description: "The taker's side" },
      price: { ...str, description: "The outcome's price (a decimal; more than two places for a pool's average)" },
      quantity: { ...str, description: "Shares in micro-units" },
      yesPrice: { ...str, description: "The YES price of the execution" },
      at: time,
    },
    ["marketId", "tradeId", "outcome", "side", "price", "quantity", "yesPrice", "at"],
  ),
  PublicTradeList: obj({ items: { type: "array", items: ref("PublicTrade") } }, ["items"]),
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
      quantity: quantityString,
      venue: {
        type: "string",
        enum: ["AUTO", "AMM"],
        default: "AUTO",
        description: "AUTO prices POST /trade/market (the router), AMM prices POST /trade/amm",
      },
    },
  },
  Quote: obj({ estimatedPrice: decimal, estimatedCost: micro, source: venue, fee: micro }, [
    "estimatedPrice",
    "estimatedCost",
    "source",
    "fee",
  ]),
  PlaceOrderRequest: {
    type: "object",
    required: ["marketId", "side", "outcome", "orderType", "price", "quantity"],
    properties: {
      marketId: ID,
      side,
      outcome,
      orderType,
      price: { type: "number", minimum: 0.01, maximum: 0.99, description: "On the 0.01 grid" },
      quantity: orderQuantity,
      // Length only here: the order rules refuse a bad time or id naming the field (lib/order-rules.ts).
      expiresAt: { ...time, description: "Required for GTD (5 s to 365 days ahead), refused otherwise", "x-fv": { max: 40 } },
      postOnly: {
        type: "boolean",
        default: false,
        description: "GTC and GTD only: refused whole (POST_ONLY_WOULD_CROSS) if any part would execute at once",
        "x-fv": { type: "boolean", optional: true },
      },
      clientOrderId: { ...clientOrderId, "x-fv": { type: "string", max: 200, optional: true } },
      cancelOnPause: {
        type: "boolean",
        default: false,
        description: "Cancel the order (reason paused) when its market leaves the normal trading mode",
        "x-fv": { type: "boolean", optional: true },
      },
      orderGroupId: {
        ...ID,
        description: "An order group of the caller (POST /order-groups): its fill limit cancels the order with the group's others",
      },
    },
  },
  BatchOrderRequest: {
    type: "object",
    required: ["orders"],
    properties: {
      orders: { type: "array", minItems: 1, maxItems: MAX_BATCH, items: { ...ref("PlaceOrderRequest"), "x-fv": { type: "object" } } },
    },
  },
  MassQuoteRequest: {
    type: "object",
    required: ["marketId", "quotes"],
    properties: {
      marketId: ID,
      quotes: {
        type: "array",
        minItems: 1,
        maxItems: MAX_QUOTES,
        description: "The new quote set, placed as GTC orders in this order; the set's own bids may not meet its own asks",
        items: {
          type: "object",
          required: ["side", "outcome", "price", "quantity"],
          properties: {
            side,
            outcome,
            price: { type: "number", minimum: 0.01, maximum: 0.99, description: "On the 0.01 grid" },
            quantity: orderQuantity,
          },
        },
      },
      postOnly: {
        type: "boolean",
        default: false,
        description: "Refuse the whole set (POST_ONLY_WOULD_CROSS) if any quote would execute at once",
        "x-fv": { type: "boolean", optional: true },
      },
      orderGroupId: {
        ...ID,
        description: "An order group of the caller (POST /order-groups): every quote order joins it",
      },
    },
  },
  MassQuoteResult: obj(
    {
      cancelled: { type: "array", items: str, description: "The previous quote set's order ids, cancelled" },
      orders: { type: "array", items: ref("PlacedOrder"), description: "The new quote orders, in request order" },
    },
    ["cancelled", "orders"],
  ),
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
      quantity: { ...orderQuantity, description: "Micro-shares, a positive multiple of 100; lower keeps time priority, higher loses it" },
    },
  },
  CancelAllResult: obj({ cancelled: { type: "array", items: str, description: "Order ids" }, releasedAmount: micro }, [
    "cancelled",
    "releasedAmount",
  ]),
  HeartbeatRequest: {
    type: "object",
    required: ["timeoutSeconds"],
    properties: { timeoutSeconds: { type: "integer", minimum: 0, maximum: 300, description: "0 disarms; else 5 to 300" } },
  },
  Heartbeat: obj(
    {
      armed: bool,
      expiresAt: { ...time, nullable: true, description: "When every open order is cancelled unless another heartbeat comes first" },
    },
    ["armed", "expiresAt"],
  ),
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
      "orderId",
      "marketId",
      "side",
      "outcome",
      "orderType",
      "price",
      "quantity",
      "status",
      "filledQuantity",
      "remainingQuantity",
      "avgPrice",
      "totalCost",
      "fee",
      "tradeId",
      "fills",
      "cancelledQuantity",
      "cancelReason",
      "clientOrderId",
      "expiresAt",
      "postOnly",
      "quote",
      "createdAt",
      "updatedAt",
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
      "id",
      "orderId",
      "marketId",
      "side",
      "outcome",
      "orderType",
      "price",
      "quantity",
      "filledQuantity",
      "remainingQuantity",
      "status",
      "cancelledQuantity",
      "cancelReason",
      "clientOrderId",
      "expiresAt",
      "postOnly",
      "quote",
      "createdAt",
      "updatedAt",
    ],
  ),
  TradeRequest: {
    type: "object",
    required: ["marketId", "side", "outcome", "quantity"],
    properties: { marketId: ID, side, outcome, quantity: quantityString },
  },
  TradeExecution: obj({ tradeId: str, venue, filledQuantity: micro, avgPrice: decimal, totalCost: micro, fee: micro }, [
    "tradeId",
    "venue",
    "filledQuantity",
    "avgPrice",
    "totalCost",
    "fee",
  ]),

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
      /** closed: no shares left (sold, merged or redeemed); settled: its market paid out */
      status: { type: "string", enum: ["open", "closed", "settled"] },
      market: obj({ id: str, title: nullableStr }, ["id", "title"]),
      markPrice: nullableDecimal,
      unrealizedPnl: { ...signedMicro, nullable: true },
    },
    [
      "id",
      "marketId",
      "outcome",
      "quantity",
      "lockedQuantity",
      "avgEntryPrice",
      "totalCost",
      "realizedPnl",
      "status",
      "market",
      "markPrice",
      "unrealizedPnl",
    ],
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
    [
      "id",
      "tradeId",
      "marketId",
      "orderId",
      "side",
      "outcome",
      "venue",
      "role",
      "filledQuantity",
      "avgPrice",
      "totalCost",
      "fee",
      "settlementStatus",
      "settlementTxHash",
      "createdAt",
    ],
  ),

  DepositAddress: obj({ address: str, jettonWalletAddress: nullableStr, derivationIndex: int }, [
    "address",
    "jettonWalletAddress",
    "derivationIndex",
  ]),
  WithdrawRequest: { type: "object", required: ["amount"], properties: { amount: amountString } },
  WithdrawResult: obj({ status: { type: "string", enum: ["accepted", "duplicate", "failed"] }, txHash: str, message: str }, [
    "status",
    "message",
  ]),
  RedeemRequest: {
    type: "object",
    required: ["conditionId", "indexSets"],
    properties: {
      conditionId: {
        type: "string",
        pattern: "^0x[0-9a-fA-F]{64}$",
        "x-fv": { messages: { stringPattern: "conditionId must be 0x followed by 64 hex digits" } },
      },
      indexSets: {
        type: "array",
        minItems: 1,
        maxItems: 2,
        items: { type: "string", minLength: 3, maxLength: 66, description: '"0x1" = YES, "0x2" = NO' },
      },
    },
  },
  ConvertRequest: {
    type: "object",
    required: ["marketIds", "quantity"],
    properties: {
      marketIds: {
        type: "array",
        minItems: 1,
        maxItems: 64,
        items: ID,
        description: "1 to 64 distinct open markets of the event whose NO shares are given up",
      },
      quantity: { ...quantityString, description: "Micro-shares of NO given up per named market, > 0" },
    },
  },
  ConvertResult: obj(
    {
      eventId: str,
      quantity: micro,
      marketIds: { type: "array", items: str },
      cashCredited: { ...micro, description: "Micro-USDT into available balance: (k-1) x quantity, less CONVERSION_FEE_BPS" },
      yesReceived: {
        type: "array",
        items: obj({ marketId: str, quantity: micro }, ["marketId", "quantity"]),
        description: "YES shares received: quantity of every other market of the event still open",
      },
    },
    ["eventId", "quantity", "marketIds", "cashCredited", "yesReceived"],
  ),
  RedeemResult: obj({ status: { type: "string", enum: ["accepted", "duplicate"] }, payout: micro, message: str }, ["status", "message"]),
  Transfer: obj(
    {
      id: str,
      type: {
        type: "string",
        enum: ["deposit", "withdrawal", "reward", "rebate"],
        description: "reward: a market's daily liquidity reward; rebate: a maker rebate of a market's day (both paid by the exchange)",
      },
      amount: {
        ...micro,
        description: "Micro-USDT; for a deposit not credited, the units that arrived (nanoTON, the foreign jetton's units)",
      },
      asset: {
        type: "string",
        nullable: true,
        enum: ["USDT", "TON", "OTHER_JETTON"],
        description: "What amount counts; null when it cannot be told",
      },
      status: {
        type: "string",
        enum: ["credited", "not_credited", "pending", "confirmed", "failed"],
        description: "Deposits: credited or not_credited; withdrawals: pending, confirmed or failed; rewards and rebates: confirmed",
      },
      reason: {
        type: "string",
        description:
          "Only on not_credited deposits: native_coin, foreign_jetton, forged_notification, bounced, unknown_message, bad_amount",
      },
      txHash: nullableStr,
      address: {
        type: "string",
        nullable: true,
        description: "Deposits: the deposit address; withdrawals: the destination wallet; rewards and rebates: null",
      },
      marketId: { type: "string", description: "Only on rewards and rebates: the market that paid" },
      day: { type: "string", description: "Only on rewards and rebates: the UTC day paid (YYYY-MM-DD)" },
      createdAt: time,
    },
    ["id", "type", "amount", "asset", "status", "txHash", "address", "createdAt"],
  ),
  FaucetRequest: { type: "object", required: ["amount"], properties: { amount: amountString, asset: { ...faucetAsset, default: "USDT" } } },
  FaucetResult: obj({ status: { type: "string", enum: ["accepted"] }, txHash: str, asset: faucetAsset, amount: micro, address: str }, [
    "status",
    "txHash",
    "asset",
    "amount",
    "address",
  ]),

  Notification: obj(
    {
      id: str,
      type: {
        type: "string",
        description:
          "TRADE_FILLED, ORDER_CANCELLED, SETTLEMENT_CONFIRMED, SETTLEMENT_FAILED, MARKET_RESOLVED, MARKET_CANCELLED, RESOLUTION_PROPOSED, RESOLUTION_DISPUTED, DEPOSIT_CREDITED, WITHDRAWAL_SENT, POSITIONS_CONVERTED, ...",
      },
      title: str,
      body: str,
      metadata: { type: "object", additionalProperties: true, description: "Shape depends on type" },
      delivered: bool,
      read: bool,
      createdAt: time,
    },
    ["id", "type", "title", "body", "metadata", "delivered", "read", "createdAt"],
  ),
  MarkReadRequest: {
    type: "object",
    properties: { ids: { type: "array", maxItems: 500, items: { type: "string", minLength: 1, maxLength: 200 } }, all: bool },
  },
  MarkReadResult: obj({ updated: int, unread: int }, ["updated", "unread"]),
  NotificationSettings: obj(
    {
      push: obj(
        {
          trades: { type: "boolean", description: "TRADE_FILLED, ORDER_CANCELLED" },
          settlement: { type: "boolean", description: "SETTLEMENT_CONFIRMED (SETTLEMENT_FAILED is always pushed)" },
          results: { type: "boolean", description: "MARKET_RESOLVED, MARKET_CANCELLED, RESOLUTION_PROPOSED, RESOLUTION_DISPUTED" },
          transfers: { type: "boolean", description: "DEPOSIT_CREDITED, WITHDRAWAL_SENT, WITHDRAWAL_FAILED" },
        },
        ["trades", "settlement", "results", "transfers"],
      ),
    },
    ["push"],
  ),
  NotificationSettingsRequest: {
    type: "object",
    required: ["push"],
    properties: {
      push: {
        type: "object",
        properties: { trades: bool, settlement: bool, results: bool, transfers: bool },
      },
    },
  },

  CreateEventRequest: {
    type: "object",
    required: ["title", "category", "markets"],
    properties: {
      title,
      ...displayFields,
      externalEventId: { type: "string", minLength: 1, maxLength: 128, "x-fv": TRIM },
      mutuallyExclusive: {
        ...bool,
        default: false,
        description: "At most one market resolves YES; 2 to 64 markets, each with an outcomeLabel",
      },
      exhaustive: { ...bool, default: false, description: "Only with mutuallyExclusive: exactly one market wins" },
      ammLiquidity: {
        ...micro,
        description: "One AMM across the event's outcomes (micro-USDT), instead of per market",
        "x-fv": digitsParam(15, "micro-USDT"),
      },
      markets: {
        type: "array",
        minItems: 1,
        maxItems: 64,
        description: "1 to 10 markets; 2 to 64 in a mutually exclusive event",
        items: {
          type: "object",
          required: ["title"],
          properties: { title, outcomeLabel, ammLiquidity: { ...micro, "x-fv": digitsParam(15, "micro-USDT") }, ...marketTerms },
          "x-fv": STRICT_REMOVE,
        },
      },
    },
  },
  UpdateEventRequest: {
    type: "object",
    properties: {
      title,
      ...displayFields,
      markets: {
        type: "array",
        maxItems: 10,
        items: { type: "object", required: ["id"], properties: { id: ID, title, ...marketTerms }, "x-fv": STRICT_REMOVE },
      },
    },
  },
  AddOutcomeRequest: {
    type: "object",
    required: ["title", "outcomeLabel"],
    properties: { title, outcomeLabel },
  },
  ResolveEventRequest: {
    type: "object",
    required: ["winnerMarketId"],
    properties: { winnerMarketId: winnerMarketId },
  },
  ProposeEventRequest: {
    type: "object",
    required: ["winnerMarketId"],
    properties: { winnerMarketId, note: { type: "string", maxLength: 1000, "x-fv": TRIM } },
  },
  ResolveMarketRequest: { type: "object", required: ["result"], properties: { result: marketResult } },
  ProposeRequest: {
    type: "object",
    required: ["result"],
    properties: { result: marketResult, note: { type: "string", maxLength: 1000, "x-fv": TRIM } },
  },
  FinalizeRequest: { type: "object", required: ["result"], properties: { result: marketResult } },
  DisputeRequest: {
    type: "object",
    required: ["reason"],
    properties: {
      reason: { type: "string", minLength: 10, maxLength: 1000, "x-fv": TRIM, description: "Why the proposed result is wrong" },
    },
  },
  Dispute: obj({ marketId: str, reason: str, createdAt: time, resolution: ref("Resolution") }, [
    "marketId",
    "reason",
    "createdAt",
    "resolution",
  ]),
  QueuePosition: obj(
    {
      price: { type: "string", pattern: "^0\\.[0-9]{2}$", description: "The order's price in its own outcome" },
      quantityAhead: { ...micro, description: "Quantity resting before the order at its price level (time priority)" },
      ordersAhead: { type: "integer", description: "Orders resting before it at that level" },
    },
    ["price", "quantityAhead", "ordersAhead"],
  ),
  RewardTermsRequest: {
    type: "object",
    required: ["dailyPool", "maxSpread", "minSize"],
    properties: {
      dailyPool: { ...amountString, description: "Micro-USDT paid each UTC day to the market's scorers (0 stops it)" },
      maxSpread: {
        type: "string",
        pattern: "^0\\.(0[1-9]|[1-9][0-9])$",
        description: "The widest distance from the midpoint that scores, e.g. 0.03",
      },
      minSize: { ...amountString, description: "The smallest resting quantity that scores (micro-shares)" },
    },
  },
  RewardMarket: obj({ marketId: str, dailyPool: micro, maxSpread: decimal, minSize: micro }, [
    "marketId",
    "dailyPool",
    "maxSpread",
    "minSize",
  ]),
  FundRewardsRequest: { type: "object", required: ["amount"], properties: { amount: amountString } },
  RewardsFunded: obj({ amount: micro, balance: { ...micro, description: "The rewards account's balance now" } }, ["amount", "balance"]),
  RewardEarning: obj(
    {
      marketId: str,
      score: {
        type: "string",
        pattern: "^(0|[1-9][0-9]*)$",
        description: "The day's score (summed per-minute scores; comparable within a market)",
      },
      reward: micro,
      rebate: micro,
    },
    ["marketId", "score", "reward", "rebate"],
  ),
  OrderScoring: obj(
    {
      scoring: bool,
      reason: {
        type: "string",
        enum: ["scoring", "no_rewards", "no_midpoint", "too_far", "too_small", "not_resting"],
        description:
          "Why it scores or not: its market pays no rewards, the book has no midpoint, it rests at or beyond maxSpread, below minSize, or it no longer rests",
      },
    },
    ["scoring", "reason"],
  ),
  OrderGroupRequest: {
    type: "object",
    required: ["fillLimit"],
    properties: {
      fillLimit: {
        ...amountString,
        description: "Quantity (micro-shares) filled on the group's orders within the window that triggers it",
      },
      windowSeconds: { type: "integer", minimum: 1, maximum: 3600, default: 15, description: "The rolling window, 1 to 3600 s" },
    },
  },
  OrderGroup: obj({ orderGroupId: str, fillLimit: micro, windowSeconds: int, triggered: bool }, [
    "orderGroupId",
    "fillLimit",
    "windowSeconds",
    "triggered",
  ]),
  DeletedOrderGroup: obj({ orderGroupId: str, cancelled: { type: "array", items: str, description: "Order ids" } }, [
    "orderGroupId",
    "cancelled",
  ]),
  SetTierRequest: {
    type: "object",
    required: ["tier"],
    properties: { tier: { type: "string", minLength: 1, maxLength: 32, description: "A tier of RATE_TIERS, or default" } },
  },
  UserTier: obj({ userId: str, tier: str }, ["userId", "tier"]),
  RateBudget: obj(
    {
      limit: { type: "integer", description: "Requests allowed per window" },
      remaining: { type: "integer", description: "Requests left in the current sliding window" },
      windowSeconds: int,
    },
    ["limit", "remaining", "windowSeconds"],
  ),
  AccountLimits: obj({ tier: str, read: ref("RateBudget"), trade: ref("RateBudget") }, ["tier", "read", "trade"]),
  CancelMarketRequest: {
    type: "object",
    properties: {
      price: {
        type: "string",
        pattern: "^(0(\\.[0-9]{1,2})?|1(\\.0{1,2})?)$",
        // No schema default: omitted, a race's outcome is cancelled at 0.00, any other market at 0.50 (catalog/exclusive.ts).
        description:
          "What each YES share is paid (0.00 to 1.00; default 0.50, a race's outcome 0.00); each NO share is paid 1 minus it, out of the market's own collateral",
      },
    },
  },
} as const;
