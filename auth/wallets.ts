/**
 * Standard TON wallet helpers: thin wrappers over @ton/ton wallet contracts.
 * Address derivation and code come from the library; only the data-cell
 * layouts (to read a public key out of a StateInit) are spelled out here.
 */
import { Address, Cell, CellType, Slice } from "@ton/core";
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton";

export type WalletVersion = "v3r2" | "v4r2" | "v5r1";
export const WALLET_VERSIONS: readonly WalletVersion[] = ["v3r2", "v4r2", "v5r1"];

/** network_global_id values baked into v5r1 wallet ids. */
export const MAINNET_GLOBAL_ID = -239;
export const TESTNET_GLOBAL_ID = -3;

export interface WalletOptions {
  workchain?: number;
  /** Only changes v5r1 (its wallet id embeds the network); v3/v4 addresses are network-agnostic. */
  testnet?: boolean;
}

export interface WalletInit {
  address: Address;
  init: { code: Cell; data: Cell };
}

/** The @ton/ton contract for a key with default subwallet ids. */
export function walletContract(publicKey: Buffer, version: WalletVersion, opts: WalletOptions = {}): WalletInit {
  assertKey(publicKey);
  const workchain = opts.workchain ?? 0;
  switch (version) {
    case "v3r2":
      return WalletContractV3R2.create({ workchain, publicKey });
    case "v4r2":
      return WalletContractV4.create({ workchain, publicKey });
    case "v5r1":
      // Pass the context explicitly: create() otherwise pins context.workchain to 0
      // even for masterchain wallets, which is not what wallet apps derive.
      return WalletContractV5R1.create({
        publicKey,
        walletId: {
          networkGlobalId: opts.testnet ? TESTNET_GLOBAL_ID : MAINNET_GLOBAL_ID,
          context: { workchain, walletVersion: "v5r1", subwalletNumber: 0 },
        },
      });
  }
}

export function walletAddress(publicKey: Buffer, version: WalletVersion, opts: WalletOptions = {}): Address {
  return walletContract(publicKey, version, opts).address;
}

/** Every address a standard wallet app may show for this key: v3r2, v4r2, v5r1 mainnet, v5r1 testnet. */
export function standardWalletAddresses(publicKey: Buffer, workchain: number): Address[] {
  return standardWallets(publicKey, workchain).map((w) => w.address);
}

/** Same as standardWalletAddresses, labelled with the version each address came from. */
export function standardWallets(publicKey: Buffer, workchain: number): { version: WalletVersion; testnet: boolean; address: Address }[] {
  return [
    { version: "v3r2", testnet: false, address: walletAddress(publicKey, "v3r2", { workchain }) },
    { version: "v4r2", testnet: false, address: walletAddress(publicKey, "v4r2", { workchain }) },
    { version: "v5r1", testnet: false, address: walletAddress(publicKey, "v5r1", { workchain, testnet: false }) },
    { version: "v5r1", testnet: true, address: walletAddress(publicKey, "v5r1", { workchain, testnet: true }) },
  ];
}

export function friendly(address: Address, opts: { testOnly?: boolean; bounceable?: boolean } = {}): string {
  return address.toString({ urlSafe: true, testOnly: opts.testOnly ?? false, bounceable: opts.bounceable ?? true });
}

/** Lowercase "wc:hex" form; @ton/core already emits lowercase hex. */
export function rawAddress(address: Address): string {
  return address.toRawString();
}

let codeHashes: Map<string, WalletVersion> | undefined;

/** Code hashes of the supported wallet contracts, taken from @ton/ton (never hard-coded). */
function knownCodeHashes(): Map<string, WalletVersion> {
  if (!codeHashes) {
    const probe = Buffer.alloc(32);
    codeHashes = new Map(WALLET_VERSIONS.map((v) => [walletContract(probe, v).init.code.hash().toString("hex"), v]));
  }
  return codeHashes;
}

/**
 * Which standard wallet this code cell is. Accepts the code itself or a library cell
 * pointing at it (wallet apps deploy W5 that way); a library cell commits to the code hash.
 */
export function walletVersionOfCode(code: Cell): WalletVersion | null {
  let hash: Buffer;
  if (code.type === CellType.Library) {
    if (code.bits.length !== 8 + 256 || code.refs.length !== 0) return null;
    hash = code.beginParse(true).skip(8).loadBuffer(32);
  } else if (!code.isExotic) {
    hash = code.hash();
  } else {
    return null;
  }
  return knownCodeHashes().get(hash.toString("hex")) ?? null;
}

/**
 * Public key stored in a standard wallet's data cell, or null if the layout does not fit.
 * v3r2: seqno u32, subwallet u32, pubkey 256.  v4r2: same + plugins dict.
 * v5r1: signature_allowed bit, seqno u32, wallet_id i32, pubkey 256, extensions dict.
 */
export function walletPublicKeyFromData(version: WalletVersion, data: Cell): Buffer | null {
  try {
    const s = data.beginParse();
    if (version === "v5r1") {
      // A W5 with signatures disabled is not controlled by its key at all.
      if (!s.loadBit()) return null;
      s.skip(32 + 32);
      const key = s.loadBuffer(32);
      return endsWithOptionalDict(s) ? key : null;
    }
    s.skip(32 + 32);
    const key = s.loadBuffer(32);
    if (version === "v4r2") return endsWithOptionalDict(s) ? key : null;
    return s.remainingBits === 0 && s.remainingRefs === 0 ? key : null;
  } catch {
    return null;
  }
}

function endsWithOptionalDict(s: Slice): boolean {
  if (s.remainingBits !== 1) return false;
  const hasDict = s.loadBit();
  return hasDict ? s.remainingRefs === 1 : s.remainingRefs === 0;
}

function assertKey(publicKey: Buffer): void {
  if (!Buffer.isBuffer(publicKey) || publicKey.length !== 32) throw new TypeError("public key must be 32 bytes");
}
