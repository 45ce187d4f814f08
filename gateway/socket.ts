/**
 * Socket.IO at `/ws` on the gateway's own HTTP server (moleculer-io), mixed into the `api` service.
 *
 * - Only `ping`, `subscribe` and `unsubscribe` are handled; moleculer-io's generic `call` handler
 *   (any published action from any socket) is replaced by a refusal and its actions are removed.
 * - Pushes come from broker events (broadcast by their producers). Every gateway node also
 *   subscribes under its own event group, so even a plain `emit` (one instance per group) reaches
 *   every node, and each node serves its own sockets.
 * - Book, price, balance and position pushes are coalesced per key (COALESCE_MS, latest state wins).
 * - A market's book and price updates go out together: one pass over its subscribers, each socket
 *   getting the frames of all its rooms in one write (the syscall per socket is most of the cost).
 * - What a subscribe/unsubscribe does is decided in gateway/subscriptions.ts; here are its ports.
 * - Limits against clients that would eat the server: a connection whose unsent data passes
 *   SOCKET_MAX_BUFFER_BYTES (it stopped reading) is cut (gateway/socket-direct.ts), and one client
 *   address holds at most SOCKET_MAX_PER_ADDRESS connections (the rate limiter's address rule).
 */
import type { IncomingMessage } from "node:http";
import type { Service, ServiceSchema } from "moleculer";
import SocketIOMixin from "moleculer-io";
import type { Server, Socket } from "socket.io";
import { defineService } from "../mixins/service";
import { call, type ActionName, type EventName, type EventPayload } from "../contract";
import { configOf } from "../lib/config";
import { AddressConnections } from "./socket-limits";
import { clientAddress, trustedProxies, type TrustedProxies } from "../lib/proxies";
import { METRIC } from "../lib/metrics";
import {
  batchOf,
  type ConnectionWriter,
  encodedMessage,
  type Batch,
  WebSocketDirectory,
  type EngineSocket,
  type EncodedMessage,
  type FanoutPath,
} from "./socket-direct";
import { MAX_PACKET_BYTES, SOCKET_PATH, rooms, type ServerMessage } from "./socket-protocol";
import { SocketFanout } from "./socket-fanout";
import { ConnectionSubscriptions, errorMsg, type SubscriptionPorts } from "./subscriptions";

interface SocketState {
  /** Its subscriptions' rules (gateway/subscriptions.ts). */
  subs: ConnectionSubscriptions;
  idle: NodeJS.Timeout;
  /** Its pushes' way out (gateway/socket-direct.ts). */
  writer: ConnectionWriter;
}

export type SocketGatewayThis = Service & {
  io: Server;
  socketStates: Map<string, SocketState>;
  idleTimeoutMs: number;
  /** What goes out to which sockets (gateway/socket-fanout.ts). */
  fanout: SocketFanout;
  socketConnected(socket: Socket): void;
  stateOf(socket: Socket): SocketState | undefined;
  send(socket: Socket, msg: ServerMessage): void;
  toRoom(room: string, msg: ServerMessage): void;
  hasMembers(room: string): boolean;
  subscriptionPorts(socket: Socket): SubscriptionPorts;
  encode(msg: ServerMessage): EncodedMessage;
  writeEncoded(socket: Socket, e: Batch): void;
  pong: Batch | null;
  /** The websockets engine.io accepted and each connection's writer (direct unless SOCKET_DIRECT_WRITES=false). */
  directory: WebSocketDirectory;
  /** Open connections per client address (SOCKET_MAX_PER_ADDRESS). */
  perAddress: AddressConnections;
  socketProxies: TrustedProxies;
  /** Each open connection's client address, as counted. */
  connAddress: WeakMap<EngineSocket, string>;
  /** The client address of a handshake request, as the HTTP rate limiter sees it. */
  addressOf(req: IncomingMessage): string;
  /** Connections cut for not reading, and handshakes refused for their address, since start. */
  socketCuts: { slowReader: number; perAddress: number };
  /** Fan-out writes per path since start (the metric's counts; also read by bench/ws.ts). */
  fanoutWrites: Record<FanoutPath, number>;
  countWrites(writes: Record<FanoutPath, number>): void;
};

type IOSocket = Socket & { $service: SocketGatewayThis };

/** Events handled on every gateway node (per-node event group, see `merged`). */
const SOCKET_EVENTS = [
  "book.published",
  "ledger.committed",
  "book.changed",
  "market.pricesChanged",
  "catalog.marketLifecycle",
  "ledger.balanceChanged",
  "ledger.positionChanged",
  "ledger.tradeCreated",
  "order.updated",
  "notifier.created",
  "auth.sessionRevoked",
] as const satisfies readonly EventName[];

/** Actions the socket layer calls (readiness checks them with the REST routes'). */
export const SOCKET_ACTIONS = ["book.depth", "auth.resolveToken"] as const satisfies readonly ActionName[];

const KNOWN_EVENTS = new Set(["ping", "subscribe", "unsubscribe", "call"]);

function ackOf(args: unknown[]): ((x: unknown) => void) | undefined {
  const last = args[args.length - 1];
  return typeof last === "function" ? (last as (x: unknown) => void) : undefined;
}

/** The generic action call of moleculer-io, refused: sockets reach only the handlers below. */
function refuseCall(this: IOSocket, ...args: unknown[]): void {
  const err = errorMsg("UNSUPPORTED", 'Unsupported event "call"');
  ackOf(args)?.(err);
  this.$service.send(this, err);
}

function onPing(this: IOSocket): void {
  const svc = this.$service;
  svc.stateOf(this)?.idle.refresh();
  // Every client pings every few seconds: the same bytes each time, encoded once.
  svc.writeEncoded(this, (svc.pong ??= batchOf([svc.encode({ type: "pong" })])));
}

function onSubscribe(this: IOSocket, payload: unknown): void {
  const svc = this.$service;
  const subs = svc.stateOf(this)?.subs;
  subs?.subscribe(payload).catch((err: unknown) => {
    svc.logger.warn("socket subscribe failed", err);
    svc.send(this, errorMsg("UNAVAILABLE", "Subscription failed, try again"));
  });
}

function onUnsubscribe(this: IOSocket, payload: unknown): void {
  this.$service.stateOf(this)?.subs.unsubscribe(payload);
}

const SocketGateway = defineService<SocketGatewayThis>({
  name: "api",
  mixins: [SocketIOMixin as unknown as ServiceSchema],

  settings: {
    io: {
      options: {
        path: SOCKET_PATH,
        transports: ["websocket", "polling"],
        // Transport-level CORS is open; private data is authorized per subscription (token).
        cors: { origin: "*" },
        serveClient: false,
        maxHttpBufferSize: MAX_PACKET_BYTES,
      },
      namespaces: {
        "/": {
          events: { call: refuseCall, ping: onPing, subscribe: onSubscribe, unsubscribe: onUnsubscribe },
        },
      },
    },
  },

  // moleculer-io's actions would let any node (or a socket through `call`) broadcast to clients.
  actions: { call: false, broadcast: false, getClients: false },

  merged(this: Service, schema: ServiceSchema) {
    const group = `ws:${this.broker.nodeID}`;
    for (const name of SOCKET_EVENTS) {
      const ev = schema.events?.[name];
      if (ev && typeof ev === "object") (ev as { group?: string }).group = group;
    }
  },

  events: {
    /** Every book change, price and order update a node's engines published together. */
    "book.published": {
      handler(this: SocketGatewayThis, ctx) {
        for (const e of ctx.params.events)
          if (e.name === "book.changed") this.fanout.book(e.payload);
          else if (e.name === "market.pricesChanged") this.fanout.prices(e.payload);
          else this.fanout.order(e.payload);
      },
    },
    /** Every balance, position and trade change of one group commit. */
    "ledger.committed": {
      handler(this: SocketGatewayThis, ctx) {
        const trades: Array<EventPayload<"ledger.tradeCreated">["trade"]> = [];
        for (const e of ctx.params.events)
          if (e.name === "ledger.balanceChanged") this.fanout.balance(e.payload);
          else if (e.name === "ledger.positionChanged") this.fanout.position(e.payload);
          else {
            this.fanout.trade(e.payload);
            trades.push(e.payload.trade);
          }
        if (trades.length) this.fanout.tape(trades);
      },
    },
    // One at a time, as nodes of an earlier version send them (a rolling upgrade).
    "book.changed": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.book(ctx.params);
      },
    },
    "market.pricesChanged": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.prices(ctx.params);
      },
    },
    "catalog.marketLifecycle": {
      handler(this: SocketGatewayThis, ctx) {
        const room = rooms.market(ctx.params.marketId);
        if (this.hasMembers(room)) this.toRoom(room, { type: "lifecycle", channel: "market", data: ctx.params });
      },
    },
    "ledger.balanceChanged": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.balance(ctx.params);
      },
    },
    "ledger.positionChanged": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.position(ctx.params);
      },
    },
    "ledger.tradeCreated": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.trade(ctx.params);
        this.fanout.tape([ctx.params.trade]);
      },
    },
    "order.updated": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.order(ctx.params);
      },
    },
    "notifier.created": {
      handler(this: SocketGatewayThis, ctx) {
        this.fanout.user(ctx.params.userId, { notification: ctx.params.notification });
      },
    },
    "auth.sessionRevoked": {
      handler(this: SocketGatewayThis, ctx) {
        const members = this.io?.of("/").adapter.rooms.get(rooms.user(ctx.params.userId));
        for (const id of [...(members ?? [])]) {
          const socket = this.io.of("/").sockets.get(id);
          const state = this.socketStates.get(id);
          if (socket && state?.subs.sid === ctx.params.sid)
            state.subs.endUser(errorMsg("SESSION_ENDED", "Session ended; subscribe again with a valid token", "user"));
        }
      },
    },
  },

  methods: {
    socketConnected(this: SocketGatewayThis, socket: Socket) {
      const idle = setTimeout(() => {
        this.send(socket, errorMsg("IDLE_TIMEOUT", `No ping for ${this.idleTimeoutMs / 1000} s`));
        socket.disconnect(true);
      }, this.idleTimeoutMs);
      idle.unref();
      const writer = this.directory.writerOf(socket.conn);
      const state: SocketState = { subs: new ConnectionSubscriptions(this.subscriptionPorts(socket)), idle, writer };
      this.socketStates.set(socket.id, state);
      socket.onAny((event: string, ...args: unknown[]) => {
        if (KNOWN_EVENTS.has(event)) return;
        const err = errorMsg("UNSUPPORTED", `Unsupported event "${String(event).slice(0, 50)}"`);
        ackOf(args)?.(err);
        this.send(socket, err);
      });
      socket.on("disconnect", () => {
        clearTimeout(state.idle);
        state.subs.close();
        this.fanout.socketGone(socket.id);
        this.socketStates.delete(socket.id);
      });
    },

    stateOf(this: SocketGatewayThis, socket: Socket) {
      return this.socketStates.get(socket.id);
    },

    send(socket: Socket, msg: ServerMessage) {
      socket.emit("message", msg);
    },

    toRoom(this: SocketGatewayThis, room: string, msg: ServerMessage) {
      this.io.to(room).emit("message", msg);
    },

    hasMembers(this: SocketGatewayThis, room: string): boolean {
      return this.fanout.hasMembers(room);
    },

    /** The socket.io and broker side of one connection's subscription rules. */
    subscriptionPorts(this: SocketGatewayThis, socket: Socket): SubscriptionPorts {
      return {
        join: (names) => socket.join(names),
        leave: (room) => socket.leave(room),
        send: (msg) => this.send(socket, msg),
        connected: () => socket.connected,
        depth: async (marketId) => {
          try {
            return await call(this.broker, "book.depth", { marketId });
          } catch (err) {
            if ((err as { code?: number }).code === 404) return null;
            throw err;
          }
        },
        resolveToken: (token) => call(this.broker, "auth.resolveToken", { token }),
        lastBook: (marketId) => this.fanout.lastBook.get(marketId),
        setFloor: (room, seq) => this.fanout.setFloor(room, socket.id, seq),
        dropFloor: (room) => this.fanout.dropFloor(room, socket.id),
        timers: {
          set: (fn, ms) => setTimeout(fn, ms).unref(),
          clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
        },
        now: () => Date.now(),
        warn: (msg, err) => this.logger.warn(msg, err),
      };
    },

    encode(this: SocketGatewayThis, msg: ServerMessage): EncodedMessage {
      const [packet, ...more] = this.io.encoder.encode({ type: 2 /* EVENT */, nsp: "/", data: ["message", msg] }) as unknown[];
      if (typeof packet !== "string" || more.length) throw new Error("socket message did not encode as one text packet");
      return encodedMessage(packet);
    },

    /** One encoded message to one socket. */
    writeEncoded(this: SocketGatewayThis, socket: Socket, e: Batch) {
      const path = this.socketStates.get(socket.id)?.writer.write(e);
      if (path) this.countWrites({ websocket: 0, "engine-io": 0, [path]: 1 });
    },

    addressOf(this: SocketGatewayThis, req: IncomingMessage): string {
      return clientAddress(req.socket?.remoteAddress, req.headers["x-forwarded-for"], this.socketProxies);
    },

    /** Once per fan-out, not per socket: a metric update costs more than a socket's write. */
    countWrites(this: SocketGatewayThis, writes: Record<FanoutPath, number>) {
      const metrics = this.broker.metrics.isEnabled();
      for (const path of ["websocket", "engine-io"] as const) {
        if (!writes[path]) continue;
        this.fanoutWrites[path] += writes[path];
        if (metrics) this.broker.metrics.increment(METRIC.socketWrites, { path }, writes[path]);
      }
    },
  },

  created() {
    const cfg = configOf(this.broker);
    this.idleTimeoutMs = cfg.socketIdleTimeoutMs;
    this.socketCuts = { slowReader: 0, perAddress: 0 };
    this.directory = new WebSocketDirectory({
      directWrites: cfg.socketDirectWrites,
      maxUnsentBytes: cfg.socketMaxBufferBytes,
      onOverflow: (conn, unsent) => {
        this.socketCuts.slowReader++;
        if (this.broker.metrics.isEnabled()) this.broker.metrics.increment(METRIC.socketRefused, { reason: "slow_reader" });
        this.logger.warn(
          `Socket of ${this.connAddress.get(conn) ?? "?"} cut: ${unsent} bytes unsent (SOCKET_MAX_BUFFER_BYTES ${cfg.socketMaxBufferBytes})`,
        );
      },
    });
    this.perAddress = new AddressConnections(cfg.socketMaxPerAddress);
    this.socketProxies = trustedProxies(cfg.trustedProxies);
    this.connAddress = new WeakMap();
    // engine.io's `wsEngine`: the websockets it accepts, seen by this instance's directory; its
    // `allowRequest`: a new connection's address under its limit (fresh settings objects: the
    // schema's are shared by every instance in the process).
    const allowRequest = (req: IncomingMessage, answer: (err: string | null, ok: boolean) => void) => {
      if (this.perAddress.admits(this.addressOf(req))) return answer(null, true);
      this.socketCuts.perAddress++;
      if (this.broker.metrics.isEnabled()) this.broker.metrics.increment(METRIC.socketRefused, { reason: "per_address" });
      answer(this.perAddress.refusal(), false);
    };
    const io = this.settings.io as { options: object };
    this.settings.io = { ...io, options: { ...io.options, wsEngine: this.directory.wsEngine, allowRequest } };
    this.socketStates = new Map();
    this.pong = null;
    this.fanout = new SocketFanout({
      members: (room) => this.io?.of("/").adapter.rooms.get(room),
      encode: (msg) => this.encode(msg),
      write: (id, batch) => this.socketStates.get(id)?.writer.write(batch),
      toRoom: (room, msg) => this.toRoom(room, msg),
      counted: (writes) => this.countWrites(writes),
      // A race's pool price before this gateway heard any of its trades (the ledger owns the pool).
      poolPrice: (marketId) => call(this.broker, "ledger.eventPoolPrices", { marketIds: [marketId] }).then((r) => r[marketId] ?? null),
    });
  },

  started() {
    this.fanoutWrites = { websocket: 0, "engine-io": 0 };
    // moleculer-io's own started hook (it is our mixin) has created `this.io` by now.
    this.io.engine.on("connection", (conn: EngineSocket) => {
      this.directory.track(conn);
      const address = this.addressOf(conn.request);
      this.connAddress.set(conn, address);
      this.perAddress.opened(address);
      conn.once("close", () => this.perAddress.closed(address));
    });
    this.io.on("connection", (socket: Socket) => this.socketConnected(socket));
  },

  stopped() {
    this.fanout.clear();
    for (const s of this.socketStates.values()) {
      clearTimeout(s.idle);
      s.subs.stopTimers();
    }
  },
});

export default SocketGateway;
