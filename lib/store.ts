/**
 * The storage port of the cores and services: plain interfaces, no framework. mixins/db.mixin.ts
 * opens one Store per collection (NeDB, memory or MongoDB); the cores only see these calls.
 */
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

/** Document type per collection name. */
export type Collections = Record<string, Doc>;

export type Stores<M extends Collections> = { [K in keyof M]: Store<M[K]> };
