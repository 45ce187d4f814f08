import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { verifyAll } from "../../ledger/verify";
import { isRefusal } from "../../engine/refusal";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";
import type { QuoteTerm } from "../../models/trading";

const M = "mkt_quotes";
const MM = "usr_mm";
const TAKER = "usr_taker";

const q = (side: "BUY" | "SELL", price: number, quantity = 1_000_000): QuoteTerm => ({ side, outcome: "YES", price, quantity });

/** A market's actor over a real ledger on SQLite in `dir`: opened again on the same files it is a restart. */
async function open(dir: string) {
  const store = SqliteMoneyStore.open(dir, { fsync: false });
  const ledger = await Ledger.open(store);
  let ids = 0;
  const ports = marketPortsOnLedger(ledger, store, {
    // Unique across the store's reopenings.
    newId: (p) => `${p}_${Date.now().toString(36)}_${String(++ids).padStart(6, "0")}`,
  });
  const actor = await MarketActor.load(M, ports);
  const verify = () => verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
  const close = async () => {
    await ledger.idle();
    await store.close();
  };
  return { store, ledger, actor, verify, close };
}

const book = (a: MarketActor) => a.book.openOrders().map((o) => [o.orderId, o.userId, o.side, o.price, o.remaining, o.seq]);

describe("mass quotes journaled: one entry, replayed into the same book", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pmx-quotes-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("replace twice, restart: the book and the caller's quote set are rebuilt; the next set replaces the restored one", async () => {
    let m = await open(dir);
    for (const u of [MM, TAKER])
      m.ledger.post({
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 5_000_000 },
          { kind: "external", flow: "deposit", amount: 5_000_000 },
        ],
      });
    await m.actor.place({ userId: TAKER, side: "BUY", outcome: "YES", orderType: "GTC", price: 30, quantity: 1_000_000 });
    const first = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 45), q("BUY", 44)], postOnly: true });
    const entriesBefore = (await m.verify()).entries;
    const second = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 46), q("BUY", 43), q("BUY", 42)], postOnly: true });
    // One journal entry for the cancel of two and the placement of three.
    expect((await m.verify()).entries).toBe(entriesBefore + 1);
    expect(second.cancelled).toEqual(first.orders.map((o) => o.orderId));
    const third = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 47)], postOnly: false });
    expect(third.cancelled).toEqual(second.orders.map((o) => o.orderId));
    // The read model: quote orders are ordinary orders marked as quotes.
    const rows = await m.store.orders({ userId: MM, status: "all", page: 1, pageSize: 50 });
    expect(rows.items.filter((o) => o.status === "cancelled").length).toBe(5);
    expect(rows.items.every((o) => o.quote === true && o.orderType === "GTC")).toBe(true);
    const before = book(m.actor);
    expect((await m.verify()).problems).toEqual([]);
    expect(m.ledger.balance(MM)).toMatchObject({ available: 5_000_000 - 470_000, locked: 470_000 });
    await m.close();

    m = await open(dir);
    expect(book(m.actor)).toEqual(before);
    expect((await m.verify()).problems).toEqual([]);
    // The restored set is the one the next mass quote replaces.
    const fourth = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 41)], postOnly: false });
    expect(fourth.cancelled).toEqual(third.orders.map((o) => o.orderId));
    expect(m.ledger.balance(MM)).toMatchObject({ available: 5_000_000 - 410_000, locked: 410_000 });
    // DELETE /quotes: the set withdrawn, other orders untouched.
    const gone = await m.actor.cancelQuotes(MM);
    expect(gone).toEqual({ cancelled: fourth.orders.map((o) => o.orderId), releasedAmount: 410_000 });
    expect(await m.actor.cancelQuotes(MM)).toEqual({ cancelled: [], releasedAmount: 0 });
    expect(book(m.actor).map((o) => o[1])).toEqual([TAKER]);
    expect((await m.verify()).problems).toEqual([]);
    await m.close();
  });

  test("a set the balance cannot hold whole is refused: nothing moves and the previous set stands", async () => {
    const m = await open(dir);
    m.ledger.post({
      key: `dep:${MM}`,
      postings: [
        { kind: "cash", account: MM, available: 1_000_000 },
        { kind: "external", flow: "deposit", amount: 1_000_000 },
      ],
    });
    const first = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 40)], postOnly: true });
    const before = book(m.actor);
    const entries = (await m.verify()).entries;
    // 0.50 + 0.40 + 0.30 = 1.20 with 1.00 (the previous set's 0.40 released first): refused whole.
    const err = await m.actor
      .quotes({ userId: MM, quotes: [q("BUY", 50), q("BUY", 40), q("BUY", 30)], postOnly: true })
      .catch((e: unknown) => e);
    expect(isRefusal(err) && err.code).toBe("INSUFFICIENT_BALANCE");
    expect(book(m.actor)).toEqual(before);
    expect((await m.verify()).entries).toBe(entries);
    expect(m.ledger.balance(MM)).toMatchObject({ available: 600_000, locked: 400_000 });
    // The actor goes on: the previous set is still the one replaced next (0.50 + 0.40 fits once 0.40 is back).
    const next = await m.actor.quotes({ userId: MM, quotes: [q("BUY", 50), q("BUY", 40)], postOnly: true });
    expect(next.cancelled).toEqual(first.orders.map((o) => o.orderId));
    expect(m.ledger.balance(MM)).toMatchObject({ available: 100_000, locked: 900_000 });
    expect((await m.verify()).problems).toEqual([]);
    await m.close();
  });
});
