/**
 * Waits for ledger entries to become durable without a call per entry: the ledger broadcasts its
 * durability watermark after every group commit (`ledger.durable`); a wait that sees no watermark
 * for a while asks the ledger directly (a lost event, a quiet ledger). A watermark of another
 * ledger process than the entry's means the ledger restarted: that entry's outcome is unknown.
 */
export class DurabilityWatch {
  private readonly marks = new Map<string, number>();
  private waiters: Array<{ seq: number; instance: string; resolve(): void; reject(err: Error): void; timer: NodeJS.Timeout }> = [];

  constructor(
    private readonly sync: (seq: number, instance: string) => Promise<void>,
    private readonly fallbackMs = 1000,
  ) {}

  /** A watermark from the ledger: everything up to `seq` of process `instance` is durable. */
  observe(instance: string, seq: number): void {
    if ((this.marks.get(instance) ?? 0) < seq) this.marks.set(instance, seq);
    if (this.marks.size > 4) for (const k of [...this.marks.keys()].slice(0, this.marks.size - 4)) this.marks.delete(k);
    if (!this.waiters.length) return;
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.instance !== instance) {
        // A newer ledger process is writing: the one this entry went to is gone.
        clearTimeout(w.timer);
        this.settle(w);
      } else if (w.seq <= seq) {
        clearTimeout(w.timer);
        w.resolve();
      } else keep.push(w);
    }
    this.waiters = keep;
  }

  wait(seq: number, instance: string): Promise<void> {
    if ((this.marks.get(instance) ?? 0) >= seq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = { seq, instance, resolve, reject, timer: setTimeout(() => this.settle(w), this.fallbackMs) };
      w.timer.unref?.();
      this.waiters.push(w);
    });
  }

  /** Ask the ledger itself (it rejects when it is another process than `instance`). */
  private settle(w: { seq: number; instance: string; resolve(): void; reject(err: Error): void }): void {
    this.waiters = this.waiters.filter((x) => x !== w);
    this.sync(w.seq, w.instance).then(w.resolve, w.reject);
  }

  /** Fails every wait (the node is stopping). */
  close(err: Error): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
