import type { ServerResponse } from "node:http";
import type { RateCategory } from "../../contract";
import { OPENAPI_JSON } from "../../gateway/openapi";
import {
  ADMIN_ALIASES,
  BODY_LIMIT,
  gatewayRoutes,
  READ_ALIASES,
  SANDBOX_ALIASES,
  TRADE_ALIASES,
  MAX_ADMIN_NOTE,
  type AuditAction,
  type GatewayRequest,
  type GatewayRoutePorts,
} from "../../gateway/api-routes";
import type { RateVerdict } from "../../gateway/rate-limit";

/** The gateway's route table on in-memory fakes: the node's configuration, its rate limiters, health and the request's verdict. */
type Hook = (ctx: unknown, route: unknown, req: GatewayRequest, res: ServerResponse) => unknown;
type Route = ReturnType<typeof gatewayRoutes>[number] & {
  onBeforeCall: Hook;
  onAfterCall?: (ctx: unknown, route: unknown, req: unknown, res: unknown, data: unknown) => unknown;
  rateLimit?: { window: number; limit: number };
  authentication?: boolean;
  mergeParams?: boolean;
  bodyParsers: unknown;
};

const VERDICT: RateVerdict = { limit: 30, count: 3, remaining: 27, allowed: true, retryAfterSec: 0 };

function world(over: Partial<GatewayRoutePorts> = {}) {
  const decided: GatewayRequest[] = [];
  const health: boolean[] = [];
  const audited: AuditAction[] = [];
  const onError = () => undefined;
  const ports: GatewayRoutePorts = {
    chain: "sandbox",
    adminKey: "operator-key",
    // Each category's limiter, told apart by its limit.
    rateLimit: (category: RateCategory) => ({
      window: 60_000,
      limit: { trade: 1, read: 2, faucet: 3 }[category],
      headers: false,
      StoreFactory: class {} as never,
      key: () => "k",
    }),
    decideRate: async (req) => {
      decided.push(req);
      req.$rateVerdict = VERDICT;
    },
    proofDomain: () => "exchange.test",
    health: (_res, ready) => void health.push(ready),
    audit: async (_ctx, a) => void audited.push(a),
    onError,
    ...over,
  };
  const routes = gatewayRoutes(ports) as Route[];
  const route = (name: string) => routes.find((r) => r.name === name) as Route;
  return { routes, route, decided, health, onError, audited };
}

function res() {
  const headers: Record<string, string> = {};
  let body = "";
  return {
    headers,
    body: () => body,
    res: {
      headersSent: false,
      setHeader: (k: string, v: string) => void (headers[k] = v),
      end: (b: string) => void (body = b),
    } as unknown as ServerResponse,
  };
}

const request = (headers: Record<string, string>, action?: string, verdict?: RateVerdict) =>
  ({ headers, $alias: action ? { action } : undefined, $rateVerdict: verdict, socket: {} }) as unknown as GatewayRequest;

describe("gateway routes", () => {
  test("a node registers the routes that can answer: the faucet on the sandbox chain, the operator API with an operator key, the web app when built, last", () => {
    expect(world().routes.map((r) => r.name)).toEqual(["health", "openapi", "trade", "read", "sandbox", "admin"]);
    expect(world({ chain: "toncenter", adminKey: undefined }).routes.map((r) => r.name)).toEqual(["health", "openapi", "trade", "read"]);
    const site = { "GET /": () => undefined };
    const w = world({ chain: "toncenter", site });
    expect(w.routes.map((r) => r.name)).toEqual(["health", "openapi", "trade", "read", "admin", "web"]);
    expect(w.route("web")).toMatchObject({ path: "", aliases: site, bodyParsers: false, mappingPolicy: "restrict" });
  });

  test("the contract's groups: each at its mount with its aliases and its category's limiter; the operator API spends none and checks its key itself", () => {
    const w = world();
    expect(
      ["trade", "read", "sandbox", "admin"].map((name) => ({
        path: w.route(name).path,
        aliases: w.route(name).aliases,
        limit: w.route(name).rateLimit?.limit ?? null,
        authentication: w.route(name).authentication,
      })),
    ).toEqual([
      { path: "/api/v1", aliases: TRADE_ALIASES, limit: 1, authentication: true },
      { path: "/api/v1", aliases: READ_ALIASES, limit: 2, authentication: true },
      { path: "/api/v1/sandbox", aliases: SANDBOX_ALIASES, limit: 3, authentication: true },
      { path: "/api/v1/admin", aliases: ADMIN_ALIASES, limit: null, authentication: false },
    ]);
    for (const name of ["trade", "read", "sandbox", "admin"])
      expect(w.route(name)).toMatchObject({
        mappingPolicy: "restrict",
        mergeParams: true,
        bodyParsers: { json: { strict: true, limit: BODY_LIMIT } },
        onError: w.onError,
      });
    expect(BODY_LIMIT).toBe("64kb");
  });

  test("before a contract route's action: the gateway origin, the proof domain for login calls only, the Idempotency-Key, the rate headers of the request's verdict", async () => {
    const w = world();
    const hook = w.route("trade").onBeforeCall;
    const login = { meta: {} as Record<string, unknown> };
    const r1 = res();
    await hook(login, null, request({ "idempotency-key": "k-1" }, "auth.connect", VERDICT), r1.res);
    expect(login.meta).toEqual({ origin: "gateway", proofDomain: "exchange.test", idempotencyKey: "k-1" });
    expect(r1.headers).toEqual({ "X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "27" });
    const order = { meta: {} as Record<string, unknown> };
    const r2 = res();
    await hook(order, null, request({}, "book.place", { ...VERDICT, allowed: false, remaining: 0, retryAfterSec: 9 }), r2.res);
    expect(order.meta).toEqual({ origin: "gateway" });
    expect(r2.headers).toEqual({ "X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "0", "Retry-After": "9" });
    // Nothing decided for the route's own category here: its limiter did (moleculer-web, before this hook).
    expect(w.decided).toEqual([]);
  });

  test("after the action: the answer in the envelope with the request id; a page's pagination beside its items; nothing for a 204", () => {
    const after = world().route("read").onAfterCall as NonNullable<Route["onAfterCall"]>;
    expect(after({ requestID: "req_1", meta: {} }, null, null, null, { id: 1 })).toEqual({ data: { id: 1 }, requestId: "req_1" });
    const page = { items: [1], pagination: { total: 1, page: 1, pageSize: 20, hasNext: false } };
    expect(after({ requestID: "req_2", meta: {} }, null, null, null, page)).toEqual({
      data: [1],
      pagination: page.pagination,
      requestId: "req_2",
    });
    expect(after({ requestID: "req_3", meta: { $statusCode: 204 } }, null, null, null, null)).toBeNull();
  });

  test("routes outside the categories (health, OpenAPI, web) show the read budget without a body parser; /health and the OpenAPI document answer", async () => {
    const w = world({ site: {} });
    for (const name of ["health", "openapi", "web"]) {
      const r = res();
      const req = request({});
      await w.route(name).onBeforeCall({ meta: {} }, null, req, r.res);
      expect(w.decided.at(-1)).toBe(req);
      expect(r.headers).toEqual({ "X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "27" });
      expect(w.route(name)).toMatchObject({ bodyParsers: false, mappingPolicy: "restrict", onError: w.onError });
    }
    const health = w.route("health").aliases as Record<string, (req: unknown, res: ServerResponse) => void>;
    health["GET /health"](null, res().res);
    health["GET /health/ready"](null, res().res);
    expect(w.health).toEqual([false, true]);
    const doc = res();
    (w.route("openapi").aliases as Record<string, (req: unknown, res: ServerResponse) => void>)["GET /openapi.json"](null, doc.res);
    expect(doc.headers).toEqual({ "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300" });
    expect(doc.body()).toBe(OPENAPI_JSON);
  });

  test("the operator API: without X-Admin-Key 401, with a wrong one 403, with the key the call is the operator's; the read budget shown either way", async () => {
    const w = world();
    const hook = w.route("admin").onBeforeCall;
    const outcome = async (headers: Record<string, string>) => {
      const ctx = { meta: {} as Record<string, unknown> };
      const r = res();
      const err = (await Promise.resolve(hook(ctx, null, request(headers), r.res)).catch((e: unknown) => e)) as {
        code?: number;
        type?: string;
      } | void;
      return { err: err ? { status: err.code, type: err.type } : null, meta: ctx.meta, rateShown: "X-RateLimit-Limit" in r.headers };
    };
    expect(await outcome({})).toEqual({ err: { status: 401, type: "UNAUTHORIZED" }, meta: { origin: "gateway" }, rateShown: true });
    expect(await outcome({ "x-admin-key": "wrong-key" })).toEqual({
      err: { status: 403, type: "FORBIDDEN" },
      meta: { origin: "gateway" },
      rateShown: true,
    });
    expect(await outcome({ "x-admin-key": "operator-key" })).toEqual({
      err: null,
      meta: { origin: "gateway", admin: true },
      rateShown: true,
    });
  });

  test("every operator request that may change something is journaled before it runs, with its parameters and X-Admin-Note; reads are not; an over-long note is refused before the action", async () => {
    const w = world();
    const admin = w.route("admin");
    const hook = admin.onBeforeCall as (ctx: unknown, route: unknown, req: unknown, res: unknown) => Promise<unknown>;
    const after = admin.onAfterCall as (ctx: unknown, route: unknown, req: unknown, res: unknown, data: unknown) => Promise<unknown>;
    const call = async (
      method: string,
      action: string,
      url: string,
      params: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => {
      const req = { ...request({ "x-admin-key": "operator-key", ...headers }, action), method, url, $params: params };
      const ctx = { requestID: "req-1", meta: {} };
      await hook(ctx, null, req, res().res);
      return after(ctx, null, req, res().res, { ok: 1 });
    };

    const answer = await call(
      "POST",
      "catalog.closeMarket",
      "/api/v1/admin/markets/mkt_1/close?x=1",
      { id: "mkt_1" },
      { "x-admin-note": " ticket 42 " },
    );
    expect(answer).toMatchObject({ data: { ok: 1 } });
    await call("POST", "catalog.setExchangeTradingMode", "/api/v1/admin/trading-mode", { mode: "halted", reason: "incident" });
    await call("GET", "ledger.auditLog", "/api/v1/admin/audit", { page: 1 });
    expect(w.audited).toEqual([
      { action: "adminCloseMarket", method: "POST", path: "/api/v1/admin/markets/mkt_1/close", params: { id: "mkt_1" }, note: "ticket 42" },
      {
        action: "adminSetExchangeTradingMode",
        method: "POST",
        path: "/api/v1/admin/trading-mode",
        params: { mode: "halted", reason: "incident" },
        note: null,
      },
    ]);

    const before = admin.onBeforeCall;
    const long = request({ "x-admin-key": "operator-key", "x-admin-note": "n".repeat(MAX_ADMIN_NOTE + 1) });
    const err = (await Promise.resolve(before({ meta: {} }, null, long, res().res)).catch((e: unknown) => e)) as { code?: string };
    expect(err.code).toBe("VALIDATION_ERROR");
  });
});
