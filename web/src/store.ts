/** A value that components and modules can watch: the app's whole state management. */
import { useEffect, useState } from "preact/hooks";

export class Store<T> {
  private readonly listeners = new Set<(v: T) => void>();

  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(v: T): void {
    if (Object.is(v, this.value)) return;
    this.value = v;
    for (const l of [...this.listeners]) l(v);
  }

  update(fn: (v: T) => T): void {
    this.set(fn(this.value));
  }

  subscribe(listener: (v: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The store's value, re-rendering the component when it changes. */
export function useStore<T>(store: Store<T>): T {
  const [, setTick] = useState(0);
  useEffect(() => {
    const rendered = store.get();
    const off = store.subscribe(() => setTick((n) => n + 1));
    // Changed between the render and this effect.
    if (!Object.is(rendered, store.get())) setTick((n) => n + 1);
    return off;
  }, [store]);
  return store.get();
}

/**
 * A small signal for "something changed, refetch" (user updates, live prices). Bursts (an order's
 * order, trade and position updates) are merged into one, `coalesceMs` after the first.
 */
export class Pulse {
  private readonly store = new Store(0);
  private timer: ReturnType<typeof setTimeout> | null = null;
  constructor(private readonly coalesceMs = 0) {}
  fire(): void {
    if (!this.coalesceMs) return this.store.update((n) => n + 1);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.store.update((n) => n + 1);
    }, this.coalesceMs);
  }
  use(): number {
    return useStore(this.store);
  }
}
