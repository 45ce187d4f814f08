/**
 * Secrets kept in the data dir (`DATA_DIR/secrets.json`) when the environment gives none: created
 * on the first start of an empty data dir, and never again over data they protect. Losing the file
 * while keeping the data must stop the start: new keys would make every token invalid and put the
 * deposit addresses and the hot wallet under other keys, while the ledger still owes users.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DATA_FILE_MODE, makeDataDir } from "./data-dir";

export interface SecretSpec {
  /** Key in secrets.json. */
  name: string;
  /** The variable that gives it instead. */
  env: string;
  /** What it protects, for the refusal message. */
  what: string;
}

export const JWT_SECRET_SPEC: SecretSpec = { name: "jwtSecret", env: "JWT_SECRET", what: "the key that signs login tokens" };
export const MASTER_SECRET_SPEC: SecretSpec = {
  name: "chainMasterSecret",
  env: "MASTER_SECRET",
  what: "the chain master secret every deposit address and the hot wallet derive from",
};

export const SECRETS_FILE = "secrets.json";

/** The data dir holds something other than the secrets file (dotfiles aside). */
function existingData(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir)
    .filter((n) => n !== SECRETS_FILE && !n.startsWith("."))
    .sort();
}

function readSecrets(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file} is damaged (${(err as Error).message}): restore it from a backup; the keys in it cannot be made again.`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error(`${file} is damaged (not a JSON object): restore it from a backup.`);
  return parsed as Record<string, string>;
}

/** Replace the file whole: a crash leaves the old file or the new one, never half of one. */
function writeSecrets(dataDir: string, secrets: Record<string, string>): void {
  makeDataDir(dataDir);
  const file = join(dataDir, SECRETS_FILE);
  const tmp = join(dataDir, `.${SECRETS_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: DATA_FILE_MODE });
  const fd = openSync(tmp, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dir = openSync(dataDir, "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * The secrets `needed` (those the environment does not give), read from the data dir's secrets
 * file; the missing ones are generated only while the data dir holds nothing else. Otherwise the
 * start is refused with what to do.
 */
export function dataDirSecrets(dataDir: string, needed: SecretSpec[]): Record<string, string> {
  const file = join(dataDir, SECRETS_FILE);
  const secrets = readSecrets(file);
  const missing = needed.filter((s) => typeof secrets[s.name] !== "string" || !secrets[s.name]);
  if (!missing.length) return secrets;
  const data = existingData(dataDir);
  if (data.length) {
    const shown = data.length > 5 ? `${data.slice(0, 5).join(", ")}, ... (${data.length} entries)` : data.join(", ");
    const lost = existsSync(file) ? `${file} has no ${missing.map((s) => s.name).join(" or ")}` : `${file} is missing`;
    throw new Error(
      `Refusing to start: DATA_DIR ${dataDir} holds data of an earlier run (${shown}) but ${lost}. ` +
        `New keys would not match that data (${missing.map((s) => s.what).join("; ")}): every session would be refused and on-chain balances would sit under keys this server no longer has. ` +
        `Restore ${file} from a backup, or set ${missing.map((s) => s.env).join(" and ")} to the value(s) this data was created with. ` +
        `To start afresh instead, point DATA_DIR at an empty directory.`,
    );
  }
  for (const s of missing) secrets[s.name] = randomBytes(32).toString("hex");
  writeSecrets(dataDir, secrets);
  return secrets;
}

/**
 * A secret that protects no stored data (a new one is harmless, e.g. an operator key): read from
 * the secrets file, generated into it when absent, whatever else the data dir holds.
 */
export function persistentSecret(dataDir: string, name: string, bytes = 32, onCreate?: () => void): string {
  const secrets = readSecrets(join(dataDir, SECRETS_FILE));
  if (!secrets[name]) {
    secrets[name] = randomBytes(bytes).toString("hex");
    writeSecrets(dataDir, secrets);
    onCreate?.();
  }
  return secrets[name];
}
