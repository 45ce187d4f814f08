/**
 * The sandbox demo's background trader on a real exchange (sandbox chain): it signs in through
 * the ton_proof login, funds itself from the faucet through the deposit path, and trades through
 * the router, so an untouched market's price history starts printing; off unless asked in tests.
 */
import { startChainServer, waitFor } from "../support/chain";
import type { TestServer } from "../support/server";
import { createMarket, expectConserved, SHARE } from "../support/trading";
import { loadConfig } from "../../lib/config";

jest.setTimeout(120_000);

describe("the demo's background trader", () => {
  let srv: TestServer;
  let market: string;
  beforeAll(async () => {
    srv = await startChainServer({ DEMO_TRADER: "true" });
    market = await createMarket(srv, "Will the demo prices move?", String(500 * SHARE));
  });
  afterAll(() => srv?.stop());

  test("prints trades on a market nobody else touches, with money conserved", async () => {
    const prints = await waitFor(
      "the demo trader's first trades",
      async () => {
        const h = await srv.http("GET", `/api/v1/markets/${market}/price-history?interval=1H`);
        const volume = (h.body.data.candles as Array<{ volume: number }>).reduce((n, c) => n + c.volume, 0);
        return volume >= 2 ? volume : null;
      },
      90_000,
      500,
    );
    expect(prints).toBeGreaterThanOrEqual(2);
    await expectConserved(srv.broker);
  });

  test("is on with the seeded demo on the sandbox chain, and only there unless DEMO_TRADER says", () => {
    expect(loadConfig({}).demoTrader).toBe(true);
    expect(loadConfig({ SEED_DEMO: "false" }).demoTrader).toBe(false);
    expect(loadConfig({ DEMO_TRADER: "false" }).demoTrader).toBe(false);
    expect(loadConfig({ SEED_DEMO: "false", DEMO_TRADER: "true" }).demoTrader).toBe(true);
  });
});
