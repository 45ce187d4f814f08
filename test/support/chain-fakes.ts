/**
 * In-memory fakes of the chain cores' ports (chain/ports.ts and each core's store): a ledger on
 * the real money engine (engine/accounts), a scripted chain that moves USDT between owners and
 * records every hop as a transaction, Map-backed stores, a manual clock and recorders.
 */
import { createHash } from "node:crypto";
import { Address, beginCell, Cell, type MessageRelaxed } from "@ton/core";
import { Accounts, isPostingRefusal, type PositionState } from "../../engine/accounts";
import { refused } from "../../engine/refusal";
import { entryRuleProblems } from "../../ledger/entry-rules";
import type {
  ChainIncidentDoc,
  DepositAddressDoc,
  DepositDoc,
  MarketSettlementDoc,
  RedemptionDoc,
  SettlementBatchDoc,
  SettlementItemDoc,
  SettlementNoticeDoc,
  WithdrawalDoc,
  WithdrawalLockDoc,
} from "../../models/chain";
import type { LedgerEntryDoc, RewardPaid } from "../../models/trading";
import type { TradeRecord } from "../../engine/settlement";
import { KeyRing, type DerivedWallet } from "../../chain/keys";
import { OP, parseTransfer, opOf } from "../../chain/jetton";
import { chainRejected, type ChainPort, type JettonWalletData, type Submission } from "../../chain/port";
import type { ChainEvents, ChainLedger, ChainSide, Clock, EmitChainEvent, LedgerEntry, Log, MetaStore } from "../../chain/ports";
import type { ChainMessage, ChainTx } from "../../chain/tx";
import type { WithdrawalStore } from "../../chain/withdrawals";
import type { DepositStore } from "../../chain/deposit-watcher";
import type { RedemptionStore } from "../../chain/redemptions";
import type { SettlementStore } from "../../chain/settlement-batcher";

export const TEST_SECRET = "5e".repeat(32);
const hex = (s: string) => createHash("sha256").update(s).digest("hex");
/** A deterministic address for a name (contracts the exchange does not own). */
export const addressOf = (name: string) => Address.parseRaw(`0:${hex(name)}`);

export class ManualClock implements Clock {
  constructor(public t = Date.parse("2025-01-01T00:00:00Z")) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export class Recorder {
  readonly events: Array<{ event: keyof ChainEvents; payload: unknown }> = [];
  readonly logs: string[] = [];
  readonly emit: EmitChainEvent = (event, payload) => void this.events.push({ event, payload });
  readonly log: Log = { info: (msg) => void this.logs.push(msg), warn: (...args) => void this.logs.push(args.map(String).join(" ")) };
  of<K extends keyof ChainEvents>(event: K): Array<ChainEvents[K]> {
    return this.events.filter((e) => e.event === event).map((e) => e.payload as ChainEvents[K]);
  }
}

/** The ledger's contract on the real money engine: one entry per key, refusals as Faults of kind "rejected". */
export class FakeLedger implements ChainLedger {
  readonly accounts = new Accounts();
  readonly applied = new Map<string, LedgerEntry>();
  /** Every post attempted, in order (applied, duplicate or refused). */
  readonly attempts: string[] = [];
  readonly journal: LedgerEntryDoc[] = [];
  readonly marked: Array<{ tradeIds: string[]; status: string; txHash: string | null }> = [];
  /** Set to make the next calls fail as an unreachable ledger would. */
  down: Error | null = null;
  markDown: Error | null = null;

  async post(entry: LedgerEntry): Promise<{ applied: boolean }> {
    this.attempts.push(entry.key);
    if (this.down) throw this.down;
    if (this.applied.has(entry.key)) return { applied: false };
    // The real ledger's rules for the exchange's own money (fees, house funding, payouts).
    const broken = entryRuleProblems(entry, this.accounts);
    if (broken.length) throw refused("INVALID_POSTING", broken.join("; "));
    try {
      this.accounts.apply(entry.postings);
    } catch (err) {
      if (isPostingRefusal(err))
        throw refused(
          err.code === "INSUFFICIENT_SHARES" || err.code === "INVALID_POSTING" ? err.code : "INSUFFICIENT_BALANCE",
          err.message,
        );
      throw err;
    }
    this.applied.set(entry.key, entry);
    return { applied: true };
  }
  async positions(account: string): Promise<PositionState[]> {
    return this.accounts.positionsOf(account).map((p) => ({ ...p }));
  }
  async holders(marketId: string): Promise<PositionState[]> {
    return this.accounts.holders(marketId).map((p) => ({ ...p }));
  }
  async conservation() {
    return this.accounts.conservation();
  }
  async markSettlement(tradeIds: string[], status: "confirmed" | "failed", txHash: string | null): Promise<void> {
    if (this.markDown) throw this.markDown;
    this.marked.push({ tradeIds, status, txHash });
  }
  async entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    return this.journal.filter((e) => e.seq > seq).slice(0, limit);
  }
  /** Rewards and rebates paid, per user (set by a test). */
  readonly payouts = new Map<string, RewardPaid[]>();
  async rewardPayouts(userId: string): Promise<RewardPaid[]> {
    return this.payouts.get(userId) ?? [];
  }

  available(account: string): number {
    return this.accounts.balance(account).available;
  }
  /** Cash from outside (as a deposit would bring it). */
  fund(account: string, amount: number): void {
    this.accounts.apply([
      { kind: "cash", account, available: amount },
      { kind: "external", flow: "deposit", amount },
    ]);
  }
  /** A journal entry carrying trades (what the book writes on a fill). */
  trade(at: string, ...trades: Array<Pick<TradeRecord, "tradeId" | "userId" | "marketId">>): void {
    const seq = this.journal.length + 1;
    this.journal.push({ _id: `e${seq}`, seq, postings: [], trades: trades as TradeRecord[], at });
  }
}

/** What the next submission does: executes at once (default), is refused, throws, or lands only when `land` is called. */
export type SubmitMode = "execute" | "reject" | "throw" | "pending" | "wallet-fails";

/**
 * A chain in memory: USDT (and TON) balances per owner, jetton wallets at derived addresses, and
 * every submission executed as a trace of transactions the ports read back (`transferOutcome`
 * follows its hops; `findByExternal` finds a landed message).
 */
export class FakeChain implements ChainPort {
  readonly kind = "sandbox" as const;
  readonly testnet = true;
  readonly minter = addressOf("usdt-minter");
  readonly foreignMinter = addressOf("foreign-minter");
  readonly usdt = new Map<string, bigint>();
  readonly ton = new Map<string, bigint>();
  readonly script: SubmitMode[] = [];
  readonly submissions: Array<{ wallet: string; messages: MessageRelaxed[]; msgHash: string }> = [];
  /** Throw from get-methods (a node that does not answer). */
  getMethodsDown = false;
  private readonly wallets = new Map<string, { owner: Address; minter: Address }>();
  private readonly byHash = new Map<string, ChainTx>();
  private readonly byAccount = new Map<string, ChainTx[]>();
  private readonly hops = new Map<string, ChainTx>();
  private readonly byExternal = new Map<string, ChainTx>();
  private readonly pending = new Map<string, () => ChainTx[]>();
  private lt = 1000n;
  private n = 0;

  constructor(private readonly clock: Clock) {}

  async start() {}
  async stop() {}
  usdtMinter(): Address {
    return this.minter;
  }
  async jettonWalletAddress(owner: Address, minter: Address = this.minter): Promise<Address> {
    if (this.getMethodsDown) throw new Error("get-method timed out");
    return this.walletOf(owner, minter);
  }
  walletOf(owner: Address, minter: Address = this.minter): Address {
    const jw = addressOf(`jw|${minter.toRawString()}|${owner.toRawString()}`);
    this.wallets.set(jw.toRawString(), { owner, minter });
    return jw;
  }
  async jettonWalletData(jw: Address): Promise<JettonWalletData | null> {
    const w = this.wallets.get(jw.toRawString());
    if (!w) return null;
    return { owner: w.owner, minter: w.minter, balance: w.minter.equals(this.minter) ? this.balance(w.owner) : 0n };
  }
  balance(owner: Address): bigint {
    return this.usdt.get(owner.toRawString()) ?? 0n;
  }
  async tonBalance(address: Address): Promise<bigint> {
    return this.ton.get(address.toRawString()) ?? 0n;
  }
  async isActive(): Promise<boolean> {
    return true;
  }
  async transactions(address: Address, afterLt: bigint): Promise<ChainTx[]> {
    return (this.byAccount.get(address.toRawString()) ?? []).filter((t) => BigInt(t.lt) > afterLt);
  }
  async findTransaction(hash: string): Promise<ChainTx | null> {
    return this.byHash.get(hash) ?? null;
  }
  async resultOf(tx: ChainTx, dest: Address): Promise<ChainTx | null> {
    return this.hops.get(`${tx.hash}>${dest.toRawString()}`) ?? null;
  }
  async findByExternal(wallet: Address, msgHash: string): Promise<ChainTx | null> {
    const tx = this.byExternal.get(msgHash);
    return tx && tx.account === wallet.toRawString() ? tx : null;
  }

  async submit(wallet: DerivedWallet, messages: MessageRelaxed[]): Promise<Submission> {
    const mode = this.script.shift() ?? "execute";
    if (mode === "reject") throw chainRejected("the wallet did not accept the message");
    if (mode === "throw") throw new Error("connection reset");
    const msgHash = hex(`msg${++this.n}`);
    this.submissions.push({ wallet: wallet.address.toRawString(), messages, msgHash });
    const validUntil = Math.floor(this.clock.now() / 1000) + 60;
    const run = () => this.execute(wallet.address, messages, msgHash, mode === "wallet-fails");
    if (mode === "pending") {
      this.pending.set(msgHash, run);
      return { msgHash, txHash: null, trace: null, validUntil };
    }
    const trace = run();
    return { msgHash, txHash: trace[0].hash, trace, validUntil };
  }

  /** A message submitted `pending` lands now. */
  land(msgHash: string): ChainTx[] {
    const run = this.pending.get(msgHash);
    if (!run) throw new Error(`no pending message ${msgHash}`);
    this.pending.delete(msgHash);
    return run();
  }

  /** USDT arrives at `owner` from outside: a transfer_notification from its canonical jetton wallet. */
  depositUsdt(owner: Address, amount: bigint): ChainTx {
    this.usdt.set(owner.toRawString(), this.balance(owner) + amount);
    return this.inbound(owner, this.walletOf(owner), notification(amount), 50_000_000n);
  }
  /** A jetton of another minter arrives: a notification from the owner's wallet of that minter. */
  depositForeign(owner: Address, amount: bigint): ChainTx {
    return this.inbound(owner, this.walletOf(owner, this.foreignMinter), notification(amount), 50_000_000n);
  }
  /** A notification written by some contract that is no jetton wallet. */
  forgedNotification(owner: Address, amount: bigint): ChainTx {
    return this.inbound(owner, addressOf("forger"), notification(amount), 50_000_000n);
  }
  /** Plain TON with a comment. */
  sendTon(owner: Address, value: bigint): ChainTx {
    this.ton.set(owner.toRawString(), (this.ton.get(owner.toRawString()) ?? 0n) + value);
    return this.inbound(owner, addressOf("someone"), beginCell().storeUint(0, 32).storeStringTail("hi").endCell(), value);
  }

  private inbound(owner: Address, src: Address, body: Cell, value: bigint): ChainTx {
    const tx = this.tx(
      owner,
      {
        kind: "internal",
        src: src.toRawString(),
        dest: owner.toRawString(),
        value,
        bounce: false,
        bounced: false,
        body,
        createdLt: String(this.lt),
      },
      true,
    );
    return tx;
  }

  private tx(account: Address, inMsg: ChainMessage, success: boolean, extra: Partial<ChainTx> = {}): ChainTx {
    this.lt += 10n;
    const tx: ChainTx = {
      hash: hex(`tx${this.lt}`),
      lt: String(this.lt),
      now: Math.floor(this.clock.now() / 1000),
      account: account.toRawString(),
      in: inMsg,
      outs: [],
      externalHash: null,
      computeSkipped: false,
      exitCode: success ? 0 : 706,
      actionResult: success ? 0 : null,
      aborted: !success,
      success,
      ...extra,
    };
    this.byHash.set(tx.hash, tx);
    const list = this.byAccount.get(tx.account) ?? [];
    list.push(tx);
    this.byAccount.set(tx.account, list);
    return tx;
  }

  private hop(parent: ChainTx, child: ChainTx): void {
    this.hops.set(`${parent.hash}>${child.account}`, child);
  }

  private execute(wallet: Address, messages: MessageRelaxed[], msgHash: string, walletFails: boolean): ChainTx[] {
    const outs: ChainMessage[] = walletFails
      ? []
      : messages.map((m) => {
          const info = m.info as Extract<MessageRelaxed["info"], { type: "internal" }>;
          return {
            kind: "internal",
            src: wallet.toRawString(),
            dest: info.dest.toRawString(),
            value: info.value.coins,
            bounce: info.bounce,
            bounced: false,
            body: m.body,
            createdLt: String(this.lt),
          };
        });
    const walletTx = this.tx(
      wallet,
      {
        kind: "external-in",
        src: null,
        dest: wallet.toRawString(),
        value: 0n,
        bounce: false,
        bounced: false,
        body: Cell.EMPTY,
        createdLt: "0",
      },
      !walletFails,
      {
        outs,
        externalHash: msgHash,
        ...(walletFails ? { exitCode: 0, actionResult: 37, aborted: false } : {}),
      },
    );
    this.byExternal.set(msgHash, walletTx);
    const trace = [walletTx];
    for (const out of outs) {
      const dest = Address.parseRaw(out.dest as string);
      const transfer = opOf(out.body) === OP.transfer ? parseTransfer(out.body) : null;
      const own = this.wallets.get(dest.toRawString());
      if (transfer && own && own.owner.equals(wallet)) {
        // A jetton transfer through the sender's own jetton wallet, then the receiver's.
        const enough = this.balance(wallet) >= transfer.amount;
        const jwTx = this.tx(dest, out, enough);
        this.hop(walletTx, jwTx);
        trace.push(jwTx);
        if (!enough) continue;
        this.usdt.set(wallet.toRawString(), this.balance(wallet) - transfer.amount);
        this.usdt.set(transfer.destination.toRawString(), this.balance(transfer.destination) + transfer.amount);
        const toJw = this.walletOf(transfer.destination);
        const destTx = this.tx(toJw, { ...out, src: dest.toRawString(), dest: toJw.toRawString() }, true);
        this.hop(jwTx, destTx);
        trace.push(destTx);
      } else {
        this.ton.set(dest.toRawString(), (this.ton.get(dest.toRawString()) ?? 0n) + out.value);
        const rx = this.tx(dest, out, true);
        this.hop(walletTx, rx);
        trace.push(rx);
      }
    }
    return trace;
  }
}

function notification(amount: bigint): Cell {
  return beginCell()
    .storeUint(OP.transferNotification, 32)
    .storeUint(1, 64)
    .storeCoins(amount)
    .storeAddress(addressOf("sender"))
    .storeBit(false)
    .endCell();
}

/** The chain side over a FakeChain with real derived keys; `persistDown` makes persisting fail. */
export function fakeSide(chain: FakeChain): ChainSide & { topUps: string[]; persistDown: boolean } {
  const side = {
    port: chain,
    keys: new KeyRing(TEST_SECRET),
    topUps: [] as string[],
    persistDown: false,
    async topUp(role: "hot" | "operator") {
      side.topUps.push(role);
    },
    async persist() {
      if (side.persistDown) throw new Error("disk full");
    },
  };
  return side;
}

export class MemMeta implements MetaStore {
  readonly values = new Map<string, number>();
  async get(id: string) {
    return this.values.get(id) ?? 0;
  }
  async set(id: string, value: number) {
    this.values.set(id, value);
  }
}

const copy = <T>(d: T): T => structuredClone(d);

export class MemWithdrawals implements WithdrawalStore {
  readonly docs = new Map<string, WithdrawalDoc>();
  readonly locks = new Map<string, WithdrawalLockDoc>();
  async get(id: string) {
    const d = this.docs.get(id);
    return d ? copy(d) : null;
  }
  async insert(doc: WithdrawalDoc) {
    if (this.docs.has(doc._id)) throw new Error("duplicate id");
    this.docs.set(doc._id, copy(doc));
  }
  async remove(id: string) {
    this.docs.delete(id);
  }
  async update(id: string, set: Partial<WithdrawalDoc>) {
    const d = this.docs.get(id);
    if (d) Object.assign(d, copy(set));
  }
  async open() {
    return [...this.docs.values()].filter((d) => d.status === "debiting" || d.status === "submitted").map(copy);
  }
  async lock(id: string) {
    const l = this.locks.get(id);
    return l ? copy(l) : null;
  }
  async putLock(lock: WithdrawalLockDoc) {
    this.locks.set(lock._id, copy(lock));
  }
  async releaseLock(id: string, withdrawalId: string) {
    if (this.locks.get(id)?.withdrawalId === withdrawalId) this.locks.delete(id);
  }
}

export class MemDeposits implements DepositStore {
  readonly addressDocs = new Map<string, DepositAddressDoc>();
  readonly deposits = new Map<string, DepositDoc>();
  readonly incidents = new Map<string, ChainIncidentDoc>();
  readonly meta = new MemMeta();
  async address(userId: string) {
    const d = this.addressDocs.get(userId);
    return d ? copy(d) : null;
  }
  async addresses() {
    return [...this.addressDocs.values()].map(copy);
  }
  async insertAddress(doc: DepositAddressDoc) {
    // Unique: the user, the derivation index and the address.
    if (this.addressDocs.has(doc._id) || [...this.addressDocs.values()].some((d) => d.index === doc.index || d.address === doc.address))
      return false;
    this.addressDocs.set(doc._id, copy(doc));
    return true;
  }
  async updateAddress(userId: string, set: Partial<DepositAddressDoc>) {
    const d = this.addressDocs.get(userId);
    if (d) Object.assign(d, copy(set));
  }
  async insertDeposit(doc: DepositDoc) {
    if (this.deposits.has(doc._id)) return false;
    this.deposits.set(doc._id, copy(doc));
    return true;
  }
  async insertIncident(doc: ChainIncidentDoc) {
    if (this.incidents.has(doc._id)) return false;
    this.incidents.set(doc._id, copy(doc));
    return true;
  }
}

export class MemRedemptions implements RedemptionStore {
  readonly redemptions = new Map<string, RedemptionDoc>();
  readonly settlements = new Map<string, MarketSettlementDoc>();
  async insertRedemption(doc: RedemptionDoc) {
    if (this.redemptions.has(doc._id)) return false;
    this.redemptions.set(doc._id, copy(doc));
    return true;
  }
  async redemption(id: string) {
    const d = this.redemptions.get(id);
    return d ? copy(d) : null;
  }
  async settlement(marketId: string) {
    const d = this.settlements.get(marketId);
    return d ? copy(d) : null;
  }
  async insertSettlement(doc: MarketSettlementDoc) {
    if (this.settlements.has(doc._id)) return false;
    this.settlements.set(doc._id, copy(doc));
    return true;
  }
  async putSettlement(doc: MarketSettlementDoc) {
    this.settlements.set(doc._id, copy(doc));
  }
  async pendingSettlements() {
    return [...this.settlements.values()].filter((d) => d.status === "pending").map(copy);
  }
}

export class MemSettlement implements SettlementStore {
  readonly itemDocs = new Map<string, SettlementItemDoc>();
  readonly batchDocs = new Map<string, SettlementBatchDoc>();
  readonly noticeDocs = new Map<string, SettlementNoticeDoc>();
  readonly meta = new MemMeta();
  private pick(ids: string[]) {
    return ids.map((id) => this.itemDocs.get(id)).filter((d): d is SettlementItemDoc => !!d);
  }
  private byQueue = (a: SettlementItemDoc, b: SettlementItemDoc) =>
    (a.queue ?? "") < (b.queue ?? "") ? -1 : (a.queue ?? "") > (b.queue ?? "") ? 1 : 0;
  readonly items: SettlementStore["items"] = {
    known: async (ids) => this.pick(ids).map((d) => d._id),
    insertMany: async (docs) => {
      for (const d of docs) {
        if (this.itemDocs.has(d._id)) throw new Error("duplicate id");
        this.itemDocs.set(d._id, copy(d));
      }
    },
    byIds: async (ids) => this.pick(ids).map(copy),
    queued: async () =>
      [...this.itemDocs.values()]
        .filter((d) => d.queue !== undefined && d.batchId === null)
        .sort(this.byQueue)
        .map(copy),
    assign: async (ids, batchId) => this.pick(ids).forEach((d) => (d.batchId = batchId)),
    confirm: async (ids, txHash) =>
      this.pick(ids).forEach((d) => {
        Object.assign(d, { status: "confirmed", txHash });
        delete d.queue;
      }),
    attemptedAtLeast: async (ids, n) =>
      this.pick(ids)
        .filter((d) => d.attempts >= n)
        .map(copy),
    attemptedBelow: async (ids, n) =>
      this.pick(ids)
        .filter((d) => d.attempts < n)
        .sort(this.byQueue)
        .map(copy),
    release: async (ids) => this.pick(ids).forEach((d) => Object.assign(d, { attempts: d.attempts + 1, batchId: null })),
    fail: async (ids) =>
      this.pick(ids).forEach((d) => {
        d.status = "failed";
        delete d.queue;
      }),
  };
  readonly batches: SettlementStore["batches"] = {
    sending: async () => {
      const b = [...this.batchDocs.values()].find((d) => d.status === "sending");
      return b ? copy(b) : null;
    },
    insert: async (b) => void this.batchDocs.set(b._id, copy(b)),
    update: async (id, set) => void Object.assign(this.batchDocs.get(id) ?? {}, copy(set)),
  };
  readonly notices: SettlementStore["notices"] = {
    insertOnce: async (n) => {
      if (this.noticeDocs.has(n._id)) return false;
      this.noticeDocs.set(n._id, copy(n));
      return true;
    },
    get: async (id) => {
      const n = this.noticeDocs.get(id);
      return n ? copy(n) : null;
    },
    oldest: async (limit) =>
      [...this.noticeDocs.values()]
        .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
        .slice(0, limit)
        .map(copy),
    setLedgerDone: async (id) => void Object.assign(this.noticeDocs.get(id) ?? {}, { ledgerDone: true }),
    remove: async (id) => void this.noticeDocs.delete(id),
  };
}

/** The shared ports of one test: a clock, a chain on it, the chain side, a ledger and a recorder; ids counted. */
export function fakeWorld() {
  const clock = new ManualClock();
  const chain = new FakeChain(clock);
  let n = 0;
  return {
    clock,
    chain,
    side: fakeSide(chain),
    ledger: new FakeLedger(),
    rec: new Recorder(),
    newId: (prefix: string) => `${prefix}_${++n}`,
  };
}
