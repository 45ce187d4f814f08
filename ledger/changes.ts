/**
 * What a group commit tells the world: every gateway pushes to its own sockets; consumers treat
 * these as hints. Gathered into one message per commit by the shell (`GatheredChanges`). The durability watermark first (engines acknowledge their orders
 * on it), then one balance and one position update per user per written batch, with the state
 * after it, then the users' trades. Also what the batch changes in the deadlines (GTD expiries,
 * dead man's switches). Decided here; the shell dispatches. Written to a sink (no list per batch).
 */
import type { PositionState } from "../engine/accounts";
import { formatMicro } from "../engine/money";
import type { TradeRecord } from "../engine/settlement";
import type { LedgerEntryDoc } from "../models/trading";
import type { BrokerEvents, EventsOf, LedgerMessage } from "../contract/broker-events";
import { balanceView, positionChangeView } from "./views";

/** The ledger's broker events (contract/broker-events.ts). */
export type LedgerEvents = EventsOf<"ledger">;

export interface ChangeSink {
  broadcast<K extends keyof LedgerEvents>(event: K, payload: BrokerEvents[K]): void;
  /** One commit's changes are all written (a sink that gathers them sends them now). */
  end?(): void;
}

/** What the shell sends per group commit. */
export interface CommitOut {
  /** The durability watermark. */
  durable(payload: BrokerEvents["ledger.durable"]): void;
  /** Every other change of the commit, in the order decided, as one message. */
  committed(payload: BrokerEvents["ledger.committed"]): void;
}

/**
 * A sink that gathers one commit's changes into one message: a group of a hundred orders is one
 * broadcast instead of several per order (each costs a broker context per listener and node).
 */
export class GatheredChanges implements ChangeSink {
  private events: LedgerMessage[] = [];

  constructor(private readonly out: CommitOut) {}

  broadcast<K extends keyof LedgerEvents>(event: K, payload: BrokerEvents[K]): void {
    if (event === "ledger.durable") this.out.durable(payload as BrokerEvents["ledger.durable"]);
    else this.events.push({ name: event, payload } as LedgerMessage);
  }

  end(): void {
    if (!this.events.length) return;
    const events = this.events;
    this.events = [];
    this.out.committed({ events });
  }
}

/**
 * The engine nodes that wait on the watermark: each node's highest entry it posted without waiting
 * for durability. A watermark goes to these nodes only, not to every engine of a cluster.
 */
export class WatermarkAudience {
  private readonly upTo = new Map<string, number>();

  posted(node: string, seq: number): void {
    if ((this.upTo.get(node) ?? 0) < seq) this.upTo.set(node, seq);
  }

  /** The nodes to tell that everything up to `seq` is durable; those with nothing later are forgotten (`all`: everyone). */
  reached(seq: number, all = false): string[] {
    const nodes: string[] = [];
    for (const [node, last] of this.upTo) {
      nodes.push(node);
      if (all || last <= seq) this.upTo.delete(node);
    }
    return nodes;
  }
}

/** The state after the batch (the ledger's accounts in memory). */
export interface AccountReads {
  balance(account: string): { available: number; locked: number; total: number };
  positionsOf(account: string): PositionState[];
}

/** Users, not the house or the pool, hear about their accounts. */
const isUser = (account: string) => account.startsWith("usr_");

export function notifyCommitted(batch: readonly LedgerEntryDoc[], instance: string, accounts: AccountReads, out: ChangeSink): void {
  out.broadcast("ledger.durable", { instance, seq: batch[batch.length - 1].seq });
  const users = new Set<string>();
  const positions = new Map<string, { userId: string; marketId: string; outcome: "YES" | "NO" }>();
  const trades: Array<{ t: TradeRecord; at: string }> = [];
  for (const d of batch) {
    for (const p of d.postings) {
      if (p.kind === "cash" && isUser(p.account)) users.add(p.account);
      if (p.kind === "shares" && isUser(p.account))
        positions.set(`${p.account}|${p.marketId}|${p.outcome}`, { userId: p.account, marketId: p.marketId, outcome: p.outcome });
    }
    // The book command's time is its prints' time too (the public tape agrees with the catalog's list).
    if (d.trades) for (const t of d.trades) trades.push({ t, at: d.book?.at ?? d.at });
  }
  for (const userId of users) out.broadcast("ledger.balanceChanged", { userId, balance: balanceView(accounts.balance(userId)) });
  for (const { userId, marketId, outcome } of positions.values()) {
    const p = accounts.positionsOf(userId).find((x) => x.marketId === marketId && x.outcome === outcome);
    if (p) out.broadcast("ledger.positionChanged", { userId, position: positionChangeView(p) });
  }
  for (const { t, at } of trades)
    if (isUser(t.userId))
      out.broadcast("ledger.tradeCreated", { userId: t.userId, trade: { ...t, totalCostDecimal: formatMicro(t.totalCost), at } });
  out.end?.();
}

/** What the deadlines keep (ledger/deadlines.ts). */
export interface DeadlineNotes {
  noteExpiry(iso: string): void;
  heartbeat(userId: string, deadline: string | null): void;
}

/** A committed GTD placement is a deadline; a committed heartbeat arms or disarms a switch. */
export function noteDeadlines(batch: readonly LedgerEntryDoc[], deadlines: DeadlineNotes): void {
  for (const d of batch) {
    const c = d.book?.command;
    if (c?.type === "place" && c.order.expiresAt) deadlines.noteExpiry(c.order.expiresAt);
    if (d.heartbeat) deadlines.heartbeat(d.heartbeat.userId, d.heartbeat.deadline);
  }
}
