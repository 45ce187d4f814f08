/**
 * Start-up time of the money store at scale: a store of `--orders` orders and about twice as many
 * journal entries is built through the real ledger and market actors (no HTTP), then opened again
 * as a start opens it: load the books, verify the whole hash chain, run the money check. The
 * baseline beside it is the same start on an empty store.
 *
 *   npm run bench:build && node dist-bench/bench/startup.js --orders=1000000
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../ledger/ledger";
import { SqliteMoneyStore } from "../ledger/sqlite-store";
import { verifyChain } from "../ledger/verify";
import { MarketActor, type MarketPorts } from "../trading/market-actor";

const arg = (name: string, def: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? def);
const ORDERS = arg("orders", 1_000_000);
const MARKETS = arg("markets", 100);
const USERS = arg("users", 10_000);
const SHARE = 1_000_000;

async function build(dir: string): Promise<{ entries: number; ms: number }> {
  const t0 = Date.now();
  const store = SqliteMoneyStore.open(dir, { fsync: false });
  const ledger = await Ledger.open(store);
  for (let u = 0; u < USERS; u++)
    ledger.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: `usr_${u}`, available: 1_000_000 * SHARE },
        { kind: "external", flow: "deposit", amount: 1_000_000 * SHARE },
      ],
    });
  let ids = 0;
  const ports: MarketPorts = {
    fees: { takerBps: 200, makerBps: 0 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${(++ids).toString(36).padStart(10, "0")}`,
    nodeID: "bench",
    market: async () => ({ status: "open", ammLiquidity: 0 }),
    ledger: {
      acquire: async (m) => {
        const r = ledger.acquire(m, "bench");
        await ledger.waitDurable(r.seq);
        return { ...r.lease, instance: ledger.instance };
      },
      restingOrders: (m, after, limit) => store.restingOrders(m, after, limit),
      lease: async (m) => ledger.lease(m),
      post: async (e) => ledger.post(e),
      durable: (seq, instance) => ledger.waitDurable(seq, instance),
    },
    publish: () => undefined,
  };
  const actors: MarketActor[] = [];
  for (let m = 0; m < MARKETS; m++) actors.push(await MarketActor.load(`mkt_${m}`, ports));
  const inflight: Array<Promise<unknown>> = [];
  const resting: Array<{ actor: MarketActor; orderId: string; userId: string }> = [];
  for (let i = 0; i < ORDERS; i++) {
    const actor = actors[i % MARKETS];
    const userId = `usr_${i % USERS}`;
    // Prices spread so about half the orders cross a resting one and the rest rest.
    const p = actor
      .place({ userId, side: "BUY", outcome: i % 2 ? "YES" : "NO", orderType: "GTC", price: 30 + (i % 41), quantity: 100 * (1 + (i % 7)) })
      .then((r) => {
        if (r.remainingQuantity > 0) resting.push({ actor, orderId: r.orderId, userId });
      });
    inflight.push(p);
    if (inflight.length >= 256) await inflight.shift();
    // Cancels of resting orders bring the journal to about two entries per order.
    if (resting.length > 1000) {
      const o = resting.splice(Math.floor(Math.random() * resting.length), 1)[0];
      inflight.push(o.actor.cancel(o.orderId, o.userId).catch(() => undefined));
    }
    if (i && i % 100_000 === 0) process.stderr.write(`  built ${i} orders, ${ledger.lastSeq} entries\n`);
  }
  await Promise.all(inflight);
  await ledger.idle();
  const entries = ledger.lastSeq;
  await store.close();
  return { entries, ms: Date.now() - t0 };
}

/** A start as services/ledger.service.ts does it: load, verify the chain, the money check. */
async function start(dir: string): Promise<{ loadMs: number; chainMs: number; checkMs: number; total: number }> {
  const t0 = Date.now();
  const store = SqliteMoneyStore.open(dir, { fsync: true });
  const ledger = await Ledger.open(store);
  const t1 = Date.now();
  const chain = await verifyChain(store);
  if (!chain.ok) throw new Error(chain.problems.join("; "));
  const t2 = Date.now();
  const check = await ledger.check();
  if (!check.ok) throw new Error(`money check: ${JSON.stringify(check).slice(0, 300)}`);
  const t3 = Date.now();
  await store.close();
  return { loadMs: t1 - t0, chainMs: t2 - t1, checkMs: t3 - t2, total: t3 - t0 };
}

async function main(): Promise<void> {
  const empty = mkdtempSync(join(tmpdir(), "pmx-start-empty-"));
  const big = mkdtempSync(join(tmpdir(), "pmx-start-big-"));
  try {
    // The baseline: a store that exists and holds nothing.
    const e = SqliteMoneyStore.open(empty, { fsync: false });
    await (await Ledger.open(e)).idle();
    await e.close();
    console.log(
      `# building a store of ${ORDERS} orders over ${MARKETS} markets and ${USERS} users through the ledger and market actors...`,
    );
    const built = await build(big);
    const size = statSync(join(big, "money.db")).size;
    console.log(`# built in ${(built.ms / 1000).toFixed(0)} s: ${built.entries} journal entries, ${(size / 2 ** 20).toFixed(0)} MiB`);
    const base = await start(empty);
    const rounds = [];
    for (let r = 0; r < 3; r++) rounds.push(await start(big));
    const best = rounds.sort((a, b) => a.total - b.total)[0];
    console.log(`start, empty store (baseline)      ${base.total} ms`);
    console.log(
      `start, ${ORDERS} orders / ${built.entries} entries   ${best.total} ms (load ${best.loadMs} ms, hash chain ${best.chainMs} ms, money check ${best.checkMs} ms); best of 3, the others ${rounds
        .slice(1)
        .map((r) => r.total)
        .join(", ")} ms`,
    );
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(big, { recursive: true, force: true });
  }
}

void main();
