/**
 * A software TON wallet for tests: produces TON Connect proofs exactly as a
 * wallet app would. The signing path is written independently of
 * auth/ton-proof.ts on purpose, so the two cross-check each other.
 */
import { createHash, randomBytes } from "node:crypto";
import { Address, Cell, beginCell, storeStateInit } from "@ton/core";
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import nacl from "tweetnacl";

export type TestWalletVersion = "v3r2" | "v4r2" | "v5r1";

export interface TestWalletOptions {
  testnet?: boolean;
  workchain?: number;
}

/** Body of POST /auth/connect. */
export interface ConnectRequestBody {
  address: string;
  publicKey: string;
  proof: {
    timestamp: number;
    domain: { lengthBytes: number; value: string };
    payload: string;
    signature: string;
    stateInit?: string;
  };
}

export interface ConnectBodyOptions {
  domain: string;
  /** default: 32 random bytes, hex */
  payload?: string;
  /** default: now, unix seconds */
  timestamp?: number;
  /** sign for (and send) this address instead of the wallet's own */
  address?: Address | string;
  withStateInit?: boolean;
}

export interface SignProofParams {
  address?: Address | string;
  domain: string;
  timestamp: number;
  payload: string;
}

const sha256 = (b: Buffer): Buffer => createHash("sha256").update(b).digest();

export class TestWallet {
  readonly publicKey: Buffer;
  readonly publicKeyHex: string;
  /** tweetnacl 64-byte secret key (seed ++ public key) */
  readonly secretKey: Buffer;
  readonly address: Address;
  readonly rawAddress: string;
  /** non-bounceable (UQ/0Q…), as wallet apps display their own address */
  readonly friendlyAddress: string;
  readonly version: TestWalletVersion;
  readonly testnet: boolean;
  readonly init: { code: Cell; data: Cell };

  private constructor(seed: Buffer, version: TestWalletVersion, opts: TestWalletOptions) {
    const kp = nacl.sign.keyPair.fromSeed(seed);
    this.publicKey = Buffer.from(kp.publicKey);
    this.secretKey = Buffer.from(kp.secretKey);
    this.publicKeyHex = this.publicKey.toString("hex");
    this.version = version;
    this.testnet = opts.testnet ?? false;
    const workchain = opts.workchain ?? 0;
    const contract =
      version === "v3r2"
        ? WalletContractV3R2.create({ workchain, publicKey: this.publicKey })
        : version === "v4r2"
          ? WalletContractV4.create({ workchain, publicKey: this.publicKey })
          : WalletContractV5R1.create({
              publicKey: this.publicKey,
              walletId: {
                networkGlobalId: this.testnet ? -3 : -239,
                context: { workchain, walletVersion: "v5r1", subwalletNumber: 0 },
              },
            });
    this.address = contract.address;
    this.init = contract.init;
    this.rawAddress = this.address.toRawString();
    this.friendlyAddress = this.address.toString({ bounceable: false, testOnly: this.testnet });
  }

  /**
   * Deterministic wallet. A string seed is a label (hashed to 32 bytes); a 32-byte
   * Buffer is used as the ed25519 seed directly, any other Buffer is hashed.
   */
  static fromSeed(seed: string | Buffer = "test-wallet", version: TestWalletVersion = "v4r2", opts: TestWalletOptions = {}): TestWallet {
    const bytes = Buffer.isBuffer(seed) && seed.length === 32 ? seed : sha256(Buffer.isBuffer(seed) ? seed : Buffer.from(seed, "utf8"));
    return new TestWallet(bytes, version, opts);
  }

  static random(version: TestWalletVersion = "v4r2", opts: TestWalletOptions = {}): TestWallet {
    return new TestWallet(randomBytes(32), version, opts);
  }

  /** base64 BOC of this wallet's StateInit, as wallets send in proof.stateInit */
  stateInitBase64(): string {
    return beginCell().store(storeStateInit(this.init)).endCell().toBoc().toString("base64");
  }

  /** Exact TON Connect signature (base64) over the given fields. */
  signProof(p: SignProofParams): string {
    const addr = p.address === undefined ? this.address : typeof p.address === "string" ? Address.parse(p.address) : p.address;
    const wc = Buffer.alloc(4);
    wc.writeInt32BE(addr.workChain);
    const dom = Buffer.from(p.domain, "utf8");
    const domLen = Buffer.alloc(4);
    domLen.writeUInt32LE(dom.length);
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64LE(BigInt(p.timestamp));
    const msg = Buffer.concat([Buffer.from("ton-proof-item-v2/"), wc, addr.hash, domLen, dom, ts, Buffer.from(p.payload, "utf8")]);
    const full = Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from("ton-connect"), sha256(msg)]);
    return Buffer.from(nacl.sign.detached(sha256(full), this.secretKey)).toString("base64");
  }

  connectBody(o: ConnectBodyOptions): ConnectRequestBody {
    const payload = o.payload ?? randomBytes(32).toString("hex");
    const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
    const addressStr = o.address === undefined ? this.rawAddress : typeof o.address === "string" ? o.address : o.address.toRawString();
    const body: ConnectRequestBody = {
      address: addressStr,
      publicKey: this.publicKeyHex,
      proof: {
        timestamp,
        domain: { lengthBytes: Buffer.byteLength(o.domain, "utf8"), value: o.domain },
        payload,
        signature: this.signProof({ address: addressStr, domain: o.domain, timestamp, payload }),
      },
    };
    if (o.withStateInit) body.proof.stateInit = this.stateInitBase64();
    return body;
  }
}
