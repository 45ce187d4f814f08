/**
 * A real embedded node for crash tests: built exactly as `npm start` builds it (server.ts), plus a
 * control channel for a test that forked it. The channel is the IPC pipe of fork() and nothing else:
 * no port, no route, so it adds no way in from the network. Without a parent it refuses to run.
 *
 * Parent -> child: { id, cmd: "fund", userId, amount, key? } | { id, cmd: "conservation" }
 *                  | { id, cmd: "call", action, params? }
 * Child -> parent: { ready: true, port } once listening, then { id, ok: true, result } | { id, ok: false, error }.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceBroker } from "moleculer";
import { loadConfig } from "../lib/config";
import { createNode } from "../server";

type Command =
  | { id: number; cmd: "fund"; userId: string; amount: number; key?: string }
  | { id: number; cmd: "conservation" }
  | { id: number; cmd: "call"; action: string; params?: Record<string, unknown> };

function run(broker: ServiceBroker, m: Command): Promise<unknown> {
  switch (m.cmd) {
    case "fund":
      if (typeof m.userId !== "string" || !Number.isSafeInteger(m.amount) || m.amount <= 0) throw new Error("fund needs userId and a positive integer amount");
      // The same entry a confirmed deposit posts (test/support/trading.ts fund()).
      return broker.call("ledger.post", {
        key: m.key ?? `test-deposit:${randomUUID()}`,
        postings: [
          { kind: "cash", account: m.userId, available: m.amount },
          { kind: "external", flow: "deposit", amount: m.amount },
        ],
      });
    case "conservation":
      return broker.call("ledger.conservation");
    case "call":
      if (typeof m.action !== "string") throw new Error("call needs an action");
      return broker.call(m.action, m.params ?? {});
    default:
      throw new Error(`unknown command ${String((m as { cmd?: unknown }).cmd)}`);
  }
}

async function main(): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) {
    console.error("test-node is for tests only: fork it with an IPC channel");
    process.exit(2);
  }
  const cfg = loadConfig();
  const broker = createNode(cfg);
  const stop = () => {
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // An orphan (parent gone) must not keep the data dir and port busy.
  process.once("disconnect", stop);

  process.on("message", (raw: unknown) => {
    const m = raw as Command;
    if (!m || typeof m !== "object" || typeof m.id !== "number") return;
    Promise.resolve()
      .then(() => run(broker, m))
      .then(
        (result) => send({ id: m.id, ok: true, result: result ?? null }),
        (err: { name?: string; message?: string; code?: unknown; type?: string }) =>
          send({ id: m.id, ok: false, error: { name: err?.name, message: err?.message ?? String(err), code: err?.code, type: err?.type } }),
      )
      .catch(() => undefined);
  });

  await broker.start();
  const api = broker.getLocalService("api") as unknown as { server?: Server } | undefined;
  const address = api?.server?.address() as AddressInfo | null | undefined;
  send({ ready: true, port: address?.port ?? cfg.port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
