/**
 * The gateway's moleculer-web routes on this node and what each runs around its action: /health,
 * the OpenAPI document, the contract's route groups (contract/routes.ts: one route per rate
 * category and mount point) and, after every API route, the web app. Only groups that can answer
 * are registered: the faucet on the sandbox chain, the operator API with an operator key. The API
 * service adds them when it is created (they depend on this node's configuration).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { aliasesOf, GROUP_MOUNT, GROUP_RATE, ROUTES, type RoutedAction } from "../contract";
import { invalid } from "../engine/refusal";
import type { RequestMeta } from "../mixins/context";
import { idempotencyKeyHeader } from "../mixins/idempotency.middleware";
import { setRateHeaders } from "./answers";
import { successBody } from "./envelope";
import { refusePrototypeKeys } from "./json-body";
import { OPENAPI_JSON } from "./openapi";
import type { categoryLimit, RateCategory, RateLimited, RouteRateLimit } from "./rate-limit";
import { checkOperatorKey } from "./sessions";

/** The REST contract's routes by route group (contract/routes.ts); every other path is a 404. */
export const TRADE_ALIASES = aliasesOf("trade");
export const READ_ALIASES = aliasesOf("read");
export const ADMIN_ALIASES = aliasesOf("admin");
export const SANDBOX_ALIASES = aliasesOf("sandbox");

/** A request as moleculer-web hands it to the routes' hooks. */
export type GatewayRequest = IncomingMessage &
  RateLimited & {
    $ctx: Context<unknown, RequestMeta>;
    /** The route and alias moleculer-web matched (no alias: an unknown route). */
    $route?: { rateLimit?: RouteRateLimit<GatewayRequest> };
    $alias?: { action?: string };
    /** The request's parameters as moleculer-web merged them (path, query, body). */
    $params?: Record<string, unknown>;
    originalUrl?: string;
    socket: { remoteAddress?: string };
  };

type Req = GatewayRequest;
type Ctx = Context<unknown, RequestMeta>;

export interface GatewayRoutePorts {
  /** The chain this node talks to (the faucet exists on the sandbox chain only). */
  chain: string;
  /** The operator key; none: no operator API. */
  adminKey?: string;
  /** A rate category's `rateLimit` option (gateway/rate-limit.ts). */
  rateLimit(category: RateCategory): ReturnType<typeof categoryLimit<Req>>;
  /** Decide the request's rate verdict, also for one no category counts (gateway/rate-limit.ts decideRate). */
  decideRate(req: Req): Promise<void>;
  /** The domain a ton_proof is signed for here (login calls tell auth). */
  proofDomain(): string | undefined;
  /** Write GET /health (`ready` false) or GET /health/ready (true). */
  health(res: ServerResponse, ready: boolean): void;
  /** Every route's error answer; moleculer-web calls it with the service as `this`. */
  onError(req: Req, res: ServerResponse, err: unknown): void;
  /** Journal an operator action (the audit log); the answer waits for it. */
  audit(ctx: Ctx, a: AuditAction): Promise<unknown>;
  /** The web app's aliases (gateway/web.ts), when it is built. */
  site?: Record<string, unknown>;
}

/** An operator action as the audit log records it. */
export interface AuditAction {
  action: string;
  method: string;
  path: string;
  params: Record<string, unknown>;
  note: string | null;
}

/** The operator's note on an action (X-Admin-Note), at most this long. */
export const MAX_ADMIN_NOTE = 1000;

/** The X-Admin-Note header: trimmed, null when absent or empty; a longer one is refused before the action runs. */
export function adminNote(raw: string | string[] | undefined): string | null {
  const v = (Array.isArray(raw) ? raw.join(", ") : (raw ?? "")).trim();
  if (v.length > MAX_ADMIN_NOTE)
    throw invalid(`X-Admin-Note is at most ${MAX_ADMIN_NOTE} characters`, [{ field: "X-Admin-Note", rule: "stringMax" }]);
  return v || null;
}

/** Request bodies the API reads at most (JSON only, strict). */
export const BODY_LIMIT = "64kb";

/** Login calls: the gateway tells auth which proof domain it answers to. */
const PROOF_ACTIONS = new Set(["auth.connect", "auth.challenge"]);

/** The routes to add, in order (moleculer-web matches the first that has the path). */
export function gatewayRoutes(p: GatewayRoutePorts) {
  const common = {
    mappingPolicy: "restrict",
    mergeParams: true,
    bodyParsers: { json: { strict: true, limit: BODY_LIMIT, reviver: refusePrototypeKeys } },
    authentication: true,
    onError: p.onError,
    onBeforeCall(ctx: Ctx, _route: unknown, req: Req, res: ServerResponse) {
      ctx.meta.origin = "gateway";
      if (PROOF_ACTIONS.has(req.$alias?.action as string)) ctx.meta.proofDomain = p.proofDomain();
      // Idempotent writes (mixins/idempotency.middleware.ts) take the key from here.
      const key = idempotencyKeyHeader(req.headers);
      if (key !== undefined) ctx.meta.idempotencyKey = key;
      setRateHeaders(res, req.$rateVerdict);
    },
    onAfterCall(ctx: Ctx, _route: unknown, _req: Req, _res: ServerResponse, data: unknown) {
      return successBody(data, ctx.requestID, ctx.meta.$statusCode);
    },
  };

  // Routes outside the rate categories still show the caller's read budget (not spending it).
  const showReadBudget = async (_ctx: Ctx, _route: unknown, req: Req, res: ServerResponse) => {
    await p.decideRate(req);
    setRateHeaders(res, req.$rateVerdict);
  };
  const unrated = { mappingPolicy: "restrict", bodyParsers: false, onBeforeCall: showReadBudget, onError: p.onError };

  return [
    {
      ...unrated,
      name: "health",
      path: "",
      aliases: {
        "GET /health": (_req: Req, res: ServerResponse) => p.health(res, false),
        "GET /health/ready": (_req: Req, res: ServerResponse) => p.health(res, true),
      },
    },
    // The OpenAPI document: static, outside the rate categories like /health.
    {
      ...unrated,
      name: "openapi",
      path: "/api/v1",
      aliases: {
        "GET /openapi.json"(_req: Req, res: ServerResponse) {
          res.setHeader("Content-Type", "application/json; charset=utf-8");
          res.setHeader("Cache-Control", "public, max-age=300");
          res.end(OPENAPI_JSON);
        },
      },
    },
    // The contract's route groups: one moleculer-web route per rate category and mount point.
    { ...common, name: "trade", path: "/api/v1" + GROUP_MOUNT.trade, aliases: TRADE_ALIASES, rateLimit: p.rateLimit(GROUP_RATE.trade) },
    { ...common, name: "read", path: "/api/v1" + GROUP_MOUNT.read, aliases: READ_ALIASES, rateLimit: p.rateLimit(GROUP_RATE.read) },
    // Only routes that can answer are registered (and listed in the log): the faucet exists on
    // the sandbox chain, the operator API with an operator key.
    ...(p.chain === "sandbox"
      ? [
          {
            ...common,
            name: "sandbox",
            path: "/api/v1" + GROUP_MOUNT.sandbox,
            aliases: SANDBOX_ALIASES,
            rateLimit: p.rateLimit(GROUP_RATE.sandbox),
          },
        ]
      : []),
    // The operator API spends no category: it shows the read budget (GROUP_RATE.admin is null).
    ...(p.adminKey
      ? [
          {
            ...common,
            name: "admin",
            path: "/api/v1" + GROUP_MOUNT.admin,
            aliases: ADMIN_ALIASES,
            authentication: false,
            async onBeforeCall(ctx: Ctx, route: unknown, req: Req, res: ServerResponse) {
              ctx.meta.origin = "gateway";
              await showReadBudget(ctx, route, req, res);
              checkOperatorKey(req.headers["x-admin-key"], p.adminKey as string);
              ctx.meta.admin = true;
              const note = adminNote(req.headers["x-admin-note"]);
              // Every operator request that may change something is journaled before it runs (one
              // hook: a new operator route is audited without code of its own). Written first, a
              // record that cannot be written (a full disk) refuses the request before anything
              // changed; a request the service then refuses stays in the log as asked.
              const action = req.$alias?.action as RoutedAction | undefined;
              if (req.method !== "GET" && action && action in ROUTES) {
                await p.audit(ctx, {
                  action: ROUTES[action].operationId,
                  method: req.method ?? "",
                  path: (req.originalUrl ?? req.url ?? "").split("?")[0],
                  params: { ...(req.$params ?? {}) },
                  note,
                });
              }
            },
          },
        ]
      : []),
    // The web app at / and the API documentation at /docs (gateway/web.ts), after every API route.
    ...(p.site ? [{ ...unrated, name: "web", path: "", aliases: p.site }] : []),
  ];
}
