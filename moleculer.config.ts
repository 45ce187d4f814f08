import type { MessagePort } from "node:worker_threads";
import type { BrokerOptions, Middleware, ServiceBroker } from "moleculer";
import type { AppConfig } from "./lib/config";
import { AuthGuard } from "./mixins/guard.middleware";
import { BeforeStop } from "./mixins/before-stop.middleware";
import { createMarketRouting } from "./mixins/market-routing.middleware";
import { createDataDirLock } from "./mixins/data-dir-lock.middleware";
import { createFoundationCheck, runsFoundationCheck } from "./mixins/foundations.middleware";
import { Idempotency } from "./mixins/idempotency.middleware";
import { createNearCache } from "./mixins/near-cache.middleware";
import { LocalSocketTransporter } from "./lib/local-transporter";
import { socketPathFor } from "./lib/data-dir";
import { brokerUidGenerator } from "./lib/ids";
import { VALIDATOR_OPTIONS } from "./lib/params";

/**
 * Where a node stands in its process: alone (the default), or one of the embedded process's two
 * nodes (SIDE_NODE=thread, side-node.ts): the main node, whose hub the side node joins, and whose
 * start check covers every service of the process; the side node, joined to it through a port.
 */
export type NodeTopology =
  | { role: "single" }
  | { role: "main"; whole: AppConfig; hub: (hub: LocalSocketTransporter) => void }
  | { role: "side"; nodeID: string; port: MessagePort; demoTrader: boolean };

/**
 * Broker options for one node, all read from the environment through AppConfig:
 * - no TRANSPORTER: every service in this process, no network between them;
 * - TRANSPORTER=nats://...: this node joins the cluster and runs only SERVICES;
 * - REDIS_URL: the cacher is shared by every node (memory otherwise).
 */
export function createBrokerOptions(cfg: AppConfig, topology: NodeTopology = { role: "single" }): BrokerOptions {
  if (topology.role === "side") return sideNodeOptions(cfg, topology.nodeID, topology.port);
  const onDisk = cfg.dataDir !== ":memory:";
  const whole = topology.role === "main" ? topology.whole : cfg;
  // Embedded: no network transport, but a socket in the data dir (owner only) where operator tools
  // such as `npm run repl` join the running exchange instead of starting a second one; its
  // broadcasts stay local while no tool is joined. The side node joins the same hub.
  const hub =
    !cfg.transporter && (onDisk || topology.role === "main")
      ? new LocalSocketTransporter({ path: onDisk ? socketPathFor(cfg.dataDir) : undefined, mode: "hub" })
      : null;
  if (hub && topology.role === "main") topology.hub(hub);
  return {
    ...commonOptions(cfg),
    nodeID: cfg.nodeId,
    transporter: cfg.transporter ?? hub,
    metrics: metricsOf(cfg, cfg.metrics.port),
    // The lock first: the start check reads the data dir only once this process owns it.
    middlewares: [
      ...(onDisk ? [createDataDirLock(cfg.dataDir)] : []),
      ...(hub ? [hub.broadcastsWhileAlone()] : []),
      ...(runsFoundationCheck(whole) ? [createFoundationCheck(whole)] : []),
      AuthGuard,
      Idempotency,
      createMarketRouting(),
      BeforeStop,
      // The catalog answers from the side node: its cached reads are kept here too.
      ...(topology.role === "main" ? [createNearCache()] : []),
    ],
  };
}

/**
 * The side node: joined to the main node's hub through `port`; the main node holds the data dir's
 * lock and ran the start check before this node is started. Its metrics are served on the next port.
 */
function sideNodeOptions(cfg: AppConfig, nodeID: string, port: MessagePort): BrokerOptions {
  return {
    ...commonOptions(cfg),
    nodeID,
    transporter: new LocalSocketTransporter({ mode: "join", port }),
    // `$node` (node and service lists) answers on the main node; one per process, as before.
    internalServices: false,
    metrics: metricsOf(cfg, cfg.metrics.port + 1),
    middlewares: [AuthGuard, Idempotency, createMarketRouting(), BeforeStop, AnnounceEachService],
  };
}

/**
 * Moleculer tells other nodes about a node's services up to a second after they start (a debounced
 * INFO). The side node's services emit as they start (the catalog's `market.opened`, the demo
 * maker's orders), and the main node's book answers those by calling the catalog: each service is
 * announced as soon as it started, so the main node knows it before it hears from it.
 */
const AnnounceEachService = ((broker: ServiceBroker) => ({
  name: "AnnounceEachService",
  serviceStarted: () =>
    (broker.registry as unknown as { discoverer: { sendLocalNodeInfo(): Promise<void> } }).discoverer.sendLocalNodeInfo(),
})) as unknown as Middleware;

function metricsOf(cfg: AppConfig, port: number): BrokerOptions["metrics"] {
  return cfg.metrics.enabled
    ? { enabled: true, reporter: [{ type: "Prometheus", options: { port, path: "/metrics" } }] }
    : { enabled: false };
}

/** What every node of the exchange shares. */
function commonOptions(cfg: AppConfig): BrokerOptions {
  return {
    namespace: "pmx",
    logger: cfg.logLevel === false ? false : { type: "Console", options: { level: cfg.logLevel, formatter: "short" } },
    cacher: cfg.redisUrl ? { type: "Redis", options: { redis: cfg.redisUrl, prefix: "pmx-cache" } } : "Memory",
    serializer: "JSON",
    // A UUID per context was ~2.5% of an order's CPU; these ids only need to be unique.
    uidGenerator: brokerUidGenerator(),
    // Withdrawals wait on the chain; everything else answers in well under a second.
    requestTimeout: 15_000,
    // Calls are retried by the callers that own an idempotency key, never blindly here.
    retryPolicy: { enabled: false },
    // Market actions choose their node themselves (MarketRouting); the rest balance round-robin.
    registry: { strategy: "RoundRobin", preferLocal: true },
    circuitBreaker: { enabled: false },
    // On SIGTERM, stop() waits for requests in flight (graceful drain) before leaving.
    tracking: { enabled: true, shutdownTimeout: 10_000 },
    // A SIGKILLed node sends no goodbye: it is noticed when its heartbeats stop (within 3-4 s), its
    // pending requests then fail at once (RequestRejectedError -> 503) and its markets move.
    heartbeatInterval: 1,
    heartbeatTimeout: 3,
    // Custom checkers that convert (lib/params.ts: one canonical form for numeric parameters).
    validator: { type: "Fastest", options: VALIDATOR_OPTIONS },
  };
}
