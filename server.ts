import { ServiceBroker } from "moleculer";
import { createBrokerOptions } from "./moleculer.config";
import { bindConfig, loadConfig, type AppConfig } from "./lib/config";
import { SERVICE_SCHEMAS } from "./services";
import { registerExchangeMetrics } from "./lib/metrics";

interface GatewayAddress {
  publicAddress(): { url: string; domain: string } | null;
}

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

/** What a person starting the node needs to know: where it answers, to what, where its data is. */
export function startupBanner(cfg: AppConfig, broker: ServiceBroker): string[] {
  const api = broker.getLocalService("api") as unknown as GatewayAddress | undefined;
  const at = api?.publicAddress();
  const lines = [at ? `Exchange ready at ${at.url}  (REST ${at.url}/api/v1, Socket.IO path /ws, ${at.url}/health)` : `Node ${broker.nodeID} ready: ${cfg.services.join(", ")}`];
  if (at) lines.push(`  login domain  ${at.domain}${cfg.appDomain ? " (APP_DOMAIN)" : " (the listening address; APP_DOMAIN sets another)"}`);
  lines.push(`  data dir      ${cfg.mongoUri ? "MongoDB (MONGO_URI)" : cfg.dataDir}`);
  lines.push(`  chain         ${cfg.chain === "sandbox" ? `sandbox: TON emulator in this process, ${cfg.ton.testnet ? "testnet" : "mainnet"} addresses, faucet at /api/v1/sandbox/faucet` : `TON ${cfg.ton.testnet ? "testnet" : "mainnet"} via ${cfg.ton.endpoint}`}`);
  if (!at) return lines;
  if (!cfg.adminKey) lines.push("  operator      API off (ADMIN_KEY sets a key); console: npm run repl");
  else {
    const where = cfg.adminKeyFrom === "env" ? "the key in ADMIN_KEY" : `the key in ${cfg.dataDir}/secrets.json (\`npm run --silent admin-key\` prints it)`;
    lines.push(`  operator      API ${at.url}/api/v1/admin with header X-Admin-Key: ${where}; console: npm run repl`);
    // The one time a generated key is shown: at its creation.
    if (cfg.adminKeyFrom === "generated") lines.push(`  operator key  ${cfg.adminKey}  (generated now, shown once)`);
  }
  return lines;
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
  // Printed even with LOG_LEVEL=false: it is for the person who started the node, not a log line.
  process.stdout.write(`\n${startupBanner(cfg, broker).join("\n")}\n\n`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
