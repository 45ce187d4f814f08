import { ServiceBroker } from "moleculer";
import { createBrokerOptions, type NodeTopology } from "./moleculer.config";
import { bindConfig, type AppConfig } from "./lib/config";
import { SERVICE_SCHEMAS } from "./services";
import { registerExchangeMetrics } from "./lib/metrics";
import DemoTraderService from "./services/demo-trader.service";

/** What the demo's background trader trades through; it runs where the process runs all of them. */
const DEMO_TRADER_NEEDS = ["auth", "catalog", "router", "ledger", "chain"] as const;

/** Whether a process with this configuration runs the demo's background trader. */
export function runsDemoTrader(cfg: AppConfig): boolean {
  return cfg.demoTrader && DEMO_TRADER_NEEDS.every((n) => cfg.services.includes(n));
}

/**
 * Build one node: its broker and the services its configuration selects (not started); `prepare`
 * runs on the broker before its services are created.
 * Moleculer's own SIGINT/SIGTERM handlers are off: the process that runs the node stops it once
 * (server.ts `stopOnSignals`); with both, every service was stopped twice.
 */
export function buildNode(
  cfg: AppConfig,
  topology: NodeTopology = { role: "single" },
  prepare?: (broker: ServiceBroker) => void,
): ServiceBroker {
  const broker = new ServiceBroker({ ...createBrokerOptions(cfg, topology), skipProcessEventRegistration: true });
  bindConfig(broker, cfg);
  // What the services read of the node as they are created (the side node's shared counts).
  prepare?.(broker);
  registerExchangeMetrics(broker);
  for (const name of cfg.services) {
    const schema = SERVICE_SCHEMAS[name];
    if (schema) broker.createService(schema);
  }
  // The demo's background trader (the embedded demo): on the side node when there is one, since it
  // waits for the catalog and chain before it starts and is no part of the order path.
  const demo = topology.role === "single" ? runsDemoTrader(cfg) : topology.role === "side" && topology.demoTrader;
  if (demo) broker.createService(DemoTraderService);
  return broker;
}
