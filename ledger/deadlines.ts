/**
 * Orders' deadlines, kept by the ledger (the single writer, whose store holds them): GTD orders
 * expire at their `expiresAt`; a dead man's switch not re-armed in time cancels every open order
 * of its user. Both are journaled (the order's expiresAt, the heartbeat entry), so a restart keeps
 * them, and a deadline that passed while the exchange was down fires at start. A deadline fires
 * until its orders are gone: a failed cancel (an engine moving) is retried a moment later.
 */
export interface DeadlinePorts {
  now(): number;
  /** Resting GTD orders due at `nowIso`, oldest first. */
  dueExpiries(nowIso: string, limit: number): Promise<Array<{ orderId: string; marketId: string }>>;
  nextExpiry(): Promise<string | null>;
  heartbeats(): Promise<Array<{ userId: string; deadline: string }>>;
  /** Cancel those orders with status `expired` (the market's owner does it). */
  expire(marketId: string, orderIds: string[]): Promise<void>;
  /** Cancel every open order of the user with reason `heartbeat`, then disarm the switch armed until `at` (journaled). */
  lapse(userId: string, at: number): Promise<void>;
  log(message: string, err?: unknown): void;
}

/** Longest sleep between checks (a clock that jumps, a deadline noted while a timer was set). */
const MAX_SLEEP_MS = 30_000;
const RETRY_MS = 1_000;
const BATCH = 500;

export class Deadlines {
  private timer: NodeJS.Timeout | null = null;
  private nextExpiryMs: number | null = null;
  private readonly switches = new Map<string, number>();
  private running = false;
  private again = false;
  private stopped = false;

  constructor(private readonly ports: DeadlinePorts) {}

  async start(): Promise<void> {
    for (const h of await this.ports.heartbeats()) this.switches.set(h.userId, Date.parse(h.deadline));
    const next = await this.ports.nextExpiry();
    this.nextExpiryMs = next ? Date.parse(next) : null;
    // Whatever fell due while the exchange was down fires now.
    await this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A GTD order was committed. */
  noteExpiry(iso: string): void {
    const at = Date.parse(iso);
    if (this.nextExpiryMs === null || at < this.nextExpiryMs) {
      this.nextExpiryMs = at;
      this.schedule();
    }
  }

  /** A heartbeat was committed: armed until `deadline`, or disarmed (null). */
  heartbeat(userId: string, deadline: string | null): void {
    if (deadline) this.switches.set(userId, Date.parse(deadline));
    else this.switches.delete(userId);
    this.schedule();
  }

  armed(userId: string): number | null {
    return this.switches.get(userId) ?? null;
  }

  private schedule(delayMs?: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.ports.now();
    let next = Infinity;
    if (this.nextExpiryMs !== null) next = Math.min(next, this.nextExpiryMs);
    for (const at of this.switches.values()) next = Math.min(next, at);
    const wait = delayMs ?? Math.max(0, Math.min(MAX_SLEEP_MS, next - now));
    this.timer = setTimeout(() => void this.tick(), wait);
    this.timer.unref?.();
  }

  /** Fire what is due; one run at a time (a deadline noted meanwhile makes it run again). */
  async tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    let retry = false;
    try {
      do {
        this.again = false;
        retry = (await this.fireExpiries()) || retry;
        retry = (await this.fireSwitches()) || retry;
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
    this.schedule(retry ? RETRY_MS : undefined);
  }

  private async fireExpiries(): Promise<boolean> {
    const now = this.ports.now();
    if (this.nextExpiryMs === null || this.nextExpiryMs > now) return false;
    let failed = false;
    for (;;) {
      const due = await this.ports.dueExpiries(new Date(now).toISOString(), BATCH);
      if (!due.length) break;
      const byMarket = new Map<string, string[]>();
      for (const d of due) byMarket.set(d.marketId, [...(byMarket.get(d.marketId) ?? []), d.orderId]);
      for (const [marketId, ids] of byMarket) {
        await this.ports.expire(marketId, ids).catch((err) => {
          failed = true;
          this.ports.log(`expiry of ${ids.length} orders in ${marketId} failed; retrying`, err);
        });
      }
      if (failed || due.length < BATCH) break;
    }
    const next = await this.ports.nextExpiry();
    this.nextExpiryMs = next ? Date.parse(next) : null;
    // Still due after firing (its market cannot act on it now): try again in a moment, not at once.
    return failed || (this.nextExpiryMs !== null && this.nextExpiryMs <= now);
  }

  private async fireSwitches(): Promise<boolean> {
    const now = this.ports.now();
    let failed = false;
    for (const [userId, at] of [...this.switches]) {
      if (at > now) continue;
      try {
        await this.ports.lapse(userId, at);
        // Re-armed meanwhile: the new deadline stands.
        if (this.switches.get(userId) === at) this.switches.delete(userId);
      } catch (err) {
        failed = true;
        this.ports.log(`the dead man's switch of ${userId} lapsed; cancelling its orders failed, retrying`, err);
      }
    }
    return failed;
  }
}
