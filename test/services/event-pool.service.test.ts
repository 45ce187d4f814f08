/**
 * Trades against a race's pool on a real ServiceBroker: the ledger service with its real embedded
 * SQLite store under a temp dir, the catalog faked as a service answering the event and its
 * markets. The post-only window after a start (REOPEN_POST_ONLY_MS) holds for the pool as for a
 * market's own AMM: refused 409 TRADING_PAUSED until it ends, nothing posted. A market whose end the
 * ledger journaled is not traded there, whatever the catalog said a moment before.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { AuthGuard } from "../../mixins/guard.middleware";
import LedgerService from "../../services/ledger.service";
import type { EventInternal, MarketInternal } from "../../models/catalog";
import type { MoneyCheck, RouteExecution } from "../../models/trading";
import { until } from "../support/until";
import { resolutionKey } from "../../engine/payout";
import { METRIC, registerExchangeMetrics } from "../../lib/metrics";

const SHARE = 1_000_000;
const market = (id: string): MarketInternal => ({
  id,
  eventId: "evt_p",
  title: id,
  outcomeLabel: id,
  status: "open",
  result: null,
  conditionId: "0x",
  ammLiquidity: "0",
});
const event: EventInternal = {
  id: "evt_p",
  mutuallyExclusive: true,
  exhaustive: true,
  ammLiquidity: String(1_000 * SHARE),
  markets: ["A", "B", "C"].map(market),
};

describe("a race's pool and the post-only window after a start", () => {
  let broker: ServiceBroker;
  let dir: string;
  const fakeCatalog: ServiceSchema = {
    name: "catalog",
    actions: {
      getEventInternal: () => event,
      getMarketInternal: (ctx: Context<{ marketId: string }>) => event.markets.find((m) => m.id === ctx.params.marketId),
      exchangeMode: () => ({ mode: "normal", reason: null, updatedAt: null }),
    },
  };
  const start = async (env: Record<string, string> = {}) => {
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS }, middlewares: [AuthGuard] });
    bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false", ...env }));
    for (const s of [fakeCatalog, LedgerService]) broker.createService(s);
    await broker.start();
  };
  const buy = (mode: "AMM" | "ROUTE") =>
    broker.call("ledger.eventPoolRoute", {
      marketId: "A",
      userId: "usr_t",
      side: "BUY",
      outcome: "YES",
      quantity: SHARE,
      mode,
    }) as Promise<RouteExecution | null>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-evpool-svc-"));
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("refused 409 TRADING_PAUSED while the window lasts, quotes too; traded once it ends", async () => {
    await start();
    await broker.call("ledger.post", {
      key: "dep",
      postings: [
        { kind: "cash", account: "usr_t", available: 100 * SHARE },
        { kind: "external", flow: "deposit", amount: 100 * SHARE },
      ],
    });
    await broker.stop();
    // A window far longer than the test: every attempt falls inside it.
    await start({ REOPEN_POST_ONLY_MS: "600000" });
    const before = await broker.call<MoneyCheck>("ledger.conservation");
    for (const mode of ["AMM", "ROUTE"] as const) {
      await expect(buy(mode)).rejects.toMatchObject({ code: 409, type: "TRADING_PAUSED", message: expect.stringContaining("post_only") });
      await expect(
        broker.call("ledger.eventPoolQuote", { marketId: "A", userId: "usr_t", side: "BUY", outcome: "YES", quantity: SHARE, mode }),
      ).rejects.toMatchObject({ code: 409, type: "TRADING_PAUSED" });
    }
    expect(await broker.call<MoneyCheck>("ledger.conservation")).toEqual(before);
    await broker.stop();
    // A short one: refused at first, traded once it has ended.
    const started = Date.now();
    await start({ REOPEN_POST_ONLY_MS: "1500" });
    const traded = await until("the reopen window to end", () => buy("ROUTE").catch(() => null), 30_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(traded).toMatchObject({ venue: "AMM", filledQuantity: SHARE });
  });

  test("a market whose resolution the ledger journaled while the catalog still says open: pool trades refused 409 MARKET_NOT_OPEN", async () => {
    await broker.stop();
    await start();
    const before = await broker.call<MoneyCheck>("ledger.conservation");
    // C resolved NO (the chain's entry, nothing to move) before the catalog's "open" reached anyone.
    await broker.call("ledger.post", { key: resolutionKey("C"), postings: [] });
    const trade = broker.call("ledger.eventPoolRoute", {
      marketId: "C",
      userId: "usr_t",
      side: "BUY",
      outcome: "NO",
      quantity: SHARE,
      mode: "AMM",
    });
    await expect(trade).rejects.toMatchObject({ code: 409, type: "MARKET_NOT_OPEN" });
    expect(await broker.call<MoneyCheck>("ledger.conservation")).toEqual(before);
    // The race's other markets trade on.
    expect(await buy("AMM")).toMatchObject({ venue: "AMM", filledQuantity: SHARE });
  });
});

describe("a trade against a race's pool in the exchange's metrics", () => {
  let broker: ServiceBroker;
  let dir: string;
  const fakeCatalog: ServiceSchema = {
    name: "catalog",
    actions: {
      getEventInternal: () => event,
      getMarketInternal: (ctx: Context<{ marketId: string }>) => event.markets.find((m) => m.id === ctx.params.marketId),
      exchangeMode: () => ({ mode: "normal", reason: null, updatedAt: null }),
    },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-evpool-metrics-"));
    broker = new ServiceBroker({
      logger: false,
      metrics: { enabled: true, reporter: [] },
      validator: { type: "Fastest", options: VALIDATOR_OPTIONS },
      middlewares: [AuthGuard],
    });
    registerExchangeMetrics(broker);
    bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false" }));
    for (const s of [fakeCatalog, LedgerService]) broker.createService(s);
    await broker.start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("counted as an AMM fill and an amm order, no book fill", async () => {
    await broker.call("ledger.post", {
      key: "dep",
      postings: [
        { kind: "cash", account: "usr_m", available: 100 * SHARE },
        { kind: "external", flow: "deposit", amount: 100 * SHARE },
      ],
    });
    const traded = await broker.call<RouteExecution | null, object>("ledger.eventPoolRoute", {
      marketId: "B",
      userId: "usr_m",
      side: "BUY",
      outcome: "NO",
      quantity: 2 * SHARE,
      mode: "AMM",
    });
    expect(traded).toMatchObject({ venue: "AMM" });
    const counted = (name: string) =>
      (broker.metrics.getMetric(name).snapshot() as Array<{ labels: object; value: number }>).map((v) => [v.labels, v.value]);
    // Counted as the trade is published, after its answer.
    await until("the fill counted", async () => counted(METRIC.fills).length > 0, 10_000);
    expect(counted(METRIC.fills)).toEqual([[{ kind: "amm" }, 1]]);
    expect(counted(METRIC.orders)).toEqual([[{ kind: "amm", result: "accepted" }, 1]]);
  });
});
