/**
 * The OpenAPI document stays true: it is served as is, its paths are exactly the gateway's routes,
 * its security matches what the gateway enforces, every real response of a full scenario (driven
 * through the SDK) validates against it, and (at compile time, `tsc`) the SDK's types are the
 * types its schemas describe.
 */
import { openApiDocument, type OpenApiDocument } from "../../gateway/openapi";
import { ADMIN_ALIASES, READ_ALIASES, SANDBOX_ALIASES, TRADE_ALIASES } from "../../gateway/api-routes";
import {
  PmxClient,
  INDEX_SET,
  newIdempotencyKey,
  randomKeyPair,
  toMicro,
  type PlaceOrderRequest,
  type ResponseInfo,
} from "../../client/src";
import type * as M from "../../client/src/models";
import { startChainServer, waitFor } from "../support/chain";
import { TEST_DOMAIN, type TestServer } from "../support/server";
import { ADMIN_KEY, SHARE } from "../support/trading";

// ---------------------------------------------------------------------------------------------
// Compile-time agreement: schema -> TypeScript type, compared with the SDK's models both ways.

type Schemas = OpenApiDocument["components"]["schemas"];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type FromSchema<S> = S extends { $ref: `#/components/schemas/${infer N}` }
  ? N extends keyof Schemas
    ? FromSchema<Schemas[N]>
    : never
  : S extends { oneOf: readonly (infer U)[] }
    ? FromSchema<U>
    : S extends { nullable: true }
      ? Base<S> | null
      : Base<S>;
type Base<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: "string" }
    ? string
    : S extends { type: "integer" | "number" }
      ? number
      : S extends { type: "boolean" }
        ? boolean
        : S extends { type: "array"; items: infer I }
          ? FromSchema<I>[]
          : S extends { type: "object"; properties: infer P }
            ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never>
            : S extends { type: "object" }
              ? Record<string, unknown>
              : unknown;
type ObjectOf<P, R> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
  }
>;
/** Mutual assignability: same required and optional keys, same nullability, same literals. */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

type SdkModels = {
  Pagination: M.Pagination;
  Health: M.Health;
  ErrorDetail: M.ErrorDetail;
  ErrorEnvelope: M.ErrorEnvelope;
  ConnectRequest: M.ConnectRequest;
  Challenge: M.Challenge;
  RefreshRequest: M.RefreshRequest;
  Session: M.Session;
  MarketItem: M.MarketItem;
  Event: M.Event;
  BookLevel: M.BookLevel;
  OrderBook: M.OrderBook;
  Candle: M.Candle;
  PriceHistory: M.PriceHistory;
  QuoteRequest: M.QuoteRequest;
  Quote: M.Quote;
  PlaceOrderRequest: M.PlaceOrderRequest;
  BatchOrderRequest: M.BatchOrderRequest;
  BatchOrderResult: M.BatchOrderResult;
  AmendOrderRequest: M.AmendOrderRequest;
  CancelAllResult: M.CancelAllResult;
  HeartbeatRequest: M.HeartbeatRequest;
  Heartbeat: M.Heartbeat;
  Fill: M.Fill;
  PlacedOrder: M.PlacedOrder;
  CancelledOrder: M.CancelledOrder;
  Order: M.Order;
  TradeRequest: M.TradeRequest;
  TradeExecution: M.TradeExecution;
  Balance: M.Balance;
  Position: M.Position;
  Trade: M.Trade;
  Transfer: M.Transfer;
  DepositAddress: M.DepositAddress;
  WithdrawRequest: M.WithdrawRequest;
  WithdrawResult: M.WithdrawResult;
  RedeemRequest: M.RedeemRequest;
  RedeemResult: M.RedeemResult;
  FaucetRequest: M.FaucetRequest;
  FaucetResult: M.FaucetResult;
  Notification: M.Notification;
  MarkReadRequest: M.MarkReadRequest;
  MarkReadResult: M.MarkReadResult;
  NotificationSettings: M.NotificationSettings;
  NotificationSettingsRequest: M.NotificationSettingsRequest;
  CreateEventRequest: M.CreateEventRequest;
  UpdateEventRequest: M.UpdateEventRequest;
  ResolveMarketRequest: M.ResolveMarketRequest;
  CancelMarketRequest: M.CancelMarketRequest;
  TradingModeRequest: M.TradingModeRequest;
  ExchangeTradingMode: M.ExchangeTradingMode;
  AuditRecord: M.AuditRecord;
  SettlementSource: M.SettlementSource;
  Resolution: M.Resolution;
  ProposeRequest: M.ProposeRequest;
  FinalizeRequest: M.FinalizeRequest;
  DisputeRequest: M.DisputeRequest;
  Dispute: M.Dispute;
  QueuePosition: M.QueuePosition;
  OrderGroupRequest: M.OrderGroupRequest;
  OrderGroup: M.OrderGroup;
  DeletedOrderGroup: M.DeletedOrderGroup;
  RewardTermsRequest: M.RewardTermsRequest;
  RewardMarket: M.RewardMarket;
  FundRewardsRequest: M.FundRewardsRequest;
  RewardsFunded: M.RewardsFunded;
  RewardEarning: M.RewardEarning;
  OrderScoring: M.OrderScoring;
  SetTierRequest: M.SetTierRequest;
  UserTier: M.UserTier;
  RateBudget: M.RateBudget;
  AccountLimits: M.AccountLimits;
  EventOutcome: M.EventOutcome;
  AddOutcomeRequest: M.AddOutcomeRequest;
  ResolveEventRequest: M.ResolveEventRequest;
  ProposeEventRequest: M.ProposeEventRequest;
  ConvertRequest: M.ConvertRequest;
  ConvertResult: M.ConvertResult;
  PublicTrade: M.PublicTrade;
  PublicTradeList: M.PublicTradeList;
  MassQuoteRequest: M.MassQuoteRequest;
  MassQuoteResult: M.MassQuoteResult;
};
// Every schema has an SDK model and every model a schema...
type _NamesAgree = Check<Agree<keyof Schemas, keyof SdkModels | "FieldError">>;
// ...and they describe the same values (on a compile error, hover ModelAgreement to see which is false).
type ModelAgreement = { [K in keyof SdkModels]: Agree<FromSchema<Schemas[K]>, SdkModels[K]> };
type _ModelsAgree = Check<ModelAgreement[keyof SdkModels]>;

// The data each route answers equals what the SDK method for it returns.
type Paths = OpenApiDocument["paths"];
type DataOf<P extends keyof Paths, Mt extends keyof Paths[P], St extends string> = Paths[P][Mt] extends { responses: infer R }
  ? St extends keyof R
    ? R[St] extends { content: { "application/json": { schema: { properties: { data: infer D } } } } }
      ? FromSchema<D>
      : never
    : never
  : never;
type Ret<F> = F extends (...a: never[]) => Promise<infer T> ? T : F extends (...a: never[]) => AsyncGenerator<infer T> ? T[] : never;
type Items<P> = P extends { items: infer I } ? I : never;
type C = PmxClient;
type RouteAgreement = {
  challenge: Agree<DataOf<"/auth/challenge", "get", "200">, Ret<C["auth"]["challenge"]>>;
  connect: Agree<DataOf<"/auth/connect", "post", "200">, Ret<C["auth"]["connect"]>>;
  refresh: Agree<DataOf<"/auth/refresh", "post", "200">, Ret<C["auth"]["refresh"]>>;
  listEvents: Agree<DataOf<"/events", "get", "200">, Items<Ret<C["events"]["list"]>>>;
  iterateEvents: Agree<DataOf<"/events", "get", "200">, Ret<C["events"]["iterate"]>>;
  searchEvents: Agree<DataOf<"/events/search", "get", "200">, Items<Ret<C["events"]["search"]>>>;
  getEvent: Agree<DataOf<"/events/{id}", "get", "200">, Ret<C["events"]["get"]>>;
  getMarket: Agree<DataOf<"/markets/{id}", "get", "200">, Ret<C["markets"]["get"]>>;
  orderbook: Agree<DataOf<"/markets/{marketId}/orderbook", "get", "200">, Ret<C["markets"]["orderbook"]>>;
  history: Agree<DataOf<"/markets/{marketId}/price-history", "get", "200">, Ret<C["markets"]["priceHistory"]>>;
  marketTrades: Agree<DataOf<"/markets/{marketId}/trades", "get", "200">, Ret<C["markets"]["trades"]>>;
  quote: Agree<DataOf<"/markets/{marketId}/quote", "post", "200">, Ret<C["markets"]["quote"]>>;
  place: Agree<DataOf<"/orders", "post", "200">, Ret<C["orders"]["place"]>>;
  listOrders: Agree<DataOf<"/orders", "get", "200">, Items<Ret<C["orders"]["list"]>>>;
  iterateOrders: Agree<DataOf<"/orders", "get", "200">, Ret<C["orders"]["iterate"]>>;
  openOrders: Agree<DataOf<"/orders", "get", "200">, Ret<C["orders"]["open"]>>;
  cancelAll: Agree<DataOf<"/orders", "delete", "200">, Ret<C["orders"]["cancelAll"]>>;
  batch: Agree<DataOf<"/orders/batch", "post", "200">, Ret<C["orders"]["batch"]>>;
  massQuote: Agree<DataOf<"/quotes", "post", "200">, Ret<C["orders"]["quote"]>>;
  cancelQuotes: Agree<DataOf<"/quotes", "delete", "200">, Ret<C["orders"]["cancelQuotes"]>>;
  amend: Agree<DataOf<"/orders/{orderId}", "patch", "200">, Ret<C["orders"]["amend"]>>;
  cancel: Agree<DataOf<"/orders/{orderId}", "delete", "200">, Ret<C["orders"]["cancel"]>>;
  heartbeat: Agree<DataOf<"/heartbeats", "post", "200">, Ret<C["heartbeats"]["send"]>>;
  transfers: Agree<DataOf<"/transfers", "get", "200">, Items<Ret<C["portfolio"]["transfers"]>>>;
  iterateTransfers: Agree<DataOf<"/transfers", "get", "200">, Ret<C["portfolio"]["iterateTransfers"]>>;
  amm: Agree<DataOf<"/trade/amm", "post", "200">, Ret<C["trade"]["amm"]>>;
  market: Agree<DataOf<"/trade/market", "post", "200">, Ret<C["trade"]["market"]>>;
  deposit: Agree<DataOf<"/deposit-address", "get", "200">, Ret<C["wallet"]["depositAddress"]>>;
  withdraw: Agree<DataOf<"/withdraw", "post", "202">, Ret<C["wallet"]["withdraw"]>>;
  redeem: Agree<DataOf<"/redeem/{marketId}", "post", "202">, Ret<C["wallet"]["redeem"]>>;
  faucet: Agree<DataOf<"/sandbox/faucet", "post", "202">, Ret<C["wallet"]["faucet"]>>;
  balance: Agree<DataOf<"/balance", "get", "200">, Ret<C["portfolio"]["balance"]>>;
  positions: Agree<DataOf<"/positions", "get", "200">, Ret<C["portfolio"]["positions"]>>;
  trades: Agree<DataOf<"/trades", "get", "200">, Items<Ret<C["portfolio"]["trades"]>>>;
  trade: Agree<DataOf<"/trades/{id}", "get", "200">, Ret<C["portfolio"]["trade"]>>;
  notifications: Agree<DataOf<"/notifications", "get", "200">, Items<Ret<C["notifications"]["list"]>>>;
  markRead: Agree<DataOf<"/notifications/read", "post", "200">, Ret<C["notifications"]["markRead"]>>;
  createEvent: Agree<DataOf<"/admin/events", "post", "201">, Ret<C["admin"]["createEvent"]>>;
  updateEvent: Agree<DataOf<"/admin/events/{id}", "patch", "200">, Ret<C["admin"]["updateEvent"]>>;
  close: Agree<DataOf<"/admin/markets/{id}/close", "post", "200">, Ret<C["admin"]["closeMarket"]>>;
  cancelMarket: Agree<DataOf<"/admin/markets/{id}/cancel", "post", "200">, Ret<C["admin"]["cancelMarket"]>>;
  resolve: Agree<DataOf<"/admin/markets/{id}/resolve", "post", "200">, Ret<C["admin"]["resolveMarket"]>>;
  marketMode: Agree<DataOf<"/admin/markets/{id}/trading-mode", "post", "200">, Ret<C["admin"]["setMarketTradingMode"]>>;
  exchangeMode: Agree<DataOf<"/admin/trading-mode", "post", "200">, Ret<C["admin"]["setExchangeTradingMode"]>>;
  audit: Agree<DataOf<"/admin/audit", "get", "200">, Items<Ret<C["admin"]["audit"]>>>;
  propose: Agree<DataOf<"/admin/markets/{id}/propose", "post", "200">, Ret<C["admin"]["proposeResolution"]>>;
  finalize: Agree<DataOf<"/admin/markets/{id}/finalize", "post", "200">, Ret<C["admin"]["finalizeResolution"]>>;
  dispute: Agree<DataOf<"/markets/{id}/disputes", "post", "201">, Ret<C["markets"]["dispute"]>>;
};
type _RoutesAgree = Check<RouteAgreement[keyof RouteAgreement]>;

// ---------------------------------------------------------------------------------------------
// A small validator for the JSON Schema subset the document uses (OpenAPI 3.0 flavour).

type Json = unknown;
type Schema = Record<string, unknown>;
const doc = openApiDocument as unknown as {
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Schema>;
    parameters: Record<string, Schema>;
    headers: Record<string, Schema>;
  };
};

function resolveRef(s: Schema): Schema {
  const r = s.$ref;
  if (typeof r !== "string") return s;
  const m = /^#\/components\/(schemas|responses|parameters|headers)\/(.+)$/.exec(r);
  const target = m && doc.components[m[1] as keyof typeof doc.components][m[2]];
  if (!target) throw new Error(`unresolved $ref ${r}`);
  return resolveRef(target);
}

export function validate(schemaIn: Schema, value: Json, at = "$"): string[] {
  const s = resolveRef(schemaIn);
  if (Array.isArray(s.oneOf)) {
    const tries = (s.oneOf as Schema[]).map((branch) => validate(branch, value, at));
    const matching = tries.filter((t) => t.length === 0).length;
    if (matching === 1) return [];
    if (matching > 1) return [`${at}: matches ${matching} branches of oneOf`];
    return [`${at}: matches no branch of oneOf (${tries.map((t) => t.join("; ")).join(" | ")})`];
  }
  if (value === null) return s.nullable === true ? [] : [`${at}: null is not allowed`];
  const errs: string[] = [];
  if (Array.isArray(s.enum) && !s.enum.includes(value))
    errs.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
  switch (s.type) {
    case "string":
      if (typeof value !== "string") return [`${at}: expected a string, got ${JSON.stringify(value)}`];
      if (typeof s.pattern === "string" && !new RegExp(s.pattern).test(value)) errs.push(`${at}: "${value}" does not match ${s.pattern}`);
      if (s.format === "date-time" && !(/^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(Date.parse(value))))
        errs.push(`${at}: "${value}" is not a date-time`);
      break;
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return [`${at}: expected a number, got ${JSON.stringify(value)}`];
      if (s.type === "integer" && !Number.isInteger(value)) errs.push(`${at}: ${value} is not an integer`);
      if (typeof s.minimum === "number" && value < s.minimum) errs.push(`${at}: ${value} < ${s.minimum}`);
      if (typeof s.maximum === "number" && value > s.maximum) errs.push(`${at}: ${value} > ${s.maximum}`);
      break;
    case "boolean":
      if (typeof value !== "boolean") return [`${at}: expected a boolean`];
      break;
    case "array":
      if (!Array.isArray(value)) return [`${at}: expected an array`];
      value.forEach((v, i) => errs.push(...validate(s.items as Schema, v, `${at}[${i}]`)));
      break;
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return [`${at}: expected an object`];
      const obj = value as Record<string, unknown>;
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const k of (s.required ?? []) as string[]) if (!(k in obj)) errs.push(`${at}.${k}: required`);
      for (const [k, v] of Object.entries(obj)) {
        if (props[k]) errs.push(...validate(props[k], v, `${at}.${k}`));
        else if (s.additionalProperties === false) errs.push(`${at}.${k}: not in the schema`);
      }
      break;
    }
    case undefined:
      break;
    default:
      errs.push(`${at}: unknown schema type ${String(s.type)}`);
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------

const norm = (p: string) => p.replace(/:([A-Za-z]+)/g, "{$1}");
const METHODS = ["get", "post", "put", "patch", "delete"];

function documentedRoutes(): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

function gatewayRoutes(): string[] {
  const withPrefix = (table: Record<string, string>, prefix: string) =>
    Object.keys(table).map((k) => {
      const [m, p] = k.split(" ");
      return `${m} ${prefix}${norm(p)}`;
    });
  return [
    ...withPrefix(TRADE_ALIASES, ""),
    ...withPrefix(READ_ALIASES, ""),
    ...withPrefix(ADMIN_ALIASES, "/admin"),
    ...withPrefix(SANDBOX_ALIASES, "/sandbox"),
    "GET /health",
    "GET /openapi.json",
  ];
}

function operation(method: string, route: string): { responses: Record<string, Schema>; security?: unknown[] } {
  const op = doc.paths[route]?.[method.toLowerCase()] as { responses: Record<string, Schema>; security?: unknown[] } | undefined;
  if (!op) throw new Error(`no operation ${method} ${route} in the document`);
  return op;
}

describe("OpenAPI document", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startChainServer({ ADMIN_KEY, SEED_DEMO: "false" });
  });
  afterAll(() => srv.stop());

  test("served at /api/v1/openapi.json exactly as built, without the envelope", async () => {
    const res = await fetch(`${srv.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });

  test("its paths are exactly the gateway's routes", () => {
    expect(documentedRoutes().sort()).toEqual(gatewayRoutes().sort());
    const ids = Object.values(doc.paths).flatMap((item) =>
      METHODS.filter((m) => item[m]).map((m) => (item[m] as { operationId: string }).operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("every $ref resolves and every path parameter is declared", () => {
    const refs = JSON.stringify(openApiDocument).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const r of refs) expect(() => resolveRef({ $ref: JSON.parse(`{${r}}`).$ref })).not.toThrow();
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const m of METHODS.filter((k) => item[k])) {
        const params = ((item[m] as { parameters?: Array<{ name: string; in: string }> }).parameters ?? [])
          .filter((p) => p.in === "path")
          .map((p) => p.name);
        expect([path, m, params.sort()]).toEqual([path, m, [...names].sort()]);
      }
    }
  });

  test("security as the gateway enforces it: bearer routes answer 401 without a token, public ones do not, operator routes want the key", async () => {
    // Well-formed bodies, so that parameter validation (which may run first) passes.
    const trade = { marketId: "x_1", side: "BUY", outcome: "YES", quantity: "100" };
    const bodies: Record<string, unknown> = {
      "/markets/{marketId}/quote": { side: "BUY", outcome: "YES", quantity: "100" },
      "/orders": { ...trade, orderType: "GTC", price: 0.5, quantity: 100 },
      "/orders/batch": { orders: [{ ...trade, orderType: "GTC", price: 0.5, quantity: 100 }] },
      "/quotes": { marketId: "x_1", quotes: [{ side: "BUY", outcome: "YES", price: 0.5, quantity: 100 }] },
      "/orders/{orderId}": { price: 0.5 },
      "/heartbeats": { timeoutSeconds: 0 },
      "/order-groups": { fillLimit: "1000000" },
      "/admin/markets/{id}/rewards": { dailyPool: "1", maxSpread: "0.03", minSize: "0" },
      "/admin/rewards/fund": { amount: "1" },
      "/admin/users/{userId}/tier": { tier: "default" },
      "/trade/amm": trade,
      "/trade/market": trade,
      "/withdraw": { amount: "1000000" },
      "/redeem/{marketId}": { conditionId: "0x" + "0".repeat(64), indexSets: ["0x1"] },
      "/sandbox/faucet": { amount: "1" },
      "/notifications/read": { all: true },
      "/account/notification-settings": { push: { trades: true } },
      "/markets/{id}/disputes": { reason: "The proposed result is wrong" },
      "/events/{id}/convert": { marketIds: ["x_1"], quantity: "100" },
    };
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const m of METHODS.filter((k) => item[k])) {
        const op = item[m] as { security?: Array<Record<string, unknown>> };
        // A required query parameter is sent too (DELETE /quotes names its market).
        const query = path === "/quotes" && m === "delete" ? "?marketId=x_1" : "";
        const url = srv.url + (path === "/health" ? "" : "/api/v1") + path.replace(/\{\w+\}/g, "x_1") + query;
        const hasBody = m !== "get" && m !== "delete";
        const res = await fetch(url, {
          method: m.toUpperCase(),
          headers: { "content-type": "application/json" },
          body: hasBody ? JSON.stringify(bodies[path] ?? {}) : undefined,
        });
        const scheme = op.security?.[0] ? Object.keys(op.security[0])[0] : "none";
        // Login and refresh are public routes whose refusals are 401 by contract.
        const expect401 = scheme !== "none" || path === "/auth/connect" || path === "/auth/refresh";
        if ((res.status === 401) !== expect401) wrong.push(`${m.toUpperCase()} ${path} (${scheme}): ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("every real response of a full scenario validates against its operation's schema", async () => {
    const seen: ResponseInfo[] = [];
    const onResponse = (r: ResponseInfo) => seen.push(r);
    const mk = (o: Partial<ConstructorParameters<typeof PmxClient>[0]> = {}) =>
      new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN, adminKey: ADMIN_KEY, onResponse, ...o });
    const a = mk();
    const b = mk();
    const ignore = () => undefined;

    await a.health();
    await a.openapi();
    await a.auth.challenge();
    await a.auth.loginWithKeyPair(randomKeyPair());
    await b.auth.loginWithKeyPair(randomKeyPair());
    const e = await a.admin.createEvent({
      title: "Schema check",
      category: "Tech",
      markets: [
        {
          title: "Valid?",
          ammLiquidity: toMicro(500),
          rules: "YES if valid",
          settlementSources: [{ name: "Spec", url: "https://example.com/spec" }],
        },
        { title: "Also valid?" },
        { title: "Split?", closeTime: new Date(Date.now() + 3_600_000).toISOString() },
      ],
    });
    const market = e.markets[0].id;
    await a.admin.updateEvent(e.id, { tags: ["schema"] });
    await a.events.list({ category: "Tech" });
    await a.events.search({ q: "schema" });
    await a.events.get(e.id);
    await a.markets.get(market);
    await a.markets.priceHistory(market);
    for (const c of [a, b]) {
      await c.wallet.depositAddress();
      await c.wallet.faucet({ amount: toMicro(100) });
      await waitFor("credit", async () => (await c.portfolio.balance()).available === toMicro(100));
    }
    await a.markets.quote(market, { side: "BUY", outcome: "YES", quantity: toMicro(5) });
    const resting = await a.orders.place({
      marketId: market,
      side: "BUY",
      outcome: "YES",
      orderType: "GTC",
      price: 0.4,
      quantity: 5 * SHARE,
    });
    await b.orders.place({ marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: 2 * SHARE });
    await a.orders.list();
    await a.markets.orderbook(market);
    await a.orders.queuePosition(resting.orderId);
    const group = await a.orders.createGroup({ fillLimit: String(100 * SHARE) });
    await a.orders.groups();
    await a.orders.resetGroup(group.orderGroupId);
    await a.orders.deleteGroup(group.orderGroupId);
    await a.admin.fundRewards("5000000");
    await a.admin.setMarketRewards(market, { dailyPool: "1000000", maxSpread: "0.05", minSize: "0" });
    await a.markets.rewardMarkets();
    await a.orders.scoring(resting.orderId);
    await a.portfolio.rewardEarnings(new Date().toISOString().slice(0, 10));
    await a.orders.cancel(resting.orderId);
    await a.orders.cancel(resting.orderId).catch(ignore);
    // The trader API: order options, replays, batch, amend, cancel-all, history, the switch.
    await b.orders.place({ marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: 2 * SHARE }); // rests: YES ask 0.40
    const gtd: PlaceOrderRequest = {
      marketId: market,
      side: "BUY",
      outcome: "YES",
      orderType: "GTD",
      price: 0.3,
      quantity: 2 * SHARE,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      postOnly: true,
      clientOrderId: "schema-1",
    };
    const key = newIdempotencyKey();
    const quoted = await a.orders.place(gtd, { idempotencyKey: key });
    expect((await a.orders.place(gtd, { idempotencyKey: key })).replayed).toBe(true);
    await a.orders.place({ ...gtd, price: 0.31 }, { idempotencyKey: key }).catch(ignore); // 409 IDEMPOTENCY_KEY_REUSED
    await a.orders.place({ ...gtd, orderType: "GTC", expiresAt: undefined }).catch(ignore); // 409 DUPLICATE_CLIENT_ORDER_ID
    await a.orders
      .place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.4, quantity: SHARE, postOnly: true })
      .catch(ignore); // 400 POST_ONLY_WOULD_CROSS
    await a.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "FAK", price: 0.4, quantity: 3 * SHARE });
    await a.orders.batch(
      [
        { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.2, quantity: SHARE, clientOrderId: "schema-b1" },
        { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.205, quantity: SHARE },
      ],
      { idempotencyKey: newIdempotencyKey() },
    );
    const quotes = await a.orders.quote(
      { marketId: market, quotes: [{ side: "BUY", outcome: "YES", price: 0.21, quantity: SHARE }], postOnly: true },
      { idempotencyKey: newIdempotencyKey() },
    );
    await a.orders.amend(quotes.orders[0].orderId, { quantity: 2 * SHARE });
    await a.orders.cancelQuotes(market);
    await a.orders.amend(quoted.orderId, { quantity: SHARE });
    await a.orders.amend(quoted.orderId, { price: 0.28 });
    await a.orders.amend("ord_nope", { price: 0.28 }).catch(ignore);
    await a.orders.list({ status: "all", pageSize: 2 });
    await a.orders.list({ clientOrderId: "schema-1" });
    await a.heartbeats.send(60);
    await a.heartbeats.disarm();
    await a.heartbeats.send(3).catch(ignore);
    await a.orders.cancelAll({ marketId: market });
    await a.orders.list({ status: "closed" });
    const t = await a.trade.amm(
      { marketId: market, side: "BUY", outcome: "YES", quantity: toMicro(3) },
      { idempotencyKey: newIdempotencyKey() },
    );
    await a.trade.market({ marketId: market, side: "SELL", outcome: "YES", quantity: toMicro(1) }, { idempotencyKey: newIdempotencyKey() });
    // A mutually exclusive event: NO of one outcome converted into YES of the other.
    const convRace = await a.admin.createEvent({
      title: "Schema conversion race",
      category: "Sports",
      mutuallyExclusive: true,
      markets: [
        { title: "Will A win?", outcomeLabel: "A" },
        { title: "Will B win?", outcomeLabel: "B" },
      ],
    });
    const [ra, rb] = convRace.markets.map((x) => x.id);
    await a.orders.place({ marketId: ra, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.4, quantity: SHARE });
    await b.orders.place({ marketId: ra, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: SHARE });
    const conv = await b.events.convert(convRace.id, { marketIds: [ra], quantity: toMicro(1) }, { idempotencyKey: newIdempotencyKey() });
    expect(conv.yesReceived).toEqual([{ marketId: rb, quantity: toMicro(1) }]);
    await a.portfolio.balance();
    await a.portfolio.positions();
    await a.portfolio.trades({ pageSize: 1 });
    await waitFor("settled", async () => (await a.portfolio.trade(t.tradeId)).settlementStatus === "confirmed");
    const withdrawal = newIdempotencyKey();
    await a.wallet.withdraw({ amount: toMicro(2) }, { idempotencyKey: withdrawal });
    expect((await a.wallet.withdraw({ amount: toMicro(2) }, { idempotencyKey: withdrawal })).replayed).toBe(true);
    await a.wallet.withdraw({ amount: toMicro(2) });
    // Deposits that are not credited are transfers too.
    await a.wallet.faucet({ amount: "500000000", asset: "TON" });
    await a.wallet.faucet({ amount: "9000000", asset: "FOREIGN_USDT" });
    await waitFor(
      "not credited",
      async () => (await a.portfolio.transfers({ type: "deposit" })).items.filter((x) => x.status === "not_credited").length === 2,
    );
    await a.portfolio.transfers();
    await a.portfolio.transfers({ type: "withdrawal", pageSize: 1 });
    await a.admin.setMarketTradingMode(e.markets[1].id, { mode: "cancel_only", reason: "winding down" });
    await a.admin.setExchangeTradingMode({ mode: "normal" });
    await a.admin.closeMarket(e.markets[1].id);
    await a.admin.cancelMarket(e.markets[1].id);
    await a.admin.audit({ pageSize: 5 });
    await a.portfolio.limits();
    await a.admin.setUserTier(b.session?.userId as string, "default");
    await a.admin.proposeResolution(market, { result: "YES", note: "schema" });
    await a.markets.dispute(market, { reason: "A holder disputes it" });
    await a.admin.finalizeResolution(market, { result: "YES" });
    await a.admin.resolveMarket(e.markets[2].id, { result: "SPLIT" });
    // A race: an outcome added, its winner proposed on one, resolved as one step on another.
    const race = {
      title: "Schema race",
      category: "Sports" as const,
      mutuallyExclusive: true,
      markets: [
        { title: "Schema race: A?", outcomeLabel: "A" },
        { title: "Schema race: B?", outcomeLabel: "B" },
      ],
    };
    const r1 = await a.admin.createEvent(race);
    const added = await a.admin.addOutcome(r1.id, { title: "Schema race: C?", outcomeLabel: "C" });
    await a.admin.proposeEvent(r1.id, { winnerMarketId: added.id, note: "schema" });
    const r2 = await a.admin.createEvent({ ...race, title: "Schema race two" });
    await a.admin.resolveEvent(r2.id, { winnerMarketId: null });
    // Positions of a resolved market are marked at the payout.
    expect((await a.portfolio.positions()).find((p) => p.marketId === market && p.outcome === "YES")?.markPrice).toBe("1.00");
    const m = await a.markets.get(market);
    await a.wallet.redeem(market, { conditionId: m.conditionId, indexSets: [INDEX_SET.YES] }, { idempotencyKey: newIdempotencyKey() });
    await srv.broker.call("notifier.catchUp");
    // The market's executions by now (every venue), after the prints are recorded.
    await waitFor("trades listed", async () => (await a.markets.trades(market, { limit: 5 })).items.length > 0);
    await a.notifications.list();
    await a.notifications.markRead({ all: true });
    await a.notifications.settings();
    await a.notifications.updateSettings({ push: { settlement: false } });
    // Error answers are part of the contract too.
    await a.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 2, quantity: 1 }).catch(ignore);
    await a.events.get("evt_nope").catch(ignore);
    await a.admin.closeMarket(e.markets[1].id).catch(ignore);
    await mk({ adminKey: "wrong" }).admin.closeMarket(market).catch(ignore);
    await a.auth.refresh().catch(ignore);
    await a.auth.logout();

    const problems: string[] = [];
    const covered = new Set<string>();
    for (const r of seen) {
      const op = operation(r.method, r.route);
      const spec = op.responses[String(r.status)];
      if (!spec) {
        problems.push(`${r.method} ${r.route}: status ${r.status} is not documented`);
        continue;
      }
      covered.add(`${r.method} ${r.route}`);
      const resolved = resolveRef(spec);
      const schema = (resolved.content as Record<string, { schema: Schema }> | undefined)?.["application/json"]?.schema;
      if (!schema) {
        if (r.body !== null) problems.push(`${r.method} ${r.route} ${r.status}: a body where none is documented`);
        continue;
      }
      for (const p of validate(schema, r.body)) problems.push(`${r.method} ${r.route} ${r.status}: ${p}`);
    }
    expect(problems).toEqual([]);
    // The scenario reached every documented operation.
    expect([...covered].sort()).toEqual(documentedRoutes().sort());
    expect(
      seen
        .filter((r) => r.status >= 400)
        .map((r) => r.status)
        .sort(),
    ).toEqual([400, 400, 400, 401, 403, 404, 404, 404, 409, 409, 409]);
    // Replays carry the header the document names.
    expect(seen.filter((r) => r.headers.get("idempotent-replayed") === "true").map((r) => `${r.method} ${r.route}`)).toEqual([
      "POST /orders",
      "POST /withdraw",
    ]);
  });

  test("the validator itself catches drift", () => {
    const balance = doc.components.schemas.Balance as Schema;
    expect(validate(balance, { available: "1", locked: "0", total: "1" })).toEqual([]);
    expect(validate(balance, { available: 1, locked: "0", total: "1" })).toEqual(["$.available: expected a string, got 1"]);
    expect(validate(balance, { available: "1", locked: "0" })).toEqual(["$.total: required"]);
    expect(validate(balance, { available: "1", locked: "0", total: "1", extra: true })).toEqual(["$.extra: not in the schema"]);
    expect(validate({ $ref: "#/components/schemas/Trade" }, { settlementTxHash: null })).toContain("$.id: required");
    // oneOf: exactly one branch (a batch result is an order or an error, never both or neither).
    const result = { $ref: "#/components/schemas/BatchOrderResult" };
    expect(validate(result, { ok: false, error: { code: "X", message: "m" } })).toEqual([]);
    expect(validate(result, { ok: true, error: { code: "X", message: "m" } })[0]).toMatch(/^\$: matches no branch of oneOf/);
    expect(validate(result, { ok: false })[0]).toMatch(/^\$: matches no branch of oneOf/);
  });
});
