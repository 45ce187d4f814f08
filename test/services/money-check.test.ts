import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ServiceBroker } from "moleculer";
import LedgerService from "../../services/ledger.service";
import { MarketActor } from "../../trading/market-actor";
import { chainHash, GENESIS_HASH } from "../../ledger/chain-hash";
import type { BookJournalDoc, LedgerEntryDoc, MarketLease, MoneyCheck, VerifyReport } from "../../models/trading";
import { SHARE } from "../support/trading";
import { marketPortsOverLedger } from "../support/ledger-ports";
import { cancelledPayout } from "../../chain/redemption";
import type { PositionState } from "../../engine/accounts";
import { serviceBroker } from "../support/service-broker";
import { ServiceBroker as Broker, type Context, type ServiceSchema } from "moleculer";
import { bindConfig, loadConfig } from "../../lib/config";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { AuthGuard } from "../../mixins/guard.middleware";
import type { EventInternal, MarketInternal } from "../../models/catalog";
import type { RouteExecution } from "../../models/trading";
import { eventPoolAccount } from "../../engine/event-pool";

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
    broker = serviceBroker({ DATA_DIR: dir }, [LedgerService]);
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
    broker = serviceBroker({ DATA_DIR: dir }, [LedgerService]);
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

describe("a journal edited to pay a cancelled market's holders from the fee account", () => {
  let broker: ServiceBroker;
  let dir: string;
  const marketId = "mkt_drained";

  const start = async () => {
    broker = serviceBroker({ DATA_DIR: dir }, [LedgerService]);
    await broker.start();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-drained-"));
    await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the ledger refuses such an entry; written into the journal by hand, verification names it", async () => {
    for (const u of ["usr_yes", "usr_no"]) {
      await broker.call("ledger.post", {
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 100 * SHARE },
          { kind: "external", flow: "deposit", amount: 100 * SHARE },
        ],
      });
    }
    // The taker pays 2% (of min(p, 1 - p)) into the fee account.
    const engine = await MarketActor.load(marketId, { ...marketPortsOverLedger(broker, "eng1"), fees: { takerBps: 200, makerBps: 0 } });
    await engine.place({ userId: "usr_yes", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: 10 * SHARE });
    expect(
      (await engine.place({ userId: "usr_no", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: 10 * SHARE })).status,
    ).toBe("filled");
    const fees = (await broker.call<MoneyCheck>("ledger.conservation")).fees;
    expect(fees).toBeGreaterThan(0);

    // Paid at 0.50 from the market's collateral: accepted. The same with the fees added to a holder's payout: refused.
    const plan = cancelledPayout(marketId, 500_000, await broker.call<PositionState[], object>("ledger.holders", { marketId }));
    const drained = plan.postings.map((p) =>
      p.kind === "cash" && p.account === "usr_yes" ? { ...p, available: (p.available ?? 0) + fees } : p,
    );
    drained.push({ kind: "fee", amount: -fees });
    await expect(
      broker.call("ledger.post", { key: `refund:${marketId}`, postings: drained, payout: { marketId, yesPayout: 500_000 } }),
    ).rejects.toMatchObject({ type: "INVALID_POSTING", message: expect.stringMatching(/takes \d+ from the fee account/) });
    await broker.call("ledger.post", { key: `refund:${marketId}`, postings: plan.postings, payout: { marketId, yesPayout: 500_000 } });
    expect((await broker.call<VerifyReport>("ledger.verify")).problems).toEqual([]);
    await broker.stop();

    // The entry, the balance it moved and the fee total edited together, every hash recomputed: the
    // books add up and the start passes.
    const db = new Database(join(dir, "money.db"));
    const row = db.prepare("SELECT seq, body FROM journal WHERE key = ?").get(`refund:${marketId}`) as { seq: number; body: string };
    const doc = JSON.parse(row.body) as LedgerEntryDoc;
    doc.postings = drained;
    db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(JSON.stringify(doc), row.seq);
    db.prepare("UPDATE cash SET available = available + ? WHERE account = 'usr_yes'").run(fees);
    db.prepare("UPDATE meta SET v = '0' WHERE k = 'fees'").run();
    let prev = GENESIS_HASH;
    for (const r of db.prepare("SELECT seq, body FROM journal ORDER BY seq").all() as Array<{ seq: number; body: string }>) {
      prev = chainHash(prev, r.body);
      db.prepare("UPDATE journal SET hash = ? WHERE seq = ?").run(prev, r.seq);
    }
    const last = db.prepare("SELECT MAX(seq) AS seq FROM journal").get() as { seq: number };
    db.prepare("UPDATE meta SET v = ? WHERE k = 'head_hash'").run(prev);
    db.close();
    // The head file rewritten to match (gone, it would itself stop the start).
    writeFileSync(join(dir, "money.head"), JSON.stringify({ seq: last.seq, hash: prev }));
    await start();
    const check = await broker.call<MoneyCheck>("ledger.conservation");
    expect([check.ok, check.fees]).toEqual([true, 0]);

    const verify = await broker.call<VerifyReport>("ledger.verify");
    expect(verify.ok).toBe(false);
    const named = `entry ${row.seq} (refund:${marketId})`;
    expect(verify.problems).toEqual([
      `${named} takes ${fees} from the fee account: nothing leaves the fee account`,
      expect.stringMatching(
        new RegExp(`^${named.replace(/[()]/g, "\\$&")} pays market ${marketId} out at 500000 per YES share other than`),
      ),
    ]);
  });
});

describe("a journal edited to price a race's pool leg in the trader's favour", () => {
  let broker: ServiceBroker;
  let dir: string;
  const market = (id: string): MarketInternal => ({
    id,
    eventId: "evt_cheap",
    title: id,
    outcomeLabel: id,
    status: "open",
    result: null,
    conditionId: "0x",
    ammLiquidity: "0",
  });
  const event: EventInternal = {
    id: "evt_cheap",
    mutuallyExclusive: true,
    exhaustive: true,
    ammLiquidity: String(1_000 * SHARE),
    markets: ["A", "B", "C"].map(market),
  };
  const catalog: ServiceSchema = {
    name: "catalog",
    actions: {
      getEventInternal: () => event,
      getMarketInternal: (ctx: Context<{ marketId: string }>) => event.markets.find((m) => m.id === ctx.params.marketId),
      exchangeMode: () => ({ mode: "normal", reason: null, updatedAt: null }),
    },
  };
  const start = async () => {
    broker = new Broker({ logger: false, validator: { type: "Fastest", options: VALIDATOR_OPTIONS }, middlewares: [AuthGuard] });
    bindConfig(broker, loadConfig({ DATA_DIR: dir, JWT_SECRET: "x", LOG_LEVEL: "false" }));
    for (const svc of [catalog, LedgerService]) broker.createService(svc);
    await broker.start();
  };
  const buy = (userId: string, marketId: string, quantity: number) =>
    broker.call<RouteExecution | null, object>("ledger.eventPoolRoute", {
      marketId,
      userId,
      side: "BUY",
      outcome: "YES",
      quantity,
      mode: "AMM",
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-cheap-pool-"));
    await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the books add up and the start passes; verification prices the leg again on the pool's replayed books and names it", async () => {
    for (const u of ["usr_a", "usr_b"])
      await broker.call("ledger.post", {
        key: `dep:${u}`,
        postings: [
          { kind: "cash", account: u, available: 500 * SHARE },
          { kind: "external", flow: "deposit", amount: 500 * SHARE },
        ],
      });
    const cheap = (await buy("usr_a", "A", 40 * SHARE)) as RouteExecution;
    const later = [(await buy("usr_b", "B", 10 * SHARE))!.tradeId, (await buy("usr_b", "A", 5 * SHARE))!.tradeId];
    expect((await broker.call<VerifyReport>("ledger.verify")).problems).toEqual([]);
    await broker.stop();

    // The first trade rewritten at half its price, everything it moved with it: its postings and
    // record, the trader's and the pool's cash, the trader's cost, the trade row; every hash again.
    const off = Math.floor(cheap.totalCost / 2);
    const pool = eventPoolAccount("evt_cheap");
    const db = new Database(join(dir, "money.db"));
    const row = db.prepare("SELECT seq, body FROM journal WHERE key = ?").get(`evamm:${cheap.tradeId}`) as { seq: number; body: string };
    const doc = JSON.parse(row.body) as LedgerEntryDoc;
    doc.postings = doc.postings.map((p) => {
      if (p.kind === "cash" && p.account === "usr_a") return { ...p, available: (p.available ?? 0) + off };
      if (p.kind === "cash" && p.account === pool) return { ...p, available: (p.available ?? 0) - off };
      if (p.kind === "shares" && p.account === "usr_a") return { ...p, cost: (p.cost ?? 0) - off };
      return p;
    });
    doc.eventPool = { ...doc.eventPool!, cash: doc.eventPool!.cash - off };
    doc.trades = doc.trades!.map((t) => ({ ...t, totalCost: t.totalCost - off }));
    doc.idem = undefined;
    db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(JSON.stringify(doc), row.seq);
    db.prepare("UPDATE cash SET available = available + ? WHERE account = 'usr_a'").run(off);
    db.prepare("UPDATE cash SET available = available - ? WHERE account = ?").run(off, pool);
    db.prepare("UPDATE positions SET total_cost = total_cost - ? WHERE account = 'usr_a' AND market_id = 'A'").run(off);
    db.prepare("UPDATE trades SET total_cost = total_cost - ? WHERE trade_id = ?").run(off, cheap.tradeId);
    let prev = GENESIS_HASH;
    for (const r of db.prepare("SELECT seq, body FROM journal ORDER BY seq").all() as Array<{ seq: number; body: string }>) {
      prev = chainHash(prev, r.body);
      db.prepare("UPDATE journal SET hash = ? WHERE seq = ?").run(prev, r.seq);
    }
    const last = db.prepare("SELECT MAX(seq) AS seq FROM journal").get() as { seq: number };
    db.prepare("UPDATE meta SET v = ? WHERE k = 'head_hash'").run(prev);
    db.close();
    writeFileSync(join(dir, "money.head"), JSON.stringify({ seq: last.seq, hash: prev }));

    // Conservation holds (the pool paid for the discount), so the start cannot tell...
    await start();
    expect(await broker.call<MoneyCheck>("ledger.conservation")).toMatchObject({ ok: true });
    // ...the LMSR on the pool's books before the entry can. The pool it left short could not have
    // taken the trades after it either (funded to its bound, it owes more than it holds).
    const verify = await broker.call<VerifyReport>("ledger.verify");
    expect(verify.ok).toBe(false);
    expect(verify.problems).toEqual([
      `entry ${row.seq} (evamm:${cheap.tradeId}) prices its pool leg at ${cheap.totalCost - off} (fee ${cheap.fee}); ` +
        `the LMSR on ${pool}'s books before it prices it at ${cheap.totalCost} (fee ${cheap.fee})`,
      ...later.map(
        (id, i) =>
          `entry ${row.seq + 1 + i} (evamm:${id}) trades against ${pool}, which could not take it on its books before the entry (NO_LIQUIDITY)`,
      ),
    ]);
  });
});
