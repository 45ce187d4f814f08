/**
 * TON Connect `ton_proof` verification (pure; no network, no framework).
 *
 * The wallet signs sha256(0xffff ++ "ton-connect" ++ sha256(message)) where
 * message = "ton-proof-item-v2/" ++ wc(i32 BE) ++ hash(32) ++ domainLen(u32 LE)
 *           ++ domain ++ timestamp(u64 LE) ++ payload.
 * A valid signature alone proves nothing about the address, so the key is
 * also bound to the address (standard wallet derivation, or the StateInit).
 *
 * Replay: the caller must still check the payload is a nonce it issued and
 * consume it (and/or proofId) once.
 */
import { Address, Cell, loadStateInit } from "@ton/core";
import { sha256_sync } from "@ton/crypto";
import nacl from "tweetnacl";
import { WalletVersion, standardWallets, walletPublicKeyFromData, walletVersionOfCode } from "./wallets";

export interface ConnectProofDomain {
  lengthBytes: number;
  value: string;
}

export interface ConnectProofItem {
  timestamp: number;
  domain: ConnectProofDomain;
  payload: string;
  /** base64, 64 bytes */
  signature: string;
  /** base64 BOC of the wallet StateInit */
  stateInit?: string;
}

export interface ConnectProof {
  /** raw "0:hex" or user-friendly */
  address: string;
  /** hex, 32 bytes */
  publicKey: string;
  proof: ConnectProofItem;
}

export type ProofFailureReason =
  "MISSING_FIELDS" | "MALFORMED" | "STALE" | "FUTURE" | "DOMAIN_MISMATCH" | "BAD_SIGNATURE" | "KEY_ADDRESS_MISMATCH";

export type ProofVerdict =
  | {
      ok: true;
      address: Address;
      /** "wc:hex", lowercase: the canonical identity of the wallet */
      rawAddress: string;
      /** hex sha256 of the signature bytes, for one-time-use bookkeeping */
      proofId: string;
      /** how the key was bound to the address */
      walletVersion: WalletVersion;
      via: "derived" | "stateInit";
    }
  | { ok: false; reason: ProofFailureReason; message: string };

export interface VerifyTonProofOptions {
  /** expected dApp domain, compared exactly (e.g. "app.example.com" or "localhost:3000") */
  domain: string;
  nowSec: number;
  /** default 300 */
  maxAgeSec?: number;
  /** default 30 */
  futureSkewSec?: number;
}

export const TON_PROOF_PREFIX = "ton-proof-item-v2/";
export const TON_CONNECT_PREFIX = "ton-connect";
export const MAX_PAYLOAD_BYTES = 512;
export const MAX_DOMAIN_BYTES = 253;
/** Generous for a wallet StateInit (v4r2 is ~1 KB of base64); bounds BOC parsing work. */
export const MAX_STATE_INIT_BASE64 = 4096;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2})$/;
const RAW_ADDRESS = /^-?[0-9]{1,3}:[0-9a-fA-F]{64}$/;
// Ed25519 group order; S >= L is a malleated copy of a valid signature (tweetnacl accepts it).
const ED25519_L = (1n << 252n) + 27742317777372353535851937790883648493n;

type Fail = Extract<ProofVerdict, { ok: false }>;
const fail = (reason: ProofFailureReason, message: string): Fail => ({ ok: false, reason, message });

interface Parsed {
  address: Address;
  publicKey: Buffer;
  timestamp: number;
  domain: string;
  payload: string;
  signature: Buffer;
  stateInit: Cell | null;
}

export function verifyTonProof(req: ConnectProof, opts: VerifyTonProofOptions): ProofVerdict {
  const maxAgeSec = opts.maxAgeSec ?? 300;
  const futureSkewSec = opts.futureSkewSec ?? 30;
  if (!Number.isFinite(opts.nowSec) || !(maxAgeSec >= 0) || !(futureSkewSec >= 0) || !opts.domain) {
    throw new TypeError("verifyTonProof: invalid options");
  }

  // Shape first: the request is untrusted JSON whatever its static type says.
  const parsed = parseRequest(req as unknown);
  if ("ok" in parsed) return parsed;

  // (a) freshness
  const age = opts.nowSec - parsed.timestamp;
  if (age > maxAgeSec) return fail("STALE", `proof is ${age}s old (max ${maxAgeSec}s)`);
  if (-age > futureSkewSec) return fail("FUTURE", `proof timestamp is ${-age}s in the future`);

  // (b) domain
  if (parsed.domain !== opts.domain) return fail("DOMAIN_MISMATCH", `proof was made for another domain; expected ${opts.domain}`);

  // (c) signature
  if (!isCanonicalSignature(parsed.signature)) return fail("BAD_SIGNATURE", "non-canonical signature");
  const digest = tonProofDigest(parsed.address, parsed.domain, parsed.timestamp, parsed.payload);
  if (!nacl.sign.detached.verify(digest, parsed.signature, parsed.publicKey)) {
    return fail("BAD_SIGNATURE", "signature does not verify");
  }

  // (d) key <-> address binding
  const binding = bindKeyToAddress(parsed);
  if (!binding) return fail("KEY_ADDRESS_MISMATCH", "public key does not control this address");

  return {
    ok: true,
    address: parsed.address,
    rawAddress: parsed.address.toRawString(),
    proofId: sha256_sync(parsed.signature).toString("hex"),
    walletVersion: binding.version,
    via: binding.via,
  };
}

/** The 32 bytes the wallet actually signs. Exported for diagnostics; tests use an independent signer. */
export function tonProofDigest(address: Address, domain: string, timestamp: number, payload: string): Buffer {
  const wc = Buffer.alloc(4);
  wc.writeInt32BE(address.workChain);
  const domainBytes = Buffer.from(domain, "utf8");
  const domainLen = Buffer.alloc(4);
  domainLen.writeUInt32LE(domainBytes.length);
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64LE(BigInt(timestamp));
  const message = Buffer.concat([
    Buffer.from(TON_PROOF_PREFIX, "utf8"),
    wc,
    address.hash,
    domainLen,
    domainBytes,
    ts,
    Buffer.from(payload, "utf8"),
  ]);
  const full = Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from(TON_CONNECT_PREFIX, "utf8"), sha256_sync(message)]);
  return sha256_sync(full);
}

function parseRequest(req: unknown): Parsed | Fail {
  if (!isObject(req)) return fail("MISSING_FIELDS", "body must be an object");
  const proof = req.proof;
  if (req.address == null || req.publicKey == null || !isObject(proof)) {
    return fail("MISSING_FIELDS", "address, publicKey and proof are required");
  }
  const domain = proof.domain;
  if (proof.timestamp == null || proof.payload == null || proof.signature == null || !isObject(domain)) {
    return fail("MISSING_FIELDS", "proof.timestamp, proof.domain, proof.payload and proof.signature are required");
  }
  if (domain.lengthBytes == null || domain.value == null) {
    return fail("MISSING_FIELDS", "proof.domain.lengthBytes and proof.domain.value are required");
  }

  const { address, publicKey } = req;
  const { timestamp, payload, signature } = proof;
  const rawStateInit = proof.stateInit;
  if (
    typeof address !== "string" ||
    typeof publicKey !== "string" ||
    typeof timestamp !== "number" ||
    typeof payload !== "string" ||
    typeof signature !== "string" ||
    typeof domain.lengthBytes !== "number" ||
    typeof domain.value !== "string" ||
    (rawStateInit != null && typeof rawStateInit !== "string")
  ) {
    return fail("MALFORMED", "field has the wrong type");
  }
  const stateInit = typeof rawStateInit === "string" ? rawStateInit : null;

  if (!HEX_KEY.test(publicKey)) return fail("MALFORMED", "publicKey must be 64 hex characters");
  if (signature.length > 88 || !BASE64.test(signature)) return fail("MALFORMED", "signature must be base64");
  const sig = Buffer.from(signature, "base64");
  if (sig.length !== 64) return fail("MALFORMED", "signature must be 64 bytes");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) return fail("MALFORMED", "timestamp must be a non-negative integer");

  // UTF-8 length >= UTF-16 length, so .length is a free upper-bound pre-check on huge strings.
  if (domain.value.length > MAX_DOMAIN_BYTES || payload.length > MAX_PAYLOAD_BYTES) {
    return fail("MALFORMED", "domain or payload too long");
  }
  const domainBytes = Buffer.byteLength(domain.value, "utf8");
  if (domainBytes === 0 || domainBytes > MAX_DOMAIN_BYTES) return fail("MALFORMED", "domain has an invalid length");
  if (domain.lengthBytes !== domainBytes) return fail("MALFORMED", "domain.lengthBytes does not match the domain");
  if (Buffer.byteLength(payload, "utf8") > MAX_PAYLOAD_BYTES) return fail("MALFORMED", `payload exceeds ${MAX_PAYLOAD_BYTES} bytes`);

  const addr = parseAddress(address);
  if (!addr) return fail("MALFORMED", "address is not a valid TON address");

  let stateInitCell: Cell | null = null;
  if (stateInit !== null) {
    if (stateInit.length > MAX_STATE_INIT_BASE64 || !BASE64.test(stateInit)) return fail("MALFORMED", "stateInit must be base64");
    try {
      const roots = Cell.fromBoc(Buffer.from(stateInit, "base64"));
      if (roots.length !== 1) return fail("MALFORMED", "stateInit must hold exactly one root cell");
      stateInitCell = roots[0];
    } catch {
      return fail("MALFORMED", "stateInit is not a valid BOC");
    }
  }

  return {
    address: addr,
    publicKey: Buffer.from(publicKey, "hex"),
    timestamp,
    domain: domain.value,
    payload,
    signature: sig,
    stateInit: stateInitCell,
  };
}

function parseAddress(src: string): Address | null {
  if (!RAW_ADDRESS.test(src) && !Address.isFriendly(src)) return null;
  let addr: Address;
  try {
    addr = Address.parse(src);
  } catch {
    // parseFriendly can throw non-Error values; any throw means "not an address".
    return null;
  }
  // Only basechain and masterchain host wallets.
  return addr.workChain === 0 || addr.workChain === -1 ? addr : null;
}

function isCanonicalSignature(sig: Buffer): boolean {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  return s < ED25519_L;
}

function bindKeyToAddress(p: Parsed): { version: WalletVersion; via: "derived" | "stateInit" } | null {
  for (const w of standardWallets(p.publicKey, p.address.workChain)) {
    if (w.address.equals(p.address)) return { version: w.version, via: "derived" };
  }
  if (!p.stateInit) return null;

  // The address *is* the StateInit hash, so a matching StateInit fixes code and data.
  if (!p.stateInit.hash().equals(p.address.hash)) return null;
  try {
    const init = loadStateInit(p.stateInit.beginParse());
    if (!init.code || !init.data) return null;
    const version = walletVersionOfCode(init.code);
    if (!version) return null;
    const key = walletPublicKeyFromData(version, init.data);
    return key && key.equals(p.publicKey) ? { version, via: "stateInit" } : null;
  } catch {
    return null;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
