import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceBroker } from "moleculer";
import { stopOnSignals } from "../server";

/** A command from the parent process; `id` pairs it with its reply. */
export interface IpcCommand {
  id: number;
  cmd: string;
}

/**
 * Run a broker as a child that a test or bench forked: commands arrive on the fork() IPC pipe only
 * (no port or route is added), replies go back as `{id, ok, result | error}`, and `{ready, port}`
 * is sent once the broker started. Without a parent it refuses to run; it stops when the parent
 * goes away so an orphan never keeps a data dir or port busy.
 */
export async function serveOverIpc<C extends IpcCommand>(
  who: string,
  makeBroker: () => ServiceBroker,
  handle: (broker: ServiceBroker, cmd: C) => Promise<unknown> | unknown,
): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) {
    console.error(`${who}: fork it with an IPC channel`);
    process.exit(2);
  }
  const broker = makeBroker();
  stopOnSignals(broker, ["disconnect"]);

  process.on("message", (raw: unknown) => {
    const m = raw as C;
    if (!m || typeof m !== "object" || typeof m.id !== "number") return;
    Promise.resolve()
      .then(() => handle(broker, m))
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
  send({ ready: true, port: address?.port ?? 0 });
}
