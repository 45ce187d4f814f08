/**
 * Wallet-proof login without a wallet app: key pairs, standard wallet addresses, and the TON
 * Connect `ton_proof` the server verifies. Written from the TON Connect specification:
 *
 *   message   = "ton-proof-item-v2/" ++ workchain (i32 BE) ++ address hash (32 bytes)
 *               ++ domain length (u32 LE) ++ domain ++ timestamp (u64 LE) ++ payload
 *   signature = ed25519( sha256( 0xffff ++ "ton-connect" ++ sha256(message) ) )
 *
 * The server also checks that the key owns the address, so the address must be the standard
 * wallet contract of the key (v4r2 or v5r1 here; others can send `stateInit`).
 *
 * Runs in Node 20 and in browsers (with a global `Buffer`, which @ton/core needs there anyway):
 * randomness comes from Web Crypto, which both have.
 */
import { Address, beginCell, Cell, contractAddress, storeStateInit } from "@ton/core";
import { mnemonicNew, mnemonicToPrivateKey, mnemonicValidate, sha256_sync } from "@ton/crypto";
import nacl from "tweetnacl";
import type { ConnectRequest, TonProof } from "./models";

export type WalletVersion = "v4r2" | "v5r1";
export const WALLET_VERSIONS: readonly WalletVersion[] = ["v4r2", "v5r1"];

export interface KeyPair {
  /** 32 bytes. */
  publicKey: Uint8Array;
  /** 64 bytes, tweetnacl form (seed ++ public key). */
  secretKey: Uint8Array;
}

export interface WalletOptions {
  version?: WalletVersion;
  workchain?: number;
  /** v5r1 only: its wallet id embeds the network. */
  testnet?: boolean;
}

// Wallet contract code as published by the wallet authors (the same cells @ton/ton ships).
const V4R2_CODE_B64 =
  "te6ccgECFAEAAtQAART/APSkE/S88sgLAQIBIAIDAgFIBAUE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAubQAdDTAyFxsJJfBOAi10nBIJJfBOAC0x8hghBwbHVnvSKCEGRzdHK9sJJfBeAD+kAwIPpEAcjKB8v/ydDtRNCBAUDXIfQEMFyBAQj0Cm+hMbOSXwfgBdM/yCWCEHBsdWe6kjgw4w0DghBkc3RyupJfBuMNBgcCASAICQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAKCwBZvSQrb2omhAgKBrkPoCGEcNQICEekk30pkQzmkD6f+YN4EoAbeBAUiYcVnzGEAgFYDA0AEbjJftRNDXCx+AA9sp37UTQgQFA1yH0BDACyMoHy//J0AGBAQj0Cm+hMYAIBIA4PABmtznaiaEAga5Drhf/AABmvHfaiaEAQa5DrhY/AAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVA==";
const V5R1_CODE_HEX =
  "b5ee9c7241021401000281000114ff00f4a413f4bcf2c80b01020120020d020148030402dcd020d749c120915b8f6320d70b1f2082106578746ebd21821073696e74bdb0925f03e082106578746eba8eb48020d72101d074d721fa4030fa44f828fa443058bd915be0ed44d0810141d721f4058307f40e6fa1319130e18040d721707fdb3ce03120d749810280b99130e070e2100f020120050c020120060902016e07080019adce76a2684020eb90eb85ffc00019af1df6a2684010eb90eb858fc00201480a0b0017b325fb51341c75c875c2c7e00011b262fb513435c280200019be5f0f6a2684080a0eb90fa02c0102f20e011e20d70b1f82107369676ebaf2e08a7f0f01e68ef0eda2edfb218308d722028308d723208020d721d31fd31fd31fed44d0d200d31f20d31fd3ffd70a000af90140ccf9109a28945f0adb31e1f2c087df02b35007b0f2d0845125baf2e0855036baf2e086f823bbf2d0882292f800de01a47fc8ca00cb1f01cf16c9ed542092f80fde70db3cd81003f6eda2edfb02f404216e926c218e4c0221d73930709421c700b38e2d01d72820761e436c20d749c008f2e09320d74ac002f2e09320d71d06c712c2005230b0f2d089d74cd7393001a4e86c128407bbf2e093d74ac000f2e093ed55e2d20001c000915be0ebd72c08142091709601d72c081c12e25210b1e30f20d74a111213009601fa4001fa44f828fa443058baf2e091ed44d0810141d718f405049d7fc8ca0040048307f453f2e08b8e14038307f45bf2e08c22d70a00216e01b3b0f2d090e2c85003cf1612f400c9ed54007230d72c08248e2d21f2e092d200ed44d0d2005113baf2d08f54503091319c01810140d721d70a00f2e08ee2c8ca0058cf16c9ed5493f2c08de20010935bdb31e1d74cd0b4d6c35e";

let codes: Record<WalletVersion, Cell> | undefined;
function walletCode(version: WalletVersion): Cell {
  codes ??= {
    v4r2: Cell.fromBoc(Buffer.from(V4R2_CODE_B64, "base64"))[0],
    v5r1: Cell.fromBoc(Buffer.from(V5R1_CODE_HEX, "hex"))[0],
  };
  return codes[version];
}

const MAINNET_GLOBAL_ID = -239;
const TESTNET_GLOBAL_ID = -3;

function assertPublicKey(publicKey: Uint8Array): Buffer {
  if (publicKey.length !== 32) throw new TypeError("public key must be 32 bytes");
  return Buffer.from(publicKey);
}

/** The initial data cell of a standard wallet with default subwallet ids. */
function walletData(publicKey: Buffer, version: WalletVersion, workchain: number, testnet: boolean): Cell {
  if (version === "v4r2") {
    return beginCell()
      .storeUint(0, 32)
      .storeUint(698983191 + workchain, 32)
      .storeBuffer(publicKey)
      .storeBit(0)
      .endCell();
  }
  // v5r1 wallet id = network_global_id XOR client context (1 bit flag, i8 workchain, u8 version 0, u15 subwallet 0).
  const context = beginCell().storeUint(1, 1).storeInt(workchain, 8).storeUint(0, 8).storeUint(0, 15).endCell().beginParse().loadInt(32);
  const walletId = BigInt(testnet ? TESTNET_GLOBAL_ID : MAINNET_GLOBAL_ID) ^ BigInt(context);
  return beginCell().storeUint(1, 1).storeUint(0, 32).storeInt(walletId, 32).storeBuffer(publicKey, 32).storeBit(0).endCell();
}

export function walletStateInit(publicKey: Uint8Array, opts: WalletOptions = {}): { code: Cell; data: Cell } {
  const version = opts.version ?? "v4r2";
  return { code: walletCode(version), data: walletData(assertPublicKey(publicKey), version, opts.workchain ?? 0, opts.testnet ?? false) };
}

/** The standard wallet contract's address for this key (what wallet apps show). */
export function walletAddress(publicKey: Uint8Array, opts: WalletOptions = {}): Address {
  return contractAddress(opts.workchain ?? 0, walletStateInit(publicKey, opts));
}

/** Base64 BOC of the wallet's StateInit, for `proof.stateInit`. */
export function walletStateInitBase64(publicKey: Uint8Array, opts: WalletOptions = {}): string {
  return beginCell()
    .store(storeStateInit(walletStateInit(publicKey, opts)))
    .endCell()
    .toBoc()
    .toString("base64");
}

export function keyPairFromSeed(seed: Uint8Array): KeyPair {
  if (seed.length !== 32) throw new TypeError("seed must be 32 bytes");
  const kp = nacl.sign.keyPair.fromSeed(seed);
  return { publicKey: kp.publicKey, secretKey: kp.secretKey };
}

/** A 64-byte tweetnacl secret key, or a 32-byte seed. */
export function keyPairFromSecretKey(secret: Uint8Array): KeyPair {
  if (secret.length === 32) return keyPairFromSeed(secret);
  if (secret.length !== 64) throw new TypeError("secret key must be 64 bytes (or a 32-byte seed)");
  const kp = nacl.sign.keyPair.fromSecretKey(secret);
  return { publicKey: kp.publicKey, secretKey: kp.secretKey };
}

function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

export function randomKeyPair(): KeyPair {
  return keyPairFromSeed(randomBytes(32));
}

/** A new 24-word TON mnemonic (importable into wallet apps) and its key pair. */
export async function newMnemonic(): Promise<{ words: string[]; keyPair: KeyPair }> {
  const words = await mnemonicNew(24);
  return { words, keyPair: await keyPairFromMnemonic(words) };
}

export async function keyPairFromMnemonic(words: string[]): Promise<KeyPair> {
  if (!(await mnemonicValidate(words))) throw new TypeError("not a valid TON mnemonic");
  const kp = await mnemonicToPrivateKey(words);
  return { publicKey: new Uint8Array(kp.publicKey), secretKey: new Uint8Array(kp.secretKey) };
}

/** One-time proof payload: 32 random bytes, hex (a fresh one for every login). */
export function randomPayload(): string {
  return hex(randomBytes(32));
}

export interface ProofFields {
  /** Raw or friendly address the proof is for. */
  address: string | Address;
  /** The exchange's login domain (its APP_DOMAIN, e.g. "localhost:3000"). */
  domain: string;
  /** Unix seconds. */
  timestamp: number;
  payload: string;
}

function toAddress(a: string | Address): Address {
  return typeof a === "string" ? Address.parse(a) : a;
}

/** The exact `ton-proof-item-v2/` message (before hashing). */
export function tonProofMessage(f: ProofFields): Buffer {
  const address = toAddress(f.address);
  const wc = Buffer.alloc(4);
  wc.writeInt32BE(address.workChain);
  const domain = Buffer.from(f.domain, "utf8");
  const domainLen = Buffer.alloc(4);
  domainLen.writeUInt32LE(domain.length);
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64LE(BigInt(f.timestamp));
  return Buffer.concat([
    Buffer.from("ton-proof-item-v2/", "utf8"),
    wc,
    address.hash,
    domainLen,
    domain,
    ts,
    Buffer.from(f.payload, "utf8"),
  ]);
}

/** The 32 bytes a wallet signs: sha256(0xffff ++ "ton-connect" ++ sha256(message)). */
export function tonProofDigest(f: ProofFields): Buffer {
  return sha256_sync(Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from("ton-connect", "utf8"), sha256_sync(tonProofMessage(f))]));
}

/**
 * Something that can sign a proof digest: a local key, a hardware wallet, a remote signer.
 * `sign` gets the 32-byte digest and answers the 64-byte signature (bytes or base64).
 */
export interface ProofSigner {
  address: string | Address;
  /** Hex, 32 bytes. */
  publicKey: string;
  sign(digest: Uint8Array): Promise<Uint8Array | string> | Uint8Array | string;
  /** Base64 StateInit to send along (non-standard wallets). */
  stateInit?: string;
}

export interface BuildProofOptions {
  domain: string;
  /** Default: a fresh random one. */
  payload?: string;
  /** Default: now. */
  timestamp?: number;
  messengerInitData?: string;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/** A complete POST /auth/connect body, signed by any ProofSigner. */
export async function buildConnectRequest(signer: ProofSigner, opts: BuildProofOptions): Promise<ConnectRequest> {
  if (!opts.domain) throw new TypeError("the login domain is required");
  const address = toAddress(signer.address);
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const payload = opts.payload ?? randomPayload();
  const rawSig = await signer.sign(tonProofDigest({ address, domain: opts.domain, timestamp, payload }));
  const signature = typeof rawSig === "string" ? rawSig : Buffer.from(rawSig).toString("base64");
  const proof: TonProof = {
    timestamp,
    domain: { lengthBytes: Buffer.byteLength(opts.domain, "utf8"), value: opts.domain },
    payload,
    signature,
  };
  if (signer.stateInit) proof.stateInit = signer.stateInit;
  const body: ConnectRequest = { address: address.toRawString(), publicKey: signer.publicKey, proof };
  if (opts.messengerInitData) body.messengerInitData = opts.messengerInitData;
  return body;
}

/** A ProofSigner over a local key pair, for the key's standard wallet. */
export function keyPairSigner(keyPair: KeyPair, wallet: WalletOptions = {}): ProofSigner {
  return {
    address: walletAddress(keyPair.publicKey, wallet),
    publicKey: hex(keyPair.publicKey),
    sign: (digest) => nacl.sign.detached(digest, keyPair.secretKey),
  };
}

/** Shortcut: the signed POST /auth/connect body for a key pair's standard wallet. */
export function signConnectRequest(keyPair: KeyPair, opts: BuildProofOptions & { wallet?: WalletOptions }): Promise<ConnectRequest> {
  return buildConnectRequest(keyPairSigner(keyPair, opts.wallet), opts);
}
