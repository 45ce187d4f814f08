import { join } from "node:path";
import { mkdirSync } from "node:fs";
import type { ServiceSchema, Service } from "moleculer";
import DbService from "moleculer-db";
import Datastore from "@seald-io/nedb";
import { configOf } from "../lib/config";
import { defineService } from "../lib/service";
import { mongoStore, openMongoCollection } from "./mongo-store";

export interface Doc {
  _id: string;
}

export type Query = Record<string, unknown>;
export type Update = Record<string, unknown>;

export interface FindOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
}

/**
 * The one storage interface the services use: the same calls on the embedded NeDB file store and
 * on MongoDB, with Mongo-style queries and update operators that both understand.
 */
export interface Store<T extends Doc> {
  insert(doc: T): Promise<T>;
  /** Insert several documents in one write (NeDB: one append; MongoDB: one ordered insertMany). */
  insertMany(docs: T[]): Promise<void>;
  /** Insert unless a document with this _id exists; true when this call inserted it (idempotency). */
  insertOnce(doc: T): Promise<boolean>;
  findOne(query: Query): Promise<T | null>;
  find(query: Query, opts?: FindOptions): Promise<T[]>;
  count(query: Query): Promise<number>;
  /** Returns how many documents matched. */
  update(query: Query, update: Update, opts?: { multi?: boolean; upsert?: boolean }): Promise<number>;
  remove(query: Query, opts?: { multi?: boolean }): Promise<number>;
  /** Replace the whole document with this _id, inserting it when absent. */
  put(doc: T): Promise<void>;
  /** Rewrite the store's file with only its live documents (NeDB appends removals); absent where there is nothing to do. */
  compact?(): Promise<void>;
}

export interface IndexSpec {
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  sparse?: boolean;
}

function isNedbDuplicateKey(err: unknown): boolean {
  return (err as { errorType?: string } | null)?.errorType === "uniqueViolated";
}

function nedbStore<T extends Doc>(db: Datastore): Store<T> {
  return {
    async insert(doc) {
      return (await db.insertAsync(doc)) as unknown as T;
    },
    async insertMany(docs) {
      if (docs.length) await db.insertAsync(docs);
    },
    async insertOnce(doc) {
      try {
        await db.insertAsync(doc);
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
    mkdirSync(cfg.dataDir, { recursive: true });
    const filename = join(cfg.dataDir, `${collection}.db`);
    // A torn last line after a crash was never acknowledged: tolerate it instead of refusing to start.
    const db = new Datastore({ filename, corruptAlertThreshold: 1 });
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

/** Document type per collection name. */
export type Collections = Record<string, Doc>;

export type Stores<M extends Collections> = { [K in keyof M]: Store<M[K]> };

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
