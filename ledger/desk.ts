/**
 * The ledger's requests over its core (ledger/ledger.ts) and its store: each write is applied at
 * once and answered once durable (or at once, when the caller waits for durability itself); the
 * journal keys of settlements, stored answers and heartbeats are made here. Refusals are the
 * core's refusals and the desk's (Refusal: kind and code; the shell gives them their status).
 */
import { createHash } from "node:crypto";
import { notFoundFault, invalid } from "../engine/refusal";
import { page, type Page } from "../lib/paging";
import { checkHeartbeat } from "../lib/order-rules";
import type {
  AuditEntry,
  IdemRecord,
  LedgerEntryDoc,
  MarketLease,
  SettlementRecord,
  PostInput,
  PostOutcome,
  VerifyReport,
} from "../models/trading";
import type { Ledger } from "./ledger";
import type { MoneyStore } from "./store";
import { verifyAll } from "./verify";
import type { Model } from "../contract";
import { balanceView, tradeView } from "./views";

export interface LedgerDeskPorts {
  now(): number;
  newId(prefix: string): string;
}

export class LedgerDesk {
  constructor(
    readonly ledger: Ledger,
    readonly store: MoneyStore,
    private readonly ports: LedgerDeskPorts,
  ) {}

  /**
   * Apply one entry exactly once: a repeated key answers `applied: false` and changes nothing; a
   * refused entry changes nothing and is not journaled. Answered once durable, unless `durable`
   * is false (the caller waits itself, on the watermark or with `sync`).
   */
  post(entry: PostInput, durable?: boolean): PostOutcome | Promise<PostOutcome> {
    const r = this.ledger.post(entry);
    if (durable === false || r.seq <= 0) return r;
    return this.ledger.waitDurable(r.seq).then(() => r);
  }

  /** Resolves once every entry up to `seq` is durable (of this ledger process, when `instance` is given). */
  async sync(seq: number, instance?: string): Promise<{ durableSeq: number; instance: string }> {
    await this.ledger.waitDurable(seq, instance);
    return { durableSeq: this.ledger.durableSeq, instance: this.ledger.instance };
  }

  /** A market's writer lease for `node` (fences every earlier writer); answered once durable. */
  async acquire(marketId: string, node: string): Promise<MarketLease & { instance: string }> {
    const r = this.ledger.acquire(marketId, node);
    await this.ledger.waitDurable(r.seq);
    return { ...r.lease, instance: this.ledger.instance };
  }

  /**
   * A market's lease once none of its entries waits to be written: the journal position, book seq
   * and pool the store holds for it (a writer whose commit was refused and undone resumes from it).
   */
  async committedLease(marketId: string): Promise<MarketLease> {
    for (;;) {
      const seq = this.ledger.pendingSeqOf(marketId);
      if (seq === null) return this.ledger.lease(marketId);
      try {
        await this.ledger.waitDurable(seq);
      } catch (err) {
        // Undone with a refused commit: look again. A ledger that stopped answers no more.
        if (this.ledger.broken) throw err;
      }
    }
  }

  /** Settlement progress of trades, journaled like every fact of the money path (one key per outcome). */
  async markSettlement(tradeIds: string[], status: SettlementRecord["status"], txHash?: string): Promise<{ updated: number }> {
    if (!tradeIds.length) return { updated: 0 };
    const ids = [...tradeIds].sort();
    const key = `settlement:${status}:${txHash ?? "-"}:${ids[0]}:${ids.length}`;
    await this.write({ key, postings: [], settlement: { tradeIds: ids, status, txHash: txHash ?? null } });
    return { updated: ids.length };
  }

  /** The answer of an idempotent request whose command journaled none (withdrawals, redemptions). */
  async storeAnswer(idem: IdemRecord): Promise<{ stored: true }> {
    await this.write({ key: `idem:${idem.scope}:${createHash("sha256").update(idem.key).digest("hex")}`, postings: [], idem });
    return { stored: true };
  }

  /** Arms (or with 0 disarms) a user's dead man's switch; journaled, so a restart keeps it. */
  async heartbeat(userId: string, timeoutSeconds: number): Promise<{ armed: boolean; expiresAt: string | null }> {
    const t = checkHeartbeat(timeoutSeconds);
    if (!t.ok) throw invalid(t.message, t.fields);
    const deadline = t.value ? new Date(this.ports.now() + t.value * 1000).toISOString() : null;
    await this.write({
      key: `heartbeat:${userId}:${this.ports.newId("hb")}`,
      postings: [],
      heartbeat: { userId, timeoutSeconds: t.value, deadline },
    });
    return { armed: deadline !== null, expiresAt: deadline };
  }

  /** The switch fired: disarmed (journaled). */
  async disarm(userId: string): Promise<void> {
    await this.write({
      key: `heartbeat:${userId}:${this.ports.newId("hb")}`,
      postings: [],
      heartbeat: { userId, timeoutSeconds: 0, deadline: null },
    });
  }

  /** An operator action, journaled (hash-chained with the money); answered once durable. */
  async audit(a: Omit<AuditEntry, "id">): Promise<Model<"AuditRecord">> {
    const entry: AuditEntry = { id: this.ports.newId("aud"), ...a };
    const r = this.ledger.post({ key: `audit:${entry.id}`, postings: [], audit: entry });
    await this.ledger.waitDurable(r.seq);
    return auditView({ _id: `audit:${entry.id}`, seq: r.seq, postings: [], audit: entry, at: new Date(this.ports.now()).toISOString() });
  }

  /** GET /admin/audit: operator actions, newest first, once everything applied is written. */
  async auditLog(pageNo: number, pageSize: number): Promise<Page<Model<"AuditRecord">>> {
    await this.ledger.idle();
    const { items, total } = await this.store.auditLog(pageNo, pageSize);
    return page(items.map(auditView), total, pageNo, pageSize);
  }

  balance(userId: string): Model<"Balance"> {
    return balanceView(this.ledger.balance(userId));
  }

  /** Raw state of an account (tests, operators, other services). */
  account(account: string) {
    return { balance: this.ledger.balance(account), positions: this.ledger.positionsOf(account) };
  }

  /** GET /trades: the user's trades, newest first. */
  async trades(userId: string, pageNo: number, pageSize: number): Promise<Page<Model<"Trade">>> {
    const { items, total } = await this.store.trades(userId, pageNo, pageSize);
    return page(items.map(tradeView), total, pageNo, pageSize);
  }

  /** GET /trades/:id: only the user's own trades exist for the user. */
  async trade(userId: string, tradeId: string): Promise<Model<"Trade">> {
    const t = await this.store.trade(tradeId);
    if (!t || t.userId !== userId) throw notFoundFault("Trade");
    return tradeView(t);
  }

  async openOrders(userId: string, marketId?: string) {
    const { items } = await this.store.orders({ userId, marketId, status: "open", page: 1, pageSize: 1_000_000 });
    return items;
  }

  /** Durable journal entries after `seq`, from memory when recent (the notifier's and the chain's cursors). */
  entriesAfter(seq: number, limit: number) {
    return this.ledger.recentAfter(seq, limit) ?? this.store.entriesAfter(seq, limit);
  }

  /** A market's book commands after a journal position, once everything applied is written. */
  async bookEntries(marketId: string, afterSeq: number, limit: number) {
    await this.ledger.idle();
    return this.store.bookEntries(marketId, afterSeq, limit);
  }

  /** The whole journal's hash chain, replayed and compared with the books and read models. */
  async verify(): Promise<VerifyReport> {
    await this.ledger.idle();
    return verifyAll(this.store, { accounts: this.ledger.snapshotAccounts(), leases: this.ledger.leases() });
  }

  /** An entry of no market, answered once durable. */
  private async write(entry: PostInput): Promise<void> {
    const r = this.ledger.post(entry);
    await this.ledger.waitDurable(r.seq);
  }
}

/** An audit entry as GET /admin/audit shows it. */
function auditView(d: LedgerEntryDoc): Model<"AuditRecord"> {
  const a = d.audit as AuditEntry;
  return { id: a.id, at: d.at, action: a.action, method: a.method, path: a.path, params: a.params, note: a.note, seq: d.seq };
}
