import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { commitPlan } from "../../ledger/mongo-store";
import { StoreDamaged, type CommitBatch } from "../../ledger/store";
import type { LedgerEntryDoc, OrderGroupRecord } from "../../models/trading";

/** Order group records as both money stores keep them: projected with their entry, read back at a start. */
describe("order groups in the money store", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-group-store-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = () => SqliteMoneyStore.open(dir, { fsync: false, writerThread: false });
  const post = async (ledger: Ledger, n: number, orderGroup: OrderGroupRecord) => {
    const r = ledger.post({ key: `group:${orderGroup.orderGroupId}:${orderGroup.kind}:${n}`, postings: [], orderGroup });
    await ledger.waitDurable(r.seq);
  };

  test("SQLite: created, triggered, reset and deleted groups as their records left them, after a reopen too", async () => {
    const store = open();
    const ledger = await Ledger.open(store);
    await post(ledger, 1, { kind: "create", orderGroupId: "grp_a", userId: "usr_a", fillLimit: 5_000_000, windowSeconds: 60 });
    await post(ledger, 2, { kind: "create", orderGroupId: "grp_b", userId: "usr_b", fillLimit: 7, windowSeconds: 15 });
    await post(ledger, 3, { kind: "create", orderGroupId: "grp_c", userId: "usr_a", fillLimit: 1, windowSeconds: 3600 });
    await post(ledger, 4, { kind: "trigger", orderGroupId: "grp_a", userId: "usr_a" });
    await post(ledger, 5, { kind: "trigger", orderGroupId: "grp_b", userId: "usr_b" });
    await post(ledger, 6, { kind: "reset", orderGroupId: "grp_b", userId: "usr_b" });
    await post(ledger, 7, { kind: "delete", orderGroupId: "grp_c", userId: "usr_a" });
    const expected = [
      { orderGroupId: "grp_a", userId: "usr_a", fillLimit: 5_000_000, windowSeconds: 60, triggered: true, since: expect.any(String) },
      { orderGroupId: "grp_b", userId: "usr_b", fillLimit: 7, windowSeconds: 15, triggered: false, since: expect.any(String) },
    ];
    expect(await store.orderGroups()).toEqual(expected);
    expect(await store.groupOrders()).toEqual([]);
    await store.close();

    const again = open();
    await Ledger.open(again);
    expect(await again.orderGroups()).toEqual(expected);
    await again.close();
  });

  test("SQLite: a stored group no version wrote is refused, named", async () => {
    const store = open();
    const ledger = await Ledger.open(store);
    await post(ledger, 1, { kind: "create", orderGroupId: "grp_a", userId: "usr_a", fillLimit: 5, windowSeconds: 60 });
    await store.close();
    for (const [sql, problem] of [
      ["UPDATE order_groups SET window_s = 3601", "it has window 3601 s"],
      ["UPDATE order_groups SET window_s = 60, fill_limit = 0", "it has fill limit 0"],
      ["UPDATE order_groups SET fill_limit = 5, triggered = 2", "it has trigger state 2"],
      ["UPDATE order_groups SET triggered = 0, since = 'yesterday'", "it has reset time yesterday"],
    ]) {
      const db = new Database(join(dir, "money.db"));
      db.exec(sql);
      db.close();
      const s = open();
      const err = await s.orderGroups().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreDamaged);
      expect((err as Error).message).toBe(`order group grp_a in the money store ${join(dir, "money.db")} is damaged: ${problem}`);
      await s.close();
    }
  });

  test("MongoDB: each record is one write to the order groups collection, in the group commit's transaction", () => {
    const doc = (seq: number, orderGroup: OrderGroupRecord): LedgerEntryDoc => ({
      _id: `group:${seq}`,
      seq,
      postings: [],
      orderGroup,
      at: `2026-11-24T10:00:0${seq}.000Z`,
    });
    const batch: CommitBatch = {
      rows: [1, 2, 3, 4].map((seq) => ({
        seq,
        key: `group:${seq}`,
        body: "{}",
        hash: `h${seq}`,
        marketId: null,
        position: null,
        epoch: null,
      })),
      docs: [
        doc(1, { kind: "create", orderGroupId: "grp_a", userId: "usr_a", fillLimit: 5, windowSeconds: 60 }),
        doc(2, { kind: "trigger", orderGroupId: "grp_a", userId: "usr_a" }),
        doc(3, { kind: "reset", orderGroupId: "grp_a", userId: "usr_a" }),
        doc(4, { kind: "delete", orderGroupId: "grp_a", userId: "usr_a" }),
      ],
      cash: [],
      positions: [],
      markets: [],
      totals: { fees: 0, deposit: 0, withdrawal: 0, house: 0 },
    };
    expect(commitPlan(batch).orderGroups).toEqual([
      {
        replaceOne: {
          filter: { _id: "grp_a" },
          replacement: {
            _id: "grp_a",
            userId: "usr_a",
            fillLimit: 5,
            windowSeconds: 60,
            triggered: false,
            since: "2026-11-24T10:00:01.000Z",
          },
          upsert: true,
        },
      },
      { updateOne: { filter: { _id: "grp_a" }, update: { $set: { triggered: true } } } },
      { updateOne: { filter: { _id: "grp_a" }, update: { $set: { triggered: false, since: "2026-11-24T10:00:03.000Z" } } } },
      { deleteOne: { filter: { _id: "grp_a" } } },
    ]);
  });
});
