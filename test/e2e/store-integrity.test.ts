/**
 * One process owns a data dir, and a store damaged while the exchange is stopped stops the next
 * start with a message naming what was found: real server processes on a real data dir.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { embeddedEnv, NodeProcess } from "../support/node-process";
import { TestWallet } from "../support/wallet";

jest.setTimeout(120_000);

const DOMAIN = "integrity.exchange.test";
const ADMIN_KEY = "integrity-admin";
const SHARE = 1_000_000;

describe("the data dir and its money store", () => {
  let dir: string;
  let env: Record<string, string>;
  let node: NodeProcess | null = null;
  const copies: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-integrity-"));
    env = embeddedEnv(dir, DOMAIN, ADMIN_KEY, {
      TAKER_FEE_BPS: "200",
      SETTLEMENT_INTERVAL_MS: "200",
      SETTLEMENT_MIN_AGE_MS: "0",
    });
    node = await NodeProcess.start(env);
    const created = await node.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Integrity", category: "Tech", markets: [{ title: "Integrity?" }] },
    });
    const market = created.body.data.markets[0].id as string;
    const users = [];
    for (let i = 0; i < 2; i++) {
      const login = await node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: DOMAIN }) });
      users.push(login.body.data);
      await node.ctl({ cmd: "fund", userId: login.body.data.userId, amount: 1000 * SHARE });
    }
    // Resting orders, fills (trades) and a cancel: every table has rows.
    for (let i = 0; i < 6; i++) {
      const r = await node.http("POST", "/api/v1/orders", {
        token: users[i % 2].accessToken,
        body: { marketId: market, side: "BUY", outcome: i % 2 ? "NO" : "YES", orderType: "GTC", price: 0.5, quantity: (i + 1) * SHARE },
      });
      expect(r.status).toBe(200);
    }
    for (const price of [0.2, 0.21]) {
      const r = await node.http("POST", "/api/v1/orders", {
        token: users[0].accessToken,
        body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price, quantity: 3 * SHARE },
      });
      expect(r.body.data.status).toBe("open");
    }
    const open = await node.http("GET", "/api/v1/orders", { token: users[0].accessToken });
    expect(open.body.data.length).toBeGreaterThan(0);
    const del = await node.http("DELETE", `/api/v1/orders/${open.body.data[0].orderId}`, { token: users[0].accessToken });
    expect(del.status).toBe(200);
  });

  afterAll(async () => {
    await node?.stop("SIGKILL").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    for (const c of copies) rmSync(c, { recursive: true, force: true });
  });

  test("a second process on the same data dir refuses to start, names the dir and the holder; the first keeps serving, nothing changes", async () => {
    // The trades' settlement batches journal their outcome: wait until the journal is quiet (2.5 s without an entry).
    let before = await node!.ctl<{ head: { seq: number; hash: string } }>({ cmd: "call", action: "ledger.verify" });
    for (let quietSince = Date.now(); Date.now() - quietSince < 2_500;) {
      await new Promise((r) => setTimeout(r, 250));
      const now = await node!.ctl<{ head: { seq: number; hash: string } }>({ cmd: "call", action: "ledger.verify" });
      if (now.head.seq !== before.head.seq) [before, quietSince] = [now, Date.now()];
    }
    const second = NodeProcess.start({ ...env }, { name: "second" });
    const err = (await second.then(() => null).catch((e: Error) => e)) as Error;
    expect(err).not.toBeNull();
    expect(err.message).toContain(`DATA_DIR ${dir} is in use by process ${node!.pid}`);
    expect((await node!.http("GET", "/health")).status).toBe(200);
    const after = await node!.ctl<{ ok: boolean; head: { seq: number; hash: string } }>({ cmd: "call", action: "ledger.verify" });
    expect(after.ok).toBe(true);
    expect(after.head).toEqual(before.head);
  });

  /** A copy of the stopped data dir with one thing damaged, and the start it gets. */
  async function startDamaged(damage: (db: Database.Database, dir: string) => void): Promise<string> {
    const copy = mkdtempSync(join(tmpdir(), "pmx-damaged-"));
    copies.push(copy);
    cpSync(dir, copy, { recursive: true });
    rmSync(join(copy, "pmx.sock"), { force: true });
    const db = new Database(join(copy, "money.db"));
    damage(db, copy);
    db.close();
    const err = (await NodeProcess.start({ ...env, DATA_DIR: copy }, { name: "damaged" })
      .then(async (n) => {
        await n.stop("SIGKILL");
        return null;
      })
      .catch((e: Error) => e)) as Error | null;
    expect(err).not.toBeNull();
    return err!.message;
  }

  test("damaged while stopped: the start refuses and names what it found", async () => {
    await node!.stop("SIGTERM");
    node = null;
    const head = (db: Database.Database) => (db.prepare("SELECT max(seq) AS n FROM journal").get() as { n: number }).n;

    // The tail cut: acknowledged entries gone.
    let n = 0;
    expect(
      await startDamaged((db) => {
        n = head(db);
        db.prepare("DELETE FROM journal WHERE seq > ?").run(n - 2);
      }),
    ).toMatch(new RegExp(`journal .* ends at entry ${n - 2}, but entries up to ${n} were committed`));
    // ...also when the marks of what the balances and read models reflect are rewritten to match: the head file beside the store still knows.
    expect(
      await startDamaged((db) => {
        n = head(db);
        db.prepare("DELETE FROM journal WHERE seq > ?").run(n - 2);
        db.prepare("UPDATE meta SET v = ? WHERE k IN ('state_seq', 'projected_seq')").run(String(n - 2));
      }),
    ).toMatch(new RegExp(`ends at entry ${n - 2}, but entry ${n} was committed \\(money.head\\)`));
    // One digit changed in an old entry.
    expect(
      await startDamaged((db) => {
        const row = db.prepare("SELECT seq, body FROM journal WHERE body LIKE '%\"available\":1000000000%' ORDER BY seq LIMIT 1").get() as {
          seq: number;
          body: string;
        };
        db.prepare("UPDATE journal SET body = ? WHERE seq = ?").run(
          row.body.replace('"available":1000000000', '"available":1000000001'),
          row.seq,
        );
        n = row.seq;
      }),
    ).toMatch(new RegExp(`ledger journal entry ${n} \\(.*\\) does not match its hash`));
    // A row of each read model removed.
    expect(
      await startDamaged((db) =>
        db.prepare("DELETE FROM orders WHERE order_id = (SELECT order_id FROM orders WHERE remaining > 0 LIMIT 1)").run(),
      ),
    ).toMatch(/orders read model .* holds \d+ orders, the journal made \d+/);
    expect(
      await startDamaged((db) => db.prepare("DELETE FROM trades WHERE trade_id = (SELECT trade_id FROM trades LIMIT 1)").run()),
    ).toMatch(/trades read model .* holds \d+ trades, the journal made \d+/);
    expect(
      await startDamaged((db) =>
        db
          .prepare(
            "DELETE FROM positions WHERE (account, market_id, outcome) IN (SELECT account, market_id, outcome FROM positions WHERE quantity > 0 LIMIT 1)",
          )
          .run(),
      ),
    ).toMatch(/does not add up: .*markets whose shares and collateral disagree/);
    // An open order changed behind the ledger's back: its lock no longer matches.
    expect(
      await startDamaged((db) =>
        db.prepare("UPDATE orders SET holds = holds + 1 WHERE order_id = (SELECT order_id FROM orders WHERE remaining > 0 LIMIT 1)").run(),
      ),
    ).toMatch(/account usr_\w+ has \d+ locked while its open orders hold \d+/);
    // Not a store at all.
    expect(await startDamaged((_db, copy) => writeFileSync(join(copy, "money.db"), "not a database"))).toMatch(/money store .* is damaged/);
  });

  test("an untouched copy starts; a data dir of the earlier format is refused, not misread", async () => {
    const copy = mkdtempSync(join(tmpdir(), "pmx-copy-"));
    copies.push(copy);
    cpSync(dir, copy, { recursive: true });
    const ok = await NodeProcess.start({ ...env, DATA_DIR: copy }, { name: "copy" });
    expect((await ok.ctl<{ ok: boolean }>({ cmd: "call", action: "ledger.verify" })).ok).toBe(true);
    await ok.stop("SIGTERM");

    const legacy = mkdtempSync(join(tmpdir(), "pmx-legacy-"));
    copies.push(legacy);
    writeFileSync(join(legacy, "ledger-journal.log"), '{"_id":"deposit:x","seq":1,"postings":[],"at":"2026-01-01T00:00:00.000Z"}\n');
    // Its keys given (the secrets check passes), the money store is what refuses.
    const err = (await NodeProcess.start(
      { ...env, DATA_DIR: legacy, MASTER_SECRET: randomBytes(32).toString("hex") },
      { name: "legacy" },
    ).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/holds a ledger in the earlier format \(ledger-journal.log and NeDB read models\).*does not migrate/);
  });
});
