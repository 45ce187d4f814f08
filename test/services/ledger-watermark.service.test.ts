/**
 * Where the ledger's durability watermark goes: to the engine nodes that posted entries without
 * waiting for durability, each under its own event group, not to every listener; and to every
 * listener when a waiting node does not listen under its group (a node of an earlier version).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Context, type Service, type ServiceSchema } from "moleculer";
import { durableGroup } from "../../contract";
import type { PostOutcome } from "../../models/trading";
import LedgerService from "../../services/ledger.service";
import { until } from "../support/until";
import { serviceBroker } from "../support/service-broker";

const deposit = (account: string, amount: number) => [
  { kind: "cash", account, available: amount },
  { kind: "external", flow: "deposit", amount },
];

async function ledgerWith(listeners: ServiceSchema[]) {
  const dir = mkdtempSync(join(tmpdir(), "pmx-watermark-"));
  const broker = serviceBroker({ DATA_DIR: dir }, [...listeners, LedgerService]);
  await broker.start();
  return {
    broker,
    post: (p: object) => broker.call<PostOutcome, object>("ledger.post", p),
    async stop() {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const listener = (name: string, heard: string[], grouped: boolean): ServiceSchema => ({
  name,
  merged(this: Service, schema: ServiceSchema) {
    if (grouped) (schema.events!["ledger.durable"] as { group?: string }).group = durableGroup(this.broker.nodeID);
  },
  events: {
    "ledger.durable": {
      handler(ctx: Context<{ seq: number }>) {
        heard.push(`${name}:${ctx.params.seq}`);
      },
    },
  },
});

test("the watermark reaches the waiting node's group only, once per commit that passes its entry", async () => {
  const engine: string[] = [];
  const other: string[] = [];
  const t = await ledgerWith([listener("engine", engine, true), listener("other", other, false)]);
  try {
    // Answered once durable: nobody waits for the watermark, nobody hears it.
    await t.post({ key: "d:1", postings: deposit("usr_a", 5) });
    const quick = await t.post({ key: "d:2", postings: deposit("usr_a", 5), durable: false });
    await until("the engine's watermark", () => engine.length > 0);
    expect(engine).toEqual([`engine:${quick.seq}`]);
    await t.post({ key: "d:3", postings: deposit("usr_a", 5) });
    expect(engine).toHaveLength(1);
    expect(other).toEqual([]);
  } finally {
    await t.stop();
  }
});

test("a waiting node that does not listen under its group: the watermark is broadcast", async () => {
  const old: string[] = [];
  const t = await ledgerWith([listener("old", old, false)]);
  try {
    const quick = await t.post({ key: "d:1", postings: deposit("usr_a", 5), durable: false });
    await until("the broadcast watermark", () => old.length > 0);
    expect(old).toEqual([`old:${quick.seq}`]);
  } finally {
    await t.stop();
  }
});
