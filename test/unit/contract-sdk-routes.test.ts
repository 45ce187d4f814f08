/**
 * The SDK's REST paths come from the contract: `npm run contract:sdk` writes the route table
 * (client/src/generated/routes.ts) from contract/routes.ts, the committed table is what the
 * generator makes now, and every method of PmxClient sends exactly the method and path the
 * contract names for its operation (a fake fetch records them), so a path written once in
 * contract/routes.ts is what the SDK calls.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROUTES, sdkRoutes, type RouteDef } from "../../contract";
import { PmxClient, type ResponseInfo } from "../../client/src";
import { ROUTES as SDK_ROUTES } from "../../client/src/generated/routes";
import { SDK_GENERATED_DIR, writeSdkModels } from "../../scripts/contract-sdk";

const openApiPath = (p: string) => p.replace(/:(\w+)/g, "{$1}");
const contractRoutes = () => (Object.values(ROUTES) as RouteDef[]).map((r) => `${r.method} ${openApiPath(r.path)}`).sort();

/** A client whose fetch answers every request with an empty envelope and records what was sent. */
function recordingClient() {
  const seen: Array<{ method: string; route: string; url: string; headers: Record<string, string> }> = [];
  const sent: Record<string, string>[] = [];
  const fetchFake = (async (_url: string | URL | Request, init?: RequestInit) => {
    sent.push({ ...(init?.headers as Record<string, string>) });
    const data =
      init?.method === "GET"
        ? []
        : { accessToken: "h.eyJleHAiOjk5OTk5OTk5OTl9.s", expiresAt: 9_999_999_999, userId: "u", walletAddress: "w" };
    return new Response(JSON.stringify({ data, requestId: "r" }), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  const client = new PmxClient({
    baseUrl: "http://exchange.test",
    session: { accessToken: "h.eyJleHAiOjk5OTk5OTk5OTl9.s", expiresAt: 9_999_999_999, userId: "u", walletAddress: "w" },
    autoRefresh: false,
    adminKey: "k",
    fetch: fetchFake,
    onResponse: (i: ResponseInfo) => seen.push({ method: i.method, route: i.route, url: i.url, headers: sent[sent.length - 1] }),
  });
  return { client, seen };
}

describe("SDK routes from the contract", () => {
  test("the committed client/src/generated/routes.ts is what the generator makes from the contract now", () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-sdk-routes-"));
    try {
      writeSdkModels(dir);
      expect(readFileSync(join(dir, "routes.ts"), "utf8")).toBe(
        readFileSync(join(__dirname, "../..", SDK_GENERATED_DIR, "routes.ts"), "utf8"),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The table holds every route of the contract, by its operation.
    expect(
      Object.values(SDK_ROUTES)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(contractRoutes());
    for (const r of Object.values(ROUTES) as RouteDef[]) {
      const sdk = (SDK_ROUTES as Record<string, { auth: string; idempotent?: boolean }>)[r.operationId];
      expect([r.operationId, sdk.auth, sdk.idempotent ?? false]).toEqual([r.operationId, r.auth, r.idempotent ?? false]);
    }
  });

  test("a path changed in contract/routes.ts is the path the generated table names", () => {
    const changed = { ...ROUTES, "book.place": { ...ROUTES["book.place"], path: "/orders/new" } };
    const text = sdkRoutes(changed);
    expect(text).toContain('placeOrder: { method: "POST", path: "/orders/new", auth: "user", idempotent: true },');
    expect(sdkRoutes(ROUTES)).toContain('placeOrder: { method: "POST", path: "/orders", auth: "user", idempotent: true },');
    // Path parameters in the document's form, typed by name.
    expect(text).toContain('getOrderBook: { method: "GET", path: "/markets/{marketId}/orderbook", auth: "public" },');
    expect(text).toMatch(
      /getOrderBook: \{ params: \{ marketId: string \}; query: GetOrderBookQuery; body: undefined; result: OrderBook \};/,
    );
  });

  test("every REST method of the SDK sends the method and path its operation has in the contract", async () => {
    const { client: c, seen } = recordingClient();
    const body = {} as never;
    await c.auth.challenge();
    await c.auth.connect(body);
    await c.auth.refresh();
    await c.auth.refreshToken("h.eyJleHAiOjk5OTk5OTk5OTl9.s");
    await c.events.list();
    await c.events.search({ q: "x" });
    await c.events.get("evt_1");
    await c.events.convert("evt_1", { marketIds: ["mkt_1", "mkt_2"], quantity: "1000000" }, { idempotencyKey: "k" });
    await c.markets.get("mkt_1");
    await c.markets.orderbook("mkt_1", "NO");
    await c.markets.priceHistory("mkt_1", { interval: "1D" });
    await c.markets.trades("mkt_1", { limit: 10 });
    await c.markets.quote("mkt_1", body);
    await c.orders.place(body, { idempotencyKey: "k1" });
    await c.orders.batch([], { idempotencyKey: "k2" });
    await c.orders.quote(body, { idempotencyKey: "k3" });
    await c.orders.cancelQuotes("mkt_1");
    await c.orders.amend("ord_1", body);
    await c.orders.cancel("ord_1");
    await c.orders.cancelAll({ marketId: "mkt_1" });
    await c.orders.list({ status: "all" });
    await c.trade.amm(body);
    await c.trade.market(body);
    await c.portfolio.balance();
    await c.portfolio.positions();
    await c.portfolio.trades();
    await c.portfolio.trade("trd_1");
    await c.portfolio.transfers();
    await c.wallet.depositAddress();
    await c.wallet.withdraw(body);
    await c.wallet.redeem("mkt_1", body);
    await c.wallet.faucet(body);
    await c.notifications.list();
    await c.notifications.markRead(body);
    await c.notifications.settings();
    await c.notifications.updateSettings(body);
    await c.heartbeats.send(30);
    await c.admin.createEvent(body);
    await c.admin.updateEvent("evt_1", body);
    await c.admin.closeMarket("mkt_1");
    await c.admin.cancelMarket("mkt_1");
    await c.admin.resolveMarket("mkt_1", body);
    await c.admin.setMarketTradingMode("mkt_1", { mode: "halted", reason: "incident" });
    await c.admin.setExchangeTradingMode({ mode: "normal" });
    await c.admin.audit({ page: 1 });
    await c.admin.proposeResolution("mkt_1", body);
    await c.admin.finalizeResolution("mkt_1", body);
    await c.admin.addOutcome("evt_1", { title: "Will Dana win?", outcomeLabel: "Dana" });
    await c.admin.resolveEvent("evt_1", { winnerMarketId: "mkt_1" });
    await c.admin.proposeEvent("evt_1", { winnerMarketId: null });
    await c.markets.dispute("mkt_1", body);
    await c.portfolio.limits();
    await c.orders.queuePosition("ord_1");
    await c.orders.scoring("ord_1");
    await c.orders.createGroup(body);
    await c.orders.groups();
    await c.orders.resetGroup("grp_1");
    await c.orders.deleteGroup("grp_1");
    await c.markets.rewardMarkets();
    await c.portfolio.rewardEarnings("2026-03-01");
    await c.admin.setMarketRewards("mkt_1", body);
    await c.admin.fundRewards("1");
    await c.admin.setUserTier("usr_1", "maker");
    await c.auth.logout();

    expect([...new Set(seen.map((s) => `${s.method} ${s.route}`))].sort()).toEqual(contractRoutes());
    // Path parameters filled in, query parameters sent, keys and auth as the route says.
    const at = (route: string) => seen.filter((s) => s.route === route);
    expect(at("/markets/{marketId}/orderbook")[0].url).toBe("http://exchange.test/api/v1/markets/mkt_1/orderbook?outcome=NO");
    expect(at("/orders").find((s) => s.method === "POST")?.headers["idempotency-key"]).toBe("k1");
    expect(at("/events/{id}")[0].headers.authorization).toBeUndefined();
    expect(at("/balance")[0].headers.authorization).toMatch(/^Bearer /);
    expect(at("/admin/events")[0].headers["x-admin-key"]).toBe("k");
  });
});
