/**
 * The chain's single writer: every chain operation (requests, the watcher, settlement rounds,
 * refunds) runs here one at a time, after the chain's start. Withdrawal reconciliation relies on
 * it: while it runs, no request is half-way.
 */
import { SerialQueue } from "../lib/serial";
import { errorText, type Log } from "./ports";

export class ChainActor {
  private readonly queue = new SerialQueue();
  private readonly busy = new Set<string>();
  private closed = false;
  /** Settles when the chain is up (the queue's first task). */
  ready: Promise<void> = Promise.resolve();

  constructor(private readonly log: Log) {}

  /** The first task: nothing else runs on the chain before it settled. */
  start(task: () => Promise<void>): Promise<void> {
    this.ready = this.queue.run(task);
    return this.ready;
  }

  /** Run a task once the chain is up. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      await this.ready;
      return task();
    });
  }

  /** Queue a task unless the same one is already waiting; failures are logged. */
  background(name: string, task: () => Promise<unknown>): void {
    if (this.busy.has(name) || this.closed) return;
    this.busy.add(name);
    this.run(task)
      .catch((err) => this.log.warn(`chain ${name} failed:`, errorText(err)))
      .finally(() => this.busy.delete(name));
  }

  /** No new background task from now on. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once everything queued so far has finished. */
  async drain(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.queue.drain();
  }
}
