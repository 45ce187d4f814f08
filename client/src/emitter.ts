/**
 * A small typed event emitter (the part of Node's EventEmitter the SDK uses), so the socket client
 * runs unchanged in Node and in browsers. Unlike Node's, emitting "error" with no listener does
 * not throw: callers decide whether an error is worth a listener.
 */
type Listener<A extends unknown[]> = (...args: A) => void;
type AnyListener = ((...args: never[]) => void) & { original?: unknown };

export class Emitter<E extends { [K in keyof E]: unknown[] }> {
  private readonly listeners = new Map<keyof E, AnyListener[]>();

  on<K extends keyof E>(event: K, listener: Listener<E[K]>): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as unknown as AnyListener);
    this.listeners.set(event, list);
    return this;
  }

  once<K extends keyof E>(event: K, listener: Listener<E[K]>): this {
    const wrapper: Listener<E[K]> = (...args) => {
      this.off(event, wrapper);
      listener(...args);
    };
    (wrapper as unknown as AnyListener).original = listener;
    return this.on(event, wrapper);
  }

  /** Removes one registration of `listener` (also one added with once()). */
  off<K extends keyof E>(event: K, listener: Listener<E[K]>): this {
    const list = this.listeners.get(event);
    if (!list) return this;
    const i = list.findIndex((l) => l === (listener as unknown) || l.original === listener);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) this.listeners.delete(event);
    return this;
  }

  removeAllListeners(event?: keyof E): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  listenerCount(event: keyof E): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /** Calls every listener in registration order; true when there was at least one. */
  emit<K extends keyof E>(event: K, ...args: E[K]): boolean {
    const list = this.listeners.get(event);
    if (!list?.length) return false;
    for (const l of [...list]) (l as unknown as Listener<E[K]>)(...args);
    return true;
  }
}

/** Lets a Node process exit while the timer is pending (a no-op in browsers). */
export function unrefTimer(t: unknown): void {
  (t as { unref?: () => void } | null)?.unref?.();
}
