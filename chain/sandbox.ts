/**
 * The embedded chain: @ton/sandbox's TVM emulator in-process, with a real TEP-74 minter standing in
 * for USDT, a look-alike second minter (FOREIGN_USDT), the hot and operator wallets derived from
 * the master secret, and a faucet (a sandbox treasury that is admin of both minters).
 *
 * Persistence (when given a directory): `sandbox-state.json` holds the blockchain snapshot without
 * its transactions (rewritten atomically after each change), `sandbox-transactions.jsonl` every
 * executed transaction, appended before the state is written. At load, transactions beyond the
 * state's logical time (a crash between the two writes) are dropped, so the two always agree.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import { Address, beginCell, external, toNano, type MessageRelaxed, SendMode, type Cell } from "@ton/core";
import {
  Blockchain,
  snapshotFromSerializable,
  snapshotToSerializable,
  type BlockchainTransaction,
  type SandboxContract,
  type SendMessageResult,
  type TreasuryContract,
} from "@ton/sandbox";
import { contentCell, minterAddress, minterInit, mintBody } from "./jetton";
import { MESSAGE_TTL_SEC, signedTransfer, type DerivedWallet, type KeyRing } from "./keys";
import { chainRejected, type ChainPort, type JettonWalletData, type Submission } from "./port";
import { normalizeTx, type ChainTx } from "./tx";

export type FaucetAsset = "USDT" | "TON" | "FOREIGN_USDT";

export interface SandboxOptions {
  keys: KeyRing;
  testnet: boolean;
  /** Directory for the persisted chain; null keeps it in memory. */
  dir: string | null;
  /** nanoTON the operator wallet gets at genesis (0: unfunded, its transactions then fail). */
  operatorNano: bigint;
  log?: (msg: string) => void;
}

interface SandboxMeta {
  version: 1;
  usdtMinter: string;
  foreignMinter: string;
  createdAt: string;
}

type SerializedSnapshot = ReturnType<typeof snapshotToSerializable>;
type SerializedTx = SerializedSnapshot["transactions"][number];

const FAUCET_SEED = "pmx-sandbox-faucet";
const OUTSIDER_SEED = "pmx-sandbox-outsider";
const HOT_FLOAT = toNano("1000");
const HOT_LOW_WATER = toNano("100");
const MINTER_TON = toNano("0.5");
const MINT_TON = toNano("0.2");
const MINT_WALLET_TON = toNano("0.1");
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

export class SandboxChain implements ChainPort {
  readonly kind = "sandbox" as const;
  readonly testnet: boolean;
  private bc!: Blockchain;
  private faucet!: SandboxContract<TreasuryContract>;
  private outsider!: SandboxContract<TreasuryContract>;
  private meta!: SandboxMeta;
  private readonly byHash = new Map<string, ChainTx>();
  private readonly byAccount = new Map<string, ChainTx[]>();
  /** Executed but not yet written to disk. */
  private unsaved: BlockchainTransaction[] = [];
  /** The file writes of earlier `persist` calls, in call order. */
  private writing: Promise<void> = Promise.resolve();
  /** Transaction lines a failed write (a full disk) did not append: written first by the next one. */
  private unwritten = "";
  private queryCounter = BigInt(Date.now()) << 16n;

  constructor(private readonly opts: SandboxOptions) {
    this.testnet = opts.testnet;
  }

  private get stateFile(): string {
    return join(this.opts.dir as string, SANDBOX_STATE_FILE);
  }

  private get txFile(): string {
    return join(this.opts.dir as string, SANDBOX_TX_FILE);
  }

  async start(): Promise<void> {
    this.bc = await Blockchain.create();
    this.bc.verbosity = { print: false, blockchainLogs: false, vmLogs: "none", debugLogs: false };
    const loaded = this.opts.dir && existsSync(this.stateFile) ? await this.load() : false;
    this.faucet = await this.bc.treasury(FAUCET_SEED);
    this.outsider = await this.bc.treasury(OUTSIDER_SEED);
    if (!loaded) await this.genesis();
    await this.persist();
  }

  async stop(): Promise<void> {
    await this.persist();
  }

  /** First start: both minters, the hot wallet's float and the operator's gas. */
  private async genesis(): Promise<void> {
    const usdt = minterInit(this.faucet.address, contentCell("pmx-sandbox:USDT"));
    const foreign = minterInit(this.faucet.address, contentCell("pmx-sandbox:FOREIGN_USDT"));
    const usdtAddr = minterAddress(this.faucet.address, contentCell("pmx-sandbox:USDT"));
    const foreignAddr = minterAddress(this.faucet.address, contentCell("pmx-sandbox:FOREIGN_USDT"));
    this.record(await this.faucet.send({ to: usdtAddr, value: MINTER_TON, init: usdt, bounce: false }));
    this.record(await this.faucet.send({ to: foreignAddr, value: MINTER_TON, init: foreign, bounce: false }));
    const hot = await this.opts.keys.wallet("hot");
    this.record(await this.faucet.send({ to: hot.address, value: HOT_FLOAT, bounce: false }));
    if (this.opts.operatorNano > 0n) {
      const op = await this.opts.keys.wallet("operator");
      this.record(await this.faucet.send({ to: op.address, value: this.opts.operatorNano, bounce: false }));
    }
    this.meta = {
      version: 1,
      usdtMinter: usdtAddr.toRawString(),
      foreignMinter: foreignAddr.toRawString(),
      createdAt: new Date().toISOString(),
    };
    this.opts.log?.(`sandbox chain created: USDT minter ${usdtAddr.toString()}`);
  }

  private async load(): Promise<boolean> {
    const state = JSON.parse(readFileSync(this.stateFile, "utf8")) as { meta: SandboxMeta; snapshot: SerializedSnapshot };
    const maxLt = BigInt(state.snapshot.lt);
    const txs: SerializedTx[] = [];
    let dropped = 0;
    if (existsSync(this.txFile)) {
      for (const line of readFileSync(this.txFile, "utf8").split("\n")) {
        if (!line.trim()) continue;
        let t: SerializedTx & { lt?: string };
        try {
          t = JSON.parse(line);
        } catch {
          dropped++; // a torn last line: never acknowledged
          continue;
        }
        if (t.lt !== undefined && BigInt(t.lt) > maxLt) {
          dropped++;
          continue;
        }
        txs.push(t);
      }
    }
    if (dropped) writeFileSync(this.txFile, txs.map((t) => json(t) + "\n").join(""));
    const snap = snapshotFromSerializable({ ...state.snapshot, transactions: txs });
    await this.bc.loadFrom(snap);
    this.meta = state.meta;
    for (const tx of snap.transactions) this.index(tx);
    this.opts.log?.(`sandbox chain loaded: ${snap.contracts.length} accounts, ${snap.transactions.length} transactions`);
    return true;
  }

  /**
   * Write what changed: new transactions appended first, then the state atomically. The state is
   * captured and encoded at the call; the writes and fsyncs run off the event loop (they stalled
   * every settlement round), after those of earlier calls. Resolves once both are on disk.
   */
  persist(): Promise<void> {
    const fresh = this.unsaved;
    this.unsaved = [];
    const dir = this.opts.dir;
    if (!dir) return this.writing;
    const snap = this.bc.snapshot();
    const lines = fresh.length
      ? snapshotToSerializable({ ...snap, contracts: [], transactions: fresh })
          .transactions.map((t, i) => json({ ...t, lt: fresh[i].lt.toString() }) + "\n")
          .join("")
      : "";
    const state = json({ meta: this.meta, snapshot: snapshotToSerializable({ ...snap, transactions: [] }) });
    const write = async () => {
      await mkdir(dir, { recursive: true });
      // The emulator's memory stays the truth: lines that could not be appended are kept, in order.
      const text = this.unwritten + lines;
      if (text) {
        try {
          await appendWhole(this.txFile, text);
          this.unwritten = "";
        } catch (err) {
          this.unwritten = text;
          throw err;
        }
      }
      const tmp = `${this.stateFile}.tmp`;
      await writeDurably(tmp, state);
      await rename(tmp, this.stateFile);
    };
    const done = this.writing.then(write);
    this.writing = done.catch(() => undefined);
    return done;
  }

  private index(tx: BlockchainTransaction): ChainTx {
    const n = normalizeTx(tx, 0, { parent: tx.parent?.hash().toString("hex"), children: tx.children.map((c) => c.hash().toString("hex")) });
    this.byHash.set(n.hash, n);
    let list = this.byAccount.get(n.account);
    if (!list) this.byAccount.set(n.account, (list = []));
    list.push(n);
    return n;
  }

  /** Index and queue for persistence every transaction of one execution. */
  private record(res: SendMessageResult): ChainTx[] {
    this.unsaved.push(...res.transactions);
    return res.transactions.map((t) => this.index(t));
  }

  usdtMinter(): Address {
    return Address.parseRaw(this.meta.usdtMinter);
  }

  foreignMinter(): Address {
    return Address.parseRaw(this.meta.foreignMinter);
  }

  async jettonWalletAddress(owner: Address, minter?: Address): Promise<Address> {
    const res = await this.bc.runGetMethod(minter ?? this.usdtMinter(), "get_wallet_address", [
      { type: "slice", cell: beginCell().storeAddress(owner).endCell() },
    ]);
    return res.stackReader.readAddress();
  }

  async jettonWalletData(jettonWallet: Address): Promise<JettonWalletData | null> {
    if (!(await this.isActive(jettonWallet))) return null;
    try {
      const res = await this.bc.runGetMethod(jettonWallet, "get_wallet_data");
      if (res.exitCode !== 0 && res.exitCode !== 1) return null;
      const r = res.stackReader;
      const balance = r.readBigNumber();
      const owner = r.readAddress();
      const minter = r.readAddress();
      return { balance, owner, minter };
    } catch {
      return null;
    }
  }

  async tonBalance(address: Address): Promise<bigint> {
    return (await this.bc.getContract(address)).balance;
  }

  async isActive(address: Address): Promise<boolean> {
    return (await this.bc.getContract(address)).accountState?.type === "active";
  }

  async transactions(address: Address, afterLt: bigint): Promise<ChainTx[]> {
    const list = this.byAccount.get(address.toRawString()) ?? [];
    // Appended in execution order, so lt ascends; most calls want only the tail.
    let i = list.length;
    while (i > 0 && BigInt(list[i - 1].lt) > afterLt) i--;
    return list.slice(i);
  }

  async findTransaction(hash: string): Promise<ChainTx | null> {
    return this.byHash.get(hash.toLowerCase()) ?? null;
  }

  async resultOf(tx: ChainTx, dest: Address): Promise<ChainTx | null> {
    const raw = dest.toRawString();
    for (const h of tx.children ?? []) {
      const c = this.byHash.get(h);
      if (c && c.account === raw) return c;
    }
    return null;
  }

  async findByExternal(wallet: Address, msgHash: string): Promise<ChainTx | null> {
    return (this.byAccount.get(wallet.toRawString()) ?? []).find((t) => t.externalHash === msgHash) ?? null;
  }

  async submit(wallet: DerivedWallet, messages: MessageRelaxed[], opts: { sendMode?: SendMode } = {}): Promise<Submission> {
    const active = await this.isActive(wallet.address);
    const seqno = active ? await this.bc.openContract(wallet.contract).getSeqno() : 0;
    const validUntil = Math.floor(Date.now() / 1000) + MESSAGE_TTL_SEC;
    const { body, msgHash } = signedTransfer(wallet, seqno, messages, validUntil, opts.sendMode);
    let res: SendMessageResult;
    try {
      res = await this.bc.sendMessage(external({ to: wallet.address, init: active ? undefined : wallet.contract.init, body }));
    } catch (err) {
      // The wallet did not accept the external message (no gas, bad signature, expired): nothing ran.
      throw chainRejected(`the ${wallet.role} wallet did not accept the message: ${summarize(err)}`);
    }
    const trace = this.record(res);
    return { msgHash, txHash: trace[0]?.hash ?? null, trace, validUntil };
  }

  // ---- sandbox-only: the faucet and raw messages from an outside contract --------------------

  private nextQueryId(): bigint {
    this.queryCounter += 1n;
    return this.queryCounter & ((1n << 64n) - 1n);
  }

  /** Real emulated tokens to `to`: USDT/FOREIGN_USDT minted (notification included), or TON sent. */
  async faucetSend(asset: FaucetAsset, to: Address, amount: bigint): Promise<{ txHash: string; trace: ChainTx[] }> {
    let res: SendMessageResult;
    if (asset === "TON") {
      res = await this.faucet.send({ to, value: amount, bounce: false });
    } else {
      const minter = asset === "USDT" ? this.usdtMinter() : this.foreignMinter();
      const body = mintBody(
        { queryId: this.nextQueryId(), to, amount, responseTo: this.faucet.address, forwardTon: 1n, walletTon: MINT_WALLET_TON },
        minter,
      );
      res = await this.faucet.send({ to: minter, value: MINT_TON, body, bounce: true });
    }
    const trace = this.record(res);
    const failed = trace.find((t) => !t.success && !t.computeSkipped);
    if (failed) throw new Error(`faucet transaction failed on ${failed.account} (exit ${failed.exitCode}, action ${failed.actionResult})`);
    return { txHash: trace[0].hash, trace };
  }

  /** An internal message from a contract outside the exchange (forgeries, stray payments in tests and demos). */
  async injectFromOutsider(to: Address, value: bigint, body: Cell | null): Promise<{ txHash: string; trace: ChainTx[] }> {
    const trace = this.record(await this.outsider.send({ to, value, body: body ?? undefined, bounce: false }));
    return { txHash: trace[0].hash, trace };
  }

  outsiderAddress(): Address {
    return this.outsider.address;
  }

  /** Keep the hot wallet's TON float (sandbox only: the faucet pays everyone's gas). */
  async topUpHot(): Promise<void> {
    const hot = await this.opts.keys.wallet("hot");
    if ((await this.tonBalance(hot.address)) < HOT_LOW_WATER)
      this.record(await this.faucet.send({ to: hot.address, value: HOT_FLOAT, bounce: false }));
  }

  /** Keep the operator's gas at its genesis level; an operator created unfunded stays unfunded (the failure drill). */
  async topUpOperator(): Promise<void> {
    if (this.opts.operatorNano <= 0n) return;
    const op = await this.opts.keys.wallet("operator");
    if ((await this.tonBalance(op.address)) < this.opts.operatorNano / 10n)
      this.record(await this.faucet.send({ to: op.address, value: this.opts.operatorNano, bounce: false }));
  }

  /** How many transactions the emulator has executed (diagnostics). */
  transactionCount(): number {
    return this.byHash.size;
  }
}

export const SANDBOX_STATE_FILE = "sandbox-state.json";
export const SANDBOX_TX_FILE = "sandbox-transactions.jsonl";

/**
 * What a persisted sandbox chain in `dir` is, without loading it: absent, damaged (why), or
 * present with its genesis time (which chain it is; a new genesis is another chain).
 */
export function inspectSandboxState(
  dir: string,
): { kind: "absent" } | { kind: "damaged"; why: string } | { kind: "present"; genesis: string } {
  const stateFile = join(dir, SANDBOX_STATE_FILE);
  const txFile = join(dir, SANDBOX_TX_FILE);
  if (!existsSync(stateFile))
    return existsSync(txFile) ? { kind: "damaged", why: `${SANDBOX_STATE_FILE} is missing beside ${SANDBOX_TX_FILE}` } : { kind: "absent" };
  let state: { meta?: Partial<SandboxMeta>; snapshot?: { lt?: unknown; contracts?: unknown } };
  try {
    state = JSON.parse(readFileSync(stateFile, "utf8"));
  } catch (err) {
    return { kind: "damaged", why: `${SANDBOX_STATE_FILE} is not readable: ${(err as Error).message}` };
  }
  const m = state?.meta;
  if (typeof m?.createdAt !== "string" || typeof m.usdtMinter !== "string" || !Array.isArray(state.snapshot?.contracts))
    return { kind: "damaged", why: `${SANDBOX_STATE_FILE} lacks its chain meta or accounts` };
  if (state.snapshot.contracts.length && !existsSync(txFile)) return { kind: "damaged", why: `${SANDBOX_TX_FILE} is missing` };
  if (existsSync(txFile)) {
    const lines = readFileSync(txFile, "utf8").split("\n");
    // Only the last line may be torn (a crash while appending); one before it is damage.
    for (let i = 0; i < lines.length - 1; i++) {
      if (!lines[i].trim()) continue;
      try {
        JSON.parse(lines[i]);
      } catch {
        if (lines.slice(i + 1).some((l) => l.trim()))
          return { kind: "damaged", why: `${SANDBOX_TX_FILE} line ${i + 1} is not a transaction` };
      }
    }
  }
  return { kind: "present", genesis: m.createdAt };
}

/** Append `data` and fsync it; on failure (a full disk) the file is cut back to what it was, never left with part of it. */
async function appendWhole(path: string, data: string): Promise<void> {
  const fh = await open(path, "a");
  const size = (await fh.stat()).size;
  try {
    await fh.writeFile(data, "utf8");
    await fh.sync();
  } catch (err) {
    await fh.truncate(size).catch(() => undefined);
    throw err;
  } finally {
    await fh.close();
  }
}

/** Write `data` and fsync it before resolving. */
async function writeDurably(path: string, data: string): Promise<void> {
  const fh = await open(path, "w");
  try {
    await fh.writeFile(data, "utf8");
    await fh.sync();
  } finally {
    await fh.close();
  }
}

function summarize(err: unknown): string {
  const e = err as { message?: string; exitCode?: number };
  const first = String(e?.message ?? err).split("\n")[0];
  return e?.exitCode !== undefined ? `${first} (exit code ${e.exitCode})` : first;
}
