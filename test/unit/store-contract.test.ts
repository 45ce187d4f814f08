/**
 * What every service relies on from `Store`, run on each store the configuration can pick: NeDB in
 * memory and on file always, MongoDB when MONGO_URI names a server (none can run on this machine;
 * e.g. `MONGO_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 npx jest test/unit/store-contract`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceBroker, type Service } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { createDbMixin, type DbState } from "../../mixins/db.mixin";
import type { Store } from "../../lib/store";
import { testMongoUri } from "../support/server";

interface Thing {
  _id: string;
  kind: string;
  n: number;
  tag?: string;
  queue?: string;
}

type Things = { things: Thing };

const engines: Array<[string, () => { env: Record<string, string>; cleanup(): void }]> = [
  ["NeDB in memory", () => ({ env: { DATA_DIR: ":memory:" }, cleanup: () => undefined })],
  [
    "NeDB on file",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "pmx-store-"));
      return { env: { DATA_DIR: dir }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];
const mongo = testMongoUri();
if (mongo) engines.push(["MongoDB", () => ({ env: { DATA_DIR: ":memory:", MONGO_URI: mongo }, cleanup: () => undefined })]);

describe.each(engines)("Store on %s", (_name, make) => {
  let broker: ServiceBroker;
  let store: Store<Thing>;
  let cleanup: () => void;

  beforeAll(async () => {
    const made = make();
    cleanup = made.cleanup;
    broker = new ServiceBroker({ logger: false });
    bindConfig(broker, loadConfig({ JWT_SECRET: "x".repeat(64), ...made.env }));
    const svc = broker.createService({
      name: "things",
      mixins: [createDbMixin<Things>({ things: [{ fields: { kind: 1 } }, { fields: { queue: 1 }, sparse: true }] })],
    }) as Service & DbState<Things>;
    await broker.start();
    store = svc.stores.things;
  });
  afterAll(async () => {
    await broker.stop();
    cleanup();
  });

  test("insert, insertMany, insertOnce (true once, then false), findOne", async () => {
    await store.insert({ _id: "a", kind: "x", n: 1 });
    await store.insertMany([
      { _id: "b", kind: "x", n: 2, queue: "q2" },
      { _id: "c", kind: "y", n: 3, queue: "q1" },
    ]);
    await store.insertMany([]);
    expect(await store.insertOnce({ _id: "d", kind: "y", n: 4 })).toBe(true);
    expect(await store.insertOnce({ _id: "d", kind: "z", n: 99 })).toBe(false);
    expect(await store.findOne({ _id: "d" })).toEqual({ _id: "d", kind: "y", n: 4 });
    expect(await store.findOne({ _id: "nope" })).toBeNull();
    await expect(store.insertMany([{ _id: "a", kind: "dup", n: 0 }])).rejects.toBeDefined();
  });

  test("find with $in, $lt, $exists, sort, skip, limit; count", async () => {
    expect((await store.find({ kind: "x" }, { sort: { n: -1 } })).map((t) => t._id)).toEqual(["b", "a"]);
    expect((await store.find({ _id: { $in: ["a", "c", "zz"] } }, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(["a", "c"]);
    expect((await store.find({ n: { $lt: 3 } }, { sort: { n: 1 } })).map((t) => t._id)).toEqual(["a", "b"]);
    expect((await store.find({ queue: { $exists: true } }, { sort: { queue: 1 } })).map((t) => t._id)).toEqual(["c", "b"]);
    expect((await store.find({}, { sort: { n: 1 }, skip: 1, limit: 2 })).map((t) => t._id)).toEqual(["b", "c"]);
    expect(await store.count({ kind: "y" })).toBe(2);
    expect(await store.count({})).toBe(4);
  });

  test("update: matched counts, multi, upsert, $set/$unset/$inc, a conditional update as a claim", async () => {
    expect(await store.update({ kind: "x" }, { $inc: { n: 10 } }, { multi: true })).toBe(2);
    expect(await store.update({ _id: "a", n: 11 }, { $set: { tag: "claimed" } })).toBe(1);
    // The same claim again matches nothing: the first caller won.
    expect(await store.update({ _id: "a", n: 11, tag: { $exists: false } }, { $set: { tag: "again" } })).toBe(0);
    expect(await store.update({ _id: "b" }, { $unset: { queue: true } })).toBe(1);
    expect(await store.findOne({ _id: "b" })).toEqual({ _id: "b", kind: "x", n: 12 });
    expect(await store.update({ _id: "e" }, { $set: { kind: "z", n: 5 } }, { upsert: true })).toBe(1);
    expect(await store.findOne({ _id: "e" })).toEqual({ _id: "e", kind: "z", n: 5 });
    expect(await store.update({ _id: "none" }, { $set: { n: 1 } })).toBe(0);
  });

  test("put replaces or inserts the whole document; remove one or many", async () => {
    await store.put({ _id: "a", kind: "w", n: 0 });
    expect(await store.findOne({ _id: "a" })).toEqual({ _id: "a", kind: "w", n: 0 });
    await store.put({ _id: "f", kind: "w", n: 1 });
    expect(await store.count({ kind: "w" })).toBe(2);
    expect(await store.remove({ kind: "w" })).toBe(1);
    expect(await store.remove({ kind: { $in: ["w", "y"] } }, { multi: true })).toBe(3);
    expect((await store.find({}, { sort: { _id: 1 } })).map((t) => t._id)).toEqual(["b", "e"]);
  });
});
