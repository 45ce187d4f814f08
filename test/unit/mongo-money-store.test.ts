import { commitPlan, journalDocument, orderFilter } from "../../ledger/mongo-store";
import type { CommitBatch } from "../../ledger/store";
import type { LedgerEntryDoc } from "../../models/trading";

/**
 * What the MongoDB money store asks of the server for one group commit, decided without a server
 * (none runs here): every document the entries change, in one plan the store writes in one
 * transaction.
 */
describe("the MongoDB money store's commit plan", () => {
  const place: LedgerEntryDoc = {
    _id: "book:m1:3",
    seq: 7,
    at: "2026-11-24T10:00:00.000Z",
    postings: [{ kind: "cash", account: "usr_a", available: -400_000, locked: 400_000 }],
    trades: [
      {
        tradeId: "trd_1",
        userId: "usr_b",
        marketId: "m1",
        orderId: "ord_old",
        side: "BUY",
        outcome: "NO",
        venue: "CLOB",
        role: "maker",
        filledQuantity: 100,
        totalCost: 60,
        fee: 0,
        fillIds: ["fil_1"],
      },
    ],
    book: {
      marketId: "m1",
      seq: 3,
      epoch: 2,
      bookSeq: 12,
      node: "eng1",
      command: {
        type: "place",
        order: {
          orderId: "ord_new",
          userId: "usr_a",
          side: "BUY",
          outcome: "YES",
          price: 40,
          quantity: 1_000_000,
          orderType: "GTC",
          createdAt: "2026-11-24T10:00:00.000Z",
          prio: 10,
          clientOrderId: "mm-1",
        },
      },
      fills: [],
      orders: [
        { orderId: "ord_old", userId: "usr_b", filledDelta: 100, remaining: 0, status: "filled", holds: 0 },
        { orderId: "ord_new", userId: "usr_a", filledDelta: 100, remaining: 999_900, status: "partially_filled", holds: 399_960 },
      ],
      at: "2026-11-24T10:00:00.000Z",
    },
    idem: { scope: "usr_a", key: "k1", fingerprint: "f", status: 200, response: { orderId: "ord_new" } },
  };
  const batch: CommitBatch = {
    rows: [{ seq: 7, key: "book:m1:3", body: "{}", hash: "h7", marketId: "m1", position: 3, epoch: 2 }],
    docs: [place],
    cash: [["usr_a", { available: 9_600_000, locked: 400_000 }]],
    positions: [
      { account: "usr_a", marketId: "m1", outcome: "YES", quantity: 100, locked: 0, totalCost: 40, realizedPnl: 0, settled: false },
    ],
    markets: [{ marketId: "m1", collateral: 100, epoch: 2, owner: "eng1", seq: 3, bookSeq: 12, pool: null }],
    totals: { fees: 0, deposit: 10_000_000, withdrawal: 0, house: 0 },
  };

  test("journal rows: book entries found by market and position, other entries by their key", () => {
    expect(journalDocument(batch.rows[0])).toEqual({
      _id: 7,
      key: "book:m1:3",
      marketId: "m1",
      position: 3,
      epoch: 2,
      body: "{}",
      hash: "h7",
    });
    expect(journalDocument({ seq: 8, key: "deposit:tx", body: "{}", hash: "h8", marketId: null, position: null, epoch: null })).toEqual({
      _id: 8,
      key: "deposit:tx",
      plainKey: "deposit:tx",
      body: "{}",
      hash: "h8",
    });
  });

  test("one plan: the state rows, the order placed written once as the batch leaves it, the older order updated in place, the trade, the key's answer, the head", () => {
    const plan = commitPlan(batch);
    expect(plan.cash).toEqual([
      { replaceOne: { filter: { _id: "usr_a" }, replacement: { _id: "usr_a", available: 9_600_000, locked: 400_000 }, upsert: true } },
    ]);
    expect(plan.positions[0]).toMatchObject({ replaceOne: { filter: { _id: "usr_a|m1|YES" } } });
    expect(plan.markets[0]).toMatchObject({
      replaceOne: { filter: { _id: "m1" }, replacement: { epoch: 2, owner: "eng1", seq: 3, collateral: 100 } },
    });
    // New order first (inserted with its change folded in), then the maker's update.
    const [ins, upd] = plan.orders as Array<{
      insertOne?: { document: Record<string, unknown> };
      updateOne?: { filter: unknown; update: unknown[] };
    }>;
    expect(ins.insertOne?.document).toMatchObject({
      _id: "ord_new",
      filledQuantity: 100,
      remaining: 999_900,
      cancelledQuantity: 0,
      holds: 399_960,
      status: "partially_filled",
      clientOrderId: "mm-1",
      prio: 10,
    });
    expect(upd.updateOne?.filter).toEqual({ _id: "ord_old" });
    expect(upd.updateOne?.update).toEqual([
      {
        $set: {
          remaining: 0,
          holds: 0,
          status: "filled",
          seq: 7,
          updatedAt: "2026-11-24T10:00:00.000Z",
          filledQuantity: { $add: ["$filledQuantity", 100] },
        },
      },
      { $set: { cancelledQuantity: { $subtract: [{ $subtract: ["$quantity", "$filledQuantity"] }, "$remaining"] } } },
    ]);
    expect(plan.trades).toEqual([
      { insertOne: { document: expect.objectContaining({ _id: "trd_1", settlementStatus: "pending", seq: 7 }) } },
    ]);
    expect(plan.idempotency).toEqual([expect.objectContaining({ _id: "usr_a\u0000k1", status: 200, response: { orderId: "ord_new" } })]);
    expect(plan.created).toEqual({ orders: 1, trades: 1 });
    expect(plan.meta).toEqual(
      expect.arrayContaining([
        { replaceOne: { filter: { _id: "head_seq" }, replacement: { _id: "head_seq", v: 7 }, upsert: true } },
        { replaceOne: { filter: { _id: "head_hash" }, replacement: { _id: "head_hash", v: "h7" }, upsert: true } },
        { updateOne: { filter: { _id: "orders" }, update: { $inc: { v: 1 } }, upsert: true } },
      ]),
    );
  });

  test("GET /orders' filters", () => {
    expect(orderFilter({ userId: "u", status: "open", page: 1, pageSize: 100 })).toEqual({ userId: "u", remaining: { $gt: 0 } });
    expect(orderFilter({ userId: "u", marketId: "m", clientOrderId: "c", status: "closed", page: 1, pageSize: 100 })).toEqual({
      userId: "u",
      marketId: "m",
      clientOrderId: "c",
      remaining: 0,
    });
    expect(orderFilter({ userId: "u", status: "all", page: 1, pageSize: 100 })).toEqual({ userId: "u" });
  });
});
