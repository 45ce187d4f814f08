/**
 * Runs tasks one after another in arrival order: the single-writer discipline of an actor
 * (one market's book, the ledger) without locks. A failing task does not stop the ones behind it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    );
    return result;
  }

  /** Commands waiting or running (queue depth for metrics and draining). */
  get depth(): number {
    return this.pending;
  }

  /** Resolves when everything queued so far has finished. */
  drain(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}

/**
 * Group writes: items added while a write is running are written together by the next one, so a
 * burst costs a few writes instead of one per item. `add` resolves once its item's write is done
 * (and rejects with that write's error).
 */
export class WriteBatcher<T> {
  private queued: Array<{ item: T; resolve(): void; reject(err: unknown): void }> = [];
  private running: Promise<void> | null = null;

  /** `gatherMs`: how long a write waits for more items after the first (fewer, larger writes). */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly gatherMs = 0,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (!this.running) this.running = this.loop();
    });
  }

  /** Several items with one promise for all of them (a message that carries many). */
  addAll(items: readonly T[]): Promise<void> {
    if (!items.length) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let left = items.length;
      let failed = false;
      const one = {
        resolve: () => void (--left === 0 && !failed && resolve()),
        reject: (err: unknown) => {
          if (failed) return;
          failed = true;
          reject(err);
        },
      };
      for (const item of items) this.queued.push({ item, ...one });
      if (!this.running) this.running = this.loop();
    });
  }

  /** Resolves when everything added so far is written. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    if (this.gatherMs > 0) await new Promise((r) => setTimeout(r, this.gatherMs));
    while (this.queued.length) {
      const batch = this.queued.splice(0);
      try {
        await this.write(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.running = null;
  }
}
