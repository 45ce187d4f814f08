import { ServiceBroker } from "moleculer";
import { createBrokerOptions } from "./moleculer.config";
import { bindConfig, loadConfig, type AppConfig } from "./lib/config";
import { SERVICE_SCHEMAS } from "./services";
import { registerExchangeMetrics } from "./lib/metrics";

/** Build one node: its broker and the services its configuration selects (not started). */
export function createNode(cfg: AppConfig): ServiceBroker {
  const broker = new ServiceBroker(createBrokerOptions(cfg));
  bindConfig(broker, cfg);
  registerExchangeMetrics(broker);
  for (const name of cfg.services) {
    const schema = SERVICE_SCHEMAS[name];
    if (schema) broker.createService(schema);
  }
  return broker;
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const broker = createNode(cfg);
  // Drain in-flight work on SIGTERM/SIGINT (Kubernetes sends SIGTERM before killing the pod).
  const stop = (signal: string) => {
    broker.logger.info(`${signal} received, stopping`);
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  await broker.start();
  broker.logger.info(`Node ${broker.nodeID} up: ${cfg.services.join(", ")}; data in ${cfg.dataDir}; http port ${cfg.port}`);
}

if (require.main === module) {
  main().catch((err: Error) => {
    // A refusal that names its cause (a data dir in use, a damaged store) needs no stack trace.
    console.error(err?.name === "DataDirInUse" || err?.name === "StoreDamaged" ? `Not started: ${err.message}` : err);
    process.exit(1);
  });
}
