import type { ServiceBroker } from "moleculer";
import { dataDirOf, loadConfig, sideNodeSplit, type AppConfig } from "./lib/config";
import { checkStartSpace, diskFullOf } from "./lib/data-dir";
import type { LocalSocketTransporter } from "./lib/local-transporter";
import { buildNode, runsDemoTrader } from "./nodes";
import { SideNode, sideNodeOf } from "./side-node";

interface GatewayAddress {
  publicAddress(): { url: string; domain: string } | null;
}

/**
 * Build the process's node (not started): one node with every service SERVICES selects, or, embedded
 * with SIDE_NODE=thread, the main node (gateway and order path) with the side node (side-node.ts) in
 * a worker thread bound to it: started after it and stopped before it by its own start() and stop().
 * A side node that fails while running stops the process with a message.
 */
export function createNode(cfg: AppConfig): ServiceBroker {
  const split = SideNode.available() ? sideNodeSplit(cfg) : null;
  if (!split) return buildNode(cfg);
  let hub: LocalSocketTransporter | null = null;
  const broker = buildNode(split.main, { role: "main", whole: cfg, hub: (h) => (hub = h) });
  if (!hub) throw new Error("the main node has no hub for its side node");
  const side = new SideNode(split.side, hub, runsDemoTrader(cfg));
  side.bind(broker, (why) => {
    console.error(`The side node (${split.side.services.join(", ")}) failed: ${why}\nStopping the exchange.`);
    broker.stop().finally(() => process.exit(1));
  });
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

/** What a person starting the node needs to know: where it answers, to what, where its data is. */
export function startupBanner(cfg: AppConfig, broker: ServiceBroker): string[] {
  const api = broker.getLocalService("api") as unknown as GatewayAddress | undefined;
  const at = api?.publicAddress();
  const lines = [
    at
      ? `Exchange ready at ${at.url}  (REST ${at.url}/api/v1, Socket.IO path /ws, ${at.url}/health)`
      : `Node ${broker.nodeID} ready: ${cfg.services.join(", ")}`,
  ];
  if (at)
    lines.push(`  login domain  ${at.domain}${cfg.appDomain ? " (APP_DOMAIN)" : " (the listening address; APP_DOMAIN sets another)"}`);
  lines.push(`  data dir      ${cfg.mongoUri ? "MongoDB (MONGO_URI)" : cfg.dataDir}`);
  const side = sideNodeOf(broker);
  if (side) lines.push(`  side node     ${side.services.join(", ")} in a worker thread (SIDE_NODE=thread; off: one event loop)`);
  lines.push(
    `  chain         ${cfg.chain === "sandbox" ? `sandbox: TON emulator in this process, ${cfg.ton.testnet ? "testnet" : "mainnet"} addresses, faucet at /api/v1/sandbox/faucet` : `TON ${cfg.ton.testnet ? "testnet" : "mainnet"} via ${cfg.ton.endpoint}`}`,
  );
  if (!at) return lines;
  if (!cfg.adminKey) lines.push("  operator      API off (ADMIN_KEY sets a key); console: npm run repl");
  else {
    const where =
      cfg.adminKeyFrom === "env"
        ? "the key in ADMIN_KEY"
        : `the key in ${cfg.dataDir}/secrets.json (\`npm run --silent admin-key\` prints it)`;
    lines.push(`  operator      API ${at.url}/api/v1/admin with header X-Admin-Key: ${where}; console: npm run repl`);
    // The one time a generated key is shown: at its creation.
    if (cfg.adminKeyFrom === "generated") lines.push(`  operator key  ${cfg.adminKey}  (generated now, shown once)`);
  }
  return lines;
}

/** The data dir this start uses, or null when it keeps nothing on disk. */
function startDir(): string | null {
  const dir = dataDirOf(process.env);
  return dir === ":memory:" ? null : dir;
}

async function main(): Promise<void> {
  let cfg: AppConfig;
  const dir = startDir();
  try {
    // Before anything writes there (the secrets, the lock, the stores).
    if (dir) checkStartSpace(dir);
    cfg = loadConfig();
  } catch (err) {
    // A setting or the data dir refuses the start: the reason is the whole message.
    const full = dir ? diskFullOf(err, dir) : null;
    console.error(full ? `Not started: ${full.message}` : (err as Error).message);
    process.exit(1);
  }
  const broker = createNode(cfg);
  stopOnSignals(broker);
  await broker.start();
  // Printed even with LOG_LEVEL=false: it is for the person who started the node, not a log line.
  process.stdout.write(`\n${startupBanner(cfg, broker).join("\n")}\n\n`);
}

if (require.main === module) {
  main().catch((err: Error) => {
    // A refusal that names its cause (a data dir in use, a damaged store, a full disk) needs no stack trace.
    const dir = startDir();
    const full = dir ? diskFullOf(err, dir) : null;
    if (full) console.error(`Not started: ${full.message}`);
    else console.error(err?.name === "DataDirInUse" || err?.name === "StoreDamaged" ? `Not started: ${err.message}` : err);
    process.exit(1);
  });
}
