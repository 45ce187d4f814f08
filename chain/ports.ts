/**
 * The ports the chain's cores share (withdrawals, deposits, redemption, settlement). The chain
 * service wires them to the broker, its stores and the chain adapter; unit tests to in-memory
 * fakes. No Moleculer here beyond its error classes (domain errors travel as they are).
 */
import type { ConservationReport, PositionState, Posting } from "../engine/accounts";
import { isRefusal as anyRefusal } from "../engine/refusal";
import type { BrokerEvents, EventsOf } from "../contract/broker-events";
import type { IdemRecord, LedgerEntryDoc, PayoutRecord, RewardPaid } from "../models/trading";
import type { KeyRing } from "./keys";
import type { ChainPort } from "./port";

/** One ledger entry: its idempotency key and its postings. */
export interface LedgerEntry {
  key: string;
  postings: Posting[];
  /** An Idempotency-Key bound to this entry's command (see IdemRecord.answerFrom). */
  idem?: IdemRecord;
  /** The entry pays a market out at its end. */
  payout?: PayoutRecord;
}

/** What the chain's cores ask of the ledger. */
export interface ChainLedger {
  /** Applies the entry once per key (`applied` false when the key was taken before); a refusal is a Refusal of kind "rejected". */
  post(entry: LedgerEntry): Promise<{ applied: boolean }>;
  positions(account: string): Promise<PositionState[]>;
  holders(marketId: string): Promise<PositionState[]>;
  conservation(): Promise<ConservationReport>;
  /** The trade read model takes a settlement outcome. */
  markSettlement(tradeIds: string[], status: "confirmed" | "failed", txHash: string | null): Promise<void>;
  /** Journal entries after `seq`, oldest first. */
  entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]>;
  /** The liquidity rewards and maker rebates paid to a user. */
  rewardPayouts(userId: string): Promise<RewardPaid[]>;
}

/** The ledger refused the entry (a balance or shares check): nothing was applied. */
export function isRefusal(err: unknown): boolean {
  return anyRefusal(err) && err.kind === "rejected";
}

/** The refusal's code, e.g. INSUFFICIENT_SHARES. */
export function errorType(err: unknown): string | undefined {
  return anyRefusal(err) ? err.code : undefined;
}

/** The chain service's events and their payloads (contract/broker-events.ts). */
export type ChainEvents = EventsOf<"chain">;

export type EmitChainEvent = <K extends keyof ChainEvents>(event: K, payload: BrokerEvents[K]) => void;

export interface Log {
  info(msg: string): void;
  warn(...args: unknown[]): void;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The chain as the cores use it: the adapter, the exchange's keys and what the sandbox does for them. */
export interface ChainSide {
  port: ChainPort;
  keys: Pick<KeyRing, "wallet" | "deposit">;
  /** Gas for the hot or operator wallet: the sandbox funds it; on a real network operators do. */
  topUp(role: "hot" | "operator"): Promise<void>;
  /** Resolves once the chain's state is durable (the sandbox's files; nothing on a real network). */
  persist(): Promise<void>;
}

/** Durable counters and cursors (`nextIndex`, `ledgerCursor`); 0 when unset. */
export interface MetaStore {
  get(id: string): Promise<number>;
  set(id: string, value: number): Promise<void>;
}

/** After a message's validity ends, how long a not-yet-seen transaction is still waited for (indexing lag). */
export const LANDING_GRACE_SEC = 30;

export const errorText = (err: unknown): unknown => (err as Error)?.message ?? err;
