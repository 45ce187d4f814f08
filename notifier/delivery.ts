/**
 * Telegram pushes of stored notifications, framework-free: claim due ones under a lease (one
 * sender per notification across instances), send, and record the outcome: delivered, retried
 * after a backoff (a server's retry_after honoured), or given up (a 4xx, or attempts exhausted).
 * The notifier service wires the ports to its store, grammy and timers.
 */
import type { NotificationDoc } from "../models/notification";
import { classifyFailure, DELIVERY_LEASE_MS, nextRetryDelay, type RetryPolicy } from "./policy";
import { telegramText } from "./texts";

/** Pushes in flight at once (the Bot API allows about 30 messages per second per bot). */
export const MAX_SENDING = 8;

/** The slice of grammy's Api the notifier uses (a stand-in can replace it). */
export interface BotClient {
  sendMessage(chatId: number, text: string, signal: AbortSignal): Promise<unknown>;
}

/** The pending pushes as stored (the notifications whose `deliverAt` is set). */
export interface Outbox {
  /** Pushes whose `deliverAt` is at or before `nowMs`, earliest first. */
  due(nowMs: number, limit: number): Promise<NotificationDoc[]>;
  /** Move `deliverAt` from `deliverAt` to `leaseUntil`; false when someone else moved it first. */
  claim(id: string, deliverAt: number | undefined, leaseUntil: number): Promise<boolean>;
  /** Sent: delivered, `deliverAt` and `lastError` cleared. */
  delivered(id: string, attempts: number, deliveredAt: string): Promise<void>;
  /** Failed, to be tried again at `retryAt`. */
  retryLater(id: string, attempts: number, lastError: string, retryAt: number): Promise<void>;
  /** Failed for good: `delivery: failed`, `deliverAt` cleared. */
  giveUp(id: string, attempts: number, lastError: string): Promise<void>;
  /** Not sent (shutting down): due again at `at`, attempts unchanged. */
  handBack(id: string, at: number): Promise<void>;
}

export interface DeliveryPorts {
  bot: BotClient;
  outbox: Outbox;
  policy: RetryPolicy;
  /** Epoch ms. */
  now(): number;
  /** Run `fn` after `ms` (a timer that does not hold the process open); returns its cancel. */
  after(ms: number, fn: () => void): () => void;
  log: { warn(message: string, err?: unknown): void };
  /** Jitter source of the backoff (Math.random by default). */
  rand?: () => number;
}

export class Delivery {
  private stopping = false;
  private delivering: Promise<void> | null = null;
  private again = false;
  private readonly sending = new Map<AbortController, Promise<void>>();
  private readonly timers = new Set<{ cancel(): void }>();

  constructor(private readonly ports: DeliveryPorts) {}

  /** Pushes being sent right now. */
  get inFlight(): number {
    return this.sending.size;
  }

  /** Single flight over due pushes; never awaited by anything on the trading path. */
  deliver(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.delivering) {
      this.again = true;
      return this.delivering;
    }
    this.delivering = (async () => {
      try {
        do {
          this.again = false;
          await this.deliverDue();
        } while (this.again && !this.stopping);
      } catch (err) {
        this.ports.log.warn("delivery scan failed", err);
      } finally {
        this.delivering = null;
      }
    })();
    return this.delivering;
  }

  /** Stop claiming; sends in flight are aborted and handed back for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    await this.delivering;
    for (const abort of this.sending.keys()) abort.abort();
    await Promise.all(this.sending.values());
  }

  /** Claim due pushes up to the send limit; sends run on their own so one slow chat holds one slot. */
  private async deliverDue(): Promise<void> {
    const { outbox } = this.ports;
    while (!this.stopping && this.sending.size < MAX_SENDING) {
      const due = await outbox.due(this.ports.now(), MAX_SENDING - this.sending.size);
      if (!due.length) return;
      for (const doc of due) {
        // Claim by moving deliverAt to the end of a lease: one sender per notification across
        // instances, and a sender that dies mid-way is replaced when the lease ends.
        if (!(await outbox.claim(doc._id, doc.deliverAt, this.ports.now() + DELIVERY_LEASE_MS))) continue;
        const abort = new AbortController();
        const sending = this.deliverOne(doc, abort.signal)
          .catch((err) => this.ports.log.warn(`push of ${doc._id} failed to record`, err))
          .finally(() => {
            this.sending.delete(abort);
            void this.deliver();
          });
        this.sending.set(abort, sending);
      }
    }
  }

  private async deliverOne(doc: NotificationDoc, signal: AbortSignal): Promise<void> {
    const { bot, outbox, policy } = this.ports;
    if (doc.chatId === undefined) return;
    const attempts = doc.attempts + 1;
    try {
      await bot.sendMessage(doc.chatId, telegramText(doc), signal);
    } catch (err) {
      if (signal.aborted) {
        // Shutting down: hand the push back so the next start sends it without waiting for the lease.
        await outbox.handBack(doc._id, this.ports.now());
        return;
      }
      const failure = classifyFailure(err);
      const delay = nextRetryDelay(policy, attempts, failure, this.ports.rand);
      if (delay === null) {
        this.ports.log.warn(`Telegram push of ${doc._id} given up after ${attempts} attempt(s): ${failure.reason}`);
        await outbox.giveUp(doc._id, attempts, failure.reason);
      } else {
        await outbox.retryLater(doc._id, attempts, failure.reason, this.ports.now() + delay);
        this.later(delay, () => void this.deliver());
      }
      return;
    }
    await outbox.delivered(doc._id, attempts, new Date(this.ports.now()).toISOString());
  }

  private later(ms: number, fn: () => void): void {
    if (this.stopping) return;
    const timer = { cancel: () => undefined as void };
    this.timers.add(timer);
    timer.cancel = this.ports.after(ms, () => {
      this.timers.delete(timer);
      fn();
    });
  }
}
