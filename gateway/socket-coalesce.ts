/**
 * Per-key throttle with a trailing edge: the first value of a quiet key goes out on the next turn
 * of the event loop (so the request that caused it is answered first and the fan-out never delays
 * trading on this node), later values inside the window replace each other and only the latest
 * goes out when the window ends. A burst of N fills costs subscribers at most one push per window.
 * With `merge`, a value pushed while another is pending is merged into it instead of replacing it
 * (parts of one key's state that arrive as separate events).
 */
export class Coalescer<T> {
  private readonly keys = new Map<string, { timer: NodeJS.Timeout | NodeJS.Immediate; pending: T | undefined; has: boolean }>();

  constructor(
    private readonly windowMs: number,
    private readonly flush: (key: string, value: T) => void,
    private readonly merge?: (pending: T, next: T) => T,
  ) {}

  push(key: string, value: T): void {
    const state = this.keys.get(key);
    if (state) {
      state.pending = state.has && this.merge ? this.merge(state.pending as T, value) : value;
      state.has = true;
      return;
    }
    this.keys.set(key, { timer: setImmediate(() => this.fire(key)), pending: value, has: true });
  }

  /** Keys with a push scheduled or a window open (tests, metrics). */
  get size(): number {
    return this.keys.size;
  }

  clear(): void {
    for (const s of this.keys.values()) {
      clearTimeout(s.timer as NodeJS.Timeout);
      clearImmediate(s.timer as NodeJS.Immediate);
    }
    this.keys.clear();
  }

  /** Send the latest value and open a window, or close the window of a key that went quiet. */
  private fire(key: string): void {
    const state = this.keys.get(key);
    if (!state) return;
    if (!state.has) {
      this.keys.delete(key);
      return;
    }
    const value = state.pending as T;
    state.pending = undefined;
    state.has = false;
    const timer = setTimeout(() => this.fire(key), this.windowMs);
    timer.unref();
    state.timer = timer;
    try {
      this.flush(key, value);
    } catch {
      // A failing push must not wedge the key's window; the next value goes out normally.
    }
  }
}
