import type { BrokerOptions } from "moleculer";
import type { AppConfig } from "./lib/config";
import { AuthGuard } from "./mixins/guard.middleware";
import { BeforeStop } from "./mixins/before-stop.middleware";
import { createMarketRouting } from "./mixins/market-routing.middleware";
import { createDataDirLock } from "./mixins/data-dir-lock.middleware";
import { createFoundationCheck, runsFoundationCheck } from "./mixins/foundations.middleware";
import { Idempotency } from "./mixins/idempotency.middleware";
import { LocalSocketTransporter } from "./lib/local-transporter";
import { socketPathFor } from "./lib/data-dir";
import { brokerUidGenerator } from "./lib/ids";
import { VALIDATOR_OPTIONS } from "./lib/params";

/**
 * Broker options for one node, all read from the environment through AppConfig:
 * - no TRANSPORTER: every service in this process, no network between them;
 * - TRANSPORTER=nats://...: this node joins the cluster and runs only SERVICES;
 * - REDIS_URL: the cacher is shared by every node (memory otherwise).
 */
export function createBrokerOptions(cfg: AppConfig): BrokerOptions {
  const onDisk = cfg.dataDir !== ":memory:";
  // Embedded: no network transport, but a socket in the data dir (owner only) where operator tools
  // such as `npm run repl` join the running exchange instead of starting a second one; its
  // broadcasts stay local while no tool is joined.
  const hub = !cfg.transporter && onDisk ? new LocalSocketTransporter({ path: socketPathFor(cfg.dataDir), mode: "hub" }) : null;
  return {
    namespace: "pmx",
    nodeID: cfg.nodeId,
    transporter: cfg.transporter ?? hub,
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
    metrics: cfg.metrics.enabled
      ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: cfg.metrics.port, path: "/metrics" } }] }
      : { enabled: false },
    // The lock first: the start check reads the data dir only once this process owns it.
    middlewares: [
      ...(onDisk ? [createDataDirLock(cfg.dataDir)] : []),
      ...(hub ? [hub.broadcastsWhileAlone()] : []),
      ...(runsFoundationCheck(cfg) ? [createFoundationCheck(cfg)] : []),
      AuthGuard,
      Idempotency,
      createMarketRouting(),
      BeforeStop,
    ],
  };
}
