/**
 * A Socket.IO client spoken by hand over a raw TCP socket (websocket transport, RFC 6455 frames,
 * engine.io v4 and socket.io v5 packets): enough to connect, send events and read replies, and,
 * unlike socket.io-client, to stop reading its socket while it keeps sending (a client that pings
 * but never reads what the server pushes).
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

/** One masked client text frame (RFC 6455 5.2; client frames must be masked). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.alloc(head + 4 + n);
  frame[0] = 0x81;
  if (n < 126) frame[1] = 0x80 | n;
  else if (n < 65_536) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  const mask = randomBytes(4);
  mask.copy(frame, head);
  for (let i = 0; i < n; i++) frame[head + 4 + i] = payload[i] ^ mask[i & 3];
  return frame;
}

export class RawSocketClient {
  /** Text frames received while reading, in order (engine.io packets: "0{...}", "40{...}", "42[...]"). */
  readonly frames: string[] = [];
  /** Set when the connection ended or failed (a reset shows on the next write of a paused socket). */
  closed: string | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private pinger?: NodeJS.Timeout;

  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => this.onData(d));
    socket.on("error", (e) => this.end(`error: ${e.message}`));
    socket.on("close", () => this.end("close"));
  }

  /** Connects to `/ws` on `port`, completes the websocket and Socket.IO handshakes. */
  static async open(port: number, headers: Record<string, string> = {}): Promise<RawSocketClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const key = randomBytes(16).toString("base64");
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(
      `GET /ws/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra.join("")}\r\n`,
    );
    const head = await new Promise<{ status: string; rest: Buffer }>((resolve, reject) => {
      let got = Buffer.alloc(0);
      const onData = (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const end = got.indexOf("\r\n\r\n");
        if (end < 0) return;
        socket.off("data", onData);
        resolve({ status: got.subarray(0, got.indexOf("\r\n")).toString(), rest: got.subarray(end + 4) });
      };
      socket.on("data", onData);
      socket.once("error", reject);
      socket.once("close", () => reject(new Error("closed during the websocket handshake")));
    });
    if (!head.status.includes(" 101 ")) {
      socket.destroy();
      throw new Error(`websocket handshake refused: ${head.status}: ${head.rest.toString()}`);
    }
    const c = new RawSocketClient(socket);
    c.onData(head.rest);
    await c.next((f) => f.startsWith("0{")); // engine.io open
    c.send("40"); // socket.io connect to "/"
    await c.next((f) => f.startsWith("40"));
    return c;
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      if (this.buf.length < 2) return;
      let len = this.buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        off = 10;
      }
      if (this.buf.length < off + len) return;
      const opcode = this.buf[0] & 0x0f;
      if (opcode === 1) this.frames.push(this.buf.subarray(off, off + len).toString());
      this.buf = this.buf.subarray(off + len);
      this.waiters.splice(0).forEach((w) => w());
    }
  }

  private end(why: string): void {
    this.closed ??= why;
    if (this.pinger) clearInterval(this.pinger);
    this.waiters.splice(0).forEach((w) => w());
  }

  /** The first frame (from the start) matching `pred`, waiting for it. */
  async next(pred: (frame: string) => boolean, timeoutMs = 10_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const f = this.frames.find(pred);
      if (f !== undefined) return f;
      if (this.closed) throw new Error(`connection ${this.closed} before the expected frame`);
      if (Date.now() > end) throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** One engine.io packet as a text frame. */
  send(packet: string): void {
    if (!this.closed) this.socket.write(clientFrame(packet));
  }

  /** A Socket.IO event to the "/" namespace. */
  emit(event: string, ...args: unknown[]): void {
    this.send(`42${JSON.stringify([event, ...args])}`);
  }

  /**
   * Stops reading (the kernel's receive buffer fills, then the server's send side) while it keeps
   * sending the app's `ping` and engine.io's heartbeat answer every `pingMs`, as a live client does.
   */
  stopReading(pingMs = 1000): void {
    this.socket.pause();
    this.pinger = setInterval(() => {
      this.send("3"); // engine.io pong (the server's pings are never read)
      this.emit("ping");
    }, pingMs);
  }

  close(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.socket.destroy();
  }
}
