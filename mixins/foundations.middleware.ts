/**
 * The start check (ledger/foundations.ts) before any service opens a file: the money store vouches
 * for the users, markets, events, deposit addresses, chain state and master secret this node's
 * services start from. Embedded: the NeDB files under DATA_DIR, read as they are (no NeDB load,
 * which would rewrite them) and the sandbox chain's files; scaled out: the MongoDB collections.
 * A refusal is a StoreDamaged: the start stops with its message.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Middleware, ServiceBroker } from "moleculer";
import type { AppConfig } from "../lib/config";
import { KeyRing } from "../chain/keys";
import { inspectSandboxState } from "../chain/sandbox";
import { checkFoundations, type FoundationFiles, type FoundationPorts, type PieceReader, type ServiceFiles } from "../ledger/foundations";
import { MongoMoneyStore } from "../ledger/mongo-store";
import { SqliteMoneyStore } from "../ledger/sqlite-store";
import type { MoneyStore } from "../ledger/store";
import { mongoStore, openMongoCollection } from "../lib/mongo-store";

/** The collections of each service a data dir that has run must still hold (NeDB writes each file when it opens it). */
export const REQUIRED_PIECES: Record<string, string[]> = {
  auth: ["users", "sessions", "usedProofs"],
  catalog: ["events", "markets", "catalogMeta"],
  chain: ["depositAddresses", "chainMeta", "withdrawals"],
};

type NedbDoc = { _id: string } & Record<string, unknown>;

/**
 * A NeDB file as NeDB reads it (later lines replace earlier ones, `$$deleted` removes), or why it
 * is damaged: a line that is not a document before the last one (only the last may be torn by a crash).
 */
export function readNedbFile(path: string): { docs: Map<string, NedbDoc> } | { damaged: string } {
  const docs = new Map<string, NedbDoc>();
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let doc: NedbDoc & { $$deleted?: boolean; $$indexCreated?: unknown; $$indexRemoved?: unknown };
    try {
      doc = JSON.parse(line);
      if (!doc || typeof doc !== "object") throw new Error("not a document");
    } catch {
      if (lines.slice(i + 1).some((l) => l.trim())) return { damaged: `line ${i + 1} is not a document` };
      continue;
    }
    if (doc.$$indexCreated !== undefined || doc.$$indexRemoved !== undefined) continue;
    if (typeof doc._id !== "string") return { damaged: `line ${i + 1} has no _id` };
    if (doc.$$deleted === true) docs.delete(doc._id);
    else docs.set(doc._id, doc);
  }
  return { docs };
}

function mapReader<T>(where: string, docs: Map<string, NedbDoc>): PieceReader<T> {
  return {
    where,
    byIds: async (ids) => new Map(ids.filter((id) => docs.has(id)).map((id) => [id, docs.get(id) as unknown as T])),
  };
}

function chainPort(cfg: AppConfig, stateDir: string | null): FoundationPorts["chain"] {
  if (!cfg.services.includes("chain") || !cfg.ton.masterSecret) return undefined;
  const keys = new KeyRing(cfg.ton.masterSecret);
  return {
    where: stateDir ?? "(not kept here)",
    state: stateDir ? async () => inspectSandboxState(stateDir) : null,
    hotWallet: async () => (await keys.wallet("hot")).address.toRawString(),
    depositAddress: async (index) => (await keys.deposit(index)).address.toRawString(),
  };
}

function moneyPort(store: MoneyStore): FoundationPorts["money"] {
  return {
    location: store.location,
    facts: () => store.foundationFacts(),
    fingerprint: (name) => store.fingerprint(name),
    recordFingerprint: (name, value) => store.recordFingerprint(name, value),
  };
}

/** The embedded data dir: its money store, NeDB files and sandbox chain. */
async function checkDataDir(cfg: AppConfig): Promise<void> {
  const dir = cfg.dataDir;
  // Fresh means no format record yet (the ledger writes it once this check passed): a refused start stays refused.
  const store = SqliteMoneyStore.open(dir, { fsync: cfg.journalFsync, writerThread: false });
  try {
    const files: FoundationFiles = {
      services: [],
      present: [],
      damaged: [],
      make: async (paths) => {
        if (!paths.length) return;
        for (const path of paths) closeSync(openSync(path, "a"));
        syncDir(dir);
      },
    };
    const pieces = new Map<string, Map<string, NedbDoc>>();
    for (const service of cfg.services) {
      if (!REQUIRED_PIECES[service]) continue;
      const group: ServiceFiles = { service, existing: [], missing: [] };
      files.services.push(group);
      for (const name of REQUIRED_PIECES[service]) {
        const file = join(dir, `${name}.db`);
        if (!existsSync(file)) {
          group.missing.push(file);
          continue;
        }
        group.existing.push(file);
        const read = readNedbFile(file);
        if ("damaged" in read) files.damaged.push({ file, why: read.damaged });
        else {
          pieces.set(name, read.docs);
          if (read.docs.size) files.present.push(file);
        }
      }
    }
    const chainDir = cfg.chain === "sandbox" ? join(dir, "chain") : null;
    if (chainDir && existsSync(join(chainDir, "sandbox-state.json"))) files.present.push(join(chainDir, "sandbox-state.json"));
    const reader = <T>(name: string) => {
      const docs = pieces.get(name);
      return docs ? mapReader<T>(join(dir, `${name}.db`), docs) : undefined;
    };
    await checkFoundations({
      money: moneyPort(store),
      files,
      users: reader("users"),
      markets: reader("markets"),
      events: reader("events"),
      depositAddresses: reader("depositAddresses"),
      chain: chainPort(cfg, cfg.services.includes("chain") ? chainDir : null),
    });
  } finally {
    await store.close();
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Scaled out: the money store and the pieces in MongoDB. */
async function checkMongo(cfg: AppConfig, broker: ServiceBroker, uri: string): Promise<void> {
  const store = await MongoMoneyStore.open(uri);
  const releases: Array<() => Promise<void>> = [];
  const reader = async <T>(name: string): Promise<PieceReader<T>> => {
    const { collection, release } = await openMongoCollection(broker, uri, name, []);
    releases.push(release);
    const s = mongoStore<NedbDoc>(collection);
    return {
      where: `the MongoDB collection ${name}`,
      byIds: async (ids) => {
        const found = new Map<string, T>();
        for (let i = 0; i < ids.length; i += 1000)
          for (const d of await s.find({ _id: { $in: ids.slice(i, i + 1000) } })) found.set(d._id, d as unknown as T);
        return found;
      },
    };
  };
  try {
    await checkFoundations({
      money: moneyPort(store),
      users: await reader("users"),
      markets: await reader("markets"),
      events: await reader("events"),
      depositAddresses: await reader("depositAddresses"),
      chain: chainPort(cfg, null),
    });
  } finally {
    for (const r of releases) await r().catch(() => undefined);
    await store.close();
  }
}

/** Runs after the data dir's lock is taken (it is registered after it) and before any service starts. */
export function createFoundationCheck(cfg: AppConfig): Middleware {
  return {
    name: "FoundationCheck",
    async starting(broker: ServiceBroker) {
      if (cfg.mongoUri) await checkMongo(cfg, broker, cfg.mongoUri);
      else if (cfg.dataDir !== ":memory:") await checkDataDir(cfg);
    },
  } as unknown as Middleware;
}

/** Whether this node starts from state the check covers: it keeps the money store, or runs the chain against a shared one. */
export function runsFoundationCheck(cfg: AppConfig): boolean {
  if (cfg.mongoUri) return cfg.services.includes("ledger") || cfg.services.includes("chain");
  return cfg.dataDir !== ":memory:" && cfg.services.includes("ledger");
}
