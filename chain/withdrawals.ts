/**
 * The withdrawal state machine. Debit first (journaled), then the hot wallet's jetton transfer to
 * the session wallet; a transfer that cannot be made reverses the debit. Identical requests (same
 * user, same amount) while one is in flight or within the dedup window are duplicates.
 *
 *   debiting ──ledger refused──▶ (record removed: nothing was debited)
 *      │ debited
 *      ├──refused by the chain / failed before submission──▶ failed (debit reversed)
 *      ▼
 *   submitted ──delivered──▶ sent
 *      └──failed on chain / expired without landing──▶ failed (debit reversed)
 *
 * A record left `debiting` or `submitted` (a crash, or an outcome not known at once) is settled by
 * `reconcile`, which runs on the same actor as requests, so none is in progress then.
 */
import { Address } from "@ton/core";
import { invalid, refused, refusalCode } from "../engine/refusal";
import { usdtLimitText, usdtText } from "../lib/units";
import type { SubmissionResult, WithdrawalDoc, WithdrawalLockDoc } from "../models/chain";
import type { IdemRecord } from "../models/trading";
import { jettonTransferMessage, transferOutcome } from "./operations";
import {
  errorText,
  isRefusal,
  LANDING_GRACE_SEC,
  type ChainLedger,
  type ChainSide,
  type Clock,
  type EmitChainEvent,
  type LedgerEntry,
  type Log,
} from "./ports";

export interface WithdrawalStore {
  get(id: string): Promise<WithdrawalDoc | null>;
  insert(doc: WithdrawalDoc): Promise<void>;
  remove(id: string): Promise<void>;
  update(id: string, set: Partial<WithdrawalDoc>): Promise<void>;
  /** Withdrawals `debiting` or `submitted`: their outcome is not settled yet. */
  open(): Promise<WithdrawalDoc[]>;
  lock(id: string): Promise<WithdrawalLockDoc | null>;
  putLock(lock: WithdrawalLockDoc): Promise<void>;
  /** Removes the lock while it still belongs to `withdrawalId`. */
  releaseLock(id: string, withdrawalId: string): Promise<void>;
}

export interface WithdrawalPorts {
  ledger: Pick<ChainLedger, "post">;
  store: WithdrawalStore;
  chain: ChainSide;
  clock: Clock;
  newId(prefix: string): string;
  /** A fresh random 64-bit query id for the jetton transfer. */
  queryId(): bigint;
  emit: EmitChainEvent;
  log: Log;
  /** micro-USDT bounds of one withdrawal, and how long an accepted one makes an identical request a duplicate (ms). */
  limits: { min: number; max: number; dedupMs: number };
}

/** The one place a withdrawal's ledger entries are built: the debit and its reversal. */
export function withdrawalEntry(wd: Pick<WithdrawalDoc, "_id" | "userId" | "amount">, kind: "debit" | "reversal"): LedgerEntry {
  const out = kind === "debit" ? wd.amount : -wd.amount;
  return {
    key: `${kind === "debit" ? "withdraw" : "withdraw-reversal"}:${wd._id}`,
    postings: [
      { kind: "cash", account: wd.userId, available: -out },
      { kind: "external", flow: "withdrawal", amount: out },
    ],
  };
}

/** The internal action that renders a withdrawal's answer from its record (Withdrawals.answerOf). */
export const WITHDRAWAL_ANSWER = "chain.withdrawalAnswer";

/** The dedup window's key: one live withdrawal per user and amount. */
const lockOf = (userId: string, amount: number) => `${userId}:${amount}`;

export class Withdrawals {
  constructor(private readonly p: WithdrawalPorts) {}

  private iso(ms = this.p.clock.now()): string {
    return new Date(ms).toISOString();
  }

  /** The bounds of one withdrawal (the service asks before queueing the request on the chain). */
  checkAmount(amount: number): void {
    const { min, max } = this.p.limits;
    if (!Number.isSafeInteger(amount) || amount < min)
      throw invalid(`amount must be at least ${usdtLimitText(min)}`, [{ field: "amount", rule: "min" }]);
    if (amount > max) throw invalid(`amount must be at most ${usdtLimitText(max)}`, [{ field: "amount", rule: "max" }]);
  }

  /**
   * POST /withdraw of `amount` micro-USDT to the session's wallet (raw address). With `key`, the
   * request's Idempotency-Key is journaled with the debit: whatever happens after it (a crash before
   * the answer is stored), the key stays bound to this withdrawal and never sends another.
   */
  async withdraw(
    userId: string,
    wallet: string,
    amount: number,
    key?: Omit<IdemRecord, "response" | "answerFrom">,
  ): Promise<SubmissionResult> {
    const { store, ledger, chain, limits } = this.p;
    this.checkAmount(amount);
    const now = this.p.clock.now();
    const lockId = lockOf(userId, amount);
    const lock = await store.lock(lockId);
    if (lock) {
      const prior = await store.get(lock.withdrawalId);
      const inFlight = prior && (prior.status === "debiting" || prior.status === "submitted");
      if (inFlight || (prior && prior.status !== "failed" && lock.until > now)) {
        return {
          status: "duplicate",
          ...(prior?.txHash ? { txHash: prior.txHash } : {}),
          message: `An identical withdrawal of ${usdtText(amount)} was ${inFlight ? "submitted moments ago and is in flight" : "accepted within the last " + Math.round(limits.dedupMs / 1000) + " s"}; nothing new was sent`,
        };
      }
    }
    let destination: Address;
    try {
      destination = Address.parseRaw(wallet);
    } catch {
      throw refused("INVALID_WALLET", "The session's wallet address cannot receive jettons");
    }
    const id = this.p.newId("wd");
    const wd: WithdrawalDoc = {
      _id: id,
      userId,
      amount,
      destination: destination.toRawString(),
      status: "debiting",
      queryId: this.p.queryId().toString(),
      msgHash: null,
      txHash: null,
      message: null,
      validUntil: null,
      createdAt: this.iso(now),
      updatedAt: this.iso(now),
    };
    await store.insert(wd);
    try {
      await ledger.post({
        ...withdrawalEntry(wd, "debit"),
        ...(key ? { idem: { ...key, response: null, answerFrom: { action: WITHDRAWAL_ANSWER, params: { withdrawalId: id } } } } : {}),
      });
    } catch (err) {
      // Refused (insufficient balance): nothing was debited. Any other failure leaves the record
      // `debiting` for reconciliation, which settles whether the debit happened.
      if (isRefusal(err)) await store.remove(id);
      throw err;
    }
    await store.putLock({ _id: lockId, withdrawalId: id, until: now + limits.dedupMs });

    const { port } = chain;
    const hot = await chain.keys.wallet("hot");
    try {
      await chain.topUp("hot");
      const hotJw = await port.jettonWalletAddress(hot.address);
      const destJw = await port.jettonWalletAddress(destination);
      const sub = await port.submit(hot, [
        jettonTransferMessage(hotJw, {
          queryId: BigInt(wd.queryId),
          amount: BigInt(amount),
          destination,
          responseTo: hot.address,
          comment: `withdrawal ${id}`,
        }),
      ]);
      // Recorded before the chain's state is written: after a crash in between, reconciliation
      // looks the message up and, not finding it past its validity, reverses the debit.
      await store.update(id, {
        status: "submitted",
        msgHash: sub.msgHash,
        txHash: sub.txHash,
        validUntil: sub.validUntil,
        updatedAt: this.iso(),
      });
      await chain.persist();
      const outcome = await transferOutcome(port, hot.address, sub, hotJw, destJw);
      if (outcome.status === "failed") {
        await this.fail({ ...wd, txHash: outcome.txHash }, outcome.reason);
        return {
          status: "failed",
          ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
          message: `Withdrawal failed on chain: ${outcome.reason}; ${usdtText(amount)} returned to your available balance`,
        };
      }
      const txHash = outcome.txHash ?? sub.msgHash;
      if (outcome.status === "delivered") await this.sent(wd, txHash);
      return {
        status: "accepted",
        txHash,
        message: `Withdrawal of ${usdtText(amount)} to ${destination.toRawString()} ${outcome.status === "delivered" ? "sent" : "submitted"}`,
      };
    } catch (err) {
      if (refusalCode(err) !== "CHAIN_REJECTED") {
        // Before submission (a get-method failed): certainly not sent. After it the outcome is
        // unknown and reconciliation decides, so only reverse what never left.
        const cur = await store.get(id);
        if (cur?.status === "submitted") {
          this.p.log.warn(`withdrawal ${id}: outcome unknown, left to reconciliation:`, (err as Error)?.message);
          return {
            status: "accepted",
            txHash: cur.txHash ?? cur.msgHash ?? undefined,
            message: `Withdrawal of ${usdtText(amount)} submitted`,
          };
        }
      }
      const reason =
        refusalCode(err) === "CHAIN_REJECTED" ? (err as Error).message : `the transfer could not be submitted (${errorText(err)})`;
      await this.fail(wd, reason);
      return {
        status: "failed",
        message: `Withdrawal could not be submitted: ${reason}; ${usdtText(amount)} returned to your available balance`,
      };
    }
  }

  /**
   * A withdrawal's answer as its record tells it now (a key's replay after its first answer was
   * lost); null while reconciliation has not yet decided a `debiting` one.
   */
  async answerOf(id: string): Promise<SubmissionResult | null> {
    const wd = await this.p.store.get(id);
    if (!wd || wd.status === "debiting") return null;
    const amount = usdtText(wd.amount);
    if (wd.status === "failed")
      return {
        status: "failed",
        ...(wd.txHash ? { txHash: wd.txHash } : {}),
        message: `Withdrawal failed: ${wd.message ?? "unknown reason"}; ${amount} returned to your available balance`,
      };
    const txHash = wd.txHash ?? wd.msgHash;
    return {
      status: "accepted",
      ...(txHash ? { txHash } : {}),
      message: `Withdrawal of ${amount} to ${wd.destination} ${wd.status === "sent" ? "sent" : "submitted"}`,
    };
  }

  private async sent(wd: WithdrawalDoc, txHash: string): Promise<void> {
    await this.p.store.update(wd._id, { status: "sent", txHash, updatedAt: this.iso() });
    this.p.emit("chain.withdrawalSent", { userId: wd.userId, withdrawalId: wd._id, amount: String(wd.amount), txHash });
  }

  /** The debit reversed, the record `failed` with the reason, the dedup window released. */
  private async fail(wd: WithdrawalDoc, reason: string): Promise<void> {
    await this.p.ledger.post(withdrawalEntry(wd, "reversal"));
    await this.p.store.update(wd._id, { status: "failed", message: reason, txHash: wd.txHash, updatedAt: this.iso() });
    await this.p.store.releaseLock(lockOf(wd.userId, wd.amount), wd._id);
    this.p.emit("chain.withdrawalFailed", { userId: wd.userId, withdrawalId: wd._id, amount: String(wd.amount), reason });
  }

  /** Withdrawals whose outcome was not known at once (the `ton` adapter, or a crash mid-way). */
  async reconcile(): Promise<void> {
    const { store, chain } = this.p;
    const open = await store.open();
    if (!open.length) return;
    const hot = await chain.keys.wallet("hot");
    const hotJw = await chain.port.jettonWalletAddress(hot.address);
    const nowSec = Math.floor(this.p.clock.now() / 1000);
    for (const wd of open) {
      if (wd.status === "debiting") {
        // Interrupted between the debit and the submission: nothing was sent. Re-posting the debit
        // under its key is a no-op when it was applied and applies it when it was not; then the
        // reversal undoes it.
        try {
          await this.p.ledger.post(withdrawalEntry(wd, "debit"));
        } catch (err) {
          if (isRefusal(err)) {
            await store.update(wd._id, { status: "failed", message: "interrupted before the debit", updatedAt: this.iso() });
            await store.releaseLock(lockOf(wd.userId, wd.amount), wd._id);
            continue;
          }
          throw err;
        }
        await this.fail(wd, "interrupted before submission");
        continue;
      }
      const destJw = await chain.port.jettonWalletAddress(Address.parseRaw(wd.destination));
      const outcome = await transferOutcome(
        chain.port,
        hot.address,
        { msgHash: wd.msgHash as string, txHash: wd.txHash, trace: null, validUntil: wd.validUntil ?? 0 },
        hotJw,
        destJw,
      );
      if (outcome.status === "delivered") await this.sent(wd, outcome.txHash);
      else if (outcome.status === "failed") await this.fail({ ...wd, txHash: outcome.txHash }, outcome.reason);
      else if (!outcome.txHash && wd.validUntil !== null && nowSec > wd.validUntil + LANDING_GRACE_SEC)
        await this.fail(wd, "the hot wallet's message expired without landing on chain");
    }
  }

  /** Debited withdrawals not yet out of the hot wallet (micro-USDT). */
  async pending(): Promise<bigint> {
    let sum = 0n;
    for (const w of await this.p.store.open()) sum += BigInt(w.amount);
    return sum;
  }
}
