/**
 * Clients that keep their socket open and keep pinging but never read what the server pushes:
 * once what the server holds for one of them passes SOCKET_MAX_BUFFER_BYTES it is disconnected,
 * while clients that read keep getting every message.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { SocketGatewayThis } from "../../gateway/socket";
import { startServer, type TestServer } from "../support/server";
import { connectSocket, type TestSocket } from "../support/socket";
import { RawSocketClient } from "../support/raw-socket";
import { until } from "../support/until";

const LIMIT = 256 * 1024;
const SLOW = 20;
/** Far more than it takes to pass the limit past the kernel's buffers (a few MiB a socket). */
const MAX_PUSHES = 40_000;

describe("socket send-buffer limit: clients that stop reading", () => {
  let srv: TestServer;
  let port: number;
  const raws: RawSocketClient[] = [];
  const good: TestSocket[] = [];

  beforeAll(async () => {
    srv = await startServer({ SOCKET_MAX_BUFFER_BYTES: String(LIMIT) });
    port = ((srv.broker.getLocalService("api") as unknown as { server: Server }).server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const r of raws) r.close();
    for (const s of good) s.close();
    await srv.stop();
  });

  test(`${SLOW} sockets that ping but never read are disconnected; reading clients get every push`, async () => {
    const gw = srv.broker.getLocalService("api") as unknown as SocketGatewayThis;
    const { token, userId } = await srv.login();
    const subscribed = (f: string) => f.startsWith("42") && f.includes('"type":"subscribed"');

    for (let i = 0; i < 2; i++) {
      const s = await connectSocket(srv.url, { autoPingMs: 1000 });
      good.push(s);
      s.subscribe({ channel: "user", token });
      await s.waitFor((m) => m.type === "subscribed");
    }
    for (let i = 0; i < SLOW; i++) {
      const r = await RawSocketClient.open(port);
      raws.push(r);
      r.emit("subscribe", { channel: "user", token });
      await r.next(subscribed);
      r.stopReading();
    }
    expect(gw.socketStates.size).toBe(SLOW + 2);

    // The user's order updates, as the market actor publishes them: one push each, not coalesced.
    const pad = "x".repeat(40);
    let sent = 0;
    const push = (n: number) => {
      for (let k = 0; k < n; k++, sent++)
        srv.broker.broadcast("order.updated", {
          userId,
          orderId: `ord_flood${String(sent).padStart(7, "0")}`,
          marketId: "mkt_flood",
          status: "OPEN",
          remainingQuantity: "1.000000",
          filledDelta: "0.000000",
          clientOrderId: `${pad}${sent}`,
        });
    };
    // Pushed until every non-reader is cut (the kernel's socket buffers take a few MiB first), with
    // a turn of the event loop between rounds so sockets are written and read meanwhile; without a
    // limit the server would hold everything for them (the pushes stop at MAX_PUSHES, then it waits).
    await until(
      "the server to drop every non-reading socket",
      async () => {
        if (sent < MAX_PUSHES) push(500);
        await new Promise((r) => setImmediate(r));
        return gw.socketStates.size === 2;
      },
      120_000,
    );
    expect(gw.socketCuts.slowReader).toBe(SLOW);
    // Each non-reader finds its connection gone (its next write fails on the reset).
    await until("every non-reader to see its connection end", () => raws.every((r) => r.closed !== null), 30_000);

    // The reading clients got every push, in order, and are still connected.
    const ids = (s: TestSocket) =>
      s.messages
        .filter((m) => m.type === "update" && m.channel === "user")
        .map((m) => (m as { data: { order: { orderId: string } } }).data.order.orderId);
    for (const s of good) {
      await until(`all ${sent} pushes at a reading client`, () => ids(s).length >= sent, 120_000);
      expect(ids(s)).toEqual(Array.from({ length: sent }, (_, k) => `ord_flood${String(k).padStart(7, "0")}`));
      expect(s.socket.connected).toBe(true);
      await s.sync();
    }
  }, 300_000);
});
