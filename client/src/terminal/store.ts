/**
 * Local files of the CLI, kept owner-only (0600 in a 0700 directory): the wallet key file and
 * the sessions (one per exchange URL). Their secrets are read here and never printed.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { keyPairFromSecretKey, walletAddress, type KeyPair, type WalletVersion } from "../proof";
import type { Session } from "../models";

export interface WalletFile {
  kind: "pmx-wallet";
  version: 1;
  walletVersion: WalletVersion;
  workchain: number;
  /** v5r1 only: the address of the test-network wallet id. */
  testnet: boolean;
  /** Raw "0:<hex>". */
  address: string;
  publicKey: string;
  /** 64-byte ed25519 secret key, hex. */
  secretKey: string;
  /** The 24 words, when the key came from (or was made as) a TON mnemonic. */
  mnemonic?: string[];
  createdAt: string;
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreError";
  }
}

function writePrivate(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function walletFileFor(
  keyPair: KeyPair,
  opts: { walletVersion: WalletVersion; workchain?: number; testnet?: boolean; mnemonic?: string[] },
): WalletFile {
  const workchain = opts.workchain ?? 0;
  const testnet = opts.testnet ?? false;
  return {
    kind: "pmx-wallet",
    version: 1,
    walletVersion: opts.walletVersion,
    workchain,
    testnet,
    address: walletAddress(keyPair.publicKey, { version: opts.walletVersion, workchain, testnet }).toRawString(),
    publicKey: Buffer.from(keyPair.publicKey).toString("hex"),
    secretKey: Buffer.from(keyPair.secretKey).toString("hex"),
    ...(opts.mnemonic ? { mnemonic: opts.mnemonic } : {}),
    createdAt: new Date().toISOString(),
  };
}

export function saveWallet(file: string, w: WalletFile, overwrite: boolean): void {
  if (existsSync(file) && !overwrite)
    throw new StoreError(
      `a wallet key file already exists at ${file}; pass --force to replace it (the old key is lost unless you kept a copy)`,
    );
  writePrivate(file, JSON.stringify(w, null, 2) + "\n");
}

export function loadWallet(file: string): { file: WalletFile; keyPair: KeyPair } {
  if (!existsSync(file)) throw new StoreError(`no wallet key file at ${file}: run \`trade wallet create\` or \`trade wallet import\``);
  let w: WalletFile;
  try {
    w = JSON.parse(readFileSync(file, "utf8")) as WalletFile;
  } catch {
    throw new StoreError(`${file} is not a wallet key file (invalid JSON)`);
  }
  if (w?.kind !== "pmx-wallet" || typeof w.secretKey !== "string" || !/^[0-9a-f]{128}$/i.test(w.secretKey))
    throw new StoreError(`${file} is not a wallet key file`);
  const keyPair = keyPairFromSecretKey(Buffer.from(w.secretKey, "hex"));
  if (Buffer.from(keyPair.publicKey).toString("hex") !== w.publicKey.toLowerCase())
    throw new StoreError(`${file} is damaged: its public key does not match its secret key`);
  return { file: w, keyPair };
}

type Sessions = Record<string, Session>;

function readSessions(file: string): Sessions {
  if (!existsSync(file)) return {};
  try {
    const s = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return s && typeof s === "object" && !Array.isArray(s) ? (s as Sessions) : {};
  } catch {
    return {};
  }
}

export function loadSession(file: string, origin: string): Session | null {
  const s = readSessions(file)[origin];
  return s && typeof s.accessToken === "string" && typeof s.expiresAt === "number" ? s : null;
}

export function saveSession(file: string, origin: string, session: Session | null): void {
  const all = readSessions(file);
  if (session) all[origin] = session;
  else delete all[origin];
  writePrivate(file, JSON.stringify(all, null, 2) + "\n");
}
