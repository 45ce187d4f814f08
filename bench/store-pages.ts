/**
 * Where the money store's bytes per order go: the store's own schema (ledger/sqlite-store.ts) and
 * the writer's statements for what one `POST /orders` changes (a journal row and its book
 * position, the user's cash, the market's row, the meta counters, the order row; one order in five crosses: the maker's row
 * updated, two trades, two positions, the maker's cash), group commits of --per orders on a fresh
 * store with 1 KiB pages. Printed: bytes written per order (WAL frames, and WAL + the writer's
 * checkpoint policy), then the same with each secondary index dropped in turn (what each costs)
 * and with the orders and trades tables WITHOUT ROWID, and with the order and trade rows projected
 * behind the journal in a transaction of their own every --defer orders, then with the balances,
 * positions, markets and totals behind it too (the store's default), then the journal's commit
 * alone (nothing behind it written) for entry bodies of --body bytes on pages of --page bytes.
 * Deterministic: no timing is measured.
 *
 *   npm run bench:build && node dist-bench/bench/store-pages.js [--orders=8000] [--per=1,4,8] [--users=200] [--markets=20]
 *        [--defer=50,500] [--body=1200,900,600] [--page=1024,2048,4096]
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SCHEMA } from "../ledger/sqlite-store";
import { CHECKPOINTS } from "../ledger/sqlite-writer";
import { NEW_STORE_PAGE_SIZE } from "../ledger/sqlite-connection";
import { flags, num } from "./lib/util";

function wchar(): number {
  return Number(/wchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? NaN);
}

/** Bytes per order over the second half of `orders` orders: WAL growth without checkpoints, and all bytes written with them. */
function run(
  schema: string,
  orders: number,
  per: number,
  users: number,
  markets: number,
  checkpoints: boolean,
  /** 0: order and trade rows in each commit; n: in a transaction of their own every n orders (projected behind the journal). */
  defer = 0,
  /** Balances, positions, markets and totals too behind the journal (the store's default), rather than in each commit. */
  behind = false,
  shape: { body: number; page: number } = { body: 1200, page: NEW_STORE_PAGE_SIZE },
): number {
  const BODY = "x".repeat(shape.body);
  const dir = mkdtempSync(join(tmpdir(), "pmx-pages-"));
  const file = join(dir, "money.db");
  const db = new Database(file);
  db.pragma(`page_size = ${shape.page}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  db.pragma("cache_size = -65536");
  db.exec(schema);
  const t0 = Date.parse("2026-11-28T00:00:00Z");
  let n = 0;
  const id = (p: string) => `${p}_${(t0 + n++).toString(36)}a1b2c3d4e5f6a7b8c9d0e1`;
  const us = Array.from({ length: users }, () => id("usr"));
  const ms = Array.from({ length: markets }, () => id("mkt"));
  const q = (s: string) => db.prepare(s);
  const st = {
    meta: q("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"),
    journal: q("INSERT INTO journal (seq, key, market_id, position, epoch, body, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    cash: q(
      "INSERT INTO cash (account, available, locked) VALUES (?, ?, ?) ON CONFLICT(account) DO UPDATE SET available = excluded.available, locked = excluded.locked",
    ),
    pos: q(
      "INSERT INTO positions (account, market_id, outcome, quantity, locked, total_cost, realized_pnl, settled) VALUES (?, ?, ?, ?, 0, ?, 0, 0) " +
        "ON CONFLICT(account, market_id, outcome) DO UPDATE SET quantity = excluded.quantity, total_cost = excluded.total_cost",
    ),
    market: q(
      "INSERT INTO markets (market_id, collateral, epoch, owner, position, book_seq) VALUES (?, ?, 1, 'n', ?, ?) " +
        "ON CONFLICT(market_id) DO UPDATE SET collateral = excluded.collateral, position = excluded.position, book_seq = excluded.book_seq",
    ),
    order: q(
      "INSERT INTO orders (order_id, user_id, market_id, side, outcome, order_type, price, quantity, filled, remaining, cancelled, holds, status, cancel_reason, client_order_id, expires_at, post_only, prio, seq, created_at, updated_at, cancel_on_pause) " +
        "VALUES (?, ?, ?, 'BUY', ?, 'GTC', ?, 1000000, ?, ?, 0, ?, ?, NULL, NULL, NULL, 0, ?, ?, ?, ?, 0)",
    ),
    fill: q(
      "UPDATE orders SET filled = filled + 1000000, remaining = 0, holds = 0, status = 'filled', seq = ?, updated_at = ? WHERE order_id = ?",
    ),
    bookPos: q("INSERT INTO book_positions (market_id, position, seq) VALUES (?, ?, ?)"),
    trade: q(
      "INSERT INTO trades (trade_id, user_id, market_id, order_id, side, outcome, venue, role, filled_quantity, total_cost, fee, fill_ids, settlement_status, settlement_tx, created_at, seq) " +
        "VALUES (?, ?, ?, ?, 'BUY', ?, 'CLOB', ?, 1000000, 500000, 0, '[\"fil_x\"]', 'pending', NULL, ?, ?)",
    ),
  };
  const resting: Array<Array<{ order: string; user: string }>> = ms.map(() => []);
  const position = ms.map(() => 0);
  let seq = 0;
  let since = { commits: 0, rows: 0 };
  const wal = () => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };
  let from = 0;
  let measured = 0;
  // Order and trade rows waiting for their own transaction (defer > 0), in journal order.
  let later: Array<() => void> = [];
  let waiting = 0;
  const project = () => {
    db.transaction(() => {
      for (const f of later) f();
      const keys = ["orders", "trades", "projected_seq", ...(behind ? ["fees", "deposit", "withdrawal", "house", "state_seq"] : [])];
      for (const key of keys) st.meta.run(key, String(seq));
    })();
    later = [];
    waiting = 0;
  };
  const rows = (f: () => void) => (defer ? later.push(f) : f());
  // Written behind, a row changed by several orders is written once, with its latest value.
  const state = (f: () => void) => (defer && behind ? later.push(f) : f());
  for (let i = 0; i < orders; i += per) {
    if (i >= orders / 2 && !measured) {
      if (!checkpoints) db.pragma("wal_checkpoint(TRUNCATE)");
      from = checkpoints ? wchar() : 0;
    }
    db.transaction(() => {
      for (let j = 0; j < per; j++) {
        const k = i + j;
        const user = us[k % users];
        const mi = (k + Math.floor(k / users)) % markets;
        const market = ms[mi];
        seq++;
        position[mi]++;
        const at = new Date(t0 + k).toISOString();
        st.journal.run(seq, `book:${market}:${position[mi]}`, market, position[mi], 1, BODY, "h".repeat(64));
        state(() => st.cash.run(user, 1e12 - k, k));
        const pm = position[mi];
        const ps = seq;
        rows(() => st.bookPos.run(market, pm, ps));
        state(() => st.market.run(market, k, pm, 2 * pm));
        const order = id("ord");
        const maker = k % 5 === 0 ? resting[mi].shift() : undefined;
        const s = seq;
        const [p, t1, t2] = [position[mi], id("trd"), id("trd")];
        if (maker) {
          rows(() => {
            st.fill.run(s, at, maker.order);
            st.order.run(order, user, market, "NO", 55, 1e6, 0, 0, "filled", p, s, at, at);
            st.trade.run(t1, maker.user, market, maker.order, "YES", "maker", at, s);
            st.trade.run(t2, user, market, order, "NO", "taker", at, s);
          });
          state(() => {
            st.pos.run(user, market, "NO", k, k);
            st.pos.run(maker.user, market, "YES", k, k);
            st.cash.run(maker.user, 1e12 - k, k);
          });
        } else {
          rows(() => st.order.run(order, user, market, "YES", 47, 0, 1e6, 470000, "open", p, s, at, at));
          resting[mi].push({ order, user });
        }
      }
      if (!(defer && behind))
        for (const key of ["fees", "deposit", "withdrawal", "house", ...(defer ? [] : ["orders", "trades"]), "head_seq", "head_hash"])
          st.meta.run(key, String(seq));
    })();
    waiting += per;
    if (defer && waiting >= defer) project();
    if (i >= orders / 2) measured += per;
    if (checkpoints) {
      since = { commits: since.commits + 1, rows: since.rows + per };
      if (since.commits >= CHECKPOINTS.commits || since.rows >= CHECKPOINTS.rows) {
        db.pragma("wal_checkpoint(PASSIVE)");
        since = { commits: 0, rows: 0 };
      }
    }
  }
  const bytes = checkpoints ? wchar() - from : wal();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return bytes / measured;
}

function main(): void {
  const f = flags();
  const orders = num(f, "orders", 8_000);
  const users = num(f, "users", 200);
  const markets = num(f, "markets", 20);
  const pers = (f.per ?? "1,4,8").split(",").map(Number);
  const defers = (f.defer ?? "50,500").split(",").map(Number);
  const indexes = [...SCHEMA.matchAll(/CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]);
  const drop = (name: string) => SCHEMA.replace(new RegExp(`CREATE (UNIQUE )?INDEX IF NOT EXISTS ${name} [^\\n]*\\n`), "");
  const noRowid = SCHEMA.replace(
    /cancel_on_pause INTEGER NOT NULL DEFAULT 0\);/,
    "cancel_on_pause INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;",
  ).replace(
    /seq INTEGER NOT NULL\);\nCREATE INDEX IF NOT EXISTS trades_user/,
    "seq INTEGER NOT NULL) WITHOUT ROWID;\nCREATE INDEX IF NOT EXISTS trades_user",
  );
  const variants: Array<[string, string]> = [
    ["the store's schema", SCHEMA],
    ...indexes.map((x): [string, string] => [`without ${x}`, drop(x)]),
    ["orders, trades WITHOUT ROWID", noRowid],
  ];
  console.log(
    `# bench/store-pages: ${orders} orders, ${users} users, ${markets} markets, ${NEW_STORE_PAGE_SIZE} B pages; KiB written per order (WAL only | WAL + checkpoints)`,
  );
  console.log(`${"".padEnd(34)} ${pers.map((p) => `${p} per commit`.padStart(22)).join("")}`);
  for (const [name, schema] of variants) {
    const cells = pers.map((p) => {
      const w = run(schema, orders, p, users, markets, false) / 1024;
      const all = run(schema, orders, p, users, markets, true) / 1024;
      return `${w.toFixed(1).padStart(10)} | ${all.toFixed(1).padEnd(9)}`;
    });
    console.log(`${name.padEnd(34)} ${cells.join("")}`);
  }
  const table = (name: string, cell: (per: number, checkpoints: boolean) => number) => {
    const cells = pers.map((p) => `${(cell(p, false) / 1024).toFixed(1).padStart(10)} | ${(cell(p, true) / 1024).toFixed(1).padEnd(9)}`);
    console.log(`${name.padEnd(34)} ${cells.join("")}`);
  };
  // Order and trade rows projected behind the journal every n orders; balances in each commit.
  for (const d of defers) table(`rows projected every ${d} orders`, (p, c) => run(SCHEMA, orders, p, users, markets, c, d));
  // The store's default: balances, positions, markets and totals behind the journal too.
  for (const d of defers) table(`rows and balances every ${d}`, (p, c) => run(SCHEMA, orders, p, users, markets, c, d, true));
  // Nothing behind it ever written: the journal's commit alone, by body and page size.
  const bodies = (f.body ?? "1200,900,600").split(",").map(Number);
  const pages = (f.page ?? `${NEW_STORE_PAGE_SIZE},2048,4096`).split(",").map(Number);
  for (const page of pages)
    for (const body of bodies)
      table(`journal alone: ${body} B body, ${page} B page`, (p, c) =>
        run(SCHEMA, orders, p, users, markets, c, Number.MAX_SAFE_INTEGER, true, { body, page }),
      );
}

main();
