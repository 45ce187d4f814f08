/**
 * The `Store` interface over the official `mongodb` driver (6.x): one client per node and URI,
 * shared by every collection of that node, closed with the last of them. What the driver is asked
 * is decided by the pure functions below (unit-tested without a server: test/unit/mongo-store.test.ts).
 */
import {
  MongoClient,
  type Collection,
  type Document,
  type Filter,
  type FindOptions as DriverFindOptions,
  type MongoClientOptions,
  type UpdateFilter,
} from "mongodb";
import type { Doc, FindOptions, IndexSpec, Query, Store, Update } from "./store";

/**
 * Every write is acknowledged once a majority of the replica set has it in its journal (the money
 * path's durability rule). Undefined fields are left out as NeDB leaves them out, so a query reads
 * the same documents on both stores (`{x: {$exists: false}}`, `{x: null}`).
 */
export const MONGO_CLIENT_OPTIONS: MongoClientOptions = {
  writeConcern: { w: "majority", journal: true },
  ignoreUndefined: true,
  appName: "pmx-exchange",
};

/** True for MongoDB's duplicate key error (a single insert or a bulk insert). */
export function isMongoDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 11000;
}

/** find() options: only what was asked (the driver reads `limit: 0` as no limit, but say nothing). */
export function findOptions(opts: FindOptions = {}): DriverFindOptions {
  const out: DriverFindOptions = {};
  if (opts.sort && Object.keys(opts.sort).length) out.sort = opts.sort;
  if (opts.skip) out.skip = opts.skip;
  if (opts.limit) out.limit = opts.limit;
  return out;
}

export type UpdateCall = { method: "updateOne" | "updateMany"; upsert: boolean } | { method: "replaceOne"; upsert: boolean };

/**
 * Which driver call an update is. NeDB (the embedded store) reads an update without operators as
 * a replacement of the whole document; MongoDB needs `replaceOne` for that, and cannot replace
 * several documents at once.
 */
export function updateCall(update: Update, opts: { multi?: boolean; upsert?: boolean } = {}): UpdateCall {
  const keys = Object.keys(update);
  const ops = keys.filter((k) => k.startsWith("$"));
  if (ops.length && ops.length !== keys.length) throw new Error(`an update mixes operators and fields: ${keys.join(", ")}`);
  if (!ops.length) {
    if (opts.multi) throw new Error("a replacement update cannot apply to several documents");
    return { method: "replaceOne", upsert: !!opts.upsert };
  }
  return { method: opts.multi ? "updateMany" : "updateOne", upsert: !!opts.upsert };
}

/** createIndex() arguments of an index spec (the key order of `fields` is the index's). */
export function indexArgs(ix: IndexSpec): [Record<string, 1 | -1>, { unique: boolean; sparse: boolean }] {
  return [ix.fields, { unique: !!ix.unique, sparse: !!ix.sparse }];
}

/** Our documents as the driver sees them: string ids, any other fields. */
export interface StoredDoc extends Document {
  _id: string;
}

/** The Store calls on one collection. */
export function mongoStore<T extends Doc>(col: Collection<StoredDoc>): Store<T> {
  const q = (query: Query) => query as Filter<StoredDoc>;
  const d = (doc: T) => doc as unknown as StoredDoc;
  return {
    async insert(doc) {
      await col.insertOne(d(doc));
      return doc;
    },
    async insertMany(docs) {
      if (docs.length) await col.insertMany(docs.map(d), { ordered: true });
    },
    async insertOnce(doc) {
      try {
        await col.insertOne(d(doc));
        return true;
      } catch (err) {
        if (isMongoDuplicateKey(err)) return false;
        throw err;
      }
    },
    async findOne(query) {
      return (await col.findOne(q(query))) as T | null;
    },
    async find(query, opts) {
      return (await col.find(q(query), findOptions(opts)).toArray()) as unknown as T[];
    },
    count(query) {
      return col.countDocuments(q(query));
    },
    async update(query, update, opts = {}) {
      const call = updateCall(update, opts);
      const res =
        call.method === "replaceOne"
          ? await col.replaceOne(q(query), update as StoredDoc, { upsert: call.upsert })
          : await col[call.method](q(query), update as UpdateFilter<StoredDoc>, { upsert: call.upsert });
      return res.matchedCount + res.upsertedCount;
    },
    async remove(query, opts = {}) {
      const res = opts.multi ? await col.deleteMany(q(query)) : await col.deleteOne(q(query));
      return res.deletedCount;
    },
    async put(doc) {
      await col.replaceOne({ _id: doc._id }, d(doc), { upsert: true });
    },
  };
}

interface SharedClient {
  client: Promise<MongoClient>;
  users: number;
}

const clients = new WeakMap<object, Map<string, SharedClient>>();

/**
 * One collection of the database named in `uri`, on the client this node (`owner`, its broker)
 * shares for that URI; `release` closes the client once every collection opened on it is released.
 */
export async function openMongoCollection(
  owner: object,
  uri: string,
  name: string,
  indexes: IndexSpec[],
): Promise<{ collection: Collection<StoredDoc>; release(): Promise<void> }> {
  let byUri = clients.get(owner);
  if (!byUri) clients.set(owner, (byUri = new Map()));
  let shared = byUri.get(uri);
  if (!shared) {
    const client = new MongoClient(uri, MONGO_CLIENT_OPTIONS);
    shared = { client: client.connect(), users: 0 };
    byUri.set(uri, shared);
    // A failed connect is not kept: the next start tries again.
    shared.client.catch(() => byUri?.get(uri) === shared && byUri.delete(uri));
  }
  shared.users++;
  const entry = shared;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (--entry.users > 0) return;
    if (byUri?.get(uri) === entry) byUri.delete(uri);
    await (await entry.client.catch(() => null))?.close();
  };
  try {
    const collection = (await entry.client).db().collection<StoredDoc>(name);
    for (const ix of indexes) await collection.createIndex(...indexArgs(ix));
    return { collection, release };
  } catch (err) {
    await release();
    throw err;
  }
}
