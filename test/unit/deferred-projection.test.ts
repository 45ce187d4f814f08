import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { StoreDamaged } from "../../ledger/store";
import { verifyAll } from "../../ledger/verify";
import { MarketActor, type MarketPorts } from "../../trading/market-actor";
import { NORMAL } from "../../trading/trading-modes";

const M = "mkt_projection";
const MAKER = "usr_maker";
const TAKER = "usr_taker";
/** Nothing projected by time or count: only a read, the close or the next start writes the rows. */
const NEVER = { ms: 1e9, entries: 1e9 };

async function open(dir: string) {
  const store = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: NEVER });
  const ledger = await Ledger.open(store);
  let ids = 0;
  const ports: MarketPorts = {
    fees: { takerBps: 0, makerBps: 0 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${String(++ids).padStart(6, "0")}`,
    nodeID: "eng",
    market: async () => ({ status: "open", ammLiquidity: 0, tradingMode: NORMAL }),
    ledger: {
      acquire: async (m) => {
        const r = ledger.acquire(m, "eng");
        await ledger.waitDurable(r.seq);
        return { ...r.lease, instance: ledger.instance };
      },
      restingOrders: (m, after, limit) => store.restingOrders(m, after, limit),
      lease: async (m) => ledger.lease(m),
      post: async (e) => ledger.post(e),
      durable: (seq, instance) => ledger.waitDurable(seq, instance),
    },
    publish: (doc, actor) => actor.forgetClosed(doc.orders),
  };
  const actor = await MarketActor.load(M, ports);
  const verify = () => verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
  return { store, ledger, actor, verify };
}

/** What the files hold, read beside the store as another process would. */
function onDisk(dir: string): { orders: number; trades: number; projected: number; head: number } {
  const db = new Database(join(dir, "money.db"), { readonly: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const meta = (k: string) => Number((db.prepare("SELECT v FROM meta WHERE k = ?").get(k) as { v: string } | undefined)?.v ?? NaN);
    return {
      orders: n("SELECT count(*) AS n FROM orders"),
      trades: n("SELECT count(*) AS n FROM trades"),
      projected: meta("projected_seq"),
      head: meta("head_seq"),
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
});
