/**
 * Every key of the chain service comes from one master secret by SLIP-0010 hardened ed25519
 * derivation (@ton/crypto's deriveEd25519Path), so backing up the secret backs up every wallet:
 *
 *   m/44'/607'/0'/<index>'  deposit wallet of the user with that derivation index
 *   m/44'/607'/1'/0'        hot wallet (receives sweeps, pays withdrawals)
 *   m/44'/607'/2'/0'        settlement operator wallet (commits trade batches)
 *   m/44'/607'/3'/0'        settlement registry (the address commitments are sent to)
 *
 * 607 is TON's SLIP-44 coin type. Wallets are standard v4r2 contracts (default subwallet id), so
 * any wallet app can import a derived key.
 */
import { Address, SendMode, type Cell, type MessageRelaxed } from "@ton/core";
import { deriveEd25519Path, keyPairFromSeed, type KeyPair } from "@ton/crypto";
import { WalletContractV4 } from "@ton/ton";
import { normalizedExternalHash } from "./tx";

export const TON_COIN_TYPE = 607;
export const PURPOSE = 44;
/** Hardened indices are below 2^31. */
export const MAX_DERIVATION_INDEX = 0x7fffffff;

export type WalletRole = "deposit" | "hot" | "operator" | "registry";
const ACCOUNT: Record<WalletRole, number> = { deposit: 0, hot: 1, operator: 2, registry: 3 };

export interface DerivedWallet {
  role: WalletRole;
  index: number;
  path: number[];
  keyPair: KeyPair;
  contract: WalletContractV4;
  address: Address;
}

export function derivationPath(role: WalletRole, index = 0): number[] {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DERIVATION_INDEX) throw new Error(`derivation index out of range: ${index}`);
  return [PURPOSE, TON_COIN_TYPE, ACCOUNT[role], index];
}

export function parseMasterSecret(hex: string): Buffer {
  if (!/^(?:[0-9a-fA-F]{2}){32,64}$/.test(hex)) throw new Error("master secret must be 32 to 64 bytes of hex");
  return Buffer.from(hex, "hex");
}

/**
 * Derives wallets from the master secret; results are cached (derivation is a few HMACs, but the
 * watcher asks for the same wallets over and over).
 */
export class KeyRing {
  private readonly seed: Buffer;
  private readonly cache = new Map<string, Promise<DerivedWallet>>();

  constructor(masterSecretHex: string) {
    this.seed = parseMasterSecret(masterSecretHex);
  }

  wallet(role: WalletRole, index = 0): Promise<DerivedWallet> {
    const path = derivationPath(role, index);
    const key = path.join("/");
    let p = this.cache.get(key);
    if (!p) {
      p = deriveEd25519Path(this.seed, path).then((seed) => {
        const keyPair = keyPairFromSeed(seed);
        const contract = WalletContractV4.create({ workchain: 0, publicKey: keyPair.publicKey });
        return { role, index, path, keyPair, contract, address: contract.address };
      });
      this.cache.set(key, p);
    }
    return p;
  }

  deposit(index: number): Promise<DerivedWallet> {
    return this.wallet("deposit", index);
  }
}

/** A wallet address as users see it: friendly, url-safe, non-bounceable, with the network's test flag. */
export function friendlyWallet(address: Address, testnet: boolean): string {
  return address.toString({ urlSafe: true, bounceable: false, testOnly: testnet });
}

/** A contract address (jetton wallet): friendly, url-safe, bounceable, with the network's test flag. */
export function friendlyContract(address: Address, testnet: boolean): string {
  return address.toString({ urlSafe: true, bounceable: true, testOnly: testnet });
}

/** Raw form `0:<hex>` (what sessions and stored documents use). */
export function rawAddress(address: Address): string {
  return address.toRawString();
}

/** How long a signed wallet message stays valid (its `valid_until`, seconds). */
export const MESSAGE_TTL_SEC = 60;

/**
 * `wallet`'s signed transfer of `messages` at `seqno`, valid until `validUntil` (unix seconds), and
 * the normalized hash it is found by on chain (every adapter sends and reconciles it the same way).
 */
export function signedTransfer(
  wallet: DerivedWallet,
  seqno: number,
  messages: MessageRelaxed[],
  validUntil: number,
  sendMode: SendMode = SendMode.PAY_GAS_SEPARATELY,
): { body: Cell; msgHash: string } {
  const body = wallet.contract.createTransfer({ seqno, secretKey: wallet.keyPair.secretKey, messages, sendMode, timeout: validUntil });
  return { body, msgHash: normalizedExternalHash(wallet.address, body) };
}
