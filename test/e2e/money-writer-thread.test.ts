/**
 * The embedded money store as the server runs it (compiled, under a data dir): group commits are
 * written on the writer thread, acknowledged once durable, and readable on the event loop's
 * connection from then on; a refused commit breaks the store for good, never half-applied.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as LedgerModule from "../../ledger/ledger";
import type * as StoreModule from "../../ledger/sqlite-store";
import type * as VerifyModule from "../../ledger/verify";

// The compiled modules (npm test builds first): only there is the writer thread's entry.
const dist = join(__dirname, "../../dist/ledger");
const { Ledger } = require(join(dist, "ledger.js")) as typeof LedgerModule;
const { SqliteMoneyStore } = require(join(dist, "sqlite-store.js")) as typeof StoreModule;
const { verifyAll } = require(join(dist, "verify.js")) as typeof VerifyModule;

import Database from "better-sqlite3";
import { until } from "../support/until";

const SHARE = 1_000_000;
const deposit = (user: string, amount: number, key = `dep:${user}:${amount}`) => ({
  key,
  postings: [
    { kind: "cash" as const, account: user, available: amount },
    { kind: "external" as const, flow: "deposit" as const, amount },
  ],
});

describe("the money store's writer thread", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "pmx-writer-"));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test("commits go through the thread; once acknowledged they are readable here, in the head file, and after a reopen", async () => {
    const dir = tempDir();
    const store = SqliteMoneyStore.open(dir, { fsync: true });
    const ledger = await Ledger.open(store);
    const seqs: number[] = [];
    // Several turns of the event loop: several group commits, each while the next one is gathered.
    for (let round = 0; round < 5; round++) {
      for (let u = 0; u < 20; u++) seqs.push(ledger.post(deposit(`usr_${u}`, (round + 1) * SHARE)).seq);
      // A repeated key while its first entry is still on its way to the thread is the same entry.
      expect(ledger.post(deposit("usr_0", (round + 1) * SHARE)).applied).toBe(false);
      await new Promise((r) => setImmediate(r));
    }
    await ledger.waitDurable(seqs[seqs.length - 1]);
    expect((store as unknown as { writer: object }).writer.constructor.name).toBe("ThreadWriter");
    const entries = await store.entriesAfter(0, 1_000);
    expect(entries.map((e) => e.seq)).toEqual(seqs);
    const head = JSON.parse(readFileSync(join(dir, "money.head"), "utf8").replace(/\0+$/, "")) as { seq: number; hash: string };
    expect(head).toEqual({ seq: seqs[seqs.length - 1], hash: entries[entries.length - 1].hash });
    await ledger.idle();
    await store.close();

    const again = SqliteMoneyStore.open(dir, { fsync: true });
    const reopened = await Ledger.open(again);
    expect(reopened.balance("usr_7").available).toBe(15 * SHARE);
    expect((await verifyAll(again, { accounts: reopened.snapshotAccounts(), leases: reopened.leases() })).ok).toBe(true);
    await again.close();
  });

  test("a commit the writer refuses breaks the store: nothing of it is written, later commits are refused too", async () => {
    const dir = tempDir();
    const store = SqliteMoneyStore.open(dir, { fsync: false });
    const ledger = await Ledger.open(store);
    await ledger.waitDurable(ledger.post(deposit("usr_a", SHARE)).seq);
    const [row] = await new Promise<
      Array<{
        seq: number;
        key: string;
        body: string;
        hash: string;
        marketId: string | null;
        position: number | null;
        epoch: number | null;
      }>
    >((resolve) => {
      const rows: Array<{
        seq: number;
        key: string;
        body: string;
        hash: string;
        marketId: string | null;
        position: number | null;
        epoch: number | null;
      }> = [];
      void store.scanJournal(1, (r) => rows.push(r)).then(() => resolve(rows));
    });
    const totals = { fees: 0, deposit: SHARE, withdrawal: 0, house: 0 };
    // The same journal seq again, with a cash row that must not land: the transaction is refused whole.
    const bad = {
      rows: [row],
      docs: [],
      cash: [["usr_b", { available: 5 * SHARE, locked: 0 }]] as Array<[string, { available: number; locked: number }]>,
      positions: [],
      markets: [],
      totals,
    };
    await expect(store.commit(bad)).rejects.toThrow(/UNIQUE constraint failed: journal.seq/);
    await expect(store.commit({ ...bad, rows: [{ ...row, seq: 2, key: "other" }] })).rejects.toThrow(
      /UNIQUE constraint failed: journal.seq/,
    );
    await store.close();

    const again = SqliteMoneyStore.open(dir, { fsync: false });
    const state = await again.load();
    expect(state.head.seq).toBe(1);
    expect(state.accounts.cash.map(([a]) => a)).toEqual(["usr_a"]);
    await again.close();
    expect(existsSync(join(dir, "money.db"))).toBe(true);
  });

  /** `n` group commits of one deposit each, each waited for (so each is its own commit). */
  const commitEach = async (ledger: Awaited<ReturnType<typeof Ledger.open>>, n: number, tag: string) => {
    for (let i = 0; i < n; i++) await ledger.waitDurable(ledger.post(deposit(`usr_${tag}${i % 7}`, SHARE, `dep:${tag}:${i}`)).seq);
  };
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);

  test("the writer checkpoints after the commits that made it due, so the WAL stays bounded; without checkpoints it grows", async () => {
    const never = { idleMs: 1e9, commits: 1e9, rows: 1e9 };
    const sizes: Record<string, { db: number; wal: number }> = {};
    for (const [name, checkpoints] of [
      ["never", never],
      ["every 5 commits", { ...never, commits: 5 }],
    ] as const) {
      const dir = tempDir();
      const store = SqliteMoneyStore.open(dir, { fsync: true, checkpoints });
      const ledger = await Ledger.open(store);
      await commitEach(ledger, 200, "c");
      sizes[name] = { db: size(join(dir, "money.db")), wal: size(join(dir, "money.db-wal")) };
      await ledger.idle();
      await store.close();
      const again = SqliteMoneyStore.open(dir, { fsync: true });
      const reopened = await Ledger.open(again);
      expect(reopened.balance("usr_c3").available).toBe(29 * SHARE);
      await again.close();
    }
    // Unchecked, every commit's pages pile up in the WAL; checkpointed, the WAL starts over and the pages land in the database.
    expect(sizes["every 5 commits"].wal * 4).toBeLessThan(sizes.never.wal);
    expect(sizes["every 5 commits"].db).toBeGreaterThan(sizes.never.db);
  });

  test("an idle writer checkpoints on its own; the writer thread is named for /proc and top -H", async () => {
    const dir = tempDir();
    const store = SqliteMoneyStore.open(dir, { fsync: true, checkpoints: { idleMs: 100, commits: 1e9, rows: 1e9 } });
    const ledger = await Ledger.open(store);
    const before = size(join(dir, "money.db"));
    await commitEach(ledger, 20, "i");
    await until("an idle checkpoint copied the commits into the database", () => size(join(dir, "money.db")) > before);
    if (existsSync(`/proc/${process.pid}/task`)) {
      const names = readdirSync(`/proc/${process.pid}/task`).map((t) => {
        try {
          return readFileSync(`/proc/${process.pid}/task/${t}/comm`, "utf8").trim();
        } catch {
          return "";
        }
      });
      expect(names).toContain("pmx-writer");
    }
    await ledger.idle();
    await store.close();
  });

  test("a store written with 4 KiB pages (the earlier page size) opens, keeps them and takes commits; new stores get 1 KiB pages", async () => {
    const old = tempDir();
    const pre = new Database(join(old, "money.db"));
    pre.pragma("page_size = 4096");
    pre.pragma("journal_mode = WAL");
    pre.close();
    const store = SqliteMoneyStore.open(old, { fsync: true });
    const ledger = await Ledger.open(store);
    await commitEach(ledger, 10, "o");
    await ledger.idle();
    await store.close();
    const again = SqliteMoneyStore.open(old, { fsync: true });
    const reopened = await Ledger.open(again);
    expect(reopened.balance("usr_o2").available).toBe(2 * SHARE);
    expect((await verifyAll(again, { accounts: reopened.snapshotAccounts(), leases: reopened.leases() })).ok).toBe(true);
    await again.close();
    const fresh = tempDir();
    const freshStore = SqliteMoneyStore.open(fresh, { fsync: true });
    await commitEach(await Ledger.open(freshStore), 1, "f");
    await freshStore.close();
    for (const [dir, pageSize] of [
      [old, 4096],
      [fresh, 1024],
    ] as const) {
      const db = new Database(join(dir, "money.db"), { readonly: true });
      expect(db.pragma("page_size", { simple: true })).toBe(pageSize);
      db.close();
    }
  });
});
