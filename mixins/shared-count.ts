/**
 * A count in memory shared by the embedded process's two threads (the main node's and the side
 * node's, side-node.ts): one side adds, the other reads it or is woken by it, without a message
 * between the nodes. Compared for equality only (it wraps around).
 */
/** Atomics.waitAsync (Node 16+; the compiler's library predates it). */
const waitAsync = (Atomics as unknown as { waitAsync(cell: Int32Array, at: number, seen: number): { async: boolean; value: unknown } })
  .waitAsync;

export class SharedCount {
  private readonly cell: Int32Array;

  /** `shared`: the memory both threads see (the side node's handle makes it); none: this thread's own. */
  constructor(readonly shared: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.cell = new Int32Array(shared, 0, 1);
  }

  /** One more, and whoever watches is woken. */
  bump(): void {
    Atomics.add(this.cell, 0, 1);
    Atomics.notify(this.cell, 0);
  }

  value(): number {
    return Atomics.load(this.cell, 0);
  }

  /**
   * `fn` after each bump (several bumps before it runs may be one call); returns the stop. The
   * wait keeps no thread busy: it is a promise the other thread's bump settles.
   */
  watch(fn: () => void): () => void {
    let stopped = false;
    const wait = (seen: number): void => {
      if (stopped) return;
      const w = waitAsync(this.cell, 0, seen);
      if (w.async) void (w.value as Promise<string>).then(() => woke());
      else queueMicrotask(woke);
    };
    const woke = (): void => {
      if (stopped) return;
      const seen = this.value();
      fn();
      wait(seen);
    };
    wait(this.value());
    return () => {
      stopped = true;
      // The waiting promise settles now instead of holding on.
      Atomics.notify(this.cell, 0);
    };
  }
}
