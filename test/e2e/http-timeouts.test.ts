/**
 * Slow and silent clients cannot hold connections: a started gateway closes a connection that
 * never sends a byte, and one that trickles its headers, within a few seconds of its (here
 * shortened) timeouts, while a request being answered (Socket.IO long-polling holds one) and a
 * websocket stay open. Raw loopback sockets, each wait bounded.
 */
import { connect, type Socket } from "node:net";
import type { Server } from "node:http";
import { startServer, type TestServer } from "../support/server";
import { connectSocket } from "../support/socket";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds until the server closed `s`, or null if it was still open after `boundMs`. */
function closedWithin(s: Socket, boundMs: number): Promise<number | null> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), boundMs);
    s.once("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - t0);
    });
  });
}

function rawSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    // Flowing, so the server's close is seen ('end', then 'close') without anything read.
    s.resume();
    s.on("error", () => undefined);
    s.once("error", reject);
  });
}

describe("HTTP server timeouts (1 s here)", () => {
  let srv: TestServer;
  const open: Socket[] = [];
  beforeAll(async () => {
    srv = await startServer({ HTTP_HEADERS_TIMEOUT_MS: "1000", HTTP_REQUEST_TIMEOUT_MS: "2000", HTTP_KEEPALIVE_TIMEOUT_MS: "1000" });
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await srv.stop();
  });

  test("a connection that never sends a byte is closed", async () => {
    const s = await rawSocket(srv.url);
    open.push(s);
    expect(await closedWithin(s, 8_000)).not.toBeNull();
  });

  test("a connection trickling its headers is closed although it keeps sending", async () => {
    const s = await rawSocket(srv.url);
    open.push(s);
    s.write("GET /health HTTP/1.1\r\nHost: localhost\r\n");
    const trickle = setInterval(() => s.writable && s.write("X-Slow: yes\r\n"), 200);
    try {
      expect(await closedWithin(s, 8_000)).not.toBeNull();
    } finally {
      clearInterval(trickle);
    }
  });

  test("a keep-alive connection is answered, then closed once idle", async () => {
    const s = await rawSocket(srv.url);
    open.push(s);
    let text = "";
    s.on("data", (d: Buffer) => (text += d.toString()));
    const closed = closedWithin(s, 8_000);
    s.write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    expect(await closed).not.toBeNull();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
  });

  test("Socket.IO long-polling (a GET held past the timeouts) and websockets keep working", async () => {
    const polling = await connectSocket(srv.url, { transports: ["polling"] });
    const ws = await connectSocket(srv.url, { transports: ["websocket"] });
    try {
      // Nothing is sent for 3 s: the polling transport's GET stays open on the server all along.
      await sleep(3_000);
      for (const s of [polling, ws]) {
        const from = s.messages.length;
        s.emit("ping");
        await s.waitFor((m) => m.type === "pong", { from });
        expect(s.socket.connected).toBe(true);
      }
    } finally {
      polling.close();
      ws.close();
    }
  });
});

test("the defaults: 10 s for headers (a silent connection's too), 30 s per request, 5 s keep-alive", async () => {
  const srv = await startServer();
  try {
    const server = (srv.broker.getLocalService("api") as unknown as { server: Server }).server;
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([10_000, 30_000, 5_000]);
  } finally {
    await srv.stop();
  }
});
