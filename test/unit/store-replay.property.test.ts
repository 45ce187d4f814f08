import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import type { Outcome, Side } from "../../engine/types";
import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { verifyAll } from "../../ledger/verify";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";

/**
 * The SQLite store writes balances, positions, markets and totals behind the journal. Whatever
 * point the files are taken at (a SIGKILL: the journal committed, what follows it written up to
 * some entry), a start from them has exactly the books the ledger had: the stored rows with the
 * entries after their mark replayed, every acknowledged entry counted once.
 */
const MARKETS = ["mkt_a", "mkt_b"];
const USERS = ["usr_0", "usr_1", "usr_2"];
const SHARE = 1_000_000;

type Cmd =
  | { kind: "deposit"; user: number; amount: number }
  | { kind: "withdraw"; user: number; amount: number }
  | { kind: "place"; market: number; user: number; side: Side; outcome: Outcome; price: number; qty: number };

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("deposit" as const), user: fc.nat(2), amount: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), user: fc.nat(2), amount: fc.integer({ min: 1, max: 5 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      market: fc.nat(1),
      user: fc.nat(2),
      side: fc.constantFrom<Side>("BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      price: fc.integer({ min: 45, max: 55 }),
      qty: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

async function open(dir: string, entries: number) {
  const store = SqliteMoneyStore.open(dir, { fsync: false, writerThread: false, projection: { ms: 1e9, entries } });
  const ledger = await Ledger.open(store);
  let ids = 0;
  const ports = marketPortsOnLedger(ledger, store, {
    fees: { takerBps: 100, makerBps: 0 },
    newId: (p) => `${p}_${String(++ids).padStart(6, "0")}_${dir.slice(-6)}`,
  });
  const actors = await Promise.all(MARKETS.map((m) => MarketActor.load(m, ports)));
  return { store, ledger, actors };
}

/** The books as the ledger holds them, in a fixed order. */
function books(ledger: Ledger) {
  const s = ledger.snapshotAccounts();
  const byKey = <T>(xs: Array<[string, T]>) => [...xs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    cash: byKey(s.cash.map(([a, c]): [string, unknown] => [a, { available: c.available, locked: c.locked }])),
    positions: [...s.positions].sort((a, b) =>
      `${a.account}|${a.marketId}|${a.outcome}` < `${b.account}|${b.marketId}|${b.outcome}` ? -1 : 1,
    ),
    collateral: byKey(s.collateral.filter(([, v]) => v !== 0)),
    fees: s.fees,
    external: s.external,
    leases: MARKETS.map((m) => {
      const l = ledger.lease(m);
      return [l.seq, l.bookSeq, l.pool];
    }),
  };
}

test("a start from the files at any point has the books the ledger had", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 8 }), async (cmds, entries) => {
      const dir = mkdtempSync(join(tmpdir(), "pmx-replay-"));
      const copy = mkdtempSync(join(tmpdir(), "pmx-replay-copy-"));
      try {
        const m = await open(dir, entries);
        for (const c of cmds) {
          if (c.kind === "deposit" || c.kind === "withdraw") {
            const amount = (c.kind === "deposit" ? 1 : -1) * c.amount * SHARE;
            if (c.kind === "withdraw" && m.ledger.balance(USERS[c.user]).available < -amount) continue;
            m.ledger.post({
              key: `${c.kind}:${m.ledger.lastSeq}`,
              postings: [
                { kind: "cash", account: USERS[c.user], available: amount },
                { kind: "external", flow: c.kind === "deposit" ? "deposit" : "withdrawal", amount: Math.abs(amount) },
              ],
            });
            continue;
          }
          await m.actors[c.market]
            .place({ userId: USERS[c.user], side: c.side, outcome: c.outcome, orderType: "GTC", price: c.price, quantity: c.qty * SHARE })
            .catch(() => undefined);
        }
        await m.ledger.idle();
        const before = books(m.ledger);
        // The files as a SIGKILL leaves them: what follows the journal written up to wherever the policy left it.
        for (const f of ["money.db", "money.db-wal", "money.head"]) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
        await m.store.close();

        const store = SqliteMoneyStore.open(copy, { fsync: false, writerThread: false, projection: null });
        const ledger = await Ledger.open(store);
        expect(books(ledger)).toEqual(before);
        const report = await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
        expect(report.problems).toEqual([]);
        expect((await ledger.check()).ok).toBe(true);
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(copy, { recursive: true, force: true });
      }
    }),
    { numRuns: 40 },
  );
}, 120_000);
