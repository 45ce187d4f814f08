/**
 * The money path on MongoDB (scaled out, MONGO_URI): the same rule as the embedded store, a group
 * commit is ONE multi-document transaction (replica set, majority + journal) holding the journal
 * entries and every document they change. What a commit asks of MongoDB is decided by the pure
 * functions below (unit-tested without a server: test/unit/mongo-money-store.test.ts); no MongoDB
 * server runs where this was built, so the driver calls themselves are not exercised here.
 */
import { MongoClient, type AnyBulkWriteOperation, type ClientSession, type Collection, type Db, type Document } from "mongodb";
import type { CashAccount, PositionState } from "../engine/accounts";
import type {
  BookJournalDoc,
  CommittedRestingOrder,
  GroupOrderFill,
  IdemAnswerSource,
  LedgerEntryDoc,
  MarketLease,
  OrderDoc,
  TradeDoc,
  OrderQuery,
  StoredOrderGroup,
} from "../models/trading";
import { MONGO_CLIENT_OPTIONS } from "../lib/mongo-store";
import { GENESIS_HASH } from "./chain-hash";
import { applyOrderChange, projectEntry } from "./projection";
import {
  checkedOrderGroup,
  DEPOSIT_KEY_PREFIX,
  depositorsOf,
  formatToWrite,
  STORE_FORMAT,
  StoreDamaged,
  type CommitBatch,
  type JournalRow,
  type MoneyFacts,
  type MoneyStore,
  type ReadModelFacts,
  type StoredIdem,
  type StoredState,
  USER_ACCOUNT_PREFIX,
} from "./store";

type Doc = Document & { _id: string | number };

export interface JournalDocument {
  _id: number;
  key: string;
  /** Only on entries that are not book commands: their idempotency key, uniquely indexed. */
  plainKey?: string;
  marketId?: string;
  position?: number;
  epoch?: number;
  body: string;
  hash: string;
}

export function journalDocument(r: JournalRow): JournalDocument {
  const d: JournalDocument = { _id: r.seq, key: r.key, body: r.body, hash: r.hash };
  if (r.position === null) d.plainKey = r.key;
  if (r.marketId !== null) d.marketId = r.marketId;
  if (r.position !== null) d.position = r.position;
  if (r.epoch !== null) d.epoch = r.epoch;
  return d;
}

const posId = (p: { account: string; marketId: string; outcome: string }) => `${p.account}|${p.marketId}|${p.outcome}`;

/** Everything one group commit writes, per collection, in the order it is written. */
export interface CommitPlan {
  journal: JournalDocument[];
  cash: AnyBulkWriteOperation<Doc>[];
  positions: AnyBulkWriteOperation<Doc>[];
  markets: AnyBulkWriteOperation<Doc>[];
  orders: AnyBulkWriteOperation<Doc>[];
  trades: AnyBulkWriteOperation<Doc>[];
  idempotency: Doc[];
  heartbeats: AnyBulkWriteOperation<Doc>[];
  orderGroups: AnyBulkWriteOperation<Doc>[];
  meta: AnyBulkWriteOperation<Doc>[];
  /** Rows created, for the read models' counters. */
  created: { orders: number; trades: number };
}

const upsert = (_id: string, set: Record<string, unknown>): AnyBulkWriteOperation<Doc> => ({
  replaceOne: { filter: { _id }, replacement: { _id, ...set }, upsert: true },
});

export function commitPlan(b: CommitBatch): CommitPlan {
  const plan: CommitPlan = {
    journal: b.rows.map(journalDocument),
    cash: [],
    positions: [],
    markets: [],
    orders: [],
    trades: [],
    idempotency: [],
    heartbeats: [],
    orderGroups: [],
    meta: [],
    created: { orders: 0, trades: 0 },
  };
  for (const [account, c] of b.cash) plan.cash.push(upsert(account, { available: c.available, locked: c.locked }));
  for (const p of b.positions) plan.positions.push(upsert(posId(p), { ...p }));
  for (const m of b.markets)
    plan.markets.push(
      upsert(m.marketId, { collateral: m.collateral, epoch: m.epoch, owner: m.owner, seq: m.seq, bookSeq: m.bookSeq, pool: m.pool }),
    );
  const fresh = new Map<string, OrderDoc>();
  for (const doc of b.docs) {
    for (const op of projectEntry(doc)) {
      if (op.op === "insertOrder") fresh.set(op.order._id, { ...op.order });
      else if (op.op === "changeOrder") {
        const c = op.change;
        const o = fresh.get(c.orderId);
        if (o) {
          applyOrderChange(o, c, op.seq, op.at);
          continue;
        }
        const set: Record<string, unknown> = { remaining: c.remaining, holds: c.holds, status: c.status, seq: op.seq, updatedAt: op.at };
        if (c.quantity !== undefined) set.quantity = c.quantity;
        if (c.price !== undefined) set.price = c.price;
        if (c.prio !== undefined) set.prio = c.prio;
        if (c.reason) set.cancelReason = c.reason;
        // An update pipeline: cancelled follows from the fields as they stand after the change.
        plan.orders.push({
          updateOne: {
            filter: { _id: c.orderId },
            update: [
              { $set: { ...set, filledQuantity: { $add: ["$filledQuantity", c.filledDelta] } } },
              { $set: { cancelledQuantity: { $subtract: [{ $subtract: ["$quantity", "$filledQuantity"] }, "$remaining"] } } },
            ],
          },
        });
      } else if (op.op === "insertTrade") {
        plan.trades.push({ insertOne: { document: { ...op.trade, seq: doc.seq } as Doc } });
        plan.created.trades++;
      } else {
        plan.trades.push({
          updateMany: {
            filter: { _id: { $in: op.tradeIds } },
            update: { $set: { settlementStatus: op.status, settlementTxHash: op.txHash } },
          },
        });
      }
    }
    if (doc.idem) plan.idempotency.push({ _id: `${doc.idem.scope}\u0000${doc.idem.key}`, ...doc.idem, seq: doc.seq, createdAt: doc.at });
    const h = doc.heartbeat;
    if (h)
      plan.heartbeats.push(
        h.deadline
          ? upsert(h.userId, { timeoutSeconds: h.timeoutSeconds, deadline: h.deadline })
          : { deleteOne: { filter: { _id: h.userId } } },
      );
    const g = doc.orderGroup;
    if (g)
      plan.orderGroups.push(
        g.kind === "create"
          ? upsert(g.orderGroupId, {
              userId: g.userId,
              fillLimit: g.fillLimit,
              windowSeconds: g.windowSeconds,
              triggered: false,
              since: doc.at,
            })
          : g.kind === "delete"
            ? { deleteOne: { filter: { _id: g.orderGroupId } } }
            : {
                updateOne: {
                  filter: { _id: g.orderGroupId },
                  update: { $set: g.kind === "reset" ? { triggered: false, since: doc.at } : { triggered: true } },
                },
              },
      );
  }
  for (const o of fresh.values()) {
    plan.orders.unshift({ insertOne: { document: o as unknown as Doc } });
    plan.created.orders++;
  }
  const last = b.rows[b.rows.length - 1];
  const meta = (k: string, v: unknown) => plan.meta.push(upsert(k, { v }));
  meta("fees", b.totals.fees);
  meta("deposit", b.totals.deposit);
  meta("withdrawal", b.totals.withdrawal);
  meta("house", b.totals.house);
  meta("head_seq", last.seq);
  meta("head_hash", last.hash);
  if (plan.created.orders)
    plan.meta.push({ updateOne: { filter: { _id: "orders" }, update: { $inc: { v: plan.created.orders } }, upsert: true } });
  if (plan.created.trades)
    plan.meta.push({ updateOne: { filter: { _id: "trades" }, update: { $inc: { v: plan.created.trades } }, upsert: true } });
  return plan;
}

/** GET /orders' filter of a query. */
export function orderFilter(q: OrderQuery): Document {
  const f: Document = { userId: q.userId };
  if (q.marketId) f.marketId = q.marketId;
  if (q.clientOrderId) f.clientOrderId = q.clientOrderId;
  if (q.status === "open") f.remaining = { $gt: 0 };
  else if (q.status === "closed") f.remaining = 0;
  return f;
}

const strip = <T>(d: Document | null): T | null => {
  if (!d) return null;
  delete (d as { seq?: unknown }).seq;
  return d as T;
};

export class MongoMoneyStore implements MoneyStore {
  private db!: Db;
  private c!: Record<
    "journal" | "cash" | "positions" | "markets" | "orders" | "trades" | "idempotency" | "heartbeats" | "orderGroups" | "meta",
    Collection<Doc>
  >;
  /** Synchronous lookups the ledger makes while validating: the keys of plain entries, open client order ids. */
  private readonly keys = new Map<string, number>();
  private readonly clientIds = new Map<string, string>();
  private readonly clientIdOf = new Map<string, string>();

  private constructor(
    readonly location: string,
    private readonly client: MongoClient,
  ) {}

  static async open(uri: string): Promise<MongoMoneyStore> {
    const client = await new MongoClient(uri, MONGO_CLIENT_OPTIONS).connect();
    const s = new MongoMoneyStore(uri.replace(/\/\/[^@]*@/, "//"), client);
    s.db = client.db();
    const col = (n: string) => s.db.collection<Doc>(`ledger_${n}`);
    s.c = {
      journal: col("journal"),
      cash: col("cash"),
      positions: col("positions"),
      markets: col("markets"),
      orders: col("orders"),
      trades: col("trades"),
      idempotency: col("idempotency"),
      heartbeats: col("heartbeats"),
      orderGroups: col("order_groups"),
      meta: col("meta"),
    };
    await s.c.journal.createIndex({ plainKey: 1 }, { unique: true, sparse: true });
    await s.c.journal.createIndex({ marketId: 1, position: 1 }, { unique: true, partialFilterExpression: { position: { $exists: true } } });
    await s.c.orders.createIndex({ userId: 1, createdAt: -1, _id: -1 });
    await s.c.orders.createIndex({ marketId: 1, prio: 1 }, { partialFilterExpression: { remaining: { $gt: 0 } } });
    await s.c.orders.createIndex(
      { userId: 1, clientOrderId: 1 },
      { unique: true, partialFilterExpression: { remaining: { $gt: 0 }, clientOrderId: { $type: "string" } } },
    );
    await s.c.orders.createIndex({ expiresAt: 1 }, { partialFilterExpression: { remaining: { $gt: 0 }, expiresAt: { $type: "string" } } });
    await s.c.trades.createIndex({ userId: 1, createdAt: -1, _id: -1 });
    return s;
  }

  private async meta(k: string): Promise<unknown> {
    return (await this.c.meta.findOne({ _id: k }))?.v;
  }

  async load(): Promise<StoredState> {
    const format = await this.meta("format");
    const n = await this.c.journal.countDocuments();
    const lastRow = await this.c.journal.find().sort({ _id: -1 }).limit(1).next();
    const hi = (lastRow?._id as number | undefined) ?? 0;
    if (formatToWrite(this.location, format, n)) await this.c.meta.insertOne({ _id: "format", v: STORE_FORMAT });
    const headSeq = Number((await this.meta("head_seq")) ?? 0);
    const headHash = String((await this.meta("head_hash")) ?? GENESIS_HASH);
    if (n !== hi) throw new StoreDamaged(`the ledger journal in ${this.location} holds ${n} entries up to seq ${hi}: entries are missing`);
    if (hi !== headSeq)
      throw new StoreDamaged(`the ledger journal in ${this.location} ends at entry ${hi}, but entries up to ${headSeq} were committed`);
    if (lastRow && lastRow.hash !== headHash)
      throw new StoreDamaged(`the last ledger journal entry ${hi} in ${this.location} does not hash to the committed head`);
    for (const [name, col] of [
      ["orders", this.c.orders],
      ["trades", this.c.trades],
    ] as const) {
      const rows = await col.countDocuments();
      const made = Number((await this.meta(name)) ?? 0);
      if (rows !== made)
        throw new StoreDamaged(`the ${name} read model in ${this.location} holds ${rows} ${name}, the journal made ${made}`);
    }
    for await (const d of this.c.journal.find({ plainKey: { $exists: true } }, { projection: { plainKey: 1 } }))
      this.keys.set(d.plainKey as string, d._id as number);
    for await (const o of this.c.orders.find(
      { remaining: { $gt: 0 }, clientOrderId: { $type: "string" } },
      { projection: { userId: 1, clientOrderId: 1 } },
    ))
      this.trackClientId(o._id as string, o.userId as string, o.clientOrderId as string);
    const cash = (await this.c.cash.find().toArray()).map((d): [string, CashAccount] => [
      d._id as string,
      { available: d.available as number, locked: d.locked as number },
    ]);
    const positions = (await this.c.positions.find().toArray()).map((d) => {
      const { _id, ...p } = d;
      void _id;
      return p as unknown as PositionState;
    });
    const marketDocs = await this.c.markets.find().toArray();
    const markets: MarketLease[] = marketDocs.map((m) => ({
      marketId: m._id as string,
      epoch: m.epoch as number,
      owner: (m.owner as string | null) ?? null,
      seq: m.seq as number,
      bookSeq: m.bookSeq as number,
      pool: (m.pool as MarketLease["pool"]) ?? null,
    }));
    return {
      head: { seq: headSeq, hash: headHash },
      accounts: {
        cash,
        positions,
        collateral: marketDocs.filter((m) => m.collateral).map((m) => [m._id as string, m.collateral as number]),
        fees: Number((await this.meta("fees")) ?? 0),
        external: {
          deposit: Number((await this.meta("deposit")) ?? 0),
          withdrawal: Number((await this.meta("withdrawal")) ?? 0),
          house: Number((await this.meta("house")) ?? 0),
        },
      },
      markets,
    };
  }

  private trackClientId(orderId: string, userId: string, cid: string): void {
    this.clientIds.set(`${userId}\u0000${cid}`, orderId);
    this.clientIdOf.set(orderId, `${userId}\u0000${cid}`);
  }

  keySeq(key: string): number | null {
    return this.keys.get(key) ?? null;
  }

  openOrderByClientId(userId: string, clientOrderId: string): string | null {
    return this.clientIds.get(`${userId}\u0000${clientOrderId}`) ?? null;
  }

  async commit(batch: CommitBatch): Promise<void> {
    if (!batch.rows.length) return;
    const plan = commitPlan(batch);
    const session: ClientSession = this.client.startSession();
    try {
      await session.withTransaction(
        async () => {
          const o = { session };
          await this.c.journal.insertMany(plan.journal as unknown as Doc[], o);
          if (plan.cash.length) await this.c.cash.bulkWrite(plan.cash, o);
          if (plan.positions.length) await this.c.positions.bulkWrite(plan.positions, o);
          if (plan.markets.length) await this.c.markets.bulkWrite(plan.markets, o);
          if (plan.orders.length) await this.c.orders.bulkWrite(plan.orders, { ...o, ordered: true });
          if (plan.trades.length) await this.c.trades.bulkWrite(plan.trades, { ...o, ordered: true });
          // A key bound to its command first (answerFrom) gets its answer later, under the same key.
          if (plan.idempotency.length)
            await this.c.idempotency.bulkWrite(
              plan.idempotency.map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } })),
              o,
            );
          if (plan.heartbeats.length) await this.c.heartbeats.bulkWrite(plan.heartbeats, o);
          if (plan.orderGroups.length) await this.c.orderGroups.bulkWrite(plan.orderGroups, { ...o, ordered: true });
          await this.c.meta.bulkWrite(plan.meta, o);
        },
        { writeConcern: { w: "majority", journal: true }, readConcern: { level: "snapshot" } },
      );
    } finally {
      await session.endSession();
    }
    for (const r of batch.rows) if (r.position === null) this.keys.set(r.key, r.seq);
    for (const op of plan.orders) {
      const ins = (op as { insertOne?: { document: Doc } }).insertOne?.document;
      if (ins && (ins.remaining as number) > 0 && typeof ins.clientOrderId === "string")
        this.trackClientId(ins._id as string, ins.userId as string, ins.clientOrderId);
    }
    for (const doc of batch.docs) {
      for (const c of doc.book?.orders ?? []) {
        if (c.remaining > 0) continue;
        const k = this.clientIdOf.get(c.orderId);
        if (k) {
          this.clientIds.delete(k);
          this.clientIdOf.delete(c.orderId);
        }
      }
    }
  }

  async entriesAfter(seq: number, limit: number): Promise<LedgerEntryDoc[]> {
    const rows = await this.c.journal
      .find({ _id: { $gt: seq } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return rows.map((r) => ({ ...(JSON.parse(r.body as string) as LedgerEntryDoc), hash: r.hash as string }));
  }

  async scanJournal(fromSeq: number, onRow: (row: JournalRow) => void): Promise<void> {
    for await (const r of this.c.journal.find({ _id: { $gte: fromSeq } }).sort({ _id: 1 })) {
      onRow({
        seq: r._id as number,
        key: r.key as string,
        body: r.body as string,
        hash: r.hash as string,
        marketId: (r.marketId as string) ?? null,
        position: (r.position as number) ?? null,
        epoch: (r.epoch as number) ?? null,
      });
    }
  }

  async bookEntries(marketId: string, afterPosition: number, limit: number): Promise<BookJournalDoc[]> {
    const rows = await this.c.journal
      .find({ marketId, position: { $gt: afterPosition } })
      .sort({ position: 1 })
      .limit(limit)
      .toArray();
    return rows.map((r) => (JSON.parse(r.body as string) as LedgerEntryDoc).book as BookJournalDoc);
  }

  async restingOrders(marketId: string, afterPrio: number, limit: number): Promise<CommittedRestingOrder[]> {
    const rows = await this.c.orders
      .find({ marketId, remaining: { $gt: 0 }, prio: { $gt: afterPrio } })
      .sort({ prio: 1 })
      .limit(limit)
      .toArray();
    return rows.map((r) => ({
      orderId: r._id as string,
      userId: r.userId,
      side: r.side,
      outcome: r.outcome,
      price: r.price,
      quantity: r.quantity,
      remaining: r.remaining,
      seq: r.prio,
      clientOrderId: (r.clientOrderId as string | null) ?? null,
      ...(r.cancelOnPause === true ? { cancelOnPause: true } : {}),
      ...(r.quote === true ? { quote: true } : {}),
    }));
  }

  async orders(q: OrderQuery): Promise<{ items: OrderDoc[]; total: number }> {
    const f = orderFilter(q);
    const [items, total] = await Promise.all([
      this.c.orders
        .find(f)
        .sort({ createdAt: -1, _id: -1 })
        .skip((q.page - 1) * q.pageSize)
        .limit(q.pageSize)
        .toArray(),
      this.c.orders.countDocuments(f),
    ]);
    return { items: items.map((d) => strip<OrderDoc>(d) as OrderDoc), total };
  }

  async order(orderId: string): Promise<OrderDoc | null> {
    return strip<OrderDoc>(await this.c.orders.findOne({ _id: orderId }));
  }

  async trades(userId: string, page: number, pageSize: number): Promise<{ items: TradeDoc[]; total: number }> {
    const [items, total] = await Promise.all([
      this.c.trades
        .find({ userId })
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * pageSize)
        .limit(pageSize)
        .toArray(),
      this.c.trades.countDocuments({ userId }),
    ]);
    return { items: items.map((d) => strip<TradeDoc>(d) as TradeDoc), total };
  }

  async trade(tradeId: string): Promise<TradeDoc | null> {
    return strip<TradeDoc>(await this.c.trades.findOne({ _id: tradeId }));
  }

  async foundationFacts(): Promise<MoneyFacts> {
    const users = new RegExp(`^${USER_ACCOUNT_PREFIX}`);
    const [cashUsers, positionUsers, orderUsers] = await Promise.all([
      this.c.cash.distinct("_id", { _id: users }),
      this.c.positions.distinct("account", { account: users }),
      this.c.orders.distinct("userId", { userId: users, remaining: { $gt: 0 } }),
    ]);
    const [moneyMarkets, positionMarkets, orderMarkets] = await Promise.all([
      this.c.markets.distinct("_id", { $or: [{ collateral: { $ne: 0 } }, { pool: { $ne: null } }] }),
      this.c.positions.distinct("marketId"),
      this.c.orders.distinct("marketId", { remaining: { $gt: 0 } }),
    ]);
    const bodies: string[] = [];
    for await (const d of this.c.journal.find({ plainKey: new RegExp(`^${DEPOSIT_KEY_PREFIX}`) }, { projection: { body: 1 } }))
      bodies.push(d.body as string);
    const total = async (k: string) => Number((await this.meta(k)) ?? 0);
    return {
      fresh: (await this.meta("format")) === undefined && (await this.c.journal.countDocuments({}, { limit: 1 })) === 0,
      users: [...new Set([...cashUsers, ...positionUsers, ...orderUsers].map(String))],
      markets: [...new Set([...moneyMarkets, ...positionMarkets, ...orderMarkets].map(String))],
      depositors: depositorsOf(bodies),
      chainUsed: (await total("withdrawal")) !== 0,
    };
  }

  async fingerprint(name: string): Promise<string | null> {
    const v = await this.meta(`fp:${name}`);
    return typeof v === "string" ? v : null;
  }

  async recordFingerprint(name: string, value: string): Promise<void> {
    await this.c.meta.updateOne({ _id: `fp:${name}` }, { $setOnInsert: { v: value } }, { upsert: true });
  }

  async readModelFacts(): Promise<ReadModelFacts> {
    const badOrders = (
      await this.c.orders
        .find({
          $or: [
            { filledQuantity: { $lt: 0 } },
            { remaining: { $lt: 0 } },
            { cancelledQuantity: { $lt: 0 } },
            { $expr: { $gt: ["$filledQuantity", "$quantity"] } },
            { $expr: { $ne: [{ $add: ["$filledQuantity", "$remaining", "$cancelledQuantity"] }, "$quantity"] } },
          ],
        })
        .limit(100)
        .toArray()
    ).map((o) => ({
      orderId: o._id as string,
      quantity: o.quantity,
      filled: o.filledQuantity,
      remaining: o.remaining,
      cancelled: o.cancelledQuantity,
    }));
    const cashHeld = new Map<string, number>();
    for await (const r of this.c.orders.aggregate([
      { $match: { remaining: { $gt: 0 }, side: "BUY" } },
      { $group: { _id: "$userId", held: { $sum: "$holds" } } },
    ]))
      cashHeld.set(r._id as string, r.held as number);
    const sharesHeld = new Map<string, number>();
    for await (const r of this.c.orders.aggregate([
      { $match: { remaining: { $gt: 0 }, side: "SELL" } },
      { $group: { _id: { u: "$userId", m: "$marketId", o: "$outcome" }, held: { $sum: "$holds" } } },
    ])) {
      const k = r._id as { u: string; m: string; o: string };
      sharesHeld.set(`${k.u}|${k.m}|${k.o}`, r.held as number);
    }
    const badPositions: ReadModelFacts["badPositions"] = [];
    const last = new Map<string, { position: number; epoch: number }>();
    for await (const r of this.c.journal
      .find({ position: { $exists: true } }, { projection: { marketId: 1, position: 1, epoch: 1 } })
      .sort({ marketId: 1, position: 1 })) {
      const m = r.marketId as string;
      const prev = last.get(m);
      const position = r.position as number;
      const epoch = r.epoch as number;
      if (!prev && position !== 1) badPositions.push({ marketId: m, position, problem: "does not start at 1" });
      else if (prev && position !== prev.position + 1)
        badPositions.push({ marketId: m, position, problem: `follows position ${prev.position}` });
      else if (prev && epoch < prev.epoch)
        badPositions.push({ marketId: m, position, problem: `written under epoch ${epoch} after epoch ${prev.epoch}` });
      last.set(m, { position, epoch });
      if (badPositions.length >= 100) break;
    }
    return {
      badOrders,
      cashHeld,
      sharesHeld,
      badPositions,
      counts: { orders: await this.c.orders.countDocuments(), trades: await this.c.trades.countDocuments() },
    };
  }

  async allOrders(onRow: (o: OrderDoc) => void): Promise<void> {
    for await (const d of this.c.orders.find().sort({ _id: 1 })) onRow(strip<OrderDoc>(d) as OrderDoc);
  }

  async allTrades(onRow: (t: TradeDoc) => void): Promise<void> {
    for await (const d of this.c.trades.find().sort({ _id: 1 })) onRow(strip<TradeDoc>(d) as TradeDoc);
  }

  async idempotent(scope: string, key: string): Promise<StoredIdem | null> {
    const d = await this.c.idempotency.findOne({ _id: `${scope}\u0000${key}` });
    if (!d) return null;
    return {
      fingerprint: d.fingerprint as string,
      status: d.status as number,
      response: d.response as unknown,
      ...(d.answerFrom ? { answerFrom: d.answerFrom as IdemAnswerSource } : {}),
    };
  }

  async auditLog(page: number, pageSize: number): Promise<{ items: LedgerEntryDoc[]; total: number }> {
    const q = { plainKey: { $gte: "audit:", $lt: "audit;" } };
    const [rows, total] = await Promise.all([
      this.c.journal
        .find(q)
        .sort({ _id: -1 })
        .skip((page - 1) * pageSize)
        .limit(pageSize)
        .toArray(),
      this.c.journal.countDocuments(q),
    ]);
    return { items: rows.map((r) => ({ ...(JSON.parse(r.body as string) as LedgerEntryDoc), hash: r.hash as string })), total };
  }

  async orderGroups(): Promise<StoredOrderGroup[]> {
    return (await this.c.orderGroups.find().sort({ _id: 1 }).toArray()).map((d) =>
      checkedOrderGroup(this.location, {
        orderGroupId: d._id,
        userId: d.userId,
        fillLimit: d.fillLimit,
        windowSeconds: d.windowSeconds,
        triggered: d.triggered,
        since: d.since,
      }),
    );
  }

  async groupOrders(): Promise<Array<{ orderId: string; orderGroupId: string; marketId: string }>> {
    const rows = await this.c.orders
      .find({ remaining: { $gt: 0 }, orderGroupId: { $type: "string" } }, { projection: { orderGroupId: 1, marketId: 1 } })
      .toArray();
    return rows.map((r) => ({ orderId: r._id as string, orderGroupId: r.orderGroupId as string, marketId: r.marketId as string }));
  }

  async groupFills(userId: string, orderGroupId: string, after: string): Promise<GroupOrderFill[]> {
    const trades = await this.c.trades
      .find({ userId, createdAt: { $gt: after } }, { projection: { orderId: 1, filledQuantity: 1, createdAt: 1 } })
      .sort({ createdAt: 1 })
      .toArray();
    if (!trades.length) return [];
    const ids = [...new Set(trades.map((t) => t.orderId as string))];
    const inGroup = new Set(
      (await this.c.orders.find({ _id: { $in: ids }, orderGroupId }, { projection: { _id: 1 } }).toArray()).map((o) => o._id as string),
    );
    return trades
      .filter((t) => inGroup.has(t.orderId as string))
      .map((t) => ({ orderId: t.orderId as string, quantity: t.filledQuantity as number, at: t.createdAt as string }));
  }

  async heartbeats(): Promise<Array<{ userId: string; timeoutSeconds: number; deadline: string }>> {
    return (await this.c.heartbeats.find().toArray()).map((d) => ({
      userId: d._id as string,
      timeoutSeconds: d.timeoutSeconds as number,
      deadline: d.deadline as string,
    }));
  }

  async dueExpiries(now: string, limit: number): Promise<Array<{ orderId: string; marketId: string; expiresAt: string }>> {
    const rows = await this.c.orders
      .find({ remaining: { $gt: 0 }, expiresAt: { $type: "string", $lte: now } })
      .sort({ expiresAt: 1 })
      .limit(limit)
      .toArray();
    return rows.map((r) => ({ orderId: r._id as string, marketId: r.marketId as string, expiresAt: r.expiresAt as string }));
  }

  async nextExpiry(): Promise<string | null> {
    const r = await this.c.orders
      .find({ remaining: { $gt: 0 }, expiresAt: { $type: "string" } })
      .sort({ expiresAt: 1 })
      .limit(1)
      .next();
    return (r?.expiresAt as string | undefined) ?? null;
  }

  async openMarketsOf(userId: string): Promise<string[]> {
    return (await this.c.orders.distinct("marketId", { userId, remaining: { $gt: 0 } })) as string[];
  }

  close(): void {
    void this.client.close();
  }
}
