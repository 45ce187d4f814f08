/**
 * gateway/socket-direct.ts against the real socket.io / engine.io / ws on loopback: which
 * connections get the direct websocket write, and that a push never overtakes what engine.io has
 * queued for the same socket.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server, type Socket } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import { batchOf, encodedMessage, WebSocketDirectory, type Batch } from "../../gateway/socket-direct";
import { RawSocketClient } from "../support/raw-socket";

describe("WebSocketDirectory / ConnectionWriter", () => {
  let http: HttpServer;
  let server: Server;
  let url: string;
  const directory = new WebSocketDirectory();
  const serverSockets: Socket[] = [];
  const clients: ClientSocket[] = [];

  beforeAll(async () => {
    http = createServer();
    server = new Server(http, { path: "/ws", wsEngine: directory.wsEngine });
    server.engine.on("connection", (conn: Socket["conn"]) => directory.track(conn));
    server.on("connection", (s) => serverSockets.push(s));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await new Promise((r) => server.close(r));
  });

  const encodeOne = (msg: object) => {
    const [packet] = server.encoder.encode({ type: 2, nsp: "/", data: ["message", msg] }) as string[];
    return encodedMessage(packet);
  };
  const encode = (...msgs: object[]): Batch => batchOf(msgs.map(encodeOne));

  /** A connected client (and its server socket), its `message` payloads collected. */
  async function open(transports: Array<"websocket" | "polling">, waitUpgrade = false) {
    const before = serverSockets.length;
    const client = connect(url, { path: "/ws", transports, forceNew: true, reconnection: false });
    clients.push(client);
    const got: unknown[] = [];
    client.on("message", (m: unknown) => got.push(m));
    await new Promise<void>((r) => client.once("connect", () => r()));
    while (serverSockets.length === before) await new Promise((r) => setImmediate(r));
    if (waitUpgrade && client.io.engine.transport.name !== "websocket")
      await new Promise<void>((r) => client.io.engine.once("upgrade", () => r()));
    const socket = serverSockets[serverSockets.length - 1];
    return { client, socket, got, writer: directory.writerOf(socket.conn) };
  }
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 5));
  };

  test("a connection opened on a websocket: messages go straight through ws, in order, as Socket.IO messages", async () => {
    const c = await open(["websocket"]);
    expect(c.writer.direct).toBe(true);
    expect(c.writer.write(encode({ n: 1 }, { n: 2 }))).toBe("websocket");
    expect(c.writer.write(encode({ n: 3 }))).toBe("websocket");
    await until(() => c.got.length === 3);
    expect(c.got).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  test("long-polling: through engine.io; once upgraded to a websocket: straight through ws", async () => {
    const c = await open(["polling", "websocket"]);
    if (c.client.io.engine.transport.name !== "websocket") {
      expect(c.writer.direct).toBe(false);
      expect(c.writer.write(encode({ n: 1 }))).toBe("engine-io");
      await new Promise<void>((r) => c.client.io.engine.once("upgrade", () => r()));
    } else c.got.push({ n: 1 }); // upgraded before this test could look
    await until(() => c.writer.direct);
    expect(c.writer.write(encode({ n: 2 }))).toBe("websocket");
    await until(() => c.got.length === 2);
    expect(c.got).toEqual([{ n: 1 }, { n: 2 }]);

    const p = await open(["polling"]);
    expect(p.writer.direct).toBe(false);
    expect(p.writer.write(encode({ n: 1 }))).toBe("engine-io");
    await until(() => p.got.length === 1);
  });

  test("while engine.io has a packet queued for the socket, a push queues behind it (order kept)", async () => {
    const c = await open(["websocket"]);
    // The first emit is handed to ws at once (its write then in flight), the second waits in
    // engine.io's buffer until that write completes.
    c.socket.emit("message", { n: 1 });
    c.socket.emit("message", { n: 2 });
    expect(c.writer.direct).toBe(false);
    expect(c.writer.write(encode({ n: 3 }))).toBe("engine-io");
    await until(() => c.got.length === 3);
    expect(c.got).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // engine.io has flushed: direct again.
    await until(() => c.writer.direct);
    expect(c.writer.write(encode({ n: 4 }))).toBe("websocket");
    await until(() => c.got.length === 4);
    expect(c.got[3]).toEqual({ n: 4 });
  });

  test("frames of every length form (7-bit, 16-bit, 64-bit) reach the client intact", async () => {
    const c = await open(["websocket"]);
    const sizes = [10, 100, 200, 65_600];
    const msgs = sizes.map((n) => ({ s: "x".repeat(n) }));
    expect(c.writer.write(encode(...msgs))).toBe("websocket");
    await until(() => c.got.length === sizes.length);
    expect(c.got).toEqual(msgs);
  });

  test("a closed connection: nothing is written, no throw", async () => {
    const c = await open(["websocket"]);
    c.client.close();
    await until(() => c.socket.conn.readyState === "closed");
    expect(c.writer.direct).toBe(false);
    expect(c.writer.write(encode({ n: 1 }))).toBe("engine-io");
  });
});

describe("ConnectionWriter with permessage-deflate (ws compressing, so holding bytes of its own)", () => {
  test("a push never overtakes a compressed message ws is still deflating", async () => {
    const http = createServer();
    const directory = new WebSocketDirectory();
    const server = new Server(http, { path: "/ws", wsEngine: directory.wsEngine, perMessageDeflate: { threshold: 0 } });
    server.engine.on("connection", (conn: Socket["conn"]) => directory.track(conn));
    const connected = new Promise<Socket>((r) => server.on("connection", r));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const client = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, {
      path: "/ws",
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
    });
    try {
      const got: unknown[] = [];
      client.on("message", (m: unknown) => got.push(m));
      const socket = await connected;
      const writer = directory.writerOf(socket.conn);
      const [packet] = server.encoder.encode({ type: 2, nsp: "/", data: ["message", { n: 2 }] }) as string[];
      const rounds = 20;
      for (let i = 0; i < rounds; i++) {
        // engine.io idle: it hands the next message to ws at once, and ws deflates it on its own time.
        while (!socket.conn.transport.writable) await new Promise((r) => setTimeout(r, 5));
        socket.emit("message", { n: 1, big: "y".repeat(50_000) });
        expect(writer.write(batchOf([encodedMessage(packet)]))).toBe("websocket");
        await new Promise((r) => setTimeout(r, 5));
      }
      while (got.length < 2 * rounds) await new Promise((r) => setTimeout(r, 5));
      expect(got.map((m) => (m as { n: number }).n)).toEqual(Array.from({ length: rounds }, () => [1, 2]).flat());
    } finally {
      client.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("ConnectionWriter: a connection that stops reading is cut past maxUnsentBytes", () => {
  test("direct writes to a client that does not read: cut once unsent bytes pass the limit, told once, nothing written after", async () => {
    const http = createServer();
    const cut: number[] = [];
    const directory = new WebSocketDirectory({ maxUnsentBytes: 64 * 1024, onOverflow: (_conn, unsent) => void cut.push(unsent) });
    const server = new Server(http, { path: "/ws", wsEngine: directory.wsEngine });
    server.engine.on("connection", (conn: Socket["conn"]) => directory.track(conn));
    const connected = new Promise<Socket>((r) => server.on("connection", r));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const raw = await RawSocketClient.open((http.address() as AddressInfo).port);
    try {
      const socket = await connected;
      const writer = directory.writerOf(socket.conn);
      raw.stopReading();
      const [packet] = server.encoder.encode({ type: 2, nsp: "/", data: ["message", { big: "z".repeat(16 * 1024) }] }) as string[];
      const batch = batchOf([encodedMessage(packet)]);
      let writes = 0;
      // The kernel takes a few MiB first; the writer counts only what it still holds.
      while (!writer.overflowed && writes < 10_000) {
        expect(writer.write(batch)).toBe("websocket");
        writes++;
        if (writes % 16 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(writer.overflowed).toBe(true);
      expect(cut).toHaveLength(1);
      expect(cut[0]).toBeGreaterThan(64 * 1024);
      expect(writer.write(batch)).toBeNull();
      const reason = await new Promise<string>((r) => socket.once("disconnect", r));
      expect(["transport close", "forced close", "transport error"]).toContain(reason);
      expect(cut).toHaveLength(1);
    } finally {
      raw.close();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
