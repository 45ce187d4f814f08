/**
 * The Socket.IO payloads of the contract (contract/events.ts) against the two hand-written copies
 * that remain: the server's gateway/socket-protocol.ts must describe exactly the contract's
 * messages, and the SDK's client/src/socket.ts must accept every message the contract allows
 * (checked by `tsc` over tests; on a compile error, hover the failing alias).
 */
import { SOCKET_EVENTS, SOCKET_SCHEMAS, type SocketModel } from "../../contract";
import type * as Server from "../../gateway/socket-protocol";
import type * as Sdk from "../../client/src/socket";

type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Extends<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;

// The server sends exactly what the contract says where its types are as precise...
export type ServerAgrees = [
  Check<Agree<Server.MarketPrices, SocketModel<"MarketPrices">>>,
  Check<Agree<Server.PositionUpdate, SocketModel<"PositionUpdate">>>,
  Check<Agree<Server.SocketErrorCode, SocketModel<"SocketErrorCode">>>,
  // ...and parses subscriptions into what the contract allows.
  Check<Extends<Server.Subscription, SocketModel<"SubscribeRequest">>>,
];
// Where the server's types are wider than the contract (order status, cancel reason, venue, role
// as plain strings), they at least hold every message the contract allows: no field missing,
// renamed or of another kind. (A notification is the REST model; its server type is narrower.)
export type ServerHolds = [
  Check<Extends<Exclude<SocketModel<"ServerMessage">, { type: "update"; channel: "user" }>, Server.ServerMessage>>,
  Check<Extends<Exclude<SocketModel<"UserUpdate">, { notification: unknown }>, Server.UserUpdate>>,
  Check<Extends<SocketModel<"OrderUpdate">, Server.OrderUpdate>>,
  Check<Extends<SocketModel<"TradeUpdate">, Server.TradeUpdate>>,
  Check<
    Extends<
      Server.OrderUpdate,
      Omit<SocketModel<"OrderUpdate">, "status" | "cancelReason"> & { status: string; cancelReason: string | null }
    >
  >,
];

// The SDK reads every message the contract allows.
export type SdkAccepts = [
  Check<Extends<SocketModel<"ServerMessage">, Sdk.ServerMessage>>,
  Check<Extends<SocketModel<"MarketPrices">, Sdk.MarketPrices>>,
  Check<Extends<SocketModel<"PositionUpdate">, Sdk.PositionUpdate>>,
  Check<Extends<SocketModel<"OrderUpdate">, Sdk.OrderUpdate>>,
  Check<Extends<SocketModel<"TradeUpdate">, Sdk.TradeUpdate>>,
];

describe("Socket.IO contract", () => {
  test("every event names a payload schema of the contract", () => {
    const named = [...Object.values(SOCKET_EVENTS.client), ...Object.values(SOCKET_EVENTS.server)].filter((n) => n !== null);
    for (const n of named) expect(Object.keys(SOCKET_SCHEMAS)).toContain(n);
  });

  test("every $ref of a socket schema resolves (in the socket schemas or the REST shapes)", async () => {
    const { SCHEMAS } = await import("../../contract");
    const refs = JSON.stringify(SOCKET_SCHEMAS).match(/#\/components\/schemas\/\w+/g) ?? [];
    const known = new Set([...Object.keys(SOCKET_SCHEMAS), ...Object.keys(SCHEMAS)]);
    expect(refs.map((r) => r.split("/").pop()).filter((n) => !known.has(n as string))).toEqual([]);
  });
});
