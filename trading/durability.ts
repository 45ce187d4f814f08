/**
 * Waits for ledger entries to become durable without a call per entry: the ledger broadcasts its
 * durability watermark after every group commit (`ledger.durable`); a wait that sees no watermark
 * for a while asks the ledger directly (a lost event, a quiet ledger). A watermark of another
 * ledger process than the entry's means the ledger restarted: that entry's outcome is unknown.
 * One timer serves every wait (not one per order): it fires for the oldest wait and re-arms for
 * the next.
 */
interface Waiter {
  seq: number;
  instance: string;
  /** When the wait began (ms, `now`): it asks the ledger `fallbackMs` later. */
  since: number;
  resolve(): void;
  reject(err: Error): void;
}

export class DurabilityWatch {
  private readonly marks = new Map<string, number>();
  /** In the order they began (so the oldest is first). */
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sync: (seq: number, instance: string) => Promise<void>,
    private readonly fallbackMs = 1000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A watermark from the ledger: everything up to `seq` of process `instance` is durable. */
  observe(instance: string, seq: number): void {
    if ((this.marks.get(instance) ?? 0) < seq) this.marks.set(instance, seq);
    if (this.marks.size > 4) for (const k of [...this.marks.keys()].slice(0, this.marks.size - 4)) this.marks.delete(k);
    if (!this.waiters.length) return;
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      // Another ledger process is writing: the one this entry went to is gone (it asks).
      if (w.instance !== instance) this.ask(w);
      else if (w.seq <= seq) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
    if (!keep.length) this.disarm();
  }

  wait(seq: number, instance: string): Promise<void> {
    if ((this.marks.get(instance) ?? 0) >= seq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, instance, since: this.now(), resolve, reject });
      if (!this.timer) this.arm(this.fallbackMs);
    });
  }

  /** Fails every wait (the node is stopping). */
  close(err: Error): void {
    this.disarm();
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  /** The waits that saw no watermark for `fallbackMs` ask the ledger; the timer re-arms for the oldest left. */
  private due(): void {
    this.timer = null;
    const now = this.now();
    let i = 0;
    while (i < this.waiters.length && now - this.waiters[i].since >= this.fallbackMs) i++;
    for (const w of this.waiters.splice(0, i)) this.ask(w);
    if (this.waiters.length) this.arm(Math.max(1, this.waiters[0].since + this.fallbackMs - now));
  }

  /** Ask the ledger itself (it rejects when it is another process than `instance`). */
  private ask(w: Waiter): void {
    this.sync(w.seq, w.instance).then(w.resolve, w.reject);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.due(), ms);
    this.timer.unref?.();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
