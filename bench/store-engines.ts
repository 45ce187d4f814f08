/**
 * How the money store's engine was chosen: the same group-commit workload on SQLite
 * (better-sqlite3 12, WAL) and on LMDB (the `lmdb` package), durable on each commit, rounds
 * interleaved. Per order: a 1.2 KB journal row under a unique key, two balance and two position
 * upserts, an order row with two secondary index entries, an update of a maker's order, two trade
 * rows with a user index, as one `POST /orders` that fills once writes. 30 orders per commit.
 *
 *   npm run bench:build && npm install --no-save lmdb@3 && node dist-bench/bench/store-engines.js
 *
 * LMDB is not a dependency of the exchange (the script runs SQLite alone without it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const ORDERS_PER_COMMIT = 30;
const COMMITS = Number(process.env.COMMITS ?? 150);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const USERS = 200;
const BODY = "x".repeat(1200);

interface Result {
  ms: number[];
  cpuUs: number;
  orders: number;
}

function pct(a: number[], p: number): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

let seq = 0;
const rnd = (n: number) => Math.floor(Math.random() * n);

function sqliteEngine(dir: string) {
  const db = new Database(join(dir, "s.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE journal (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, body TEXT NOT NULL);
    CREATE TABLE cash (a TEXT PRIMARY KEY, av INTEGER, lk INTEGER) WITHOUT ROWID;
    CREATE TABLE pos (k TEXT PRIMARY KEY, q INTEGER, c INTEGER) WITHOUT ROWID;
    CREATE TABLE orders (id TEXT PRIMARY KEY, u TEXT, m TEXT, rem INTEGER, filled INTEGER, created TEXT);
    CREATE INDEX o_u ON orders(u, created); CREATE INDEX o_m ON orders(m, id) WHERE rem > 0;
    CREATE TABLE trades (id TEXT PRIMARY KEY, u TEXT, body TEXT, created TEXT); CREATE INDEX t_u ON trades(u, created);`);
  const st = {
    j: db.prepare("INSERT INTO journal VALUES (?, ?, ?)"),
    c: db.prepare("INSERT INTO cash VALUES (?, ?, ?) ON CONFLICT(a) DO UPDATE SET av = excluded.av, lk = excluded.lk"),
    p: db.prepare("INSERT INTO pos VALUES (?, ?, ?) ON CONFLICT(k) DO UPDATE SET q = excluded.q, c = excluded.c"),
    o: db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?, 0, ?)"),
    u: db.prepare("UPDATE orders SET rem = rem - 1, filled = filled + 1 WHERE id = ?"),
    t: db.prepare("INSERT INTO trades VALUES (?, ?, ?, ?)"),
  };
  let lastOrder = "";
  const tx = db.transaction(() => {
    for (let i = 0; i < ORDERS_PER_COMMIT; i++) {
      const s = ++seq;
      const at = new Date().toISOString();
      st.j.run(s, `book:m:${s}`, BODY);
      for (let k = 0; k < 2; k++) {
        st.c.run(`usr_${rnd(USERS)}`, s, k);
        st.p.run(`usr_${rnd(USERS)}|m|YES`, s, k);
      }
      const id = `ord_${s.toString(36).padStart(8, "0")}`;
      st.o.run(id, `usr_${rnd(USERS)}`, "m", 100, at);
      if (lastOrder) st.u.run(lastOrder);
      lastOrder = id;
      st.t.run(`trd_${s}a`, `usr_${rnd(USERS)}`, BODY.slice(0, 200), at);
      st.t.run(`trd_${s}b`, `usr_${rnd(USERS)}`, BODY.slice(0, 200), at);
    }
  });
  return { name: "SQLite (WAL, synchronous=FULL)", commit: async () => tx(), close: () => db.close() };
}

interface LmdbDb {
  put(k: unknown, v: unknown): Promise<boolean>;
  get(k: unknown): unknown;
  openDB(name: string): LmdbDb;
  transactionSync<T>(fn: () => T): T;
  transaction<T>(fn: () => T): Promise<T>;
  close(): Promise<void>;
}

function lmdbEngine(dir: string, mode: "sync" | "async") {
  const req = require as (id: string) => { open(opts: object): LmdbDb };
  const { open } = req(process.env.LMDB_MODULE ?? "lmdb");
  const env = open({ path: join(dir, `l-${mode}`), compression: false });
  const dbs = Object.fromEntries(
    ["journal", "keys", "cash", "pos", "orders", "o_u", "o_m", "trades", "t_u"].map((n) => [n, env.openDB(n)]),
  ) as Record<string, LmdbDb>;
  let lastOrder = "";
  const work = () => {
    for (let i = 0; i < ORDERS_PER_COMMIT; i++) {
      const s = ++seq;
      const at = new Date().toISOString();
      void dbs.journal.put(s, BODY);
      void dbs.keys.put(`book:m:${s}`, s);
      for (let k = 0; k < 2; k++) {
        void dbs.cash.put(`usr_${rnd(USERS)}`, { av: s, lk: k });
        void dbs.pos.put(`usr_${rnd(USERS)}|m|YES`, { q: s, c: k });
      }
      const id = `ord_${s.toString(36).padStart(8, "0")}`;
      const u = `usr_${rnd(USERS)}`;
      void dbs.orders.put(id, { u, m: "m", rem: 100, filled: 0, created: at });
      void dbs.o_u.put(`${u}|${at}|${id}`, id);
      void dbs.o_m.put(`m|${id}`, id);
      if (lastOrder) {
        const o = dbs.orders.get(lastOrder) as { rem: number; filled: number };
        void dbs.orders.put(lastOrder, { ...o, rem: o.rem - 1, filled: o.filled + 1 });
      }
      lastOrder = id;
      for (const x of ["a", "b"]) {
        const tu = `usr_${rnd(USERS)}`;
        void dbs.trades.put(`trd_${s}${x}`, { u: tu, body: BODY.slice(0, 200), created: at });
        void dbs.t_u.put(`${tu}|${at}|trd_${s}${x}`, 1);
      }
    }
  };
  // sync: a transaction committed and synced on the event loop; async: lmdb-js commits and syncs in
  // its own thread, the promise settles once durable (what the money store does with SQLite's WAL).
  const commit = mode === "sync" ? async () => env.transactionSync(work) : () => env.transaction(work);
  return {
    name: `LMDB (${mode === "sync" ? "transactionSync" : "transaction, committed off the event loop"})`,
    commit,
    close: () => void env.close(),
  };
}

async function measure(e: { commit: () => Promise<unknown> }): Promise<Result> {
  const ms: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < COMMITS; i++) {
    const t0 = process.hrtime.bigint();
    await e.commit();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuUs: cpu.user + cpu.system, orders: COMMITS * ORDERS_PER_COMMIT };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pmx-engines-"));
  const engines: Array<{ name: string; commit: () => Promise<unknown>; close: () => void }> = [sqliteEngine(dir)];
  try {
    engines.push(lmdbEngine(dir, "sync"), lmdbEngine(dir, "async"));
  } catch {
    console.log("# lmdb is not installed (npm install --no-save lmdb@3): SQLite alone");
  }
  const results = new Map<string, Result[]>();
  for (let r = 0; r < ROUNDS; r++) for (const e of engines) results.set(e.name, [...(results.get(e.name) ?? []), await measure(e)]);
  console.log(
    `# ${ORDERS_PER_COMMIT} orders per durable commit, ${COMMITS} commits per round, ${ROUNDS} rounds interleaved; best round by CPU`,
  );
  for (const e of engines) {
    const best = (results.get(e.name) as Result[]).sort((a, b) => a.cpuUs - b.cpuUs)[0];
    console.log(
      `${e.name.padEnd(58)} commit p50 ${pct(best.ms, 50).toFixed(2)} ms  p99 ${pct(best.ms, 99).toFixed(2)} ms  event-loop CPU ${(best.cpuUs / best.orders).toFixed(1)} us/order`,
    );
    e.close();
  }
  rmSync(dir, { recursive: true, force: true });
}

void main();
