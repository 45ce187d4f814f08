import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { dataDirSecrets, JWT_SECRET_SPEC, MASTER_SECRET_SPEC } from "./secrets";
import { parseTrustedProxyList } from "./proxies";

/** Every service a node can run; `SERVICES` picks a subset (roles expand to several). */
export const ALL_SERVICES = ["api", "auth", "catalog", "book", "amm", "router", "ledger", "chain", "notifier"] as const;
export type ServiceName = (typeof ALL_SERVICES)[number];
const ROLES: Record<string, ServiceName[]> = {
  all: [...ALL_SERVICES],
  engine: ["book", "amm", "router"],
  gateway: ["api"],
};

export interface RateLimitConfig {
  windowMs: number;
  read: number;
  trade: number;
  faucet: number;
  /** RATE_TIERS: each tier's read and trade limits per window; `default` is always read/trade above. */
  tiers: RateTiers;
}

/** A tier's limits per window: the read and trade categories (the faucet's stays the same for all). */
export interface TierLimits {
  read: number;
  trade: number;
}
export type RateTiers = Readonly<Record<string, TierLimits>>;

/** The tier every unauthenticated caller and every user not granted another has. */
export const DEFAULT_TIER = "default";
const TIER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * RATE_TIERS: `name:reads/trades` entries separated by commas (`maker:3000/1200,pro:500/60`).
 * `default` always holds the api-spec limits (RATE_LIMIT_READ / RATE_LIMIT_TRADE) and cannot be
 * redefined here; a malformed entry stops the start naming it.
 */
export function parseRateTiers(raw: string | undefined, defaults: TierLimits): RateTiers {
  const tiers: Record<string, TierLimits> = { [DEFAULT_TIER]: { ...defaults } };
  for (const part of (raw ?? "").split(",").map((x) => x.trim())) {
    if (!part) continue;
    const m = /^([^:]+):([0-9]{1,9})\/([0-9]{1,9})$/.exec(part);
    if (!m || !TIER_NAME.test(m[1]) || m[1] === DEFAULT_TIER || m[1] in tiers || Number(m[2]) < 1 || Number(m[3]) < 1)
      throw new Error(
        `RATE_TIERS: bad entry "${part}" (name:reads/trades, e.g. maker:3000/1200; names unique, not "default", limits >= 1)`,
      );
    tiers[m[1]] = { read: Number(m[2]), trade: Number(m[3]) };
  }
  return tiers;
}

export interface AppConfig {
  nodeId?: string;
  dataDir: string;
  host: string;
  port: number;
  transporter?: string;
  mongoUri?: string;
  /** fdatasync the embedded ledger journal after each group write (off: a crash of the machine, not of the process, may lose acknowledged entries). */
  journalFsync: boolean;
  /** MONEY_WRITER_THREAD: embedded group commits written on a worker thread (false: on the event loop). */
  moneyWriterThread: boolean;
  /**
   * SIDE_NODE: "thread" (the default): embedded and started from the build, the services of
   * SIDE_SERVICES run as a second node in a worker thread of the same process, off the orders' event
   * loop (the main node keeps its own copies of the catalog's cached reads); "off": one node, one loop.
   */
  sideNode: "thread" | "off";
  redisUrl?: string;
  /** APP_DOMAIN: the ton_proof domain; unset = the address the gateway listens on (see auth/domain.ts). */
  appDomain?: string;
  jwtSecret: string;
  /** X-Admin-Key of the operator API: ADMIN_KEY, else on the embedded default generated once into DATA_DIR/secrets.json; unset = off. */
  adminKey?: string;
  /** Where adminKey came from; "generated" only on the start that created it (the banner shows the key that once). */
  adminKeyFrom?: "env" | "secrets" | "generated";
  /** HTTP server timeouts (slow or silent clients); see services/api.service.ts. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  services: ServiceName[];
  /** Addresses and CIDR ranges whose X-Forwarded-For is believed (reverse proxies we run). */
  trustedProxies: string[];
  rateLimit: RateLimitConfig;
  telegramBotToken?: string;
  telegramApiRoot: string;
  /** Max age of Telegram init data accepted at login. */
  telegramInitDataMaxAgeSec: number;
  chain: "sandbox" | "ton";
  /** TON chain settings (the `chain` service; see chain/ and the README). */
  ton: ChainConfig;
  /** Taker fee rate in basis points of quantity x p x (1-p); maker fee likewise. */
  takerFeeBps: number;
  makerFeeBps: number;
  /** MAKER_REBATE_BPS: the share of each market's day of taker fees paid to that day's makers (default 0). */
  makerRebateBps: number;
  /**
   * Liquidity rewards: how often resting orders are scored and finished days paid (REWARDS_TICK_MS,
   * default 60 s), and the time the rewards clock shows at start (REWARDS_CLOCK_AT, ISO; unset: the
   * real time), from which it runs at real speed: a test puts the day boundary seconds away.
   */
  rewards: { tickMs: number; clockAtMs?: number };
  /** The AMM's LP fee in basis points of the cash traded with the pool. */
  ammFeeBps: number;
  /** Fee on the cash a conversion of NO positions pays out (CONVERSION_FEE_BPS, default 0). */
  conversionFeeBps: number;
  seedDemo: boolean;
  /** The sandbox demo's background trader (services/demo-trader.service.ts): DEMO_TRADER, else on with the seeded demo on the sandbox chain. */
  demoTrader: boolean;
  /** After a start, every open market trades post-only for this long (ms), so makers re-quote before takers arrive. */
  reopenPostOnlyMs: number;
  /** How long a proposed result can be disputed before it finalizes by itself (RESOLUTION_DISPUTE_WINDOW_MS, default 2 h). */
  resolutionDisputeWindowMs: number;
  /** How often the catalog looks for close times and dispute windows that passed (RESOLUTION_CLOCK_MS, default 1 s). */
  resolutionClockMs: number;
  logLevel: string | false;
  /** Prometheus metrics (Moleculer's reporter plus the exchange's own) on their own port. */
  metrics: { enabled: boolean; port: number };
  /** A socket that sends no ping for this long is closed (10 s by the contract; tests shorten it). */
  socketIdleTimeoutMs: number;
  /** SOCKET_MAX_BUFFER_BYTES: a socket holding more unsent bytes than this (a client not reading) is disconnected; 0: no limit. */
  socketMaxBufferBytes: number;
  /** SOCKET_MAX_PER_ADDRESS: socket connections open at once from one client address; 0: no limit. */
  socketMaxPerAddress: number;
  /** SOCKET_DIRECT_WRITES: pushes straight to each websocket through ws's send (gateway/socket-direct.ts); false: engine.io's write only. */
  socketDirectWrites: boolean;
  /** Telegram push retries: first delay (doubling) and attempts in all. */
  notifierRetry: { baseMs: number; maxAttempts: number };
}

/**
 * What the side node runs (SIDE_NODE=thread): the reactions that follow the journal and the trades
 * (read models, notifications) and the sandbox chain, none of which an order waits for.
 */
export const SIDE_SERVICES: readonly ServiceName[] = ["catalog", "notifier", "chain"];

/** The side node's thread as `top -H` and /proc/<pid>/task/<tid>/comm show it (15 characters at most). */
export const SIDE_THREAD_NAME = "pmx-side";

/**
 * The embedded process as two nodes, or null when it stays one: the main node keeps the gateway and
 * the order path (api, auth, ledger, book, amm, router), the side node the SIDE_SERVICES this
 * process runs. Only without TRANSPORTER (scaled out, SERVICES places services on nodes).
 */
export function sideNodeSplit(cfg: AppConfig): { main: AppConfig; side: AppConfig } | null {
  if (cfg.sideNode !== "thread" || cfg.transporter) return null;
  const side = cfg.services.filter((s) => SIDE_SERVICES.includes(s));
  const main = cfg.services.filter((s) => !SIDE_SERVICES.includes(s));
  if (!side.length || !main.length) return null;
  return { main: { ...cfg, services: main }, side: { ...cfg, services: side } };
}

/** Settings of the `chain` service: the adapter, keys, withdrawal bounds, settlement batching. */
export interface ChainConfig {
  /** Addresses carry the test-network flag (0Q…/kQ…); the sandbox is a test network by default. */
  testnet: boolean;
  /** toncenter v2 JSON-RPC endpoint of the `ton` adapter. */
  endpoint: string;
  apiKey?: string;
  /** Canonical USDT jetton minter (the `ton` adapter; the sandbox deploys its own). */
  usdtMinter?: string;
  /** Hex master secret every chain key derives from: MASTER_SECRET, else the data dir's (lib/secrets.ts) on a node running the chain. */
  masterSecret?: string;
  /** Withdrawal bounds per request, micro-USDT, inclusive. */
  withdrawMin: number;
  withdrawMax: number;
  /** An identical withdrawal (same user, same amount) within this window of an accepted one is a duplicate. */
  withdrawDedupMs: number;
  /** How often pending trades are committed on chain, and the batch size. */
  settlementIntervalMs: number;
  settlementBatchSize: number;
  /** Trades younger than this wait for the next batch (bursts settle together). */
  settlementMinAgeMs: number;
  /** Failed settlement transactions per trade before it is marked `failed`. */
  settlementMaxAttempts: number;
  /** How often deposit addresses are polled (the sandbox also scans right after each of its own transactions). */
  depositPollMs: number;
  /** How long the `ton` adapter waits for a sent message's transaction before leaving it to reconciliation. */
  confirmTimeoutMs: number;
  /** Sandbox genesis: nanoTON given to the settlement operator wallet; "0" leaves it unfunded (settlement then fails in the TVM). */
  sandboxOperatorNano: bigint;
  /** Sandbox faucet ceilings per request: micro-USDT and nanoTON. */
  faucetMaxUsdt: number;
  faucetMaxNano: bigint;
}

type Env = Record<string, string | undefined>;

function nano(env: Env, name: string, fallback: bigint): bigint {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]{1,30}$/.test(raw)) throw new Error(`${name} must be a non-negative integer of nanoTON, got "${raw}"`);
  return BigInt(raw);
}

/** The chain service's settings from the environment (additive to AppConfig). */
export function loadChainConfig(env: Env = process.env): ChainConfig {
  const testnet = env.TESTNET !== "false";
  const masterSecret = env.MASTER_SECRET || undefined;
  if (masterSecret !== undefined && !/^(?:[0-9a-fA-F]{2}){32,64}$/.test(masterSecret))
    throw new Error("MASTER_SECRET must be 32 to 64 bytes of hex");
  const cfg: ChainConfig = {
    testnet,
    endpoint: env.TON_ENDPOINT || (testnet ? "https://testnet.toncenter.com/api/v2/jsonRPC" : "https://toncenter.com/api/v2/jsonRPC"),
    apiKey: env.TON_API_KEY || undefined,
    usdtMinter: env.USDT_MINTER || undefined,
    masterSecret,
    withdrawMin: int(env, "WITHDRAW_MIN", 1_000_000),
    withdrawMax: int(env, "WITHDRAW_MAX", 1_000_000_000_000),
    withdrawDedupMs: int(env, "WITHDRAW_DEDUP_MS", 60_000),
    settlementIntervalMs: int(env, "SETTLEMENT_INTERVAL_MS", 3_000),
    settlementBatchSize: int(env, "SETTLEMENT_BATCH_SIZE", 100),
    settlementMinAgeMs: int(env, "SETTLEMENT_MIN_AGE_MS", 2_000),
    settlementMaxAttempts: int(env, "SETTLEMENT_MAX_ATTEMPTS", 3),
    depositPollMs: int(env, "DEPOSIT_POLL_MS", 5_000),
    confirmTimeoutMs: int(env, "TON_CONFIRM_TIMEOUT_MS", 30_000),
    sandboxOperatorNano: nano(env, "SANDBOX_OPERATOR_NANO", 100_000_000_000n),
    faucetMaxUsdt: int(env, "FAUCET_MAX_USDT", 10_000_000_000),
    faucetMaxNano: nano(env, "FAUCET_MAX_NANO", 100_000_000_000n),
  };
  if (cfg.withdrawMin < 1 || cfg.withdrawMax < cfg.withdrawMin) throw new Error("WITHDRAW_MIN must be >= 1 and <= WITHDRAW_MAX");
  if (cfg.settlementBatchSize < 1 || cfg.settlementMaxAttempts < 1)
    throw new Error("SETTLEMENT_BATCH_SIZE and SETTLEMENT_MAX_ATTEMPTS must be >= 1");
  return cfg;
}

/** Fee rates are basis points below 100%: above that a fee could exceed what its lock covers. */
function bps(env: Env, name: string, fallback: number): number {
  const v = int(env, name, fallback);
  if (v >= 10_000) throw new Error(`${name} must be below 10000 basis points, got ${v}`);
  return v;
}

function clockAt(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw new Error(`REWARDS_CLOCK_AT must be an ISO 8601 time, got "${raw}"`);
  return ms;
}

function rateLimits(env: Env): RateLimitConfig {
  const read = int(env, "RATE_LIMIT_READ", 100);
  const trade = int(env, "RATE_LIMIT_TRADE", 10);
  return {
    windowMs: int(env, "RATE_WINDOW_MS", 60_000),
    read,
    trade,
    faucet: int(env, "RATE_LIMIT_FAUCET", 5),
    tiers: parseRateTiers(env.RATE_TIERS, { read, trade }),
  };
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

export function parseServices(raw: string | undefined): ServiceName[] {
  if (!raw || raw.trim() === "") return [...ALL_SERVICES];
  const out = new Set<ServiceName>();
  for (const part of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const role = ROLES[part];
    if (role) role.forEach((s) => out.add(s));
    else if ((ALL_SERVICES as readonly string[]).includes(part)) out.add(part as ServiceName);
    else throw new Error(`SERVICES: unknown service or role "${part}"`);
  }
  return ALL_SERVICES.filter((s) => out.has(s));
}

// Secrets kept in the data dir live in lib/secrets.ts.
import { persistentSecret } from "./secrets";
export { persistentSecret };

/** A secret already kept in DATA_DIR/secrets.json, or undefined; never creates one (`npm run admin-key`). */
export function storedSecret(dataDir: string, name: string): string | undefined {
  const file = join(dataDir, "secrets.json");
  const secrets = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  return typeof secrets[name] === "string" ? secrets[name] : undefined;
}

/** The operator key: ADMIN_KEY ("off": none), else on the embedded default (no TRANSPORTER, a data dir) one generated once. */
function operatorKey(env: Env, dataDir: string, transporter: string | undefined): Pick<AppConfig, "adminKey" | "adminKeyFrom"> {
  if (env.ADMIN_KEY === "off") return {};
  if (env.ADMIN_KEY) return { adminKey: env.ADMIN_KEY, adminKeyFrom: "env" };
  if (transporter || dataDir === ":memory:") return {};
  let created = false;
  const adminKey = persistentSecret(dataDir, "adminKey", 16, () => (created = true));
  return { adminKey, adminKeyFrom: created ? "generated" : "secrets" };
}

function sideNodeOf(raw: string | undefined): AppConfig["sideNode"] {
  if (raw === "off") return "off";
  if (raw === undefined || raw === "" || raw === "thread") return "thread";
  throw new Error(`SIDE_NODE must be thread or off, got "${raw}"`);
}

/** DATA_DIR: ":memory:" keeps everything in memory (tests); anything else is a directory. */
export function dataDirOf(env: Env): string {
  return env.DATA_DIR === ":memory:" ? ":memory:" : resolve(env.DATA_DIR || "data");
}

export function loadConfig(env: Env = process.env): AppConfig {
  const dataDir = dataDirOf(env);
  const transporter = env.TRANSPORTER || undefined;
  // Nodes of a cluster must share the secret; only the one-process default may invent it.
  if (!env.JWT_SECRET && transporter) throw new Error("JWT_SECRET is required when TRANSPORTER is set");
  const services = parseServices(env.SERVICES);
  const ton = loadChainConfig(env);
  // Secrets the environment does not give come from the data dir, decided before any service
  // writes there (lib/secrets.ts); in memory they live as long as the process.
  const needed = [
    ...(env.JWT_SECRET ? [] : [JWT_SECRET_SPEC]),
    ...(services.includes("chain") && !ton.masterSecret ? [MASTER_SECRET_SPEC] : []),
  ];
  const kept = !needed.length
    ? {}
    : dataDir === ":memory:"
      ? Object.fromEntries(needed.map((s) => [s.name, randomBytes(32).toString("hex")]))
      : dataDirSecrets(dataDir, needed);
  const jwtSecret = env.JWT_SECRET || kept[JWT_SECRET_SPEC.name];
  ton.masterSecret ??= kept[MASTER_SECRET_SPEC.name];
  const chain = (env.CHAIN || "sandbox") as AppConfig["chain"];
  if (chain !== "sandbox" && chain !== "ton") throw new Error(`CHAIN must be sandbox or ton, got "${chain}"`);
  return {
    nodeId: env.NODE_ID || undefined,
    dataDir,
    host: env.HOST || "0.0.0.0",
    port: int(env, "PORT", 3000),
    transporter,
    mongoUri: env.MONGO_URI || undefined,
    journalFsync: env.JOURNAL_FSYNC !== "false",
    moneyWriterThread: env.MONEY_WRITER_THREAD !== "false",
    sideNode: sideNodeOf(env.SIDE_NODE),
    redisUrl: env.REDIS_URL || undefined,
    appDomain: env.APP_DOMAIN || undefined,
    jwtSecret,
    ...operatorKey(env, dataDir, transporter),
    http: {
      headersTimeoutMs: Math.max(100, int(env, "HTTP_HEADERS_TIMEOUT_MS", 10_000)),
      requestTimeoutMs: Math.max(100, int(env, "HTTP_REQUEST_TIMEOUT_MS", 30_000)),
      keepAliveTimeoutMs: Math.max(100, int(env, "HTTP_KEEPALIVE_TIMEOUT_MS", 5_000)),
    },
    services,
    trustedProxies: parseTrustedProxyList(env.TRUSTED_PROXIES),
    rateLimit: rateLimits(env),
    telegramBotToken: env.TELEGRAM_BOT_TOKEN || undefined,
    telegramApiRoot: env.TELEGRAM_API_ROOT || "https://api.telegram.org",
    telegramInitDataMaxAgeSec: int(env, "TELEGRAM_INIT_DATA_MAX_AGE", 86_400),
    chain,
    ton,
    takerFeeBps: bps(env, "TAKER_FEE_BPS", 200),
    makerFeeBps: bps(env, "MAKER_FEE_BPS", 0),
    makerRebateBps: bps(env, "MAKER_REBATE_BPS", 0),
    rewards: { tickMs: Math.max(50, int(env, "REWARDS_TICK_MS", 60_000)), clockAtMs: clockAt(env.REWARDS_CLOCK_AT) },
    ammFeeBps: bps(env, "AMM_FEE_BPS", 100),
    conversionFeeBps: bps(env, "CONVERSION_FEE_BPS", 0),
    seedDemo: env.SEED_DEMO !== "false",
    demoTrader: env.DEMO_TRADER === "true" || (env.DEMO_TRADER !== "false" && env.SEED_DEMO !== "false" && chain === "sandbox"),
    reopenPostOnlyMs: int(env, "REOPEN_POST_ONLY_MS", 0),
    resolutionDisputeWindowMs: int(env, "RESOLUTION_DISPUTE_WINDOW_MS", 2 * 3_600_000),
    resolutionClockMs: Math.max(50, int(env, "RESOLUTION_CLOCK_MS", 1_000)),
    metrics: { enabled: env.METRICS === "true", port: int(env, "METRICS_PORT", 3030) },
    socketIdleTimeoutMs: Math.max(100, int(env, "SOCKET_IDLE_TIMEOUT_MS", 10_000)),
    socketDirectWrites: env.SOCKET_DIRECT_WRITES !== "false",
    socketMaxBufferBytes: int(env, "SOCKET_MAX_BUFFER_BYTES", 4 * 1024 * 1024),
    socketMaxPerAddress: int(env, "SOCKET_MAX_PER_ADDRESS", 100),
    notifierRetry: {
      baseMs: Math.max(1, int(env, "NOTIFIER_RETRY_BASE_MS", 2_000)),
      maxAttempts: Math.max(1, int(env, "NOTIFIER_MAX_ATTEMPTS", 8)),
    },
    logLevel: env.LOG_LEVEL === "false" ? false : env.LOG_LEVEL || "info",
  };
}

const bound = new WeakMap<object, AppConfig>();

/** Attach a node's configuration to its broker so every service of that node reads the same one. */
export function bindConfig(broker: object, cfg: AppConfig): void {
  bound.set(broker, cfg);
}

export function configOf(broker: object): AppConfig {
  let cfg = bound.get(broker);
  if (!cfg) {
    cfg = loadConfig();
    bound.set(broker, cfg);
  }
  return cfg;
}
