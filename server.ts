import { ServiceBroker } from "moleculer";
import { createBrokerOptions } from "./moleculer.config";
import { bindConfig, loadConfig, type AppConfig } from "./lib/config";
import { SERVICE_SCHEMAS } from "./services";
import { registerExchangeMetrics } from "./lib/metrics";

/**
 * Build one node: its broker and the services its configuration selects (not started).
 * Moleculer's own SIGINT/SIGTERM handlers are off: the process that runs the node stops it once
 * (`stopOnSignals`); with both, every service was stopped twice.
 */
export function createNode(cfg: AppConfig): ServiceBroker {
  const broker = new ServiceBroker({ ...createBrokerOptions(cfg), skipProcessEventRegistration: true });
  bindConfig(broker, cfg);
  registerExchangeMetrics(broker);
  for (const name of cfg.services) {
    const schema = SERVICE_SCHEMAS[name];
    if (schema) broker.createService(schema);
  }
  return broker;
}

/**
 * Drain in-flight work and exit on SIGTERM/SIGINT (Kubernetes sends SIGTERM before killing the
 * pod) and on the extra events given (e.g. a forked node's `disconnect`); the first one wins.
 */
export function stopOnSignals(broker: ServiceBroker, extra: string[] = []): void {
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    broker.logger.info(`${why} received, stopping`);
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const ev of ["SIGTERM", "SIGINT", ...extra]) process.once(ev, () => stop(ev));
}

async function main(): Promise<void> {
  let cfg: AppConfig;
  try {
    cfg = loadConfig();
  } catch (err) {
    // A setting or the data dir refuses the start: the reason is the whole message.
    console.error((err as Error).message);
    process.exit(1);
  }
  const broker = createNode(cfg);
  stopOnSignals(broker);
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
