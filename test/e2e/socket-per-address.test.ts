/**
 * SOCKET_MAX_PER_ADDRESS: one client address holds at most that many socket connections; the next
 * handshake is refused with a clear error, another address (or the same one once a connection
 * closes) is accepted. The address is the HTTP rate limiter's: X-Forwarded-For only from a
 * trusted proxy.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { SocketGatewayThis } from "../../gateway/socket";
import { startServer, type TestServer } from "../support/server";
import { connectSocket } from "../support/socket";
import { RawSocketClient } from "../support/raw-socket";
import { until } from "../support/until";
import { freePort } from "../support/redis";
import { metricValue } from "../support/fanout-scenario";

const REFUSAL = "Too many socket connections from this address (at most 3)";

async function started(env: Record<string, string>) {
  const metricsPort = await freePort();
  const srv = await startServer({ SOCKET_MAX_PER_ADDRESS: "3", METRICS: "true", METRICS_PORT: String(metricsPort), ...env });
  const gw = srv.broker.getLocalService("api") as unknown as SocketGatewayThis & { server: Server };
  return { srv, gw, port: (gw.server.address() as AddressInfo).port, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

describe("socket connections per client address", () => {
  const open: RawSocketClient[] = [];
  afterEach(() => {
    for (const r of open.splice(0)) r.close();
  });
  const connect = async (port: number, forwardedFor?: string) => {
    const r = await RawSocketClient.open(port, forwardedFor ? { "X-Forwarded-For": forwardedFor } : {});
    open.push(r);
    return r;
  };
  /** An engine.io long-polling handshake (what a client falling back to polling sends first). */
  const pollingHandshake = (srv: TestServer, forwardedFor: string) =>
    srv.http("GET", "/ws/?EIO=4&transport=polling", { headers: { "X-Forwarded-For": forwardedFor } });

  describe("behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1): the forwarded client address counts", () => {
    let t: Awaited<ReturnType<typeof started>>;
    beforeAll(async () => {
      t = await started({ TRUSTED_PROXIES: "127.0.0.1" });
    });
    afterAll(() => t.srv.stop());

    test("the 4th connection from one address is refused, another address is accepted, and a closed one frees its place", async () => {
      const A = "203.0.113.7";
      const B = "198.51.100.9";
      const a = [await connect(t.port, A), await connect(t.port, A), await connect(t.port, A)];
      expect(t.gw.perAddress.count(A)).toBe(3);

      // Over a websocket: the upgrade is answered with the reason instead of 101.
      await expect(connect(t.port, A)).rejects.toThrow(`websocket handshake refused: HTTP/1.1 400 Bad Request: ${REFUSAL}`);
      // Over long-polling: 403 with engine.io's error body.
      const polled = await pollingHandshake(t.srv, A);
      expect(polled.status).toBe(403);
      expect(polled.body).toEqual({ code: 4, message: REFUSAL });
      // socket.io-client sees its connection fail.
      await expect(connectSocket(t.srv.url, { transports: ["polling"], extraHeaders: { "X-Forwarded-For": A } })).rejects.toThrow();
      expect(t.gw.socketCuts.perAddress).toBe(3);
      const metrics = await (await fetch(t.metricsUrl)).text();
      expect(metricValue(metrics, "pmx_socket_refused_total", { reason: "per_address" })).toBe(3);

      // The refused ones took no place; the three still work.
      expect(t.gw.perAddress.count(A)).toBe(3);
      for (const c of a) {
        c.emit("ping");
        await c.next((f) => f.includes('"type":"pong"'));
      }

      // Another address is not affected.
      const b = await connect(t.port, B);
      b.emit("ping");
      await b.next((f) => f.includes('"type":"pong"'));
      expect(t.gw.perAddress.count(B)).toBe(1);

      // One of A's closes: A may connect again.
      a[0].close();
      await until("the closed connection to be counted out", () => t.gw.perAddress.count(A) === 2);
      const again = await connect(t.port, A);
      again.emit("ping");
      await again.next((f) => f.includes('"type":"pong"'));
      expect(t.gw.perAddress.count(A)).toBe(3);
    });

    test("every connection closed: no address is remembered", async () => {
      await until("no connection counted", () => t.gw.perAddress.addresses === 0);
      const c = await connect(t.port, "192.0.2.1");
      expect(t.gw.perAddress.addresses).toBe(1);
      c.close();
      await until("its address forgotten", () => t.gw.perAddress.addresses === 0);
    });
  });

  describe("without a trusted proxy: X-Forwarded-For is the client's word and is ignored", () => {
    let t: Awaited<ReturnType<typeof started>>;
    beforeAll(async () => {
      t = await started({});
    });
    afterAll(() => t.srv.stop());

    test("connections claiming different addresses all count as the peer's", async () => {
      await connect(t.port, "203.0.113.1");
      await connect(t.port, "203.0.113.2");
      await connect(t.port, "203.0.113.3");
      await expect(connect(t.port, "203.0.113.4")).rejects.toThrow(REFUSAL);
      expect(t.gw.perAddress.count("127.0.0.1")).toBe(3);
    });
  });
});
