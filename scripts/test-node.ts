/**
 * A real embedded node for crash tests: built exactly as `npm start` builds it (server.ts), plus a
 * control channel for a test that forked it. The channel is the IPC pipe of fork() and nothing else:
 * no port, no route, so it adds no way in from the network. Without a parent it refuses to run.
 *
 * Parent -> child: { id, cmd: "fund", userId, amount, key? } | { id, cmd: "conservation" }
 *                  | { id, cmd: "call", action, params? }
 *                  | { id, cmd: "endSideThread" }  (SIDE_NODE=thread: its worker ends as a crashed one does)
 * Child -> parent: { ready: true, port } once listening, then { id, ok: true, result } | { id, ok: false, error }.
 */
import { randomUUID } from "node:crypto";
import type { ServiceBroker } from "moleculer";
import { loadConfig } from "../lib/config";
import type { Worker } from "node:worker_threads";
import { createNode } from "../server";
import { sideNodeOf } from "../side-node";
import { serveOverIpc } from "./ipc-node";
import { call } from "../contract";

type Command =
  | { id: number; cmd: "fund"; userId: string; amount: number; key?: string }
  | { id: number; cmd: "conservation" }
  | { id: number; cmd: "call"; action: string; params?: Record<string, unknown> }
  | { id: number; cmd: "endSideThread" };

function run(broker: ServiceBroker, m: Command): Promise<unknown> {
  switch (m.cmd) {
    case "fund":
      if (typeof m.userId !== "string" || !Number.isSafeInteger(m.amount) || m.amount <= 0)
        throw new Error("fund needs userId and a positive integer amount");
      // The same entry a confirmed deposit posts (test/support/trading.ts fund()).
      return call(broker, "ledger.post", {
        key: m.key ?? `test-deposit:${randomUUID()}`,
        postings: [
          { kind: "cash", account: m.userId, available: m.amount },
          { kind: "external", flow: "deposit", amount: m.amount },
        ],
      });
    case "conservation":
      return call(broker, "ledger.conservation");
    case "call":
      if (typeof m.action !== "string") throw new Error("call needs an action");
      return broker.call(m.action, m.params ?? {});
    case "endSideThread": {
      const side = sideNodeOf(broker);
      if (!side) throw new Error("this process has no side node");
      // Its thread ends under it, unasked: what the process does then is what it does on a real crash.
      void (side as unknown as { worker: Worker }).worker.terminate();
      return Promise.resolve(null);
    }
    default:
      throw new Error(`unknown command ${String((m as { cmd?: unknown }).cmd)}`);
  }
}

async function main(): Promise<void> {
  await serveOverIpc<Command>("test-node is for tests only", () => createNode(loadConfig()), run);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
