/**
 * The Socket.IO contract at /ws (api-spec.md "Real time", README): what a client emits
 * (`ping`, `subscribe`, `unsubscribe`) and every payload of the server's `message` event, as
 * JSON Schema in the contract's one form. The server's gateway/socket-protocol.ts and the SDK's
 * client/src/socket.ts still declare their own types; a compile-time test holds both to these
 * (test/unit/contract-events.test.ts) until they are derived from them.
 */
import { SCHEMAS, resolution } from "./models";
import { ID, type FromSchema, obj, ref, str, int } from "./schema";

const outcome = { type: "string", enum: ["YES", "NO"] } as const;
const channel = { type: "string", enum: ["market", "book", "user"] } as const;
const nullableStr = { type: "string", nullable: true } as const;
const lit = <const V extends string>(v: V) => ({ type: "string", enum: [v] }) as const;
const marketIds = { type: "array", items: ID } as const;

/** The payload schemas, by name; `$ref`s point here or at the REST shapes (contract/models.ts). */
export const SOCKET_SCHEMAS = {
  // What a client emits.
  SubscribeRequest: {
    oneOf: [
      obj({ channel: lit("market"), marketIds: { ...marketIds, minItems: 1 } }, ["channel", "marketIds"]),
      obj({ channel: lit("book"), marketId: ID, outcome: { ...outcome, default: "YES" } }, ["channel", "marketId"]),
      obj({ channel: lit("user"), token: { type: "string", maxLength: 4096 } }, ["channel", "token"]),
    ],
  },
  UnsubscribeRequest: {
    oneOf: [
      obj({ channel: lit("market"), marketIds }, ["channel"]),
      obj({ channel: lit("book"), marketId: ID, outcome: { ...outcome, default: "YES" } }, ["channel", "marketId"]),
      obj({ channel: lit("user") }, ["channel"]),
    ],
  },
  // What the server sends, as the `message` event.
  MarketPrices: obj(
    { marketId: str, buyYesPrice: nullableStr, buyNoPrice: nullableStr, sellYesPrice: nullableStr, sellNoPrice: nullableStr },
    ["marketId", "buyYesPrice", "buyNoPrice", "sellYesPrice", "sellNoPrice"],
  ),
  /** A market's status or resolution changed (close, proposal, dispute, finalization, cancel). */
  MarketLifecycle: obj(
    {
      marketId: str,
      status: SCHEMAS.MarketItem.properties.status,
      resolution: { ...resolution, nullable: true },
      tradingMode: SCHEMAS.MarketItem.properties.tradingMode,
    },
    ["marketId", "status", "resolution", "tradingMode"],
  ),
  PositionUpdate: obj({ marketId: str, outcome, quantity: str, avgEntryPrice: str, totalCost: str, realizedPnl: str }, [
    "marketId",
    "outcome",
    "quantity",
    "avgEntryPrice",
    "totalCost",
    "realizedPnl",
  ]),
  OrderUpdate: obj(
    {
      orderId: str,
      marketId: str,
      status: SCHEMAS.Order.properties.status,
      remainingQuantity: str,
      filledDelta: str,
      clientOrderId: nullableStr,
      cancelReason: SCHEMAS.Order.properties.cancelReason,
    },
    ["orderId", "marketId", "status", "remainingQuantity", "filledDelta", "clientOrderId", "cancelReason"],
  ),
  TradeUpdate: obj(
    {
      tradeId: str,
      marketId: str,
      orderId: str,
      side: { type: "string", enum: ["BUY", "SELL"] },
      outcome,
      venue: SCHEMAS.Trade.properties.venue,
      role: SCHEMAS.Trade.properties.role,
      filledQuantity: str,
      avgPrice: str,
      totalCost: str,
      fee: str,
    },
    ["tradeId", "marketId", "orderId", "side", "outcome", "venue", "role", "filledQuantity", "avgPrice", "totalCost", "fee"],
  ),
  /** What changed for the user: exactly one key. */
  UserUpdate: {
    oneOf: [
      obj({ balance: ref("Balance") }, ["balance"]),
      obj({ position: ref("PositionUpdate") }, ["position"]),
      obj({ order: ref("OrderUpdate") }, ["order"]),
      obj({ trade: ref("TradeUpdate") }, ["trade"]),
      obj({ notification: ref("Notification") }, ["notification"]),
    ],
  },
  SocketErrorCode: {
    type: "string",
    enum: [
      "VALIDATION_ERROR",
      "UNAUTHORIZED",
      "SESSION_ENDED",
      "NOT_FOUND",
      "LIMIT_EXCEEDED",
      "UNSUPPORTED",
      "IDLE_TIMEOUT",
      "UNAVAILABLE",
    ],
  },
  ServerMessage: {
    oneOf: [
      obj({ type: lit("pong") }, ["type"]),
      obj({ type: lit("subscribed"), channel: lit("market"), marketIds: { type: "array", items: str } }, ["type", "channel", "marketIds"]),
      obj({ type: lit("subscribed"), channel: lit("book"), marketId: str, outcome }, ["type", "channel", "marketId", "outcome"]),
      obj({ type: lit("subscribed"), channel: lit("user"), userId: str }, ["type", "channel", "userId"]),
      obj({ type: lit("unsubscribed"), channel: lit("market"), marketIds: { type: "array", items: str } }, [
        "type",
        "channel",
        "marketIds",
      ]),
      obj({ type: lit("unsubscribed"), channel: lit("book"), marketId: str, outcome }, ["type", "channel", "marketId", "outcome"]),
      obj({ type: lit("unsubscribed"), channel: lit("user"), userId: nullableStr }, ["type", "channel", "userId"]),
      obj({ type: lit("snapshot"), channel: lit("book"), marketId: str, outcome, seq: int, data: ref("OrderBook") }, [
        "type",
        "channel",
        "marketId",
        "outcome",
        "seq",
        "data",
      ]),
      obj(
        {
          type: lit("update"),
          channel: lit("book"),
          marketId: str,
          outcome,
          seq: int,
          data: obj({ marketId: str, bids: SCHEMAS.OrderBook.properties.bids, asks: SCHEMAS.OrderBook.properties.asks }, [
            "marketId",
            "bids",
            "asks",
          ]),
        },
        ["type", "channel", "marketId", "outcome", "seq", "data"],
      ),
      obj({ type: lit("update"), channel: lit("market"), data: ref("MarketPrices") }, ["type", "channel", "data"]),
      obj({ type: lit("lifecycle"), channel: lit("market"), data: ref("MarketLifecycle") }, ["type", "channel", "data"]),
      obj({ type: lit("trade"), channel: lit("market"), data: ref("PublicTrade") }, ["type", "channel", "data"]),
      obj({ type: lit("update"), channel: lit("user"), data: ref("UserUpdate") }, ["type", "channel", "data"]),
      obj({ type: lit("error"), code: ref("SocketErrorCode"), message: str, channel }, ["type", "code", "message"]),
    ],
  },
} as const;

/** The Socket.IO events: what each one carries. */
export const SOCKET_EVENTS = {
  client: { ping: null, subscribe: "SubscribeRequest", unsubscribe: "UnsubscribeRequest" },
  server: { message: "ServerMessage" },
} as const;

type SocketComponents = typeof SOCKET_SCHEMAS & typeof SCHEMAS;
/** The TypeScript type of a socket payload schema. */
export type SocketModel<N extends keyof typeof SOCKET_SCHEMAS> = FromSchema<(typeof SOCKET_SCHEMAS)[N], SocketComponents>;
