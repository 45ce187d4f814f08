/**
 * The fan-out's websocket write, through public APIs only: engine.io's `wsEngine` option hands us
 * every websocket it accepts (a `ws` server subclass's `handleUpgrade`: the ws and its socket), so
 * a push goes out as websocket frames (RFC 6455) encoded once for all sockets, a socket's several
 * messages in one write, without engine.io's per-packet bookkeeping (events, callbacks, its write
 * buffer), which costs as much as the write itself at 10,000 sockets.
 *
 * Order: a push goes around engine.io only while engine.io has nothing queued for that socket (its
 * public `packetCreate`/`flush` events), and around ws only while ws holds no bytes of its own
 * (its `bufferedAmount` is the socket's own buffer: ws writes synchronously unless it compresses).
 * Otherwise it queues behind them: through ws's `send`, or engine.io's `conn.write`.
 *
 * Slow readers: a client that stops reading its socket would make the server hold every push for
 * it (engine.io's queue, ws's buffer, the socket's), without bound. Each connection's unsent bytes
 * are checked on every write that adds to them; past `maxUnsentBytes` the connection is cut.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Socket as IoSocket } from "socket.io";
import { WebSocket, WebSocketServer, type ServerOptions } from "ws";

/** A Socket.IO connection's engine.io socket. */
export type EngineSocket = IoSocket["conn"];

/** How a fan-out message reached a socket (the `path` label of the fan-out metrics). */
export type FanoutPath = "websocket" | "engine-io";

/**
 * A message encoded once for any number of sockets: the Socket.IO packet (engine.io's write), its
 * websocket frame, and the engine.io payload inside the frame (ws's send).
 */
export interface EncodedMessage {
  packet: string;
  frame: Buffer;
  payload: Buffer;
}

/** Encodes a Socket.IO packet for every path; "4" is engine.io's "message" packet type. */
export function encodedMessage(packet: string): EncodedMessage {
  const frame = wsTextFrame(`4${packet}`);
  return { packet, frame, payload: frame.subarray(frame.length - Buffer.byteLength(packet) - 1) };
}

/** A socket's messages in order, and their frames as one buffer (one write). */
export interface Batch {
  msgs: readonly EncodedMessage[];
  frames: Buffer;
}

export function batchOf(msgs: readonly EncodedMessage[]): Batch {
  return { msgs, frames: msgs.length === 1 ? msgs[0].frame : Buffer.concat(msgs.map((m) => m.frame)) };
}

/**
 * One unmasked, unfragmented, uncompressed websocket text frame around `payload` (RFC 6455 5.2):
 * server frames are never masked, so one frame serves every socket.
 */
export function wsTextFrame(payload: string): Buffer {
  const n = Buffer.byteLength(payload);
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = 0x81; // FIN + text
  if (n < 126) frame[1] = n;
  else if (n < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  frame.write(payload, head);
  return frame;
}

interface Peer {
  ws: WebSocket;
  stream: Duplex;
}

// Every push is one complete text frame, never compressed (the payload is shared by all sockets).
const SEND = { binary: false, compress: false, fin: true } as const;

/** What a connection's writer does besides writing (WebSocketDirectory's options). */
export interface WriterOptions {
  /** Pushes may go straight to the websocket (SOCKET_DIRECT_WRITES); false: always through engine.io. */
  directWrites?: boolean;
  /** Unsent bytes a connection may hold before it is cut (0: no limit). */
  maxUnsentBytes?: number;
  /** Told once when a connection is cut for holding more than `maxUnsentBytes` unsent. */
  onOverflow?: (conn: EngineSocket, unsentBytes: number) => void;
}

/** A packet's size as engine.io queues it: its text length (one byte per character of ASCII JSON) or its bytes. */
function packetSize(data: unknown): number {
  if (typeof data === "string") return data.length;
  return data && typeof (data as { byteLength?: unknown }).byteLength === "number" ? (data as { byteLength: number }).byteLength : 0;
}

/**
 * One engine.io connection's writes: straight to its websocket when that keeps the order. It also
 * watches what the connection has not sent yet (engine.io's queue plus the websocket's buffered
 * bytes): a client that stops reading is cut once that passes the limit, wherever the write came
 * from (a fan-out here, or anything socket.io writes through engine.io).
 */
export class ConnectionWriter {
  /** Packets engine.io has queued and not yet handed to its transport, and their size. */
  private queued = 0;
  private queuedBytes = 0;
  private cut = false;
  private readonly directWrites: boolean;
  private readonly maxUnsent: number;
  private readonly onOverflow?: (conn: EngineSocket, unsentBytes: number) => void;

  constructor(
    private readonly conn: EngineSocket,
    private peer: Peer | null,
    opts: WriterOptions = {},
  ) {
    this.directWrites = opts.directWrites ?? true;
    this.maxUnsent = opts.maxUnsentBytes ?? 0;
    this.onOverflow = opts.onOverflow;
    conn.on("packetCreate", (packet: { data?: unknown }) => {
      this.queued++;
      this.queuedBytes += packetSize(packet.data);
      this.check();
    });
    conn.on("flush", () => (this.queued = this.queuedBytes = 0));
  }

  /** The websocket this connection upgraded to (polling first). */
  upgraded(peer: Peer | null): void {
    this.peer = peer;
  }

  /** True while a push can go straight to the websocket. */
  get direct(): boolean {
    return this.directWrites && this.peer !== null && this.queued === 0 && this.peer.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Bytes written to this connection and not yet taken by the kernel: what engine.io has queued
   * and what its websocket buffers (ws's own plus its socket's; on long-polling, engine.io's queue).
   */
  get unsent(): number {
    const ws = this.peer?.ws;
    return this.queuedBytes + (ws && ws.readyState === WebSocket.OPEN ? ws.bufferedAmount : 0);
  }

  /** True once the connection was cut for not reading. */
  get overflowed(): boolean {
    return this.cut;
  }

  /**
   * A batch to this connection in order: one write on the websocket's socket when `direct` allows,
   * else through engine.io. Returns the path taken ("engine-io" also when the connection is closed),
   * or null when nothing was written because the connection was cut for not reading.
   */
  write(batch: Batch): FanoutPath | null {
    if (this.cut) return null;
    if (this.direct) {
      const { ws, stream } = this.peer!;
      if (ws.bufferedAmount === stream.writableLength) stream.write(batch.frames);
      else {
        // ws holds bytes of its own (compressing): behind them, through its send, in one syscall.
        stream.cork();
        for (const m of batch.msgs) ws.send(m.payload, SEND);
        stream.uncork();
      }
      this.check();
      return "websocket";
    }
    if (this.conn.readyState === "open") for (const m of batch.msgs) this.conn.write(m.packet);
    return "engine-io";
  }

  /** Past the limit: the connection is closed at once, its unsent data dropped (it would never be read). */
  private check(): void {
    if (this.cut || !this.maxUnsent) return;
    const unsent = this.unsent;
    if (unsent <= this.maxUnsent) return;
    this.cut = true;
    // Not from inside engine.io's write (packetCreate): once it has returned. A reset, not a
    // close: the kernel drops what it still holds for the socket instead of waiting on the client.
    setImmediate(() => {
      const tcp = this.peer?.stream as Socket | undefined;
      if (typeof tcp?.resetAndDestroy === "function") tcp.resetAndDestroy();
      else this.peer?.ws.terminate();
      this.conn.close(true);
    });
    this.onOverflow?.(this.conn, unsent);
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

  /** `opts`: what every connection's writer does (ConnectionWriter). */
  constructor(private readonly opts: WriterOptions = {}) {
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
    const writer = new ConnectionWriter(conn, this.byRequest.get(conn.request) ?? null, this.opts);
    this.writers.set(conn, writer);
    conn.once("upgrade", () => {
      writer.upgraded(this.bySid.get(sid) ?? null);
      this.bySid.delete(sid);
    });
  }

  /** The writer of a connection `track` has seen (else one that always goes through engine.io). */
  writerOf(conn: EngineSocket): ConnectionWriter {
    return this.writers.get(conn) ?? new ConnectionWriter(conn, null, { ...this.opts, directWrites: false });
  }
}
