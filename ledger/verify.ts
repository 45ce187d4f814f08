import { Accounts, isPostingRefusal, type AccountsSnapshot } from "../engine/accounts";
import type { LedgerEntryDoc, MarketLease, OrderDoc, TradeDoc, VerifyReport } from "../models/trading";
import { chainHash, GENESIS_HASH } from "./chain-hash";
import { conversionFees, entryRuleProblems, feesIn, tradeFees } from "./entry-rules";
import { applyOrderChange, projectEntry } from "./projection";
import { PoolLegReplay } from "./pool-legs";
import { noLease, replayLease } from "./replay";
import type { MoneyStore } from "./store";

const MAX_PROBLEMS = 50;

/**
 * The hash chain alone from `fromSeq` (start-up): every link from the entry before it, no hole, no
 * entry out of place. Cheap: hashes the stored bodies without decoding them.
 */
export async function verifyChain(store: MoneyStore, fromSeq = 1): Promise<VerifyReport> {
  const t0 = Date.now();
  const problems: string[] = [];
  let prev = GENESIS_HASH;
  let expect = fromSeq;
  let n = 0;
  let first = true;
  const from = Math.max(1, fromSeq - 1);
  await store.scanJournal(from, (row) => {
    if (problems.length >= MAX_PROBLEMS) return;
    if (first && fromSeq > 1) {
      first = false;
      prev = row.hash;
      return;
    }
    first = false;
    if (row.seq !== expect) problems.push(`ledger journal entry ${expect} is missing (found ${row.seq} after ${expect - 1})`);
    if (chainHash(prev, row.body) !== row.hash)
      problems.push(
        `ledger journal entry ${row.seq} (${row.key}) does not match its hash: its content was changed or the entry before it was`,
      );
    prev = row.hash;
    expect = row.seq + 1;
    n++;
  });
  return { ok: problems.length === 0, entries: n, head: { seq: expect - 1, hash: prev }, problems, ms: Date.now() - t0 };
}

function sortedSnapshot(s: AccountsSnapshot): string {
  return JSON.stringify({
    cash: [...s.cash].filter(([, c]) => c.available !== 0 || c.locked !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    positions: [...s.positions]
      .map((p) => ({ ...p }))
      .sort((a, b) => (`${a.account}|${a.marketId}|${a.outcome}` < `${b.account}|${b.marketId}|${b.outcome}` ? -1 : 1)),
    collateral: [...s.collateral].filter(([, v]) => v !== 0).sort(([a], [b]) => (a < b ? -1 : 1)),
    fees: s.fees,
    external: s.external,
  });
}

const ORDER_FIELDS: Array<keyof OrderDoc> = [
  "userId",
  "marketId",
  "side",
  "outcome",
  "orderType",
  "price",
  "quantity",
  "filledQuantity",
  "remaining",
  "cancelledQuantity",
  "holds",
  "status",
  "cancelReason",
  "prio",
];
const TRADE_FIELDS: Array<keyof TradeDoc> = [
  "userId",
  "marketId",
  "orderId",
  "side",
  "outcome",
  "venue",
  "role",
  "filledQuantity",
  "totalCost",
  "fee",
  "settlementStatus",
  "settlementTxHash",
];

/**
 * Everything, from the first entry: the chain; every entry applied again to empty books (it must
 * apply, under the lease and at the position it claims); every order's quantities and every lock;
 * then the books, the leases and every stored order and trade row compared with the replay.
 */
export async function verifyAll(store: MoneyStore, live: { accounts: AccountsSnapshot; leases: MarketLease[] }): Promise<VerifyReport> {
  const t0 = Date.now();
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const accounts = new Accounts();
  const leases = new Map<string, MarketLease>();
  const orders = new Map<string, OrderDoc>();
  const trades = new Map<string, TradeDoc>();
  let prev = GENESIS_HASH;
  let expect = 1;
  let feesPosted = 0;
  let feesCharged = 0;
  let feesOver = false;
  const takerFees = new Map<string, number>();
  const feesRebated = new Map<string, number>();
  const paidDays = new Set<string>();
  const poolLegs = new PoolLegReplay();
  await store.scanJournal(1, (row) => {
    if (row.seq !== expect) problem(`ledger journal entry ${expect} is missing (found ${row.seq} after ${expect - 1})`);
    if (chainHash(prev, row.body) !== row.hash) problem(`ledger journal entry ${row.seq} (${row.key}) does not match its hash`);
    prev = row.hash;
    expect = row.seq + 1;
    let doc: LedgerEntryDoc;
    try {
      doc = JSON.parse(row.body) as LedgerEntryDoc;
    } catch {
      problem(`ledger journal entry ${row.seq} is not readable`);
      return;
    }
    if (doc.seq !== row.seq || doc._id !== row.key) problem(`ledger journal entry ${row.seq} claims seq ${doc.seq} and key ${doc._id}`);
    if (doc.fence) {
      const f = doc.fence;
      const cur = leases.get(f.marketId) ?? noLease(f.marketId);
      if (f.epoch !== cur.epoch + 1) problem(`entry ${row.seq}: lease ${f.epoch} of market ${f.marketId} follows lease ${cur.epoch}`);
    }
    const b = doc.book;
    if (b) {
      const cur = leases.get(b.marketId) ?? noLease(b.marketId);
      if (b.epoch !== cur.epoch)
        problem(
          `entry ${row.seq}: market ${b.marketId} position ${b.seq} was written under lease ${b.epoch} (${b.node}) while lease ${cur.epoch} (${cur.owner}) held it`,
        );
      else if (cur.owner !== null && b.node !== cur.owner)
        problem(`entry ${row.seq}: market ${b.marketId} position ${b.seq} was written by ${b.node}, lease ${cur.epoch} is ${cur.owner}'s`);
      if (b.seq !== cur.seq + 1) problem(`entry ${row.seq}: market ${b.marketId} position ${b.seq} follows position ${cur.seq}`);
    }
    // The leases as the ledger moved them (the same replay a start catches the stored balances up with).
    replayLease(leases, doc);
    // The exchange's own money moves only by its rules (fees from trades, house funding into pools, payouts from collateral).
    const label = `entry ${row.seq} (${row.key})`;
    for (const p of entryRuleProblems({ ...doc, key: row.key }, accounts, { label, wholeCommand: false })) problem(p);
    // A pool leg is priced again on the pool's books replayed up to it.
    for (const p of poolLegs.check(doc, accounts, label)) problem(p);
    // Rebates rest on taker fees the market's trades charged before them, each fee counted for one
    // day's rebates only; a market's day is paid once.
    for (const t of doc.trades ?? []) if (t.role === "taker" && t.fee) takerFees.set(t.marketId, (takerFees.get(t.marketId) ?? 0) + t.fee);
    const r = doc.reward;
    if (r?.kind === "payout") {
      const k = `${r.marketId}|${r.day}`;
      if (paidDays.has(k)) problem(`${label}: market ${r.marketId} is paid its rewards for ${r.day} a second time`);
      paidDays.add(k);
      const left = (takerFees.get(r.marketId) ?? 0) - (feesRebated.get(r.marketId) ?? 0);
      if (r.takerFees > left)
        problem(
          `${label}: rebates for market ${r.marketId} on ${r.day} rest on ${r.takerFees} of taker fees, ${left} were charged and not yet rebated`,
        );
      feesRebated.set(r.marketId, (feesRebated.get(r.marketId) ?? 0) + r.takerFees);
    }
    feesPosted += feesIn(doc.postings);
    feesCharged += tradeFees(doc.trades) + conversionFees(doc.conversion);
    if (doc.book?.command.type !== "part" && feesPosted > feesCharged && !feesOver) {
      feesOver = true;
      problem(`${label}: the fee account took ${feesPosted} up to here, the trades and conversions before it charged ${feesCharged}`);
    }
    try {
      accounts.commit(accounts.prepare(doc.postings, doc.checkAfter ?? 0));
    } catch (err) {
      if (isPostingRefusal(err)) problem(`entry ${row.seq} (${row.key}) does not apply to the books before it: ${err.message}`);
      else throw err;
    }
    poolLegs.after(doc);
    for (const op of projectEntry(doc)) {
      if (op.op === "insertOrder") {
        if (orders.has(op.order._id)) problem(`entry ${row.seq}: order ${op.order._id} placed twice`);
        orders.set(op.order._id, { ...op.order });
      } else if (op.op === "changeOrder") {
        const o = orders.get(op.change.orderId);
        if (!o) continue;
        applyOrderChange(o, op.change, op.seq, op.at);
        if (o.filledQuantity > o.quantity || o.remaining < 0 || o.cancelledQuantity < 0) {
          problem(
            `entry ${row.seq}: order ${o._id} would hold filled ${o.filledQuantity} + open ${o.remaining} + cancelled ${o.cancelledQuantity} of quantity ${o.quantity}`,
          );
        }
      } else if (op.op === "insertTrade") {
        if (trades.has(op.trade._id)) problem(`entry ${row.seq}: trade ${op.trade._id} recorded twice`);
        trades.set(op.trade._id, { ...op.trade });
      } else {
        for (const id of op.tradeIds) {
          const t = trades.get(id);
          if (t) Object.assign(t, { settlementStatus: op.status, settlementTxHash: op.txHash });
        }
      }
    }
  });
  const entries = expect - 1;

  // Locks: every user's locked cash and shares are exactly what their open orders hold.
  const cashHeld = new Map<string, number>();
  const sharesHeld = new Map<string, number>();
  for (const o of orders.values()) {
    if (o.remaining <= 0) continue;
    if (o.side === "BUY") cashHeld.set(o.userId, (cashHeld.get(o.userId) ?? 0) + o.holds);
    else
      sharesHeld.set(`${o.userId}|${o.marketId}|${o.outcome}`, (sharesHeld.get(`${o.userId}|${o.marketId}|${o.outcome}`) ?? 0) + o.holds);
  }
  const replayed = accounts.snapshot();
  for (const [account, c] of replayed.cash) {
    if (account.startsWith("usr_") && c.locked !== (cashHeld.get(account) ?? 0))
      problem(`account ${account} has ${c.locked} locked, its open orders hold ${cashHeld.get(account) ?? 0}`);
  }
  for (const p of replayed.positions) {
    const held = sharesHeld.get(`${p.account}|${p.marketId}|${p.outcome}`) ?? 0;
    if (p.account.startsWith("usr_") && p.locked !== held)
      problem(`position ${p.account} ${p.marketId} ${p.outcome} has ${p.locked} shares locked, its open orders hold ${held}`);
  }
  const report = accounts.conservation();
  // Each event's conversion account: its cash advanced no further than its NO shares are guaranteed to pay back.
  for (const c of report.uncoveredConversions ?? [])
    problem(`${c.account} holds ${c.cash} of cash, ${c.cover} with the payout its NO shares are guaranteed: below zero`);
  if (!report.ok) problem(`conservation does not hold after replay: ${JSON.stringify(report)}`);

  // The live books and the stored rows are what the journal says.
  if (sortedSnapshot(replayed) !== sortedSnapshot(live.accounts)) problem("the balances and positions differ from a replay of the journal");
  for (const l of live.leases) {
    const r = leases.get(l.marketId);
    if ((r?.epoch ?? 0) !== l.epoch || (r?.seq ?? 0) !== l.seq)
      problem(
        `market ${l.marketId}: lease ${l.epoch} at position ${l.seq}, the journal says lease ${r?.epoch ?? 0} at position ${r?.seq ?? 0}`,
      );
  }
  let storedOrders = 0;
  await store.allOrders((o) => {
    storedOrders++;
    const r = orders.get(o._id);
    if (!r) return problem(`order ${o._id} is in the read model but not in the journal`);
    for (const f of ORDER_FIELDS)
      if (r[f] !== o[f]) return problem(`order ${o._id}: ${f} is ${String(o[f])} in the read model, ${String(r[f])} in the journal`);
  });
  if (storedOrders !== orders.size) problem(`the orders read model holds ${storedOrders} orders, the journal made ${orders.size}`);
  let storedTrades = 0;
  await store.allTrades((t) => {
    storedTrades++;
    const r = trades.get(t._id);
    if (!r) return problem(`trade ${t._id} is in the read model but not in the journal`);
    for (const f of TRADE_FIELDS)
      if (r[f] !== t[f]) return problem(`trade ${t._id}: ${f} is ${String(t[f])} in the read model, ${String(r[f])} in the journal`);
  });
  if (storedTrades !== trades.size) problem(`the trades read model holds ${storedTrades} trades, the journal made ${trades.size}`);
  return { ok: problems.length === 0, entries, head: { seq: entries, hash: prev }, problems, ms: Date.now() - t0 };
}
