import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { StoreDamaged } from "../../ledger/store";
import { verifyAll } from "../../ledger/verify";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";

const M = "mkt_projection";
const MAKER = "usr_maker";
const TAKER = "usr_taker";
/** Nothing projected by time or count: only a read, the close or the next start writes the rows. */
const NEVER = { ms: 1e9, entries: 1e9 };

async function open(dir: string) {
  const store = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: NEVER });
  const ledger = await Ledger.open(store);
  const ports = marketPortsOnLedger(ledger, store);
  const actor = await MarketActor.load(M, ports);
  const verify = () => verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
  return { store, ledger, actor, verify };
}

/** What the files hold, read beside the store as another process would (the head: the journal's last row). */
function onDisk(dir: string): { orders: number; trades: number; projected: number; state: number; head: number; cash: number } {
  const db = new Database(join(dir, "money.db"), { readonly: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const meta = (k: string) => Number((db.prepare("SELECT v FROM meta WHERE k = ?").get(k) as { v: string } | undefined)?.v ?? NaN);
    return {
      orders: n("SELECT count(*) AS n FROM orders"),
      trades: n("SELECT count(*) AS n FROM trades"),
      projected: meta("projected_seq"),
      state: meta("state_seq"),
      head: n("SELECT coalesce(max(seq), 0) AS n FROM journal"),
      cash: n("SELECT count(*) AS n FROM cash"),
    };
  } finally {
    db.close();
  }
}

async function trade(m: Awaited<ReturnType<typeof open>>) {
  for (const u of [MAKER, TAKER])
    m.ledger.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: 5_000_000 },
        { kind: "external", flow: "deposit", amount: 5_000_000 },
      ],
    });
  await m.actor.place({ userId: MAKER, side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: 2_000_000 });
  await m.actor.place({
    userId: MAKER,
    side: "BUY",
    outcome: "YES",
    orderType: "GTC",
    price: 30,
    quantity: 1_000_000,
    clientOrderId: "c-1",
  });
  await m.actor.place({ userId: TAKER, side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: 1_000_000 });
}

describe("read models projected behind the journal", () => {
  let dir: string;
  let copy: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-projection-"));
    copy = mkdtempSync(join(tmpdir(), "pmx-projection-copy-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  });

  test("committed entries wait for their rows; a read writes them first and sees its own writes", async () => {
    const m = await open(dir);
    await trade(m);
    const waiting = onDisk(dir);
    expect(waiting.projected).toBeLessThan(waiting.head);
    expect(waiting.orders).toBeLessThan(3);
    expect(waiting.trades).toBe(0);

    const mine = await m.store.orders({ userId: MAKER, status: "all", page: 1, pageSize: 10 });
    expect(mine.items.map((o) => [o.price, o.remaining, o.clientOrderId])).toEqual([
      [30, 1_000_000, "c-1"],
      [40, 1_000_000, null],
    ]);
    expect((await m.store.trades(TAKER, 1, 10)).total).toBe(1);
    expect(m.store.openOrderByClientId(MAKER, "c-1")).toBe(mine.items[0]._id);
    expect(onDisk(dir)).toMatchObject({ orders: 3, trades: 2, projected: waiting.head });
    expect((await m.verify()).problems).toEqual([]);
    await m.ledger.idle();
    await m.store.close();
  });

  test("a stop between the journal's commit and its projection loses nothing: the next start projects the tail", async () => {
    const m = await open(dir);
    await trade(m);
    await m.ledger.idle();
    const before = m.actor.book.openOrders().map((o) => [o.orderId, o.userId, o.price, o.remaining]);
    // The files as a SIGKILL leaves them: journal committed, read-model rows not written.
    for (const f of ["money.db", "money.db-wal", "money.head"]) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
    const stopped = onDisk(copy);
    expect(stopped.projected).toBeLessThan(stopped.head);
    await m.store.close();

    const again = await open(copy);
    // The start projected the tail, then took the market's lease again (one more entry).
    const started = onDisk(copy);
    expect(started).toMatchObject({ orders: 3, trades: 2 });
    expect(started.head).toBeGreaterThan(stopped.head);
    expect(again.actor.book.openOrders().map((o) => [o.orderId, o.userId, o.price, o.remaining])).toEqual(before);
    expect((await again.verify()).problems).toEqual([]);
    expect(again.store.openOrderByClientId(MAKER, "c-1")).not.toBeNull();
    await again.store.close();
  });

  test("a mark beyond the journal's end stops the start, named", async () => {
    const m = await open(dir);
    await trade(m);
    await m.ledger.idle();
    await m.store.close();
    const db = new Database(join(dir, "money.db"));
    db.prepare("UPDATE meta SET v = '999' WHERE k = 'projected_seq'").run();
    db.close();
    const store = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: NEVER });
    const err = await store.load().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreDamaged);
    expect((err as Error).message).toMatch(/read models .* claim to reflect ledger journal entry 999, but the journal ends at entry \d+/);
    await store.close();
  });

  test("balances, positions and markets wait with the read models; a stop before they are written loses nothing", async () => {
    const m = await open(dir);
    await trade(m);
    await m.ledger.idle();
    const money = (l: Ledger) => [MAKER, TAKER].map((u) => [l.balance(u), l.positionsOf(u)]);
    const before = { money: money(m.ledger), lease: m.ledger.lease(M), fees: m.ledger.feeBalance() };
    for (const f of ["money.db", "money.db-wal", "money.head"]) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
    // The journal's commits wrote the journal alone: no balance row yet, the mark behind the journal.
    const stopped = onDisk(copy);
    expect(stopped.state).toBeLessThan(stopped.head);
    expect(stopped.cash).toBe(0);
    await m.store.close();

    const again = await open(copy);
    expect({
      money: money(again.ledger),
      lease: { ...again.ledger.lease(M), epoch: before.lease.epoch, owner: before.lease.owner },
    }).toEqual({
      money: before.money,
      lease: before.lease,
    });
    expect(again.ledger.feeBalance()).toBe(before.fees);
    expect(again.ledger.lease(M).epoch).toBe(before.lease.epoch + 1);
    // The start wrote what the replay changed, marked at (at least) the journal's end as it found it.
    expect(onDisk(copy).cash).toBe(2);
    expect(onDisk(copy).state).toBeGreaterThanOrEqual(stopped.head);
    expect((await again.verify()).problems).toEqual([]);
    await again.ledger.idle();
    await again.store.close();
    // Closed: everything written, nothing left to replay.
    expect(onDisk(copy)).toMatchObject({ state: onDisk(copy).head, projected: onDisk(copy).head });
  });

  test("an entry after the balances' mark changed, or a mark beyond the journal's end, stops the start, named", async () => {
    const m = await open(dir);
    await trade(m);
    await m.ledger.idle();
    for (const f of ["money.db", "money.db-wal", "money.head"]) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
    await m.store.close();
    const head = onDisk(copy).head;
    const db = new Database(join(copy, "money.db"));
    const row = db.prepare("SELECT seq, body FROM journal WHERE key = ?").get(`dep:${TAKER}`) as { seq: number; body: string };
    db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(row.body.replace("5000000", "9000000"), row.seq);
    db.close();
    const changed = SqliteMoneyStore.open(copy, { fsync: false, writerThread: false, projection: NEVER });
    const err = await changed.load().catch((e: unknown) => e);
    await changed.close();
    expect(err).toBeInstanceOf(StoreDamaged);
    expect((err as Error).message).toMatch(new RegExp(`ledger journal entry ${row.seq} \\(dep:${TAKER}\\) .* does not match its hash`));

    const db2 = new Database(join(dir, "money.db"));
    db2.prepare("UPDATE meta SET v = '999' WHERE k = 'state_seq'").run();
    db2.close();
    const ahead = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: NEVER });
    const err2 = await ahead.load().catch((e: unknown) => e);
    await ahead.close();
    expect(err2).toBeInstanceOf(StoreDamaged);
    expect((err2 as Error).message).toMatch(
      new RegExp(
        `ledger journal in .* ends at entry ${head}, but entries up to 999 were committed: entries ${head + 1}\\.\\.999 are missing`,
      ),
    );
  });

  test("a store an earlier version wrote (balances and head in every commit) starts, and its head records give way to the mark", async () => {
    const m = await open(dir);
    await trade(m);
    await m.ledger.idle();
    const balances = [MAKER, TAKER].map((u) => m.ledger.balance(u));
    const book = (await m.store.bookEntries(M, 0, 100)).map((b) => [b.seq, b.command.type]);
    expect(book.length).toBe(3);
    await m.store.close();
    const db = new Database(join(dir, "money.db"));
    const last = db.prepare("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string };
    db.prepare("DELETE FROM meta WHERE k = 'state_seq'").run();
    db.prepare("INSERT INTO meta (k, v) VALUES ('head_seq', ?), ('head_hash', ?)").run(String(last.seq), last.hash);
    // Book entries indexed in the journal's commit.
    db.prepare("DELETE FROM book_positions").run();
    db.exec("CREATE UNIQUE INDEX journal_position ON journal(market_id, position) WHERE position IS NOT NULL");
    db.close();

    const again = await open(dir);
    expect([MAKER, TAKER].map((u) => again.ledger.balance(u))).toEqual(balances);
    expect((await again.store.bookEntries(M, 0, 100)).map((b) => [b.seq, b.command.type])).toEqual(book);
    expect((await again.ledger.check()).ok).toBe(true);
    expect((await again.verify()).problems).toEqual([]);
    await again.ledger.idle();
    await again.store.close();
    const after = new Database(join(dir, "money.db"), { readonly: true });
    const keys = (after.prepare("SELECT k FROM meta WHERE k IN ('head_seq', 'head_hash', 'state_seq')").all() as Array<{ k: string }>).map(
      (r) => r.k,
    );
    const index = after.prepare("SELECT name FROM sqlite_master WHERE name = 'journal_position'").get();
    after.close();
    expect(keys).toEqual(["state_seq"]);
    expect(index).toBeUndefined();

    // Its journal cut short of the head it recorded: refused, named as before.
    const db2 = new Database(join(dir, "money.db"));
    const end = (db2.prepare("SELECT max(seq) AS n FROM journal").get() as { n: number }).n;
    db2.prepare("DELETE FROM meta WHERE k = 'state_seq'").run();
    db2.prepare("INSERT INTO meta (k, v) VALUES ('head_seq', ?), ('head_hash', 'x')").run(String(end + 2));
    db2.close();
    const cut = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: NEVER });
    const err = await cut.load().catch((e: unknown) => e);
    await cut.close();
    expect((err as Error).message).toMatch(new RegExp(`ends at entry ${end}, but entries up to ${end + 2} were committed`));
  });

  test("the start check's facts, asked before the store is loaded, count the entries after the balances' mark", async () => {
    const m = await open(dir);
    await trade(m);
    m.ledger.post({
      key: `wd:${TAKER}`,
      postings: [
        { kind: "cash", account: TAKER, available: -1_000_000 },
        { kind: "external", flow: "withdrawal", amount: 1_000_000 },
      ],
    });
    await m.ledger.idle();
    for (const f of ["money.db", "money.db-wal", "money.head"]) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
    await m.store.close();
    expect(onDisk(copy).cash).toBe(0);

    const store = SqliteMoneyStore.open(copy, { fsync: false, writerThread: false, projection: NEVER });
    const facts = await store.foundationFacts();
    await store.close();
    expect({ ...facts, users: [...facts.users].sort(), depositors: [] }).toEqual({
      fresh: false,
      users: [MAKER, TAKER],
      markets: [M],
      depositors: [],
      chainUsed: true,
    });
  });
});
