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
