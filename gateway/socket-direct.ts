/**
 * The fan-out's websocket write, through public APIs only: engine.io's `wsEngine` option hands us
 * every websocket it accepts (a `ws` server subclass), so a push goes out with ws's own `send`
 * of a payload encoded once for all sockets, and a socket's several messages leave in one syscall
 * (its stream corked around them). engine.io's per-packet bookkeeping (events, callbacks, its
 * write buffer), which costs as much as the write itself at 10,000 sockets, is skipped.
 *
 * Order: a push may go around engine.io only while engine.io has nothing queued for that socket
 * (its public `packetCreate`/`flush` events); otherwise it is queued behind through `conn.write`.
 * Anything engine.io has already handed to ws is ahead of it in ws's own order.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Socket } from "socket.io";
import { WebSocket, WebSocketServer, type ServerOptions } from "ws";

/** A Socket.IO connection's engine.io socket. */
export type EngineSocket = Socket["conn"];

/** How a fan-out message reached a socket (the `path` label of the fan-out metrics). */
export type FanoutPath = "websocket" | "engine-io";

/** A message encoded once: the Socket.IO packet (engine.io's write) and its engine.io payload (ws's). */
export interface EncodedMessage {
  packet: string;
  payload: Buffer;
}

/** Encodes a Socket.IO packet for both paths; "4" is engine.io's "message" packet type. */
export function encodedMessage(packet: string): EncodedMessage {
  return { packet, payload: Buffer.from(`4${packet}`) };
}

interface Peer {
  ws: WebSocket;
  stream: Duplex;
}

// Every push is one complete text frame, never compressed (the payload is shared by all sockets).
const SEND = { binary: false, compress: false, fin: true } as const;

/** One engine.io connection's writes: straight to its websocket when that keeps the order. */
export class ConnectionWriter {
  /** Packets engine.io has queued and not yet handed to its transport. */
  private queued = 0;
  constructor(
    private readonly conn: EngineSocket,
    private peer: Peer | null,
  ) {
    conn.on("packetCreate", () => this.queued++);
    conn.on("flush", () => (this.queued = 0));
  }

  /** The websocket this connection upgraded to (polling first). */
  upgraded(peer: Peer | null): void {
    this.peer = peer;
  }

  /** True while a push can go straight to the websocket. */
  get direct(): boolean {
    return this.peer !== null && this.queued === 0 && this.peer.ws.readyState === WebSocket.OPEN;
  }

  /**
   * `msgs` to this connection in order: one syscall on the websocket when `direct` allows,
   * else through engine.io. Returns the path taken ("engine-io" also when the connection is closed).
   */
  write(msgs: readonly EncodedMessage[]): FanoutPath {
    if (this.direct) {
      const { ws, stream } = this.peer!;
      stream.cork();
      for (const m of msgs) ws.send(m.payload, SEND);
      stream.uncork();
      return "websocket";
    }
    if (this.conn.readyState === "open") for (const m of msgs) this.conn.write(m.packet);
    return "engine-io";
  }
}

/**
 * The websockets engine.io accepts, by the request that opened them: a connection opened on a
 * websocket is found by its `request`, one upgraded from polling by its session id (the upgrade's
 * `sid`, its first transport's `sid`).
 */
export class WebSocketDirectory {
  private readonly byRequest = new WeakMap<IncomingMessage, Peer>();
  private readonly bySid = new Map<string, Peer>();
  private readonly writers = new WeakMap<EngineSocket, ConnectionWriter>();
  /** The `ws` server class for engine.io's `wsEngine` option. */
  readonly wsEngine: new (options: ServerOptions) => WebSocketServer;

  constructor() {
    const remember = (req: IncomingMessage, stream: Duplex, ws: WebSocket) => this.remember(req, stream, ws);
    this.wsEngine = class extends WebSocketServer {
      override handleUpgrade(
        req: IncomingMessage,
        stream: Duplex,
        head: Buffer,
        done: (ws: WebSocket, req: IncomingMessage) => void,
      ): void {
        super.handleUpgrade(req, stream, head, (ws, request) => {
          remember(req, stream, ws);
          done(ws, request);
        });
      }
    };
  }

  private remember(req: IncomingMessage, stream: Duplex, ws: WebSocket): void {
    const peer = { ws, stream };
    const sid = new URL(req.url ?? "/", "http://x").searchParams.get("sid");
    if (!sid) return void this.byRequest.set(req, peer);
    // A probe engine.io may refuse: forgotten when it closes, taken on the connection's "upgrade".
    this.bySid.set(sid, peer);
    ws.once("close", () => this.bySid.get(sid) === peer && this.bySid.delete(sid));
  }

  /**
   * Follows a new engine.io connection from its handshake (engine.io's "connection" event, before
   * any packet or upgrade): its websocket now or when it upgrades, and what engine.io queues.
   */
  track(conn: EngineSocket): void {
    const sid = conn.transport.sid;
    const writer = new ConnectionWriter(conn, this.byRequest.get(conn.request) ?? null);
    this.writers.set(conn, writer);
    conn.once("upgrade", () => {
      writer.upgraded(this.bySid.get(sid) ?? null);
      this.bySid.delete(sid);
    });
  }

  /** The writer of a connection `track` has seen (else one that always goes through engine.io). */
  writerOf(conn: EngineSocket): ConnectionWriter {
    return this.writers.get(conn) ?? new ConnectionWriter(conn, null);
  }
}
