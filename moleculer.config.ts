import type { BrokerOptions } from "moleculer";
import type { AppConfig } from "./lib/config";
import { AuthGuard } from "./mixins/guard.middleware";
import { brokerUidGenerator } from "./lib/ids";
import { VALIDATOR_OPTIONS } from "./lib/params";

/**
 * Broker options for one node, all read from the environment through AppConfig:
 * - no TRANSPORTER: every service in this process, no network between them;
 * - TRANSPORTER=nats://...: this node joins the cluster and runs only SERVICES;
 * - REDIS_URL: the cacher is shared by every node (memory otherwise).
 */
export function createBrokerOptions(cfg: AppConfig): BrokerOptions {
  return {
    namespace: "pmx",
    nodeID: cfg.nodeId,
    transporter: cfg.transporter ?? null,
    logger: cfg.logLevel === false ? false : { type: "Console", options: { level: cfg.logLevel, formatter: "short" } },
    cacher: cfg.redisUrl ? { type: "Redis", options: { redis: cfg.redisUrl, prefix: "pmx-cache" } } : "Memory",
    serializer: "JSON",
    // A UUID per context was ~2.5% of an order's CPU; these ids only need to be unique.
    uidGenerator: brokerUidGenerator(),
    requestTimeout: 15_000,
    // Calls are retried by the callers that own an idempotency key, never blindly here.
    retryPolicy: { enabled: false },
    // In a cluster a local endpoint must not bypass the book's Shard strategy (market ownership).
    registry: { strategy: "RoundRobin", preferLocal: !cfg.transporter },
    circuitBreaker: { enabled: false },
    // On SIGTERM, stop() waits for requests in flight (graceful drain) before leaving.
    tracking: { enabled: true, shutdownTimeout: 10_000 },
    // A dead node is noticed within seconds, so its markets move to a live engine quickly.
    heartbeatInterval: 2,
    heartbeatTimeout: 6,
    // Custom checkers that convert (lib/params.ts: one canonical form for numeric parameters).
    validator: { type: "Fastest", options: VALIDATOR_OPTIONS },
    metrics: cfg.metrics.enabled ? { enabled: true, reporter: [{ type: "Prometheus", options: { port: cfg.metrics.port, path: "/metrics" } }] } : { enabled: false },
    middlewares: [AuthGuard],
  };
}
