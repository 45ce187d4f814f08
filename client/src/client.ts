/**
 * The REST client: one method per route, typed requests and answers, the envelope unwrapped,
 * errors as ApiError subclasses, the session kept fresh, Idempotency-Keys on the trade writes,
 * and (opt-in) retries: 429s after exactly what Retry-After says, and keyed writes also after a
 * lost answer or a 503.
 */
import {
  apiErrorFor,
  ApiError,
  NetworkError,
  NotLoggedInError,
  ProtocolError,
  RateLimitError,
  ServiceUnavailableError,
  UnauthorizedError,
  type FieldError,
} from "./errors";
import { collect, paginate } from "./pagination";
// Types only: the proof code (TON cells, ed25519) is loaded when a login signs, so a browser app
// that never signs locally does not carry it.
import type { BuildProofOptions, KeyPair, ProofSigner, WalletOptions } from "./proof";
import { PmxSocket, type SocketOptions } from "./socket";
import { ROUTES, type OperationId, type RouteTypes } from "./generated/routes";
import type {
  AddOutcomeRequest,
  AmendOrderRequest,
  AccountLimits,
  AuditRecord,
  Balance,
  BatchOrderResult,
  CancelAllResult,
  CancelMarketRequest,
  CancelledOrder,
  Challenge,
  ConnectRequest,
  ConvertRequest,
  ConvertResult,
  CreateEventRequest,
  DepositAddress,
  Event,
  ExchangeTradingMode,
  FaucetRequest,
  FaucetResult,
  Health,
  Heartbeat,
  ListEventsParams,
  ListNotificationsParams,
  ListOrdersParams,
  ListTransfersParams,
  NotificationSettings,
  NotificationSettingsRequest,
  MarketItem,
  MarkReadRequest,
  MarkReadResult,
  MassQuoteRequest,
  MassQuoteResult,
  Notification,
  Order,
  OrderBook,
  Outcome,
  Page,
  PageParams,
  Pagination,
  PlacedOrder,
  PlaceOrderRequest,
  Position,
  PriceHistory,
  PriceHistoryParams,
  PublicTradeList,
  MarketTradesParams,
  Quote,
  QuoteRequest,
  RedeemRequest,
  RedeemResult,
  ResolveMarketRequest,
  ResolveEventRequest,
  ProposeEventRequest,
  ProposeRequest,
  FinalizeRequest,
  DisputeRequest,
  Dispute,
  SearchEventsParams,
  Session,
  Trade,
  TradeExecution,
  TradeRequest,
  TradingModeRequest,
  QueuePosition,
  OrderGroup,
  OrderGroupRequest,
  DeletedOrderGroup,
  OrderScoring,
  RewardEarning,
  RewardMarket,
  RewardsFunded,
  RewardTermsRequest,
  UserTier,
  Transfer,
  UpdateEventRequest,
  WithdrawRequest,
  WithdrawResult,
} from "./models";

export const API_PREFIX = "/api/v1";
/** The server refreshes only in the last hour; a minute of margin covers clock skew. */
export const REFRESH_WINDOW_SEC = 3600;
const REFRESH_MARGIN_SEC = 60;
/** After a refused refresh, wait this long before trying again (the request itself goes on). */
const REFRESH_BACKOFF_SEC = 60;

export interface RetryOptions {
  /**
   * Retries of one request (default 3): after a 429, and for a request sent with an
   * Idempotency-Key (safe to send again) also after a lost answer (network error, timeout) or a 503.
   */
  maxRetries?: number;
  /** Give up instead of waiting longer than this for one retry (default 120 s). */
  maxWaitSeconds?: number;
  /** Told before each wait (e.g. to say so on a terminal): a RateLimitError, a ServiceUnavailableError or a NetworkError. */
  onWait?: (seconds: number, err: ApiError | NetworkError) => void;
}

/** Options of the trade writes that take an Idempotency-Key (POST /orders, /orders/batch, /quotes, /trade/*, /withdraw, /redeem). */
export interface WriteOptions {
  /**
   * Idempotency-Key (1 to 255 characters, scoped to your account): sending the same request with the
   * same key again, also after a lost answer or a restart of the exchange, executes it once and answers
   * the first answer again (`replayed` true). The same key with another body is 409 IDEMPOTENCY_KEY_REUSED;
   * a refused request does not keep its key. newIdempotencyKey() makes one.
   */
  idempotencyKey?: string;
}

/**
 * The answer of a trade write. `replayed` (not enumerable: the object stays equal to the server's
 * `data`) is true when the exchange answered the stored first answer of this Idempotency-Key
 * (header Idempotent-Replayed: true), false otherwise.
 */
export type Replayable<T> = T & { readonly replayed?: boolean };

/** A fresh random Idempotency-Key (128 bits, hex), from Web Crypto (Node 20 and browsers). */
export function newIdempotencyKey(): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What the client saw of one HTTP exchange (logging, metrics, contract tests). */
export interface ResponseInfo {
  method: string;
  /** The route as the OpenAPI document names it, e.g. "/markets/{marketId}/orderbook" ("/health" outside the prefix). */
  route: string;
  url: string;
  status: number;
  headers: Headers;
  body: unknown;
  durationMs: number;
}

export interface ClientOptions {
  /** The gateway, e.g. "http://localhost:3000" ("/api/v1" is added; a URL already ending in it is kept). */
  baseUrl: string;
  /** The login domain proofs are signed for. Default: the one the server names at GET /auth/challenge. */
  domain?: string;
  session?: Session | null;
  /** Refresh the token before a call when under an hour of validity remains (default true). */
  autoRefresh?: boolean;
  /** Opt-in: on 429 wait Retry-After and try again (true = defaults). Default off. */
  retry?: boolean | RetryOptions;
  /** Operator key for the admin routes (X-Admin-Key). */
  adminKey?: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Called whenever the session changes (login, refresh, logout), e.g. to persist it. */
  onSessionChange?: (session: Session | null) => void;
  onResponse?: (info: ResponseInfo) => void;
  /** Clock in unix seconds (tests). */
  now?: () => number;
}

type AuthMode = "none" | "user" | "admin" | "refresh";
type Query = Record<string, string | number | boolean | undefined>;

interface CallOptions {
  params?: Record<string, string>;
  query?: Query;
  body?: unknown;
  auth: AuthMode;
  /** The answer is not in the envelope (/health, /openapi.json). */
  raw?: boolean;
  /** Outside /api/v1 (/health). */
  root?: boolean;
  /** Sent as the Idempotency-Key header; makes the request safe to send again. */
  idempotencyKey?: string;
}

interface Envelope<T> {
  data: T;
  pagination?: Pagination;
  requestId: string;
  status: number;
  /** Idempotent-Replayed: true */
  replayed: boolean;
}

type RouteOf<O extends OperationId> = RouteTypes[O];
/** A route's own auth as the client sends it (public routes go without a token). */
const AUTH = { public: "none", user: "user", admin: "admin" } as const satisfies Record<(typeof ROUTES)[OperationId]["auth"], AuthMode>;
/** What one operation is sent with; its method, path and auth come from the route table. */
interface Sent<O extends OperationId> {
  params?: RouteOf<O>["params"];
  query?: RouteOf<O>["query"];
  body?: RouteOf<O>["body"];
  idempotencyKey?: string;
  /** Instead of the route's own (a refresh sends the session's token in the header). */
  auth?: AuthMode;
}
type PagedOperation = { [O in OperationId]: (typeof ROUTES)[O] extends { paged: true } ? O : never }[OperationId];

/**
 * One route by its operation: method, path and auth from client/src/generated/routes.ts, which
 * `npm run contract:sdk` writes from the server's contract/routes.ts (each path written once, there).
 */
function send<O extends OperationId>(c: PmxClient, operation: O, o: Sent<O> = {}): Promise<Envelope<RouteOf<O>["result"]>> {
  const r = ROUTES[operation];
  return c.call<RouteOf<O>["result"]>(r.method, r.path, {
    params: o.params,
    query: o.query as Query | undefined,
    body: o.body,
    idempotencyKey: o.idempotencyKey,
    auth: o.auth ?? AUTH[r.auth],
  });
}

/** One page of a paged route. */
function sendPage<O extends PagedOperation>(c: PmxClient, operation: O, query: RouteOf<O>["query"]): Promise<Page<RouteOf<O>["result"]>> {
  const r = ROUTES[operation];
  return c.page<RouteOf<O>["result"]>(r.path, { auth: AUTH[r.auth], query: { ...(query as Query) } });
}

/** A write's data with its non-enumerable `replayed` flag. */
function replayable<T>(env: Envelope<T>): Replayable<T> {
  if (typeof env.data === "object" && env.data !== null)
    Object.defineProperty(env.data, "replayed", { value: env.replayed, enumerable: false, configurable: true });
  return env.data as Replayable<T>;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; fields?: unknown };
  requestId?: unknown;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function fieldsOf(x: unknown): FieldError[] | undefined {
  if (!Array.isArray(x)) return undefined;
  return x.filter((f): f is FieldError => isRecord(f) && typeof f.field === "string" && typeof f.rule === "string");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** base64url to UTF-8 text with what both Node 20 and browsers have (atob, TextDecoder). */
function base64UrlToText(s: string): string {
  const b64 = s
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(s.length / 4) * 4, "=");
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

/** Claims of a JWT without verifying it (only the server can): enough to know when it expires. */
export function sessionFromToken(token: string): Session {
  const part = token.split(".")[1];
  if (!part) throw new TypeError("not a JWT");
  let claims: unknown;
  try {
    claims = JSON.parse(base64UrlToText(part));
  } catch {
    throw new TypeError("not a JWT");
  }
  if (!isRecord(claims) || typeof claims.exp !== "number") throw new TypeError("token has no expiry");
  return {
    accessToken: token,
    expiresAt: claims.exp,
    userId: typeof claims.sub === "string" ? claims.sub : "",
    walletAddress: typeof claims.wal === "string" ? claims.wal : "",
  };
}

export class PmxClient {
  readonly origin: string;
  readonly apiRoot: string;
  /** The login domain given in the options; unset, each login asks the server (GET /auth/challenge). */
  readonly domain: string | undefined;
  private currentSession: Session | null;
  private readonly opts: ClientOptions;
  private readonly retry: (Required<Omit<RetryOptions, "onWait">> & Pick<RetryOptions, "onWait">) | null;
  private readonly fetchImpl: typeof fetch;
  private refreshing: Promise<Session> | null = null;
  private refreshBlockedUntil = 0;
  private readonly sessionListeners = new Set<(s: Session | null) => void>();

  readonly auth: AuthApi;
  readonly events: EventsApi;
  readonly markets: MarketsApi;
  readonly orders: OrdersApi;
  readonly trade: TradeApi;
  readonly portfolio: PortfolioApi;
  readonly wallet: WalletApi;
  readonly notifications: NotificationsApi;
  readonly heartbeats: HeartbeatsApi;
  readonly admin: AdminApi;

  constructor(opts: ClientOptions) {
    const url = new URL(opts.baseUrl);
    const path = url.pathname.replace(/\/+$/, "");
    const prefix = path.endsWith(API_PREFIX) ? path.slice(0, -API_PREFIX.length) : path;
    this.origin = `${url.protocol}//${url.host}${prefix}`;
    this.apiRoot = this.origin + API_PREFIX;
    this.domain = opts.domain;
    this.opts = opts;
    this.currentSession = opts.session ?? null;
    this.retry = opts.retry ? { maxRetries: 3, maxWaitSeconds: 120, ...(opts.retry === true ? {} : opts.retry) } : null;
    // Browsers refuse fetch called as a method of another object ("Illegal invocation").
    this.fetchImpl = opts.fetch ?? ((input, init) => fetch(input, init));
    this.auth = new AuthApi(this);
    this.events = new EventsApi(this);
    this.markets = new MarketsApi(this);
    this.orders = new OrdersApi(this);
    this.trade = new TradeApi(this);
    this.portfolio = new PortfolioApi(this);
    this.wallet = new WalletApi(this);
    this.notifications = new NotificationsApi(this);
    this.heartbeats = new HeartbeatsApi(this);
    this.admin = new AdminApi(this);
  }

  get session(): Session | null {
    return this.currentSession;
  }

  setSession(session: Session | null): void {
    this.currentSession = session;
    this.opts.onSessionChange?.(session);
    for (const l of this.sessionListeners) l(session);
  }

  /** Listen to session changes; returns the function that stops listening. */
  onSession(listener: (s: Session | null) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  /**
   * A socket client on the same gateway. Its user channel uses this client's session, and moves to
   * the new token when the session is refreshed. Call connect() on it.
   */
  socket(opts: Omit<SocketOptions, "url"> = {}): PmxSocket {
    const ws = new PmxSocket({ token: () => this.currentSession?.accessToken, ...opts, url: this.origin });
    const off = this.onSession(() => ws.tokenChanged());
    ws.once("close", off);
    return ws;
  }

  now(): number {
    return this.opts.now ? this.opts.now() : Math.floor(Date.now() / 1000);
  }

  get adminKey(): string | undefined {
    return this.opts.adminKey;
  }

  /** GET /health (outside the prefix). */
  async health(): Promise<Health> {
    return (await this.call<Health>("GET", "/health", { auth: "none", raw: true, root: true })).data;
  }

  /** GET /api/v1/openapi.json: the server's own description of every route. */
  async openapi(): Promise<Record<string, unknown>> {
    return (await this.call<Record<string, unknown>>("GET", "/openapi.json", { auth: "none", raw: true })).data;
  }

  /** Refresh when the session is inside its last hour; a refused refresh leaves the session as it was. */
  async ensureFresh(): Promise<void> {
    const s = this.currentSession;
    if (!s || this.opts.autoRefresh === false) return;
    const now = this.now();
    const left = s.expiresAt - now;
    if (left <= 0 || left >= REFRESH_WINDOW_SEC - REFRESH_MARGIN_SEC || now < this.refreshBlockedUntil) return;
    try {
      await this.refreshSession();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.refreshBlockedUntil = now + REFRESH_BACKOFF_SEC;
    }
  }

  /** One refresh at a time: concurrent callers share it. */
  refreshSession(): Promise<Session> {
    this.refreshing ??= send(this, "refresh", { auth: "refresh" })
      .then((r) => {
        this.setSession(r.data);
        return r.data;
      })
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  /** Low-level access to any route; the typed methods are built on it. */
  async call<T>(method: string, route: string, o: CallOptions): Promise<Envelope<T>> {
    if (o.auth === "user") {
      if (!this.currentSession) throw new NotLoggedInError(`${method} ${route} needs a session: log in first`);
      if (this.refreshing) await this.refreshing.catch(() => undefined);
      await this.ensureFresh();
    }
    if (o.auth === "admin" && !this.opts.adminKey) throw new NotLoggedInError(`${method} ${route} needs the operator key (adminKey)`);
    if (o.auth === "refresh" && !this.currentSession) throw new NotLoggedInError("refresh needs a session");

    let path = route;
    for (const [k, v] of Object.entries(o.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const url = (o.root ? this.origin : this.apiRoot) + path + (qs.size ? `?${qs}` : "");

    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { accept: "application/json" };
      const token = this.currentSession?.accessToken;
      if ((o.auth === "user" || o.auth === "refresh") && token) headers.authorization = `Bearer ${token}`;
      if (o.auth === "admin" && this.opts.adminKey) headers["x-admin-key"] = this.opts.adminKey;
      if (o.idempotencyKey !== undefined) headers["idempotency-key"] = o.idempotencyKey;
      let body: string | undefined;
      if (o.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(o.body);
      }
      const started = Date.now();
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000) });
      } catch (err) {
        const lost = new NetworkError(`${method} ${url}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
        // Only a keyed request may be sent again without knowing whether the first one executed.
        const wait = Math.min(2 ** attempt, 30);
        if (o.idempotencyKey !== undefined && this.retry && attempt < this.retry.maxRetries && wait <= this.retry.maxWaitSeconds) {
          this.retry.onWait?.(wait, lost);
          await sleep(wait * 1000);
          continue;
        }
        throw lost;
      }
      const text = await res.text();
      let parsed: unknown = null;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      this.opts.onResponse?.({
        method,
        route,
        url,
        status: res.status,
        headers: res.headers,
        body: parsed,
        durationMs: Date.now() - started,
      });

      if (res.ok) {
        const replayed = res.headers.get("idempotent-replayed") === "true";
        if (o.raw) return { data: parsed as T, requestId: res.headers.get("x-request-id") ?? "", status: res.status, replayed };
        if (res.status === 204) return { data: null as T, requestId: res.headers.get("x-request-id") ?? "", status: res.status, replayed };
        if (!isRecord(parsed) || !("data" in parsed))
          throw new ProtocolError(`${method} ${route}: answer is not the API envelope`, res.status);
        const env: Envelope<T> = {
          data: parsed.data as T,
          requestId: typeof parsed.requestId === "string" ? parsed.requestId : "",
          status: res.status,
          replayed,
        };
        if (isRecord(parsed.pagination)) env.pagination = parsed.pagination as unknown as Pagination;
        return env;
      }

      const err = this.errorOf(res, parsed, method, route);
      // Sending earlier would only extend a cooldown: wait exactly what the server asked. A 503
      // (a market moving, a service restarting) is retried only for a keyed request.
      const waitFor =
        err instanceof RateLimitError
          ? err.retryAfter
          : err instanceof ServiceUnavailableError && o.idempotencyKey !== undefined
            ? (err.retryAfter ?? 1)
            : null;
      if (waitFor !== null && this.retry && attempt < this.retry.maxRetries && waitFor <= this.retry.maxWaitSeconds) {
        this.retry.onWait?.(waitFor, err);
        await sleep(waitFor * 1000);
        continue;
      }
      throw err;
    }
  }

  private errorOf(res: Response, parsed: unknown, method: string, route: string): ApiError {
    const b: ErrorBody = isRecord(parsed) ? (parsed as ErrorBody) : {};
    const e = isRecord(b.error) ? b.error : {};
    const retryAfter = Number(res.headers.get("retry-after"));
    return apiErrorFor({
      status: res.status,
      code: typeof e.code === "string" ? e.code : `HTTP_${res.status}`,
      message:
        typeof e.message === "string"
          ? e.message
          : typeof parsed === "string" && parsed
            ? parsed.slice(0, 200)
            : res.statusText || `HTTP ${res.status}`,
      fields: fieldsOf(e.fields),
      requestId: typeof b.requestId === "string" ? b.requestId : (res.headers.get("x-request-id") ?? undefined),
      retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      method,
      path: route,
    });
  }

  async page<T>(route: string, o: CallOptions): Promise<Page<T>> {
    const env = await this.call<T[]>("GET", route, o);
    const pagination = env.pagination ?? { total: env.data.length, page: 1, pageSize: env.data.length, hasNext: false };
    return { items: env.data, pagination, requestId: env.requestId };
  }
}

class Api {
  constructor(protected readonly c: PmxClient) {}
}

export interface KeyPairLoginOptions {
  wallet?: WalletOptions;
  messengerInitData?: string;
  /** Override the client's domain for this login. */
  domain?: string;
}

class AuthApi extends Api {
  /** GET /auth/challenge: the exchange's login domain and a fresh payload to sign. */
  async challenge(): Promise<Challenge> {
    return (await send(this.c, "challenge")).data;
  }

  /** POST /auth/connect with a ready body (e.g. a proof from TON Connect in a browser). */
  async connect(body: ConnectRequest): Promise<Session> {
    const env = await send(this.c, "connect", { body });
    this.c.setSession(env.data);
    return env.data;
  }

  /**
   * Log in with any signer of proof digests (hardware wallet, remote signer). Without a domain
   * (here or in the client's options) it signs the server's challenge: its domain and payload.
   */
  async loginWithSigner(signer: ProofSigner, opts: Omit<BuildProofOptions, "domain"> & { domain?: string } = {}): Promise<Session> {
    const { buildConnectRequest } = await import("./proof");
    const given = opts.domain ?? this.c.domain;
    const challenge = given === undefined ? await this.challenge() : null;
    const domain = given ?? (challenge as Challenge).domain;
    return this.connect(await buildConnectRequest(signer, { ...opts, domain, payload: opts.payload ?? challenge?.payload }));
  }

  /** Log in as the standard wallet (v4r2 by default) of a local key pair. */
  async loginWithKeyPair(keyPair: KeyPair, opts: KeyPairLoginOptions = {}): Promise<Session> {
    const { keyPairSigner } = await import("./proof");
    return this.loginWithSigner(keyPairSigner(keyPair, opts.wallet), { domain: opts.domain, messengerInitData: opts.messengerInitData });
  }

  /** POST /auth/refresh (only accepted in the token's last hour; the client does it by itself). */
  refresh(): Promise<Session> {
    return this.c.refreshSession();
  }

  /** POST /auth/refresh with a token given in the body instead of the header. */
  async refreshToken(token: string): Promise<Session> {
    const env = await send(this.c, "refresh", { body: { token } });
    this.c.setSession(env.data);
    return env.data;
  }

  /** POST /auth/logout: the session ends server-side at once; the client forgets it. */
  async logout(): Promise<void> {
    try {
      await send(this.c, "logout");
    } catch (err) {
      // An already dead session is logged out all the same.
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    this.c.setSession(null);
  }
}

class EventsApi extends Api {
  /** GET /events: one page. */
  list(params: ListEventsParams = {}): Promise<Page<Event>> {
    return sendPage(this.c, "listEvents", params);
  }
  /** Every event of GET /events, page by page. */
  iterate(params: ListEventsParams = {}): AsyncGenerator<Event, void, undefined> {
    return paginate((p: ListEventsParams) => this.list(p), params);
  }
  /** GET /events/search: best match first. */
  search(params: SearchEventsParams): Promise<Page<Event>> {
    return sendPage(this.c, "searchEvents", params);
  }
  iterateSearch(params: SearchEventsParams): AsyncGenerator<Event, void, undefined> {
    return paginate((p: SearchEventsParams) => this.search(p), params);
  }
  /** GET /events/:id with its markets' live prices. */
  async get(id: string): Promise<Event> {
    return (await send(this.c, "getEvent", { params: { id } })).data;
  }
  /**
   * POST /events/:id/convert: NO shares of k markets of a mutually exclusive event become (k-1) USDT
   * per share plus YES of its other open markets.
   */
  async convert(id: string, body: ConvertRequest, opts: WriteOptions = {}): Promise<Replayable<ConvertResult>> {
    return replayable(await send(this.c, "convertPositions", { params: { id }, body, idempotencyKey: opts.idempotencyKey }));
  }
}

class MarketsApi extends Api {
  /** GET /markets/:id (cached 5 s by the server). */
  async get(id: string): Promise<MarketItem> {
    return (await send(this.c, "getMarket", { params: { id } })).data;
  } /** GET /rewards/markets: the markets paying liquidity rewards, with their terms. */
  async rewardMarkets(): Promise<RewardMarket[]> {
    return (await send(this.c, "listRewardMarkets")).data;
  }

  /** GET /markets/:id/orderbook: top 10 levels of the YES (default) or NO view. */
  async orderbook(id: string, outcome?: Outcome): Promise<OrderBook> {
    return (await send(this.c, "getOrderBook", { params: { marketId: id }, query: { outcome } })).data;
  }
  /** GET /markets/:id/price-history */
  async priceHistory(id: string, params: PriceHistoryParams = {}): Promise<PriceHistory> {
    return (await send(this.c, "getPriceHistory", { params: { marketId: id }, query: params })).data;
  }
  /** GET /markets/:id/trades: the market's latest executions (every venue, no user ids), newest first. */
  async trades(id: string, params: MarketTradesParams = {}): Promise<PublicTradeList> {
    return (await send(this.c, "getMarketTrades", { params: { marketId: id }, query: params })).data;
  }
  /** POST /markets/:id/disputes: a holder disputes the proposed result before its window ends. */
  async dispute(id: string, body: DisputeRequest): Promise<Dispute> {
    return (await send(this.c, "disputeResolution", { params: { id }, body })).data;
  }
  /** POST /markets/:id/quote: what a market order would cost now, without executing it. */
  async quote(id: string, body: QuoteRequest): Promise<Quote> {
    return (await send(this.c, "quote", { params: { marketId: id }, body })).data;
  }
}

class OrdersApi extends Api {
  /** POST /orders: a GTC, GTD, FOK or FAK limit order, optionally post-only, with your clientOrderId. */
  async place(body: PlaceOrderRequest, opts: WriteOptions = {}): Promise<Replayable<PlacedOrder>> {
    return replayable(await send(this.c, "placeOrder", { body, idempotencyKey: opts.idempotencyKey }));
  }
  /**
   * POST /orders/batch: 1 to 20 orders in one request (one trade-category request), each standing
   * alone; the results in request order, `{ok: true, order}` or `{ok: false, error}`.
   */
  async batch(orders: PlaceOrderRequest[], opts: WriteOptions = {}): Promise<Replayable<BatchOrderResult[]>> {
    return replayable(await send(this.c, "placeOrderBatch", { body: { orders }, idempotencyKey: opts.idempotencyKey }));
  }
  /**
   * POST /quotes: a mass quote. Your previous quote set in the market is cancelled and 1 to 20 new
   * quotes are placed as GTC orders, atomically (one trade-category request): a refused quote
   * refuses the whole set and the previous set stands. The orders are ordinary orders marked `quote`.
   */
  async quote(body: MassQuoteRequest, opts: WriteOptions = {}): Promise<Replayable<MassQuoteResult>> {
    return replayable(await send(this.c, "placeQuotes", { body, idempotencyKey: opts.idempotencyKey }));
  }
  /** DELETE /quotes: your quote set in one market withdrawn. */
  async cancelQuotes(marketId: string): Promise<CancelAllResult> {
    return (await send(this.c, "cancelQuotes", { query: { marketId } })).data;
  }
  /**
   * PATCH /orders/:id: new price and/or open quantity, atomically, under the same id. A lower
   * quantity keeps time priority; a new price or a higher quantity loses it. Refused, the order stands.
   */
  async amend(id: string, body: AmendOrderRequest): Promise<PlacedOrder> {
    return (await send(this.c, "amendOrder", { params: { orderId: id }, body })).data;
  }
  /** DELETE /orders/:id */
  async cancel(id: string): Promise<CancelledOrder> {
    return (await send(this.c, "cancelOrder", { params: { orderId: id } })).data;
  }
  /** POST /order-groups: a fill-rate kill switch; name it in `orderGroupId` of new orders. */
  async createGroup(body: OrderGroupRequest): Promise<OrderGroup> {
    return (await send(this.c, "createOrderGroup", { body })).data;
  }
  /** GET /order-groups */
  async groups(): Promise<OrderGroup[]> {
    return (await send(this.c, "listOrderGroups")).data;
  }
  /** POST /order-groups/:id/reset: a triggered group accepts orders again. */
  async resetGroup(id: string): Promise<OrderGroup> {
    return (await send(this.c, "resetOrderGroup", { params: { id } })).data;
  }
  /** DELETE /order-groups/:id: the group goes and its open orders are cancelled. */
  async deleteGroup(id: string): Promise<DeletedOrderGroup> {
    return (await send(this.c, "deleteOrderGroup", { params: { id } })).data;
  }
  /** GET /orders/:id/scoring: whether the order scores for liquidity rewards now, and why not. */
  async scoring(id: string): Promise<OrderScoring> {
    return (await send(this.c, "getOrderScoring", { params: { orderId: id } })).data;
  }
  /** GET /orders/:id/queue-position: quantity and orders resting before this open order at its price. */
  async queuePosition(id: string): Promise<QueuePosition> {
    return (await send(this.c, "getQueuePosition", { params: { orderId: id } })).data;
  }
  /** DELETE /orders: every open order of yours, or of one market. */
  async cancelAll(params: { marketId?: string } = {}): Promise<CancelAllResult> {
    return (await send(this.c, "cancelAllOrders", { query: params })).data;
  }
  /** GET /orders: one page, newest first; open orders unless `status` says closed or all. */
  list(params: ListOrdersParams = {}): Promise<Page<Order>> {
    return sendPage(this.c, "listOrders", params);
  }
  /** Every order of GET /orders, page by page. */
  iterate(params: ListOrdersParams = {}): AsyncGenerator<Order, void, undefined> {
    return paginate((p: ListOrdersParams) => this.list(p), params);
  }
  /** Every open order (of one market), walking the pages. */
  open(params: { marketId?: string } = {}): Promise<Order[]> {
    return collect(this.iterate({ ...params, status: "open", pageSize: 500 }));
  }
}

class TradeApi extends Api {
  /** POST /trade/amm: against the market's AMM only. */
  async amm(body: TradeRequest, opts: WriteOptions = {}): Promise<Replayable<TradeExecution>> {
    return replayable(await send(this.c, "tradeAmm", { body, idempotencyKey: opts.idempotencyKey }));
  }
  /** POST /trade/market: smart-routed between the book and the AMM. */
  async market(body: TradeRequest, opts: WriteOptions = {}): Promise<Replayable<TradeExecution>> {
    return replayable(await send(this.c, "tradeMarket", { body, idempotencyKey: opts.idempotencyKey }));
  }
}

class PortfolioApi extends Api {
  /** GET /balance */
  async balance(): Promise<Balance> {
    return (await send(this.c, "getBalance")).data;
  }
  /** GET /rewards/earnings?date=YYYY-MM-DD: the caller's score, reward and rebate per market that UTC day. */
  async rewardEarnings(date: string): Promise<RewardEarning[]> {
    return (await send(this.c, "getRewardEarnings", { query: { date } })).data;
  }
  /** GET /account/limits: the caller's rate tier and what is left of its read and trade budgets. */
  async limits(): Promise<AccountLimits> {
    return (await send(this.c, "getAccountLimits")).data;
  }
  /** GET /positions: open positions with mark price and unrealized PnL; `status: "closed"` the closed ones with their realized PnL. */
  async positions(params: { status?: "open" | "closed" | "all" } = {}): Promise<Position[]> {
    return (await send(this.c, "listPositions", { query: params })).data;
  }
  /** GET /trades: one page, newest first. */
  trades(params: PageParams = {}): Promise<Page<Trade>> {
    return sendPage(this.c, "listTrades", params);
  }
  iterateTrades(params: PageParams = {}): AsyncGenerator<Trade, void, undefined> {
    return paginate((p: PageParams) => this.trades(p), params);
  }
  /** GET /trades/:id (poll settlement). */
  async trade(id: string): Promise<Trade> {
    return (await send(this.c, "getTrade", { params: { id } })).data;
  }
  /** GET /transfers: one page of deposits (credited or not, with the reason) and withdrawals, newest first. */
  transfers(params: ListTransfersParams = {}): Promise<Page<Transfer>> {
    return sendPage(this.c, "listTransfers", params);
  }
  iterateTransfers(params: ListTransfersParams = {}): AsyncGenerator<Transfer, void, undefined> {
    return paginate((p: ListTransfersParams) => this.transfers(p), params);
  }
}

class WalletApi extends Api {
  /** GET /deposit-address (allocated on first call). */
  async depositAddress(): Promise<DepositAddress> {
    return (await send(this.c, "getDepositAddress")).data;
  }
  /** POST /withdraw to the session's wallet; `duplicate` and `failed` are answers, not errors. */
  async withdraw(body: WithdrawRequest, opts: WriteOptions = {}): Promise<Replayable<WithdrawResult>> {
    return replayable(await send(this.c, "withdraw", { body, idempotencyKey: opts.idempotencyKey }));
  }
  /** POST /redeem/:marketId */
  async redeem(marketId: string, body: RedeemRequest, opts: WriteOptions = {}): Promise<Replayable<RedeemResult>> {
    return replayable(await send(this.c, "redeem", { params: { marketId }, body, idempotencyKey: opts.idempotencyKey }));
  }
  /** POST /sandbox/faucet (sandbox chain only). */
  async faucet(body: FaucetRequest): Promise<FaucetResult> {
    return (await send(this.c, "faucet", { body })).data;
  }
}

class NotificationsApi extends Api {
  /** GET /notifications: one page, newest first (`unread: true`: only unread ones). */
  list(params: ListNotificationsParams = {}): Promise<Page<Notification>> {
    return sendPage(this.c, "listNotifications", params);
  }
  iterate(params: ListNotificationsParams = {}): AsyncGenerator<Notification, void, undefined> {
    return paginate((p: ListNotificationsParams) => this.list(p), params);
  }
  /** Every unread notification (walks the unread pages). */
  unread(): Promise<Notification[]> {
    return collect(this.iterate({ pageSize: 100, unread: true }));
  }
  /** How many are unread (one small request). */
  async unreadCount(): Promise<number> {
    return (await this.list({ unread: true, pageSize: 1 })).pagination.total;
  }
  /** GET /account/notification-settings: which kinds of notification the Telegram bot pushes to you. */
  async settings(): Promise<NotificationSettings> {
    return (await send(this.c, "getNotificationSettings")).data;
  }
  /** PATCH /account/notification-settings: turn kinds of bot pushes on or off (the others stay). */
  async updateSettings(body: NotificationSettingsRequest): Promise<NotificationSettings> {
    return (await send(this.c, "setNotificationSettings", { body })).data;
  }
  /** POST /notifications/read: {ids} or {all: true}. */
  async markRead(body: MarkReadRequest): Promise<MarkReadResult> {
    return (await send(this.c, "markNotificationsRead", { body })).data;
  }
}

/** Keeps a dead man's switch armed until stopped (HeartbeatsApi.keepAlive). */
export interface HeartbeatKeeper {
  /** The first heartbeat's answer (rejects if the exchange refused it: nothing is armed then). */
  readonly ready: Promise<Heartbeat>;
  /** The latest answer. */
  readonly last: Heartbeat | null;
  /** Stop sending; disarms the switch unless `disarm: false` (then it lapses at its deadline). */
  stop(opts?: { disarm?: boolean }): Promise<void>;
}

/** The dead man's switch (POST /heartbeats). */
class HeartbeatsApi extends Api {
  /** POST /heartbeats: arm or re-arm for `timeoutSeconds` (5 to 300); 0 disarms. */
  async send(timeoutSeconds: number): Promise<Heartbeat> {
    return (await send(this.c, "heartbeat", { body: { timeoutSeconds } })).data;
  }
  disarm(): Promise<Heartbeat> {
    return this.send(0);
  }
  /**
   * Arm now and re-arm every `intervalMs` (default a third of the timeout), so that if this
   * process dies or loses the exchange for `timeoutSeconds`, every open order is cancelled.
   * A failed re-arm is told to `onError` and tried again at the next interval.
   */
  keepAlive(timeoutSeconds: number, opts: { intervalMs?: number; onError?: (err: unknown) => void } = {}): HeartbeatKeeper {
    const every = opts.intervalMs ?? (timeoutSeconds * 1000) / 3;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let last: Heartbeat | null = null;
    let inFlight: Promise<unknown> = Promise.resolve();
    const beat = async (): Promise<Heartbeat> => {
      const h = await this.send(timeoutSeconds);
      if (!stopped) last = h;
      return h;
    };
    const next = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        inFlight = beat()
          .catch((err: unknown) => opts.onError?.(err))
          .finally(next);
      }, every);
    };
    const ready = beat();
    inFlight = ready.then(next, () => (stopped = true));
    return {
      ready,
      get last() {
        return last;
      },
      stop: async (o: { disarm?: boolean } = {}) => {
        stopped = true;
        if (timer) clearTimeout(timer);
        await inFlight.catch(() => undefined);
        if (o.disarm !== false) last = await this.disarm();
      },
    };
  }
}

/** The operator API (X-Admin-Key; disabled on servers without ADMIN_KEY). */
class AdminApi extends Api {
  async createEvent(body: CreateEventRequest): Promise<Event> {
    return (await send(this.c, "adminCreateEvent", { body })).data;
  }
  async updateEvent(id: string, body: UpdateEventRequest): Promise<Event> {
    return (await send(this.c, "adminUpdateEvent", { params: { id }, body })).data;
  }
  async closeMarket(id: string): Promise<MarketItem> {
    return (await send(this.c, "adminCloseMarket", { params: { id } })).data;
  }
  /** Each YES share pays `price` (default "0.50"), each NO share 1 - price, from the market's own collateral. */
  async cancelMarket(id: string, body?: CancelMarketRequest): Promise<MarketItem> {
    return (await send(this.c, "adminCancelMarket", { params: { id }, ...(body ? { body } : {}) })).data;
  }
  async resolveMarket(id: string, body: ResolveMarketRequest): Promise<MarketItem> {
    return (await send(this.c, "adminResolveMarket", { params: { id }, body })).data;
  }
  /** One market's trading mode (the stricter of it and the exchange-wide mode applies). */
  async setMarketTradingMode(id: string, body: TradingModeRequest): Promise<MarketItem> {
    return (await send(this.c, "adminSetMarketTradingMode", { params: { id }, body })).data;
  }
  /** The exchange-wide trading mode. */
  async setExchangeTradingMode(body: TradingModeRequest): Promise<ExchangeTradingMode> {
    return (await send(this.c, "adminSetExchangeTradingMode", { body })).data;
  }
  /** GET /admin/audit: operator actions, newest first. */
  audit(params: PageParams = {}): Promise<Page<AuditRecord>> {
    return sendPage(this.c, "adminAuditLog", params);
  }
  /** Propose a result; it finalizes by itself when its dispute window ends undisputed. */
  async proposeResolution(id: string, body: ProposeRequest): Promise<MarketItem> {
    return (await send(this.c, "adminProposeResolution", { params: { id }, body })).data;
  }
  /** End a pending proposal with this result (it may differ from the proposal). */
  async finalizeResolution(id: string, body: FinalizeRequest): Promise<MarketItem> {
    return (await send(this.c, "adminFinalizeResolution", { params: { id }, body })).data;
  }
  /** A market's liquidity rewards: daily pool, the spread and size that score. */
  async setMarketRewards(id: string, body: RewardTermsRequest): Promise<RewardMarket> {
    return (await send(this.c, "adminSetMarketRewards", { params: { id }, body })).data;
  }
  /** Fund the rewards account with house money. */
  async fundRewards(amount: string): Promise<RewardsFunded> {
    return (await send(this.c, "adminFundRewards", { body: { amount } })).data;
  }
  /** Grant a user a rate tier of RATE_TIERS (`default` takes a grant back). */
  async setUserTier(userId: string, tier: string): Promise<UserTier> {
    return (await send(this.c, "adminSetUserTier", { params: { userId }, body: { tier } })).data;
  }
  /** A new outcome market of an open mutually exclusive event. */
  async addOutcome(eventId: string, body: AddOutcomeRequest): Promise<MarketItem> {
    return (await send(this.c, "adminAddOutcome", { params: { id: eventId }, body })).data;
  }
  /** Resolve a mutually exclusive event as one step: the winner YES, every other undecided market NO (null: none won). */
  async resolveEvent(eventId: string, body: ResolveEventRequest): Promise<Event> {
    return (await send(this.c, "adminResolveEvent", { params: { id: eventId }, body })).data;
  }
  /** Propose the winner of a mutually exclusive event; undisputed, it finalizes as one step. */
  async proposeEvent(eventId: string, body: ProposeEventRequest): Promise<Event> {
    return (await send(this.c, "adminProposeEvent", { params: { id: eventId }, body })).data;
  }
}
