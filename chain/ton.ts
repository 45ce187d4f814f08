/**
 * The real network: TON testnet or mainnet through @ton/ton's TonClient (toncenter v2 JSON-RPC:
 * TON_ENDPOINT, TON_API_KEY) with the canonical USDT minter from config (USDT_MINTER).
 *
 * Differences from the sandbox: a sent message lands seconds later, so `submit` waits up to
 * `confirmTimeoutMs` for the wallet's transaction and otherwise returns without it (the service
 * reconciles later by the message's normalized hash); traces are followed hop by hop with
 * tryLocateResultTx; transactions are known only once read (findTransaction answers from that cache).
 */
import { Address, beginCell, external, SendMode, storeMessage, type MessageRelaxed, type TupleItem } from "@ton/core";
import { TonClient } from "@ton/ton";
import { MESSAGE_TTL_SEC, signedTransfer, type DerivedWallet, type KeyRing } from "./keys";
import { chainRejected, type ChainPort, type JettonWalletData, type Submission } from "./port";
import { normalizeTx, type ChainTx } from "./tx";

export interface TonChainOptions {
  keys: KeyRing;
  testnet: boolean;
  endpoint: string;
  apiKey?: string;
  usdtMinter: Address;
  /** How long `submit` waits for the wallet's transaction (0: do not wait). */
  confirmTimeoutMs: number;
  /** Poll interval while waiting. */
  pollMs?: number;
  /** Unix seconds (message validity); injectable for recorded-response tests. */
  now?: () => number;
  /** HTTP timeout per call. */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

const PAGE = 50;
const CACHE_LIMIT = 10_000;

/** An error from the HTTP layer that carries the server's answer (it saw the request and refused it). */
function answeredBy(err: unknown): string | null {
  const e = err as { response?: { status?: number; data?: unknown }; message?: string };
  if (e?.response)
    return `${e.response.status ?? ""} ${typeof e.response.data === "string" ? e.response.data : JSON.stringify(e.response.data)}`.trim();
  if (typeof e?.message === "string" && e.message.startsWith("Received error:")) return e.message;
  return null;
}

export class TonChain implements ChainPort {
  readonly kind = "ton" as const;
  readonly testnet: boolean;
  readonly client: TonClient;
  private readonly jwCache = new Map<string, Address>();
  private readonly txCache = new Map<string, ChainTx>();
  private readonly now: () => number;

  constructor(private readonly opts: TonChainOptions) {
    this.testnet = opts.testnet;
    this.client = new TonClient({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeout: opts.timeoutMs ?? 15_000 });
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async start(): Promise<void> {
    this.opts.log?.(
      `TON ${this.testnet ? "testnet" : "mainnet"} via ${this.opts.endpoint}; USDT minter ${this.opts.usdtMinter.toString()}`,
    );
  }

  async stop(): Promise<void> {}

  usdtMinter(): Address {
    return this.opts.usdtMinter;
  }

  private remember(tx: ChainTx): ChainTx {
    if (this.txCache.size >= CACHE_LIMIT) this.txCache.delete(this.txCache.keys().next().value as string);
    this.txCache.set(tx.hash, tx);
    return tx;
  }

  async jettonWalletAddress(owner: Address, minter: Address = this.opts.usdtMinter): Promise<Address> {
    const key = `${minter.toRawString()}|${owner.toRawString()}`;
    const hit = this.jwCache.get(key);
    if (hit) return hit;
    const arg: TupleItem = { type: "slice", cell: beginCell().storeAddress(owner).endCell() };
    const res = await this.client.runMethod(minter, "get_wallet_address", [arg]);
    const addr = res.stack.readAddress();
    this.jwCache.set(key, addr);
    return addr;
  }

  async jettonWalletData(jettonWallet: Address): Promise<JettonWalletData | null> {
    try {
      const res = await this.client.runMethodWithError(jettonWallet, "get_wallet_data");
      if (res.exit_code !== 0 && res.exit_code !== 1) return null;
      const balance = res.stack.readBigNumber();
      const owner = res.stack.readAddress();
      const minter = res.stack.readAddress();
      return { balance, owner, minter };
    } catch {
      return null;
    }
  }

  async tonBalance(address: Address): Promise<bigint> {
    return this.client.getBalance(address);
  }

  async isActive(address: Address): Promise<boolean> {
    return this.client.isContractDeployed(address);
  }

  async transactions(address: Address, afterLt: bigint): Promise<ChainTx[]> {
    const out: ChainTx[] = [];
    let cursor: { lt: string; hash: string } | undefined;
    for (;;) {
      const page = await this.client.getTransactions(address, {
        limit: PAGE,
        archival: true,
        ...(cursor ? { lt: cursor.lt, hash: cursor.hash } : {}),
      });
      let older = false;
      for (const t of page) {
        if (t.lt <= afterLt) {
          older = true;
          break;
        }
        out.push(this.remember(normalizeTx(t, address.workChain)));
      }
      if (older || page.length < PAGE) break;
      const last = page[page.length - 1];
      cursor = { lt: last.lt.toString(), hash: last.hash().toString("base64") };
    }
    return out.reverse();
  }

  async findTransaction(hash: string): Promise<ChainTx | null> {
    return this.txCache.get(hash.toLowerCase()) ?? null;
  }

  async resultOf(tx: ChainTx, dest: Address): Promise<ChainTx | null> {
    const raw = dest.toRawString();
    const msg = tx.outs.find((m) => m.kind === "internal" && m.dest === raw);
    if (!msg) return null;
    try {
      const t = await this.client.tryLocateResultTx(Address.parseRaw(tx.account), dest, msg.createdLt);
      return this.remember(normalizeTx(t, dest.workChain));
    } catch {
      return null; // not there (yet)
    }
  }

  async findByExternal(wallet: Address, msgHash: string): Promise<ChainTx | null> {
    const page = await this.client.getTransactions(wallet, { limit: 20, archival: true });
    for (const t of page) {
      const n = this.remember(normalizeTx(t, wallet.workChain));
      if (n.externalHash === msgHash) return n;
    }
    return null;
  }

  async submit(wallet: DerivedWallet, messages: MessageRelaxed[], opts: { sendMode?: SendMode } = {}): Promise<Submission> {
    const state = await this.client.getContractState(wallet.address);
    const active = state.state === "active";
    const seqno = active ? (await this.client.runMethod(wallet.address, "seqno")).stack.readNumber() : 0;
    const validUntil = this.now() + MESSAGE_TTL_SEC;
    const { body, msgHash } = signedTransfer(wallet, seqno, messages, validUntil, opts.sendMode);
    const boc = beginCell()
      .store(storeMessage(external({ to: wallet.address, init: active ? null : wallet.contract.init, body })))
      .endCell()
      .toBoc();
    try {
      await this.client.sendFile(boc);
    } catch (err) {
      const refused = answeredBy(err);
      if (refused) throw chainRejected(`the node refused the ${wallet.role} wallet's message: ${refused}`);
      // No answer (timeout, connection reset): it may still land; reconciliation decides by msgHash.
      this.opts.log?.(`sendBoc for the ${wallet.role} wallet got no answer (${(err as Error)?.message}); reconciling by message hash`);
      return { msgHash, txHash: null, trace: null, validUntil };
    }
    const deadline = Date.now() + this.opts.confirmTimeoutMs;
    for (;;) {
      const tx = await this.findByExternal(wallet.address, msgHash).catch(() => null);
      if (tx) return { msgHash, txHash: tx.hash, trace: null, validUntil };
      if (Date.now() >= deadline) return { msgHash, txHash: null, trace: null, validUntil };
      await new Promise((r) => setTimeout(r, this.opts.pollMs ?? 1_000));
    }
  }
}
