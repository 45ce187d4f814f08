import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { RETIRED_INDEXES, SqliteMoneyStore } from "../../ledger/sqlite-store";

/** The money store's indexes: the ones its queries use, and none an earlier version left behind. */
describe("the SQLite money store's indexes", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pmx-indexes-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const indexes = (): string[] => {
    const db = new Database(join(dir, "money.db"), { readonly: true });
    try {
      return (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
          name: string;
        }>
      ).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  const EXPECTED = [
    "journal_key",
    "orders_client_id",
    "orders_expiry",
    "orders_resting_market",
    "orders_resting_user",
    "orders_user",
    "trades_user",
  ];

  test("a new store has the indexes its queries use", async () => {
    await SqliteMoneyStore.open(dir, { fsync: false, writerThread: false }).close();
    expect(indexes()).toEqual(EXPECTED);
  });

  test("a store an earlier version wrote loses the indexes no query uses when it opens, and keeps its data", async () => {
    const first = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false });
    await first.load();
    await first.close();
    // As the earlier version made it.
    const db = new Database(join(dir, "money.db"));
    db.exec("CREATE INDEX orders_client_id_all ON orders(user_id, client_order_id, created_at DESC) WHERE client_order_id IS NOT NULL");
    db.prepare("INSERT INTO meta (k, v) VALUES ('fp:probe', 'kept')").run();
    db.close();
    expect(indexes()).toContain(RETIRED_INDEXES[0]);
    const again = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false });
    expect(await again.fingerprint("probe")).toBe("kept");
    // The lookup it served still answers (through orders_user).
    expect(await again.orders({ userId: "usr_a", clientOrderId: "c-1", status: "all", page: 1, pageSize: 10 })).toEqual({
      items: [],
      total: 0,
    });
    await again.close();
    expect(indexes()).toEqual(EXPECTED);
  });
});
