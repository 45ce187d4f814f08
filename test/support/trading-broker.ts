/**
 * A ServiceBroker for the trading services' tests, the Moleculer way: the production middlewares
 * (AuthGuard, Idempotency, MarketRouting), the real ledger service on a temp-dir SQLite store and
 * the real book service, the catalog faked as a small service answering from `markets`, a
 * listener that hears what is broadcast and emitted (a gathered message as the events it carries), and a `gateway` caller that returns what an
 * action left in meta (status, response headers) as the REST gateway reads it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { notFound } from "../../lib/errors";
import { AuthGuard } from "../../mixins/guard.middleware";
import { Idempotency } from "../../mixins/idempotency.middleware";
import { createMarketRouting } from "../../mixins/market-routing.middleware";
import type { RequestMeta, SessionUser } from "../../mixins/context";
import type { MoneyCheck } from "../../models/trading";
import LedgerService from "../../services/ledger.service";
import BookService from "../../services/book.service";

/** What the trading services broadcast and emit. */
export const TRADING_EVENTS = ["book.changed", "market.pricesChanged", "order.updated", "market.trade", "ledger.balanceChanged"] as const;

export interface TradingBroker {
  broker: ServiceBroker;
  /** The catalog's markets: status and AMM funding (micro-units), as getMarketInternal answers them. */
  markets: Map<string, { status: string; ammLiquidity: string }>;
  heard: Array<{ name: string; params: any }>;
  /** Payloads heard of one event, in order. */
  of(name: (typeof TRADING_EVENTS)[number]): any[];
  /** Call `action` as the gateway does: the session user (and e.g. an Idempotency-Key) in meta; the answer and the response headers the action set. */
  viaGateway<T>(
    u: SessionUser,
    action: string,
    params: object,
    meta?: Partial<RequestMeta>,
  ): Promise<{ data: T; headers: Record<string, string> }>;
  /** The extended money check passes: conservation, every order's quantities, every lock. */
  expectMoneyCheck(): Promise<void>;
  stop(): Promise<void>;
}

export const sessionUser = (n: string): SessionUser => ({
  id: `usr_${n}`,
  wallet: "0:" + n.repeat(64).slice(0, 64),
  sid: `ses_${n}`,
  exp: 2e9,
});

/** Call options of a gateway call by `u` (null: no session). */
export const asUser = (u: SessionUser | null, meta: Partial<RequestMeta> = {}) => ({ meta: { user: u, ...meta } });

export async function startTradingBroker(services: ServiceSchema[], env: Record<string, string> = {}): Promise<TradingBroker> {
  const dir = mkdtempSync(join(tmpdir(), "pmx-trading-svc-"));
  const markets = new Map<string, { status: string; ammLiquidity: string }>();
  const heard: TradingBroker["heard"] = [];
  const catalog: ServiceSchema = {
    name: "catalog",
    actions: {
      // As the real catalog answers: the market's record, or 404 for one it does not know.
      getMarketInternal(ctx: Context<{ marketId: string }>) {
        const m = markets.get(ctx.params.marketId);
        if (!m) throw notFound("Market");
        return { id: ctx.params.marketId, ...m };
      },
    },
  };
  const hear = (name: string, params: unknown) => {
    if ((TRADING_EVENTS as readonly string[]).includes(name)) heard.push({ name, params });
  };
  // Gathered messages are heard as the events they carry, in order.
  const listener: ServiceSchema = {
    name: "listener",
    events: {
      ...Object.fromEntries(TRADING_EVENTS.map((name) => [name, (ctx: Context) => hear(name, ctx.params)])),
      "book.published": (ctx: Context<{ events: Array<{ name: string; payload: unknown }> }>) => {
        for (const e of ctx.params.events) hear(e.name, e.payload);
      },
      "ledger.committed": (ctx: Context<{ events: Array<{ name: string; payload: unknown }> }>) => {
        for (const e of ctx.params.events) hear(e.name, e.payload);
      },
      "market.trades": (ctx: Context<{ prints: unknown[] }>) => {
        for (const p of ctx.params.prints) hear("market.trade", p);
      },
    },
  };
  const gateway: ServiceSchema = {
    name: "gateway",
    actions: {
      async call(ctx: Context<{ action: string; params: object }, RequestMeta>) {
        const data = await ctx.call(ctx.params.action, ctx.params.params);
        return { data, headers: ctx.meta.$responseHeaders ?? {} };
      },
    },
  };
  const broker = new ServiceBroker({
    logger: false,
    validator: { type: "Fastest", options: VALIDATOR_OPTIONS },
    middlewares: [AuthGuard, Idempotency, createMarketRouting()],
  });
  bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false", ...env }));
  for (const s of [catalog, listener, gateway, LedgerService, BookService, ...services]) broker.createService(s);
  await broker.start();
  return {
    broker,
    markets,
    heard,
    of: (name) => heard.filter((h) => h.name === name).map((h) => h.params),
    viaGateway: (u, action, params, meta = {}) => broker.call("gateway.call", { action, params }, asUser(u, meta)),
    async expectMoneyCheck() {
      const check = await broker.call<MoneyCheck>("ledger.conservation");
      expect({ ok: check.ok, badOrders: check.badOrders, badLocks: check.badLocks }).toEqual({ ok: true, badOrders: [], badLocks: [] });
    },
    async stop() {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
