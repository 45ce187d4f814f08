import { join } from "node:path";
import type { ServiceSchema, Service } from "moleculer";
import DbService from "moleculer-db";
import Datastore from "@seald-io/nedb";
import { configOf } from "../lib/config";
import { DATA_DIR_MODE, DATA_FILE_MODE, makeDataDir } from "../lib/data-dir";
import { defineService } from "./service";
import { mongoStore, openMongoCollection } from "../lib/mongo-store";
import type { Collections, Doc, IndexSpec, Store, Stores } from "../lib/store";

function isNedbDuplicateKey(err: unknown): boolean {
  return (err as { errorType?: string } | null)?.errorType === "uniqueViolated";
}

/**
 * An insert whose append failed (a full disk) stays in NeDB's memory: it is taken out again, so
 * what the service sees is what the file holds (the caller gets the error, a 503). A duplicate
 * key was never inserted.
 */
async function inserted<R>(db: Datastore, docs: Doc[], insert: () => Promise<R>): Promise<R> {
  try {
    return await insert();
  } catch (err) {
    const ids = docs.map((d) => d._id).filter((id) => id !== undefined);
    if (!isNedbDuplicateKey(err) && ids.length) await db.removeAsync({ _id: { $in: ids } }, { multi: true }).catch(() => undefined);
    throw err;
  }
}

function nedbStore<T extends Doc>(db: Datastore): Store<T> {
  return {
    async insert(doc) {
      return (await inserted(db, [doc], () => db.insertAsync(doc))) as unknown as T;
    },
    async insertMany(docs) {
      if (docs.length) await inserted(db, docs, () => db.insertAsync(docs));
    },
    async insertOnce(doc) {
      try {
        await inserted(db, [doc], () => db.insertAsync(doc));
        return true;
      } catch (err) {
        if (isNedbDuplicateKey(err)) return false;
        throw err;
      }
    },
    async findOne(query) {
      return (await db.findOneAsync(query)) as T | null;
    },
    async find(query, opts = {}) {
      let cursor = db.findAsync(query);
      if (opts.sort) cursor = cursor.sort(opts.sort);
      if (opts.skip) cursor = cursor.skip(opts.skip);
      if (opts.limit) cursor = cursor.limit(opts.limit);
      return (await cursor) as unknown as T[];
    },
    count(query) {
      return db.countAsync(query);
    },
    async update(query, update, opts = {}) {
      const res = await db.updateAsync(query, update, { multi: !!opts.multi, upsert: !!opts.upsert });
      return res.numAffected;
    },
    remove(query, opts = {}) {
      return db.removeAsync(query, { multi: !!opts.multi });
    },
    async put(doc) {
      await db.updateAsync({ _id: doc._id }, doc, { upsert: true });
    },
    compact() {
      return db.compactDatafileAsync();
    },
  };
}

/** What closes an open store (its collection's adapter, or this node's share of a MongoDB client). */
export interface Adapter {
  disconnect(): Promise<unknown>;
}

interface NedbAdapter extends Adapter {
  init(broker: unknown, service: unknown): void;
  connect(): Promise<unknown>;
  db: Datastore;
}

/** One collection: MongoDB through the official driver, else NeDB (file or memory) through moleculer-db's adapter. */
export async function openStore<T extends Doc>(
  service: Service,
  collection: string,
  indexes: IndexSpec[],
): Promise<{ store: Store<T>; adapter: Adapter }> {
  const cfg = configOf(service.broker);
  if (cfg.mongoUri) {
    const { collection: col, release } = await openMongoCollection(service.broker, cfg.mongoUri, collection, indexes);
    return { store: mongoStore<T>(col), adapter: { disconnect: release } };
  }
  let adapter: NedbAdapter;
  if (cfg.dataDir === ":memory:") {
    adapter = new DbService.MemoryAdapter(new Datastore({ inMemoryOnly: true })) as unknown as NedbAdapter;
  } else {
    makeDataDir(cfg.dataDir);
    const filename = join(cfg.dataDir, `${collection}.db`);
    // A torn last line after a crash was never acknowledged: tolerate it instead of refusing to start.
    const db = new Datastore({ filename, corruptAlertThreshold: 1, modes: { fileMode: DATA_FILE_MODE, dirMode: DATA_DIR_MODE } });
    adapter = new DbService.MemoryAdapter(db) as unknown as NedbAdapter;
  }
  adapter.init(service.broker, { schema: { collection }, logger: service.logger, broker: service.broker });
  await adapter.connect();
  // NeDB indexes one field; compound keys are expressed as one composite field by the services.
  for (const ix of indexes)
    for (const fieldName of Object.keys(ix.fields))
      await adapter.db.ensureIndexAsync({ fieldName, unique: !!ix.unique, sparse: !!ix.sparse });
  return { store: nedbStore<T>(adapter.db), adapter };
}

export interface DbState<M extends Collections> {
  stores: Stores<M>;
  dbAdapters: Adapter[];
}

/**
 * Storage for a service: one Store per named collection (the embedded NeDB file store under
 * DATA_DIR by default, through moleculer-db's adapter; MongoDB through the official driver when
 * MONGO_URI is set; memory when DATA_DIR is ":memory:"). Opened before the service's own `started` runs.
 */
export function createDbMixin<M extends Collections>(collections: { [K in keyof M]: IndexSpec[] }): ServiceSchema {
  // Checked as a state of any collections: a schema's type cannot depend on M (the stores are M's).
  return defineService<Service & DbState<Collections>>({
    name: "db",
    async started(this: Service & DbState<M>) {
      const stores = {} as Stores<M>;
      this.dbAdapters = [];
      for (const name of Object.keys(collections) as (keyof M & string)[]) {
        const { store, adapter } = await openStore<M[typeof name]>(this, name, collections[name]);
        stores[name] = store;
        this.dbAdapters.push(adapter);
      }
      this.stores = stores;
    },
    async stopped(this: Service & DbState<M>) {
      for (const a of this.dbAdapters ?? []) await a.disconnect().catch(() => undefined);
    },
  });
}
