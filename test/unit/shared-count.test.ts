/** The count the embedded process's two threads share (mixins/shared-count.ts): a bump in one thread wakes a watcher in the other. */
import { Worker } from "node:worker_threads";
import { SharedCount } from "../../mixins/shared-count";
import { until } from "../support/until";

describe("SharedCount", () => {
  test("a bump from another thread wakes the watcher; after its stop nothing more is called", async () => {
    const count = new SharedCount();
    let woken = 0;
    const stop = count.watch(() => woken++);
    const bumper = new Worker(
      `const { workerData, parentPort } = require("node:worker_threads");
       const cell = new Int32Array(workerData, 0, 1);
       parentPort.on("message", () => { Atomics.add(cell, 0, 1); Atomics.notify(cell, 0); parentPort.postMessage("bumped"); });`,
      { eval: true, workerData: count.shared },
    );
    const bump = () => new Promise((res) => (bumper.once("message", res), bumper.postMessage("bump")));
    try {
      await bump();
      await until("the first wake", () => (woken === 1 ? true : null));
      await bump();
      await until("the second wake", () => (woken === 2 ? true : null));
      expect(count.value()).toBe(2);
      stop();
      await bump();
      count.bump();
      expect(count.value()).toBe(4);
      // Whatever was already queued has run: a wake after the stop would show by now.
      await new Promise((res) => setImmediate(res));
      expect(woken).toBe(2);
    } finally {
      await bumper.terminate();
    }
  });

  test("bumps in the same thread wake the watcher too, several before it runs as one call at least", async () => {
    const count = new SharedCount();
    let woken = 0;
    const stop = count.watch(() => woken++);
    count.bump();
    count.bump();
    await until("a wake", () => (woken >= 1 ? true : null));
    const seen = woken;
    count.bump();
    await until("another wake", () => (woken > seen ? true : null));
    stop();
  });
});
