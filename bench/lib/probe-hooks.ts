/**
 * Bench-only preload (`node --require dist-bench/bench/lib/probe-hooks.js`): counts what the
 * process does between a `{probe: "start"}` and a `{probe: "stop"}` message on its IPC channel,
 * answered as `{probe: "counts", ...}`: broker contexts made (by action or event
 * name as their endpoint is set) and of those the copies (ctx.copy, one per event endpoint), promises created (async_hooks) and bytes
 * allocated on the V8 heap (v8.GCProfiler: what each GC found in use less what the previous one
 * left, plus the growth since the last one), and messages posted to other threads (MessagePort:
 * the side node's link; Worker: the money store's writer). The hooks cost CPU: measure time in
 * another pass.
 */
import { createHook } from "node:async_hooks";
import { GCProfiler, getHeapStatistics } from "node:v8";
import { MessagePort, Worker } from "node:worker_threads";

interface Counts {
  contexts: number;
  copies: number;
  promises: number;
  allocated: number;
  portMessages: number;
  workerMessages: number;
  byName: Record<string, number>;
}

let on = false;
const zero = (): Counts => ({ contexts: 0, copies: 0, promises: 0, allocated: 0, portMessages: 0, workerMessages: 0, byName: {} });
let c: Counts = zero();
/** PROBE_STACKS=1: where promises are made, from a sample of 1 in 16 (the two innermost frames outside async_hooks). */
const stacks = process.env.PROBE_STACKS ? new Map<string, number>() : null;
const hook = createHook({
  init(_id, type) {
    if (!on || type !== "PROMISE") return;
    c.promises++;
    if (stacks && c.promises % 16 === 0) {
      const frames = (new Error().stack ?? "")
        .split("\n")
        .slice(2)
        .filter((l) => !l.includes("node:internal/async_hooks") && !l.includes("probe-hooks"));
      const key = frames
        .slice(0, 3)
        .map((l) =>
          l
            .trim()
            .replace(/^at /, "")
            .replace(/\(.*\/(node_modules\/)?/, "("),
        )
        .join(" < ");
      stacks.set(key, (stacks.get(key) ?? 0) + 16);
    }
  },
});

// Every broker's contexts come from its ContextFactory (created, copied per event endpoint, or
// made by the transit for a remote call): a counting subclass as the default factory sees them all.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const moleculer = require("moleculer") as {
  Context: new (...a: unknown[]) => object;
  ServiceBroker: { defaultOptions: Record<string, unknown> };
};
type Endpoint = { action?: { name?: string }; event?: { name?: string } } | null | undefined;
class CountingContext extends moleculer.Context {
  constructor(...a: unknown[]) {
    super(...a);
    if (on) c.contexts++;
  }
  setEndpoint(ep: Endpoint): void {
    (moleculer.Context.prototype as unknown as { setEndpoint(ep: Endpoint): void }).setEndpoint.call(this, ep);
    if (on && ep) {
      const name = ep.action?.name ?? (ep.event?.name ? `event ${ep.event.name}` : "?");
      c.byName[name] = (c.byName[name] ?? 0) + 1;
    }
  }
  copy(...a: unknown[]): unknown {
    if (on) c.copies++;
    return (moleculer.Context.prototype as unknown as { copy(...a: unknown[]): unknown }).copy.apply(this, a);
  }
}
moleculer.ServiceBroker.defaultOptions.ContextFactory = CountingContext;

// Messages to other threads, counted where they are posted.
for (const [proto, k] of [
  [MessagePort.prototype, "portMessages"],
  [Worker.prototype, "workerMessages"],
] as const) {
  const post = proto.postMessage as (...a: unknown[]) => void;
  proto.postMessage = function (this: unknown, ...a: unknown[]) {
    if (on) c[k]++;
    return post.apply(this, a);
  };
}

let gc: GCProfiler | null = null;
let used0 = 0;

process.on("message", (m: { probe?: string }) => {
  if (!m || typeof m !== "object" || !m.probe) return;
  if (m.probe === "start") {
    c = zero();
    hook.enable();
    gc = new GCProfiler();
    gc.start();
    used0 = getHeapStatistics().used_heap_size;
    on = true;
  } else if (m.probe === "stop") {
    on = false;
    hook.disable();
    const used1 = getHeapStatistics().used_heap_size;
    const r = gc?.stop();
    let allocated = 0;
    let prev = used0;
    for (const s of r?.statistics ?? []) {
      const before = s.beforeGC.heapStatistics.usedHeapSize;
      allocated += Math.max(0, before - prev);
      prev = s.afterGC.heapStatistics.usedHeapSize;
    }
    allocated += Math.max(0, used1 - prev);
    c.allocated = allocated;
    const top = stacks ? [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 40) : [];
    stacks?.clear();
    process.send?.({ probe: "counts", ...c, gcs: r?.statistics.length ?? 0, promiseSites: top });
  }
});
