import { startServer, type TestServer } from "../support/server";
import { freePort } from "../support/redis";
import { ADMIN_KEY, createMarket, fund, SHARE } from "../support/trading";

describe("Prometheus metrics", () => {
  let srv: TestServer;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    srv = await startServer({ ADMIN_KEY, METRICS: "true", METRICS_PORT: String(port) });
  });
  afterAll(() => srv.stop());

  test("Moleculer's metrics and the exchange's own (orders, fills, command latency, queue depth) are exported", async () => {
    const market = await createMarket(srv, "Metrics?");
    const a = await srv.login();
    const b = await srv.login();
    await fund(srv.broker, a.userId, 100 * SHARE);
    await fund(srv.broker, b.userId, 100 * SHARE);
    await srv.http("POST", "/api/v1/orders", {
      token: a.token,
      body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    await srv.http("POST", "/api/v1/orders", {
      token: b.token,
      body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    // A real deposit through the sandbox chain's faucet.
    const faucet = await srv.http("POST", "/api/v1/sandbox/faucet", { token: a.token, body: { amount: String(5 * SHARE) } });
    expect(faucet.status).toBe(202);
    for (let i = 0; i < 100; i++) {
      const bal = (await srv.http("GET", "/api/v1/balance", { token: a.token })).body.data;
      if (Number(bal.total) > 100 * SHARE) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/moleculer_request_total/);
    expect(text).toMatch(/pmx_orders_total\{[^}]*kind="limit",result="accepted"\} 2/);
    expect(text).toMatch(/pmx_fills_total\{[^}]*kind="mint"\} 1/);
    expect(text).toMatch(/pmx_market_command_duration_ms_bucket\{[^}]*command="market",le="\+Inf"\} 2/);
    expect(text).toMatch(new RegExp(`pmx_market_queue_depth\\{[^}]*marketId="${market}"\\} 0`));
    expect(text).toMatch(/pmx_deposits_credited_total\{[^}]*\} 1/);
  });
});
