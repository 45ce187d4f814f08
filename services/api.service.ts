import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context, Service } from "moleculer";
import { defineService } from "../mixins/service";
import { ROUTED_ACTIONS, call, internalAction, routeAction, type ActionResult, type HandlerParams } from "../contract";
import ApiGateway from "moleculer-web";
import IORedis, { type Redis } from "ioredis";
import { configOf, type AppConfig } from "../lib/config";
import { verifyToken } from "../auth/tokens";
import { categoryLimit, decideRate, TIER_HASH, TierBook, type RateLimitStore, type RouteRateLimit } from "../gateway/rate-limit";
import { errorAnswer, healthAnswer, serverTimeouts, setRateHeaders } from "../gateway/answers";
import { gatewayRoutes, type GatewayRequest as Req } from "../gateway/api-routes";
import { bearerToken, SessionCache } from "../gateway/sessions";
import { currentUser, type AppContext, type RequestMeta, type SessionUser } from "../mixins/context";
import SocketGateway, { SOCKET_ACTIONS } from "../gateway/socket";
import { readiness } from "../gateway/readiness";
import { clientAddress, trustedProxies, type TrustedProxies } from "../lib/proxies";
import { findWebBuild, WebSite } from "../gateway/web";
import { listenHost, proofDomain } from "../auth/domain";

interface ApiThis extends Service {
  addRoute(route: object, toBottom: boolean): { rateLimit?: RouteRateLimit<Req> };
  httpHandler(req: IncomingMessage, res: ServerResponse): void;
  server: Server;
  cfg: AppConfig;
  redis?: Redis;
  /** The read category's limiter: it also counts requests answered before any category decided. */
  readLimit: RouteRateLimit<Req>;
  tradeLimit: RouteRateLimit<Req>;
  /** Each user's rate tier as this gateway knows it (gateway/rate-limit.ts). */
  tierBook: TierBook;
  /** Record a grant here and, with Redis, where every gateway's limiter reads it. */
  grantTier(userId: string, tier: string): Promise<void>;
  /** The grants made before this gateway started (auth.tiersGranted), once auth is reachable. */
  learnTiers(): Promise<void>;
  tiersLearned: boolean;
  rateKey(req: Req, store: RateLimitStore): string;
  decideRate(req: Req): Promise<void>;
  answerError(req: Req, res: ServerResponse, err: unknown): Promise<void>;
  sendError(req: Req, res: ServerResponse, err: unknown): void;
  errorHandler(req: Req, res: ServerResponse, err: unknown): void;
  publicAddress(): { url: string; domain: string } | null;
  sessions: SessionCache<Context<unknown, RequestMeta>>;
  health(res: ServerResponse, ready: boolean): void;
  /** moleculer-web's own, overridden: its server with our timeouts; the session of a request. */
  createServer(): void;
  authenticate(ctx: Context<unknown, RequestMeta>, route: unknown, req: Req): Promise<SessionUser | null>;
  proxies: TrustedProxies;
  routedActions: string[];
  /** The built web app (null without a build). */
  site: WebSite | null;
}

/** Does Moleculer's logger print `info` lines at this level (LOG_LEVEL; false: nothing)? */
function printsInfo(level: string | false): boolean {
  return level !== false && !["fatal", "error", "warn"].includes(level.toLowerCase());
}

const ApiService = defineService<ApiThis, "addRoute" | "httpHandler" | "sendError">({
  name: "api",
  // Socket.IO at /ws shares this HTTP server; listed first so its stopped hook closes the sockets
  // before moleculer-web waits for the server's connections to end.
  mixins: [SocketGateway, ApiGateway],

  actions: {
    /** Internal: auth ends a session: this gateway asks again for it (and finds it gone) before the logout answers. */
    forgetSession: {
      ...internalAction("api.forgetSession"),
      handler(this: ApiThis, ctx: Context<HandlerParams<"api.forgetSession">>) {
        return { forgotten: this.sessions.revoked(ctx.params.sid) };
      },
    },

    /** GET /account/limits: this gateway's limiters hold the budgets (the call stays on this node: preferLocal). */
    accountLimits: {
      ...routeAction("api.accountLimits"),
      async handler(this: ApiThis, ctx: AppContext<HandlerParams<"api.accountLimits">>): Promise<ActionResult<"api.accountLimits">> {
        const user = currentUser(ctx);
        const tier = this.tierBook.tierOf(user.id, user.tier);
        const key = `u:${user.id}`;
        const windowSeconds = Math.round(this.cfg.rateLimit.windowMs / 1000);
        const [read, trade] = await Promise.all([this.readLimit.store.peek(key, tier), this.tradeLimit.store.peek(key, tier)]);
        return {
          tier: read.tier ?? tier,
          read: { limit: read.limit, remaining: read.remaining, windowSeconds },
          trade: { limit: trade.limit, remaining: trade.remaining, windowSeconds },
        };
      },
    },
  },

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
      const { status, body } = healthAnswer(
        this.broker.started,
        ready ? () => readiness(this.routedActions, (a) => this.broker.registry.actions.isAvailable(a)) : null,
        base,
      );
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.writeHead(status);
      res.end(JSON.stringify(body));
    },

    /** Per verified user under their tier, else per client address (always `default`); the store leaves this request's verdict on it. */
    rateKey(this: ApiThis, req: Req, store: RateLimitStore): string {
      const token = bearerToken(req.headers.authorization);
      const claims = token ? verifyToken(this.cfg.jwtSecret, token) : null;
      const key = claims
        ? `u:${claims.sub}`
        : `ip:${clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], this.proxies)}`;
      const tier = this.tierBook.tierOf(claims ? claims.sub : null, claims?.tir);
      req.$rateTier = tier;
      store.expect(key, req, tier);
      return key;
    },

    async grantTier(this: ApiThis, userId: string, tier: string): Promise<void> {
      this.tierBook.grant(userId, tier);
      await this.redis?.hset(TIER_HASH, userId, tier);
    },

    async learnTiers(this: ApiThis): Promise<void> {
      if (this.tiersLearned || !this.broker.registry.actions.isAvailable("auth.tiersGranted")) return;
      this.tiersLearned = true;
      try {
        for (const g of await call(this.broker, "auth.tiersGranted")) await this.grantTier(g.userId, g.tier);
      } catch (err) {
        this.tiersLearned = false;
        // Grants made later still arrive as auth.tierChanged; tokens carry the tier they were issued with.
        this.logger.warn("Rate tiers granted earlier could not be loaded", (err as Error)?.message);
      }
    },

    /** A request's verdict, also for one answered before its route's limiter ran (gateway/rate-limit.ts). */
    async decideRate(this: ApiThis, req: Req): Promise<void> {
      try {
        await decideRate(req, this.readLimit, this.rateKey);
      } catch (err) {
        // A store that cannot answer (Redis down) costs the headers, never the answer (/health).
        this.logger.warn("Rate limit store unavailable", (err as Error)?.message);
      }
    },

    /**
     * moleculer-web's own, overridden: it logged every answer outside 4xx with its stack, 503s too
     * (a market moving, a write refused on a full disk); answerError logs what is worth a line.
     */
    errorHandler(this: ApiThis, req: Req, res: ServerResponse, err: unknown) {
      this.sendError(req, res, err);
    },

    async answerError(this: ApiThis, req: Req, res: ServerResponse, err: unknown): Promise<void> {
      await this.decideRate(req);
      const requestId = req.$ctx?.requestID ?? `req_${randomUUID()}`;
      const { status, body, retryAfter, log } = errorAnswer(err, requestId, req.$rateVerdict);
      if (status === 404 && this.site?.sendNotFoundPage(req, res)) return;
      if (log) this.logger.error("Request failed", req.method, req.url, err);
      setRateHeaders(res, req.$rateVerdict);
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

    /** moleculer-web's server, created with timeouts for slow and silent clients (gateway/answers.ts). */
    createServer(this: ApiThis): void {
      if (this.server) return;
      this.server = createServer(serverTimeouts(configOf(this.broker).http), this.httpHandler);
    },

    /** Called by moleculer-web on routes with `authentication: true`; AuthGuard decides who may call what. */
    authenticate(this: ApiThis, ctx: Context<unknown, RequestMeta>, _route: unknown, req: Req): Promise<SessionUser | null> {
      return this.sessions.resolve(ctx, bearerToken(req.headers.authorization));
    },
  },

  events: {
    "auth.sessionRevoked"(this: ApiThis, ctx) {
      this.sessions.revoked(ctx.params.sid);
    },
    // Auth reachable (here or on a node that joined): learn the grants made before this gateway started.
    "$services.changed"(this: ApiThis) {
      void this.learnTiers();
    },
    async "auth.tierChanged"(this: ApiThis, ctx) {
      await this.grantTier(ctx.params.userId, ctx.params.tier).catch((err: unknown) =>
        this.logger.warn("Rate tier not shared with the other gateways", (err as Error)?.message),
      );
    },
  },

  created(this: ApiThis) {
    const cfg = configOf(this.broker);
    this.cfg = cfg;
    // Confirmed sessions are kept: auth has every gateway forget a session before its logout answers.
    this.sessions = new SessionCache(
      {
        verify: (token) => verifyToken(cfg.jwtSecret, token),
        isLive: (ctx, sid, userId) => call(ctx, "auth.checkSession", { sid, userId }),
      },
      { keep: true },
    );
    this.proxies = trustedProxies(cfg.trustedProxies);
    this.tierBook = new TierBook(cfg.rateLimit.tiers);
    this.settings.port = cfg.port;
    this.settings.ip = cfg.host;
    // moleculer-web colours and formats its request and response lines whether or not the logger
    // prints them (~2.5 KB per request): none at a level that drops them.
    if (!printsInfo(cfg.logLevel)) {
      this.settings.logRequest = null;
      this.settings.logResponse = null;
    }
    if (cfg.redisUrl) this.redis = new IORedis(cfg.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });

    // The domain a ton_proof is signed for here (APP_DOMAIN, else the address listened on).
    const domain = () => proofDomain(this.cfg.appDomain, this.server?.address() as AddressInfo | null);
    // The web app at / and the API documentation at /docs (gateway/web.ts), after every API route.
    const site = WebSite.load(findWebBuild(), { chain: cfg.chain, testnet: cfg.ton.testnet, proofDomain: domain });
    this.site = site;
    if (!site) this.logger.warn("The web app is not built (npm run build): / and /docs answer 404");
    const routes = gatewayRoutes({
      chain: cfg.chain,
      adminKey: cfg.adminKey,
      rateLimit: (category) =>
        categoryLimit<Req>(
          category,
          { windowMs: cfg.rateLimit.windowMs, limit: cfg.rateLimit[category] },
          this.redis,
          this.rateKey,
          this.tierBook,
        ),
      decideRate: this.decideRate,
      proofDomain: domain,
      health: this.health,
      // Journaled with the money; a deployment without a ledger anywhere (a catalog-only node set)
      // has no journal to keep it in, and its operator actions are answered unaudited.
      audit: (ctx, a) =>
        (this.broker.registry as unknown as { hasService(name: string): boolean }).hasService("ledger")
          ? call(ctx, "ledger.recordAudit", a)
          : Promise.resolve(null),
      onError: this.settings.onError,
      site: site?.aliases(),
    });
    // What readiness checks: every action a route or the socket layer of this node calls.
    this.routedActions = [...ROUTED_ACTIONS, ...SOCKET_ACTIONS];
    // Routes depend on this node's configuration, so they are added here rather than in settings.
    for (const route of routes) {
      const added = this.addRoute(route, true);
      if (route.name === "read") this.readLimit = added.rateLimit as RouteRateLimit<Req>;
      if (route.name === "trade") this.tradeLimit = added.rateLimit as RouteRateLimit<Req>;
    }
  },

  started(this: ApiThis) {
    void this.learnTiers();
  },

  async stopped(this: ApiThis) {
    this.redis?.disconnect();
  },
});

export default ApiService;
