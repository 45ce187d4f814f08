import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { ServiceBroker } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import LedgerService from "../../services/ledger.service";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { MarketActor } from "../../trading/market-actor";
import { chainHash, GENESIS_HASH } from "../../ledger/chain-hash";
import type { BookJournalDoc, LedgerEntryDoc, MarketLease } from "../../models/trading";
import type { MoneyCheck } from "../../ledger/ledger";
import type { VerifyReport } from "../../ledger/verify";
import { SHARE } from "../support/trading";
import { marketPortsOverLedger } from "../support/ledger-ports";

/**
 * The money check that would have caught the cluster's double fills: a stale engine's entry that
 * fills an already-filled share again, taking the cash from the maker's other locked funds, keeps
 * conservation's equation true, yet the extended check names the over-filled order and the lock
 * that no longer matches, and full verification refuses the journal.
 */
describe("the money check on a journal holding a double fill", () => {
  let broker: ServiceBroker;
  let dir: string;
  const marketId = "mkt_doctored";

  const start = async () => {
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
    bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false" }));
    broker.createService(LedgerService);
    await broker.start();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-doctored-"));
    await start();
    for (const u of ["usr_maker", "usr_taker"]) {
      await broker.call("ledger.post", {
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 100 * SHARE },
          { kind: "external", flow: "deposit", amount: 100 * SHARE },
        ],
      });
    }
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ports = (node: string) => marketPortsOverLedger(broker, node);

  test("conservation's equation still holds, the extended check and verification do not", async () => {
    const engine = await MarketActor.load(marketId, ports("eng1"));
    // The maker's share that gets filled, and another resting order whose lock the double fill eats.
    const filled = await engine.place({ userId: "usr_maker", side: "BUY", outcome: "YES", orderType: "GTC", price: 54, quantity: SHARE });
    await engine.place({ userId: "usr_maker", side: "BUY", outcome: "YES", orderType: "GTC", price: 10, quantity: 10 * SHARE });
    const taker = await engine.place({ userId: "usr_taker", side: "BUY", outcome: "NO", orderType: "GTC", price: 46, quantity: SHARE });
    expect(taker.status).toBe("filled");
    expect((await broker.call<MoneyCheck>("ledger.conservation")).ok).toBe(true);

    // What the stale engine wrote: the same fill again, at the next journal position of the current
    // lease, money balanced (a new mint paid from the maker's other lock and the taker's cash).
    const entries = await broker.call<LedgerEntryDoc[], object>("ledger.entriesAfter", { seq: 0, limit: 100 });
    const fill = entries.find(
      (e) => e.book?.command.type === "place" && e.book.command.order.orderId !== filled.orderId && e.book.fills.length,
    ) as LedgerEntryDoc;
    const lease = await broker.call<MarketLease, { marketId: string }>("ledger.lease", { marketId });
    const book = fill.book as BookJournalDoc;
    await broker.call("ledger.post", {
      key: `book:${marketId}:${lease.seq + 1}`,
      postings: fill.postings,
      checkAfter: fill.checkAfter,
      book: {
        ...book,
        seq: lease.seq + 1,
        epoch: lease.epoch,
        command: { type: "route", orderId: "ord_stale", userId: "usr_taker", side: "BUY", outcome: "NO", quantity: SHARE, mode: "ROUTE" },
        orders: book.orders.filter((o) => o.orderId === filled.orderId),
      },
    });

    const check = await broker.call<MoneyCheck>("ledger.conservation");
    // The old check: cash + collateral + fees = deposits - withdrawals + house, pairs backed.
    expect(check.cash + check.collateral + check.fees).toBe(check.deposits - check.withdrawals + check.house);
    expect(check.unbalancedMarkets).toEqual([]);
    // The new one names what happened.
    expect(check.ok).toBe(false);
    expect(check.badOrders).toEqual([expect.objectContaining({ orderId: filled.orderId, quantity: SHARE, filled: 2 * SHARE })]);
    expect(check.badLocks).toEqual([expect.objectContaining({ account: "usr_maker" })]);
    const verify = await broker.call<VerifyReport>("ledger.verify");
    expect(verify.ok).toBe(false);
    expect(verify.problems.join("\n")).toMatch(new RegExp(`order ${filled.orderId} would hold filled ${2 * SHARE}`));
  });
});

describe("a journal edited while the exchange is stopped", () => {
  let broker: ServiceBroker;
  let dir: string;

  const start = async () => {
    broker = new ServiceBroker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS } });
    bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false" }));
    broker.createService(LedgerService);
    await broker.start();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-edited-"));
    await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a changed entry breaks the chain at start; re-chained by hand, the start passes but full verification refuses it", async () => {
    await broker.call("ledger.post", {
      key: "dep:usr_maker",
      postings: [
        { kind: "cash", account: "usr_maker", available: 100 * SHARE },
        { kind: "external", flow: "deposit", amount: 100 * SHARE },
      ],
    });
    await broker.call("ledger.post", {
      key: "wd:usr_maker",
      postings: [
        { kind: "cash", account: "usr_maker", available: -SHARE },
        { kind: "external", flow: "withdrawal", amount: SHARE },
      ],
    });
    await broker.stop();
    const db = new Database(join(dir, "money.db"));
    const row = db
      .prepare('SELECT seq, body FROM journal WHERE body LIKE \'%"kind":"cash","account":"usr_maker","available":100000000%\' LIMIT 1')
      .get() as { seq: number; body: string };
    const forged = row.body.replace('"available":100000000', '"available":900000000');
    db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(forged, row.seq);
    db.close();
    await expect(start()).rejects.toThrow(new RegExp(`entry ${row.seq} \\(dep:usr_maker\\) does not match its hash`));
    await broker.stop().catch(() => undefined);

    // Someone who also recomputes every hash and the head: the chain holds, the books do not.
    const db2 = new Database(join(dir, "money.db"));
    let prev = GENESIS_HASH;
    const rows = db2.prepare("SELECT seq, body FROM journal ORDER BY seq").all() as Array<{ seq: number; body: string }>;
    for (const r of rows) {
      prev = chainHash(prev, r.body);
      db2.prepare("UPDATE journal SET hash = ? WHERE seq = ?").run(prev, r.seq);
    }
    db2.prepare("UPDATE meta SET v = ? WHERE k = 'head_hash'").run(prev);
    db2.close();
    // ...and the head file beside the store (gone, it would itself stop the start).
    writeFileSync(join(dir, "money.head"), JSON.stringify({ seq: rows[rows.length - 1].seq, hash: prev }));
    // The stored balances still add up with the stored totals, so the start cannot tell...
    await start();
    // ...but a replay of the journal can.
    const verify = await broker.call<VerifyReport>("ledger.verify");
    expect(verify.ok).toBe(false);
    expect(verify.problems.join("\n")).toMatch(/balances and positions differ from a replay of the journal/);
  });
});
