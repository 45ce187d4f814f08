import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context, Service } from "moleculer";
import { defineService } from "../lib/service";
import ApiGateway from "moleculer-web";
import IORedis, { type Redis } from "ioredis";
import { configOf, type AppConfig } from "../lib/config";
import { verifyToken } from "../auth/tokens";
import { toErrorResponse } from "../gateway/envelope";
import { isPage } from "../lib/paging";
import { storeFactory, type RateLimited, type RateLimitStore } from "../gateway/rate-limit";
import { forbidden, unauthorized } from "../lib/errors";
import type { RequestMeta, SessionUser } from "../mixins/context";
import SocketGateway, { SOCKET_ACTIONS } from "../gateway/socket";
import { readiness } from "../gateway/readiness";
import { trustedProxies, type TrustedProxies } from "../gateway/proxies";
import { OPENAPI_JSON } from "../gateway/openapi";
import { findWebBuild, WebSite } from "../gateway/web";
import { listenHost, proofDomain } from "../auth/domain";

/** The REST contract's routes by rate category; every other path is a 404. */
export const TRADE_ALIASES: Record<string, string> = {
  "POST /orders": "book.place",
  "POST /orders/batch": "book.placeBatch",
  "PATCH /orders/:orderId": "book.amend",
  "POST /trade/amm": "amm.trade",
  "POST /trade/market": "router.trade",
  "POST /withdraw": "chain.withdraw",
  "POST /redeem/:marketId": "chain.redeem",
};

export const READ_ALIASES: Record<string, string> = {
  "POST /auth/connect": "auth.connect",
  "POST /auth/refresh": "auth.refresh",
  "POST /auth/logout": "auth.logout",
  "GET /auth/challenge": "auth.challenge",
  "DELETE /orders": "book.cancelAll",
  "POST /heartbeats": "ledger.heartbeat",
  "GET /transfers": "chain.transfers",
  "GET /events": "catalog.listEvents",
  "GET /events/search": "catalog.searchEvents",
  "GET /events/:id": "catalog.getEvent",
  "GET /markets/:id": "catalog.getMarket",
  "GET /markets/:marketId/orderbook": "book.orderbook",
  "GET /markets/:marketId/price-history": "catalog.priceHistory",
  "POST /markets/:marketId/quote": "router.quote",
  "DELETE /orders/:orderId": "book.cancelOrder",
  "GET /orders": "book.listOrders",
  "GET /deposit-address": "chain.depositAddress",
  "GET /balance": "ledger.balance",
  "GET /positions": "ledger.positions",
  "GET /trades": "ledger.listTrades",
  "GET /trades/:id": "ledger.getTrade",
  "GET /notifications": "notifier.list",
  "POST /notifications/read": "notifier.markRead",
};

export const ADMIN_ALIASES: Record<string, string> = {
  "POST /events": "catalog.createEvent",
  "PATCH /events/:id": "catalog.updateEvent",
  "POST /markets/:id/close": "catalog.closeMarket",
  "POST /markets/:id/cancel": "catalog.cancelMarket",
  "POST /markets/:id/resolve": "catalog.resolveMarket",
};

export const SANDBOX_ALIASES: Record<string, string> = {
  "POST /faucet": "chain.faucet",
};

/** What moleculer-web keeps of a route's `rateLimit` option: our key function and the store it built. */
interface RouteRateLimit {
  key(req: Req): string;
  store: RateLimitStore;
}

type Req = IncomingMessage &
  RateLimited & {
    $ctx: Context<unknown, RequestMeta>;
    /** The route and alias moleculer-web matched (no alias: an unknown route). */
    $route?: { rateLimit?: RouteRateLimit };
    $alias?: { action?: string };
    socket: { remoteAddress?: string };
  };

/** Login calls: the gateway tells auth which proof domain it answers to. */
const PROOF_ACTIONS = new Set(["auth.connect", "auth.challenge"]);

interface ApiThis extends Service {
  addRoute(route: object, toBottom: boolean): { rateLimit?: RouteRateLimit };
  httpHandler(req: IncomingMessage, res: ServerResponse): void;
  server: Server;
  cfg: AppConfig;
  redis?: Redis;
  /** The read category's limiter: it also counts requests answered before any category decided. */
  readLimit: RouteRateLimit;
  clientIp(req: Req): string;
  rateKey(req: Req, store: RateLimitStore): string;
  writeRateHeaders(req: Req, res: ServerResponse): void;
  decideRate(req: Req): Promise<void>;
  answerError(req: Req, res: ServerResponse, err: unknown): Promise<void>;
  publicAddress(): { url: string; domain: string } | null;
  bearer(req: Req): string | undefined;
  resolveUser(ctx: Context<unknown, RequestMeta>, token: string | undefined): Promise<SessionUser | null>;
  /** Embedded only: sessions auth confirmed, by sid (dropped by auth.sessionRevoked, which is local and synchronous there). */
  liveSessions: Map<string, string> | null;
  health(res: ServerResponse, ready: boolean): void;
  proxies: TrustedProxies;
  routedActions: string[];
}

const BODY_LIMIT = "64kb";

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const ApiService = defineService<ApiThis>({
  name: "api",
  // Socket.IO at /ws shares this HTTP server; listed first so its stopped hook closes the sockets
  // before moleculer-web waits for the server's connections to end.
  mixins: [SocketGateway, ApiGateway],

  settings: {
    port: 3000,
    ip: "0.0.0.0",
    // Our own id for every request; a client-sent X-Request-ID is not unique, so it is not reused.
    rootCallOptions(options: { requestID?: string }) {
      options.requestID = `req_${randomUUID()}`;
    },
    routes: [],
    onError(this: ApiThis, req: Req, res: ServerResponse, err: unknown) {
      this.answerError(req, res, err).catch((e: unknown) => {
        this.logger.error("Error answer failed", e);
        res.destroy();
      });
    },
  },

  methods: {
    /**
     * `GET /health` (liveness, the contract's 200 {status: ok} once this node started) and
     * `GET /health/ready` (readiness: the services behind the routes are reachable). Written
     * directly: a 503 here is an answer, not a request error to log.
     */
    health(this: ApiThis, res: ServerResponse, ready: boolean) {
      const base = { nodeID: this.broker.nodeID, uptime: Math.round(process.uptime()) };
      let status = 200;
      let body: Record<string, unknown>;
      if (!this.broker.started) {
        status = 503;
        body = { status: "starting", ...base };
      } else if (!ready) {
        body = { status: "ok", ...base };
      } else {
        const r = readiness(this.routedActions, (a) => this.broker.registry.actions.isAvailable(a));
        status = r.ready ? 200 : 503;
        body = { status: r.status, ...base, missing: r.missing, degraded: r.degraded };
      }
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.writeHead(status);
      res.end(JSON.stringify(body));
    },

    clientIp(this: ApiThis, req: Req): string {
      const remote = req.socket.remoteAddress ?? "unknown";
      // X-Forwarded-For is client-controlled unless the hop that sent it is a proxy we run.
      if (!this.proxies.has(remote)) return remote;
      const chain = String(req.headers["x-forwarded-for"] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (let i = chain.length - 1; i >= 0; i--) if (!this.proxies.has(chain[i])) return chain[i];
      return remote;
    },

    bearer(req: Req): string | undefined {
      const h = req.headers.authorization;
      if (typeof h !== "string") return undefined;
      const m = /^Bearer\s+(\S+)$/i.exec(h.trim());
      return m ? m[1] : undefined;
    },

    /** Per verified user, else per client address; the store leaves this request's verdict on it. */
    rateKey(this: ApiThis, req: Req, store: RateLimitStore): string {
      const token = this.bearer(req);
      const claims = token ? verifyToken(this.cfg.jwtSecret, token) : null;
      const key = claims ? `u:${claims.sub}` : `ip:${this.clientIp(req)}`;
      store.expect(key, req);
      return key;
    },

    /**
     * Every response carries X-RateLimit-*: a request that failed before its route's limiter ran
     * (unreadable body, unknown route) is counted now, in its route's category or else as a read;
     * routes outside the categories (health, OpenAPI, operator API) show the read budget uncounted.
     */
    async decideRate(this: ApiThis, req: Req): Promise<void> {
      if (req.$rateVerdict) return;
      const own = req.$route?.rateLimit;
      try {
        if (own || !req.$alias) {
          const limit = own ?? this.readLimit;
          await limit.store.inc(limit.key(req));
        } else {
          const key = this.rateKey(req, this.readLimit.store);
          req.$rateVerdict = await this.readLimit.store.peek(key);
        }
      } catch (err) {
        // A store that cannot answer (Redis down) costs the headers, never the answer (/health).
        this.logger.warn("Rate limit store unavailable", (err as Error)?.message);
      }
    },

    async answerError(this: ApiThis, req: Req, res: ServerResponse, err: unknown): Promise<void> {
      await this.decideRate(req);
      const requestId = req.$ctx?.requestID ?? `req_${randomUUID()}`;
      const verdict = req.$rateVerdict;
      // Counted just now and over the limit: the answer is the 429 it would have had.
      const { status, body, retryAfter } = verdict && !verdict.allowed ? toErrorResponse({ type: "RATE_LIMIT_EXCEEDED" }, requestId) : toErrorResponse(err, requestId);
      // A 503 is an honest, expected answer (a market moving, a node starting); not an error to log.
      if (status >= 500 && status !== 503) this.logger.error("Request failed", req.method, req.url, err);
      this.writeRateHeaders(req, res);
      if (retryAfter && !res.headersSent) res.setHeader("Retry-After", String(retryAfter));
      if (!res.headersSent) {
        res.setHeader("Content-Type", "application/json; charset=utf-8");
        res.setHeader("X-Request-ID", requestId);
        res.writeHead(status);
      }
      res.end(JSON.stringify(body));
    },

    /** The gateway's URL and proof domain once it listens (start-up banner). */
    publicAddress(this: ApiThis): { url: string; domain: string } | null {
      const addr = this.server?.address() as AddressInfo | null;
      if (!addr || typeof addr !== "object") return null;
      return { url: `http://${listenHost(addr)}`, domain: proofDomain(this.cfg.appDomain, addr) as string };
    },

    /**
     * moleculer-web's server, created with timeouts for slow and silent clients: a connection has
     * `headersTimeout` to send a request's headers (Node counts from the connection for the first
     * request, so one that sends nothing is closed too), `requestTimeout` for the whole request
     * and `keepAliveTimeout` idle between requests. An answer in progress has no limit here
     * (Socket.IO long-polling holds one up to its ping interval; websockets leave the HTTP server).
     */
    createServer(this: ApiThis): void {
      if (this.server) return;
      const t = configOf(this.broker).http;
      this.server = createServer(
        {
          headersTimeout: t.headersTimeoutMs,
          requestTimeout: Math.max(t.requestTimeoutMs, t.headersTimeoutMs),
          keepAliveTimeout: t.keepAliveTimeoutMs,
          // How often the first two are enforced (Node's default, 30 s, would add up to 30 s).
          connectionsCheckingInterval: Math.min(1_000, t.headersTimeoutMs),
        },
        this.httpHandler,
      );
    },

    writeRateHeaders(req: Req, res: ServerResponse): void {
      const v = req.$rateVerdict;
      if (!v || res.headersSent) return;
      res.setHeader("X-RateLimit-Limit", String(v.limit));
      res.setHeader("X-RateLimit-Remaining", String(v.remaining));
      if (!v.allowed) res.setHeader("Retry-After", String(v.retryAfterSec));
    },

    async resolveUser(this: ApiThis, ctx: Context<unknown, RequestMeta>, token: string | undefined): Promise<SessionUser | null> {
      if (!token) return null;
      const claims = verifyToken(this.cfg.jwtSecret, token);
      if (!claims) return null;
      // The session record makes logout immediate on every gateway. Embedded, the revocation event
      // reaches this cache before the logout answers, so a confirmed session is not asked again.
      const user = { id: claims.sub, wallet: claims.wal, sid: claims.sid, exp: claims.exp };
      if (this.liveSessions?.get(claims.sid) === claims.sub) return user;
      const live = (await ctx.call("auth.checkSession", { sid: claims.sid, userId: claims.sub })) as boolean;
      if (live && this.liveSessions) {
        if (this.liveSessions.size >= 100_000) this.liveSessions.clear();
        this.liveSessions.set(claims.sid, claims.sub);
      }
      return live ? user : null;
    },

    /** Called by moleculer-web on routes with `authentication: true`; AuthGuard decides who may call what. */
    authenticate(this: ApiThis, ctx: Context<unknown, RequestMeta>, _route: unknown, req: Req): Promise<SessionUser | null> {
      return this.resolveUser(ctx, this.bearer(req));
    },
  },

  events: {
    "auth.sessionRevoked"(this: ApiThis, ctx: Context<{ sid: string }>) {
      this.liveSessions?.delete(ctx.params.sid);
    },
  },

  created(this: ApiThis) {
    const cfg = configOf(this.broker);
    this.cfg = cfg;
    this.liveSessions = cfg.transporter ? null : new Map();
    this.proxies = trustedProxies(cfg.trustedProxies);
    this.settings.port = cfg.port;
    this.settings.ip = cfg.host;
    if (cfg.redisUrl) this.redis = new IORedis(cfg.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
    const svc = this;

    const rateLimit = (category: "read" | "trade" | "faucet") => {
      const StoreFactory = storeFactory(category, this.redis);
      return {
        window: cfg.rateLimit.windowMs,
        limit: cfg.rateLimit[category],
        headers: false,
        StoreFactory,
        // moleculer-web calls key() on its copy of these options, which holds the store it built.
        key(this: { store: RateLimitStore }, req: Req) {
          return svc.rateKey(req, this.store);
        },
      };
    };
    const rateLimitOpts = { read: rateLimit("read"), trade: rateLimit("trade"), faucet: rateLimit("faucet") };

    const common = {
      mappingPolicy: "restrict",
      mergeParams: true,
      bodyParsers: { json: { strict: true, limit: BODY_LIMIT } },
      authentication: true,
      onError: this.settings.onError,
      onBeforeCall(this: ApiThis, ctx: Context<unknown, RequestMeta>, _route: unknown, req: Req, res: ServerResponse) {
        ctx.meta.origin = "gateway";
        if (PROOF_ACTIONS.has(req.$alias?.action as string)) ctx.meta.proofDomain = proofDomain(this.cfg.appDomain, this.server.address() as AddressInfo);
        // Idempotent writes (mixins/idempotency.middleware.ts) take the key from here.
        const key = req.headers["idempotency-key"];
        if (typeof key === "string") ctx.meta.idempotencyKey = key;
        this.writeRateHeaders(req, res);
      },
      onAfterCall(ctx: Context<unknown, RequestMeta>, _route: unknown, _req: Req, _res: ServerResponse, data: unknown) {
        if (ctx.meta.$statusCode === 204) return null;
        if (isPage(data)) return { data: data.items, pagination: data.pagination, requestId: ctx.requestID };
        return { data, requestId: ctx.requestID };
      },
    };

    // Routes outside the rate categories still show the caller's read budget (not spending it).
    const showReadBudget = async function (this: ApiThis, _ctx: Context, _route: unknown, req: Req, res: ServerResponse) {
      await this.decideRate(req);
      this.writeRateHeaders(req, res);
    };

    const routes = [
      {
        name: "health",
        path: "",
        mappingPolicy: "restrict",
        bodyParsers: false,
        onBeforeCall: showReadBudget,
        onError: this.settings.onError,
        aliases: {
          "GET /health"(_req: Req, res: ServerResponse) {
            svc.health(res, false);
          },
          "GET /health/ready"(_req: Req, res: ServerResponse) {
            svc.health(res, true);
          },
        },
      },
      // The OpenAPI document: static, outside the rate categories like /health.
      {
        name: "openapi",
        path: "/api/v1",
        mappingPolicy: "restrict",
        bodyParsers: false,
        onBeforeCall: showReadBudget,
        onError: this.settings.onError,
        aliases: {
          "GET /openapi.json"(_req: Req, res: ServerResponse) {
            res.setHeader("Content-Type", "application/json; charset=utf-8");
            res.setHeader("Cache-Control", "public, max-age=300");
            res.end(OPENAPI_JSON);
          },
        },
      },
      { ...common, name: "trade", path: "/api/v1", aliases: TRADE_ALIASES, rateLimit: rateLimitOpts.trade },
      { ...common, name: "read", path: "/api/v1", aliases: READ_ALIASES, rateLimit: rateLimitOpts.read },
      // Only routes that can answer are registered (and listed in the log): the faucet exists on
      // the sandbox chain, the operator API with an operator key.
      ...(cfg.chain === "sandbox" ? [{ ...common, name: "sandbox", path: "/api/v1/sandbox", aliases: SANDBOX_ALIASES, rateLimit: rateLimitOpts.faucet }] : []),
      ...(cfg.adminKey ? [{
        ...common,
        name: "admin",
        path: "/api/v1/admin",
        aliases: ADMIN_ALIASES,
        authentication: false,
        async onBeforeCall(this: ApiThis, ctx: Context<unknown, RequestMeta>, route: unknown, req: Req, res: ServerResponse) {
          ctx.meta.origin = "gateway";
          await showReadBudget.call(this, ctx, route, req, res);
          const given = req.headers["x-admin-key"];
          if (typeof given !== "string" || !given) throw unauthorized("X-Admin-Key header required");
          if (!sameSecret(given, this.cfg.adminKey as string)) throw forbidden("Invalid operator key");
          ctx.meta.admin = true;
        },
      }] : []),
    ];
    // What readiness checks: every action a route or the socket layer of this node calls.
    this.routedActions = [TRADE_ALIASES, READ_ALIASES, ADMIN_ALIASES, SANDBOX_ALIASES].flatMap((t) => Object.values(t)).concat(SOCKET_ACTIONS);
    // Routes depend on this node's configuration, so they are added here rather than in settings.
    for (const route of routes) {
      const added = this.addRoute(route, true);
      if (route.name === "read") this.readLimit = added.rateLimit as RouteRateLimit;
    }
    // The web app at / and the API documentation at /docs (gateway/web.ts), after every API route.
    const site = WebSite.load(findWebBuild(), { chain: cfg.chain, testnet: cfg.ton.testnet, proofDomain: () => proofDomain(this.cfg.appDomain, this.server?.address() as AddressInfo | null) });
    if (site) this.addRoute({ name: "web", path: "", mappingPolicy: "restrict", bodyParsers: false, aliases: site.aliases(), onBeforeCall: showReadBudget, onError: this.settings.onError }, true);
    else this.logger.warn("The web app is not built (npm run build): / and /docs answer 404");
  },

  async stopped(this: ApiThis) {
    this.redis?.disconnect();
  },
});

export default ApiService;
