import { randomUUID } from "node:crypto";
import type { ServiceBroker } from "moleculer";
import type { ConservationReport } from "../../engine/accounts";
import type { TestServer } from "./server";

export const ADMIN_KEY = "test-admin-key";
export const SHARE = 1_000_000;

/** Credit a user as a confirmed deposit would (the same ledger entry shape the chain service posts). */
export async function fund(broker: ServiceBroker, userId: string, amount: number): Promise<void> {
  await broker.call("ledger.post", {
    key: `test-deposit:${randomUUID()}`,
    postings: [
      { kind: "cash", account: userId, available: amount },
      { kind: "external", flow: "deposit", amount },
    ],
  });
}

/** A new open market through the operator API; returns its id. */
export async function createMarket(srv: TestServer, title = "Will it rain tomorrow?", ammLiquidity?: string): Promise<string> {
  const res = await srv.http("POST", "/api/v1/admin/events", {
    headers: { "x-admin-key": ADMIN_KEY },
    body: { title: `Event for ${title}`, category: "Culture", markets: [{ title, ...(ammLiquidity ? { ammLiquidity } : {}) }] },
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`createMarket failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.markets[0].id;
}

export async function conservation(broker: ServiceBroker): Promise<ConservationReport> {
  return broker.call("ledger.conservation");
}

export async function expectConserved(broker: ServiceBroker): Promise<void> {
  const r = await conservation(broker);
  if (!r.ok) throw new Error(`conservation broken: ${JSON.stringify(r)}`);
}
