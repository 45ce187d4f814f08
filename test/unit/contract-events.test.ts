/**
 * The Socket.IO payloads of the contract (contract/events.ts) and what follows from them: the
 * server's gateway/socket-protocol.ts types are the contract's (`SocketModel`), the SDK's
 * client/src/socket.ts re-exports the module `npm run contract:sdk` generates from them
 * (client/src/generated/socket.ts, compared with the generator's output here), and one field added
 * to a payload reaches both. The type checks run in `tsc` over tests (on an error, hover the alias).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SCHEMAS, SOCKET_EVENTS, SOCKET_SCHEMAS, sdkSocket, str, type FromSchema, type JsonSchema, type SocketModel } from "../../contract";
import { SDK_GENERATED_DIR, writeSdkModels } from "../../scripts/contract-sdk";
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

/** The socket contract with one more field in the market channel's prices. */
const CHANGED = {
  ...SOCKET_SCHEMAS,
  MarketPrices: {
    ...SOCKET_SCHEMAS.MarketPrices,
    properties: { ...SOCKET_SCHEMAS.MarketPrices.properties, lastTradePrice: { ...str, nullable: true } },
    required: [...SOCKET_SCHEMAS.MarketPrices.required, "lastTradePrice"],
  },
} as const;
// The server's payload type is the contract's: the field added there is in it.
type ChangedServer = FromSchema<(typeof CHANGED)["MarketPrices"], typeof CHANGED & typeof SCHEMAS>;
export type FieldReachesServer = [
  Check<Agree<Server.MarketPrices, SocketModel<"MarketPrices">>>,
  Check<Agree<ChangedServer, SocketModel<"MarketPrices"> & { lastTradePrice: string | null }>>,
];

describe("Socket.IO contract", () => {
  test("the committed client/src/generated/socket.ts is what the generator makes from the contract now", () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-sdk-socket-"));
    try {
      const { files } = writeSdkModels(dir);
      expect(files).toContain(join(dir, "socket.ts"));
      expect(readFileSync(join(dir, "socket.ts"), "utf8")).toBe(
        readFileSync(join(__dirname, "../..", SDK_GENERATED_DIR, "socket.ts"), "utf8"),
      );
      // The SDK stays installable on its own: the generated module imports only its sibling.
      expect(sdkSocket(SOCKET_SCHEMAS as unknown as Record<string, JsonSchema>).match(/from "([^"]+)"/g)).toEqual(['from "./models"']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a field added to a socket payload in contract/events.ts reaches the server's type and the SDK's", () => {
    const before = sdkSocket(SOCKET_SCHEMAS as unknown as Record<string, JsonSchema>);
    const after = sdkSocket(CHANGED as unknown as Record<string, JsonSchema>);
    expect(before).not.toContain("lastTradePrice");
    expect(after).toMatch(/export interface MarketPrices \{[^}]*\n {2}lastTradePrice: string \| null;\n\}/);
    // The server's side is checked by the compiler: FieldReachesServer above.
  });

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
