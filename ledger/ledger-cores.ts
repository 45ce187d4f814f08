/**
 * The ledger's cores on one money store, wired to the edge ports the ledger service gives them:
 * the core opened and checked (a damaged journal or books that do not add up stop the start,
 * naming what they found), its commits told to the world (ledger/changes.ts), and the orders'
 * deadlines (GTD expiry, dead man's switches) kept and fired through the market's owner.
 */
import type { CancelReasonCode } from "../engine/settlement";
import { newId } from "../lib/ids";
import type { BrokerEvents } from "../contract/broker-events";
import { notifyCommitted, noteDeadlines, WatermarkAudience, type ChangeSink } from "./changes";
import { Deadlines, type DeadlinePorts } from "./deadlines";
import { LedgerDesk } from "./desk";
import { Ledger } from "./ledger";
import { StoreDamaged, type MoneyStore } from "./store";
import { verifyChain } from "./verify";
import { moneyCheckProblems } from "./views";

export interface LedgerEdges {
  out: ChangeSink;
  /**
   * The watermark to the engine nodes given (those that posted entries up to it without waiting).
   * Without it the watermark goes out through `out` like every change.
   */
  durableTo?(payload: BrokerEvents["ledger.durable"], nodes: string[]): void;
  /** Cancel orders on the market's owner: the given ones, or every one of a user. */
  cancelMany(
    marketId: string,
    which: { orderIds: string[] } | { userId: string },
    reason: Extract<CancelReasonCode, "expired" | "heartbeat">,
  ): Promise<void>;
  log: { info(message: string): void; warn(message: string, detail?: unknown): void };
  now?(): number;
}

export class LedgerCores {
  private constructor(
    readonly store: MoneyStore,
    readonly ledger: Ledger,
    readonly desk: LedgerDesk,
    readonly deadlines: Deadlines,
    private readonly edges: LedgerEdges,
    private readonly audience: WatermarkAudience,
  ) {}

  /**
   * Node `node` posted entry `seq` and waits for the watermark to pass it. A commit that came
   * before this was noted (a quick write) is told to that node now, or it would wait for its
   * fallback.
   */
  posted(node: string, seq: number, instance: string): void {
    const { ledger } = this;
    if (instance !== ledger.instance) return;
    if (seq > ledger.durableSeq) this.audience.posted(node, seq);
    else this.edges.durableTo?.({ instance, seq: ledger.durableSeq }, [node]);
  }

  /** Open the ledger on `store` and check it; the store is closed again when the start fails. */
  static async open(store: MoneyStore, edges: LedgerEdges): Promise<LedgerCores> {
    const now = edges.now ?? (() => Date.now());
    let deadlines: Deadlines | undefined;
    const audience = new WatermarkAudience();
    const durableTo = edges.durableTo;
    // The watermark only to the nodes waiting on it, the rest of the changes as they are decided.
    const out: ChangeSink = durableTo
      ? {
          broadcast: (event, payload) => {
            if (event !== "ledger.durable") return edges.out.broadcast(event, payload);
            const mark = payload as BrokerEvents["ledger.durable"];
            durableTo(mark, audience.reached(mark.seq));
          },
          end: () => edges.out.end?.(),
        }
      : edges.out;
    try {
      const outage = refusalLog(store.location, edges.log, now);
      const ledger = await Ledger.open(store, {
        committed: (docs) => {
          outage.committed();
          notifyCommitted(docs, ledger.instance, ledger, out);
          if (deadlines) noteDeadlines(docs, deadlines);
        },
        refused: (err, entries) => {
          outage.refused(err.message, entries);
          // The new instance's watermark: engines waiting on undone entries hear of it at once
          // (every engine: a broadcast reaches each node's group).
          audience.reached(ledger.durableSeq, true);
          edges.out.broadcast("ledger.durable", { instance: ledger.instance, seq: ledger.durableSeq });
          edges.out.end?.();
        },
        failed: (err) =>
          edges.log.warn(
            `ledger: a write to ${store.location} failed with an unknown outcome; writes are refused (503) until a restart, reads go on`,
            err.message,
          ),
      });
      // A changed, missing or reordered entry anywhere stops the start, naming it.
      const chain = await verifyChain(store);
      if (!chain.ok) throw new StoreDamaged(`ledger journal: ${chain.problems.slice(0, 5).join("; ")}`);
      const check = await ledger.check();
      if (!check.ok) throw new StoreDamaged(`the money store ${store.location} does not add up: ${moneyCheckProblems(check).join("; ")}`);
      edges.log.info(`ledger: ${ledger.lastSeq} journal entries verified in ${chain.ms} ms (${store.location})`);
      const desk = new LedgerDesk(ledger, store, { now, newId });
      deadlines = new Deadlines(deadlinePorts(store, desk, edges, now, () => deadlines as Deadlines));
      return new LedgerCores(store, ledger, desk, deadlines, edges, audience);
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  /** Deadlines that passed while the exchange was down fire now (once the engines answer). */
  startDeadlines(): void {
    void this.deadlines.start().catch((err) => this.edges.log.warn("deadlines could not start", err));
  }

  async close(): Promise<void> {
    this.deadlines.stop();
    await this.ledger.idle();
    await this.store.close();
  }
}

/** Refused writes, logged when they start, every REFUSAL_LOG_MS while they last, and when writes go through again. */
const REFUSAL_LOG_MS = 30_000;

function refusalLog(location: string, log: LedgerEdges["log"], now: () => number) {
  let since: number | null = null;
  let lastLog = 0;
  let groups = 0;
  let entries = 0;
  return {
    refused(reason: string, n: number): void {
      groups++;
      entries += n;
      if (since !== null && now() - lastLog < REFUSAL_LOG_MS) return;
      since ??= now();
      lastLog = now();
      log.warn(
        `ledger: writes to ${location} are refused (${reason}): ${entries} entries in ${groups} group commits undone and answered 503 so far; reads go on, each new write tries again`,
      );
    },
    committed(): void {
      if (since === null) return;
      log.info(
        `ledger: writes to ${location} go through again, after ${entries} refused entries in ${Math.round((now() - since) / 1000)} s`,
      );
      since = null;
      groups = entries = 0;
    },
  };
}

/** GTD expiry and heartbeat lapses, fired through the market's owner. */
export function deadlinePorts(
  store: MoneyStore,
  desk: Pick<LedgerDesk, "disarm">,
  edges: Pick<LedgerEdges, "cancelMany" | "log">,
  now: () => number,
  self: () => Pick<Deadlines, "armed">,
): DeadlinePorts {
  return {
    now,
    dueExpiries: (nowIso, limit) => store.dueExpiries(nowIso, limit),
    nextExpiry: () => store.nextExpiry(),
    heartbeats: () => store.heartbeats(),
    expire: (marketId, orderIds) => edges.cancelMany(marketId, { orderIds }, "expired"),
    lapse: async (userId, at) => {
      for (const marketId of await store.openMarketsOf(userId)) await edges.cancelMany(marketId, { userId }, "heartbeat");
      // Disarmed once it fired, unless a heartbeat re-armed it meanwhile.
      if (self().armed(userId) !== at) return;
      await desk.disarm(userId);
    },
    log: (message, err) => edges.log.warn(message, (err as Error)?.message ?? ""),
  };
}
