/**
 * Crash safety of the money path with a real server process: stream orders and cancels over HTTP,
 * SIGKILL the node while requests are in flight, restart it on the same data dir, and check that
 * every acknowledged command survived exactly once and that the ledger, the read models and the
 * book agree with each other and with what the clients were told.
 */
import { execSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTick, LOT, priceToTick, restingBuyLock, type FeeSchedule } from "../../engine/money";
import type { ConservationReport } from "../../engine/accounts";
import { TestWallet } from "../support/wallet";
import { testMongoUri } from "../support/server";

import { NodeProcess, NODE_JS, ROOT } from "../support/node-process";
const APP_DOMAIN = "crash.exchange.test";
const ADMIN_KEY = "crash-admin-key";
const SHARE = 1_000_000;
const FEES: FeeSchedule = { takerBps: 200, makerBps: 50 };
const USERS = 6;
const FUNDS = 5_000 * SHARE;
const CONCURRENCY = 16;
/** Crash-and-recover rounds, each on the state the previous recovery left. */
const CYCLES = 3;
/** A cap on requests, should the kill come late. */
const MAX_REQUESTS = 2_000;

/** Small deterministic PRNG so a failure can be replayed with CRASH_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface User {
  i: number;
  token: string;
  userId: string;
}

interface PlaceBody {
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  orderType: "GTC" | "FOK";
  price: number;
  quantity: number;
}

/** Every request of the stream and what (if anything) came back. */
type Op =
  | { kind: "place"; user: number; body: PlaceBody; status?: number; res?: any; lost?: boolean }
  | { kind: "cancel"; user: number; orderId: string; owner: number; status?: number; res?: any; lost?: boolean };

const n = (s: string) => Number(s);

/** Aggregated top-10 depth of one view, as GET /markets/:id/orderbook renders it. */
function expectedDepth(open: Array<{ side: string; outcome: string; tick: number; remaining: number }>, view: "YES" | "NO") {
  const bids = new Map<number, { q: number; c: number }>();
  const asks = new Map<number, { q: number; c: number }>();
  for (const o of open) {
    // In the YES view a BUY YES and a SELL NO are bids; mirrored for the NO view.
    const yesTick = o.outcome === "YES" ? o.tick : 100 - o.tick;
    const yesBid = (o.side === "BUY") === (o.outcome === "YES");
    const isBid = view === "YES" ? yesBid : !yesBid;
    const t = view === "YES" ? yesTick : 100 - yesTick;
    const m = isBid ? bids : asks;
    const l = m.get(t) ?? { q: 0, c: 0 };
    l.q += o.remaining;
    l.c++;
    m.set(t, l);
  }
  const fmt = (m: Map<number, { q: number; c: number }>, dir: 1 | -1) =>
    [...m.entries()]
      .sort((a, b) => dir * (a[0] - b[0]))
      .slice(0, 10)
      .map(([t, l]) => ({ price: formatTick(t), quantity: String(l.q), numOrders: l.c }));
  return { bids: fmt(bids, -1), asks: fmt(asks, 1) };
}

describe("SIGKILL in the middle of an order stream", () => {
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000_007);
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

  let dataDir: string;
  let env: Record<string, string>;
  let node: NodeProcess | null = null;
  const users: User[] = [];
  const markets: string[] = [];
  const ops: Op[] = [];

  beforeAll(() => {
    if (!existsSync(NODE_JS)) {
      try {
        execSync("npx tsc -p tsconfig.build.json", { cwd: ROOT, stdio: "inherit", timeout: 180_000 });
      } catch {
        // tsc still emits on type errors elsewhere in the tree; only a missing file is fatal.
      }
      if (!existsSync(NODE_JS)) throw new Error(`${NODE_JS} could not be built`);
    }
    dataDir = mkdtempSync(join(tmpdir(), "pmx-crash-"));
    const mongo = testMongoUri();
    env = {
      PATH: process.env.PATH ?? "",
      ...(mongo ? { MONGO_URI: mongo } : {}),
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      APP_DOMAIN,
      ADMIN_KEY,
      JWT_SECRET: randomBytes(32).toString("hex"),
      LOG_LEVEL: "false",
      SEED_DEMO: "false",
      RATE_LIMIT_READ: "1000000",
      RATE_LIMIT_TRADE: "1000000",
      TAKER_FEE_BPS: String(FEES.takerBps),
      MAKER_FEE_BPS: String(FEES.makerBps),
    };
  }, 200_000);

  afterAll(async () => {
    await node?.stop("SIGKILL");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Everything the API says about every user, plus the ledger's own conservation report. `cold` reads
   * only what needs no market actor (orders, trades, balance); otherwise every book is loaded first,
   * which is when a market replays what the crash left unfinished.
   */
  async function observe(nd: NodeProcess, cold = false) {
    if (!cold) for (const m of markets) expect((await nd.http("GET", `/api/v1/markets/${m}/orderbook`)).status).toBe(200);
    const perUser = await Promise.all(
      users.map(async (u) => {
        const trades: any[] = [];
        for (let page = 1; ; page++) {
          const r = await nd.http("GET", `/api/v1/trades?page=${page}&pageSize=100`, { token: u.token });
          expect(r.status).toBe(200);
          // On-chain settlement progresses on its own timer; it is not part of what a crash may change.
          trades.push(...r.body.data.map(({ settlementStatus: _s, settlementTxHash: _h, ...t }: any) => t));
          if (!r.body.pagination.hasNext) break;
        }
        const paths = ["/api/v1/orders", "/api/v1/balance", ...(cold ? [] : ["/api/v1/positions"])];
        const [orders, balance, positions] = await Promise.all(paths.map((p) => nd.http("GET", p, { token: u.token })));
        for (const r of [orders, balance, positions]) if (r) expect(r.status).toBe(200);
        // The ledger's raw account over IPC, to hold the HTTP views against.
        const raw = await nd.ctl<{ balance: { available: number; locked: number } }>({
          cmd: "call",
          action: "ledger.account",
          params: { account: u.userId },
        });
        return {
          user: u,
          trades,
          open: orders.body.data as any[],
          balance: balance.body.data,
          raw,
          positions: (positions?.body.data ?? null) as any[] | null,
        };
      }),
    );
    const books = cold
      ? null
      : await Promise.all(
          markets.map(async (m) => ({
            yes: (await nd.http("GET", `/api/v1/markets/${m}/orderbook?outcome=YES`)).body.data,
            no: (await nd.http("GET", `/api/v1/markets/${m}/orderbook?outcome=NO`)).body.data,
          })),
        );
    const conservation = await nd.ctl<ConservationReport>({ cmd: "conservation" });
    return { perUser, books, conservation };
  }

  /** Every cross-check between acknowledgements, trades, open orders, balances, positions and books. */
  function verify(state: Awaited<ReturnType<typeof observe>>, funded: number[]) {
    const { perUser, books, conservation } = state;
    const cold = books === null;
    const problems: string[] = [];
    /** Read models and locks of markets not yet reloaded may lag behind the ledger: counted, not failed, when cold. */
    const lag: string[] = [];
    const check = (ok: boolean, msg: string, lagsWhenCold = false) => {
      if (!ok) (cold && lagsWhenCold ? lag : problems).push(msg);
    };

    const allTrades = perUser.flatMap((p) => p.trades.map((t) => ({ ...t, user: p.user.i })));
    const tradeIds = allTrades.map((t) => t.id);
    check(new Set(tradeIds).size === tradeIds.length, "duplicate trade ids");
    // Each fill is one maker trade and part of one taker trade: both sides add up in every market.
    const sides = new Map<string, { maker: number; taker: number }>();
    for (const t of allTrades) {
      const x = sides.get(t.marketId) ?? { maker: 0, taker: 0 };
      x[t.role as "maker" | "taker"] += n(t.filledQuantity);
      sides.set(t.marketId, x);
    }
    for (const [m, x] of sides) check(x.maker === x.taker, `market ${m}: maker trades fill ${x.maker}, taker trades ${x.taker}`);
    const openAll = perUser.flatMap((p) => p.open.map((o) => ({ ...o, user: p.user.i })));

    const filledBy = new Map<string, number>();
    const takerOf = new Map<string, any[]>();
    for (const t of allTrades) {
      filledBy.set(t.orderId, (filledBy.get(t.orderId) ?? 0) + n(t.filledQuantity));
      if (t.role === "taker") takerOf.set(t.orderId, [...(takerOf.get(t.orderId) ?? []), t]);
    }
    const openById = new Map(openAll.map((o) => [o.orderId, o]));

    const acked = ops.filter((o): o is Extract<Op, { kind: "place" }> => o.kind === "place" && o.status === 200);
    const ackedIds = new Set(acked.map((o) => o.res.orderId as string));
    for (const o of acked) {
      const r = o.res;
      const id = r.orderId as string;
      const q = o.body.quantity;
      const filled = filledBy.get(id) ?? 0;
      const takers = takerOf.get(id) ?? [];
      const open = openById.get(id);
      if (r.tradeId) {
        check(takers.length === 1 && takers[0].id === r.tradeId, `order ${id}: acknowledged taker trade ${r.tradeId} missing or doubled`);
        const t = takers[0];
        if (t)
          check(
            t.filledQuantity === r.filledQuantity && t.totalCost === r.totalCost && t.fee === r.fee && t.user === o.user,
            `order ${id}: taker trade differs from the acknowledgement`,
          );
      } else check(takers.length === 0, `order ${id}: taker trade without an acknowledged fill`);
      // Later fills only as a maker; never beyond the order's quantity.
      check(filled >= n(r.filledQuantity) && filled <= q, `order ${id}: filled ${filled}, acknowledged ${r.filledQuantity} of ${q}`);
      if (r.status === "filled")
        check(filled === q && !open, `order ${id}: acknowledged filled, now filled ${filled}${open ? " and open" : ""}`);
      if (open) {
        check(open.user === o.user, `order ${id} listed for another user`);
        check(
          n(open.filledQuantity) === filled && n(open.remainingQuantity) === q - filled && n(open.quantity) === q,
          `order ${id}: open order says filled ${open.filledQuantity} remaining ${open.remainingQuantity}, trades say ${filled} of ${q}`,
          true,
        );
        check(o.body.orderType === "GTC", `FOK order ${id} is resting`);
      }
    }
    for (const c of ops) {
      if (c.kind !== "cancel" || c.status !== 200) continue;
      check(c.owner === c.user, `user ${c.user} cancelled order ${c.orderId} of user ${c.owner}`);
      const place = acked.find((p) => p.res.orderId === c.orderId);
      check(!openById.has(c.orderId), `cancelled order ${c.orderId} is still open`);
      if (place) {
        const filled = filledBy.get(c.orderId) ?? 0;
        check(
          filled + n(c.res.cancelledQuantity) === place.body.quantity,
          `cancelled order ${c.orderId}: filled ${filled} + cancelled ${c.res.cancelledQuantity} != ${place.body.quantity}`,
        );
        if (place.body.side === "BUY")
          check(
            n(c.res.releasedAmount) === restingBuyLock(n(c.res.cancelledQuantity), priceToTick(place.body.price) as number, FEES),
            `cancel of ${c.orderId} released ${c.res.releasedAmount}`,
          );
      }
    }
    // Orders nobody was told about may only come from requests whose response was lost in the crash.
    const lost = ops.filter((o): o is Extract<Op, { kind: "place" }> => o.kind === "place" && !!o.lost);
    const unknown = new Map<string, { user: number; side: string; outcome: string; price?: string; quantity?: string }>();
    for (const t of allTrades) if (!ackedIds.has(t.orderId)) unknown.set(t.orderId, { user: t.user, side: t.side, outcome: t.outcome });
    for (const o of openAll)
      if (!ackedIds.has(o.orderId))
        unknown.set(o.orderId, { user: o.user, side: o.side, outcome: o.outcome, price: o.price, quantity: o.quantity });
    // Each unknown order must come from a distinct lost request: a bipartite matching (augmenting
    // paths), since a greedy pass can give a request to the wrong one of two similar orders.
    const ids = [...unknown.keys()];
    const fits = (id: string, l: (typeof lost)[number]) => {
      const u = unknown.get(id) as { user: number; side: string; outcome: string; price?: string; quantity?: string };
      return (
        l.user === u.user &&
        l.body.side === u.side &&
        l.body.outcome === u.outcome &&
        (u.price === undefined || formatTick(priceToTick(l.body.price) as number) === u.price) &&
        (u.quantity === undefined || String(l.body.quantity) === u.quantity) &&
        (filledBy.get(id) ?? 0) <= l.body.quantity
      );
    };
    const owner = new Array<number>(lost.length).fill(-1);
    const assign = (i: number, seen: boolean[]): boolean => {
      for (let j = 0; j < lost.length; j++) {
        if (seen[j] || !fits(ids[i], lost[j])) continue;
        seen[j] = true;
        if (owner[j] < 0 || assign(owner[j], seen)) {
          owner[j] = i;
          return true;
        }
      }
      return false;
    };
    ids.forEach((id, i) =>
      check(
        assign(i, new Array<boolean>(lost.length).fill(false)),
        `order ${id} of user ${unknown.get(id)?.user} matches no request in flight at the crash`,
      ),
    );

    let totalCash = 0;
    const outstanding = new Map<string, { YES: number; NO: number }>();
    for (const p of perUser) {
      const u = p.user.i;
      // Cash from first principles: deposits minus what the trades say was paid, plus what they say was received.
      let cash = funded[u];
      const pos = new Map<string, number>();
      for (const t of p.trades) {
        const q = n(t.filledQuantity);
        cash += t.side === "BUY" ? -(n(t.totalCost) + n(t.fee)) : n(t.totalCost) - n(t.fee);
        const k = `${t.marketId}:${t.outcome}`;
        pos.set(k, (pos.get(k) ?? 0) + (t.side === "BUY" ? q : -q));
      }
      const b = p.balance;
      check(
        n(b.total) === cash && n(b.available) + n(b.locked) === n(b.total),
        `user ${u}: balance ${JSON.stringify(b)}, trades imply total ${cash}`,
      );
      check(
        p.raw.balance.available === n(b.available) && p.raw.balance.locked === n(b.locked),
        `user ${u}: GET /balance differs from the ledger's account`,
      );
      totalCash += n(b.total);
      const wantLocked = p.open
        .filter((o) => o.side === "BUY")
        .reduce((a, o) => a + restingBuyLock(n(o.remainingQuantity), priceToTick(n(o.price)) as number, FEES), 0);
      check(n(b.locked) === wantLocked, `user ${u}: locked ${b.locked}, open BUY orders need ${wantLocked}`, true);
      const listed = new Map((p.positions ?? []).map((x) => [`${x.marketId}:${x.outcome}`, x]));
      for (const [k, q] of pos) {
        check(q >= 0, `user ${u}: negative position ${k}`);
        const [m, outcome] = k.split(":");
        const o = outstanding.get(m) ?? { YES: 0, NO: 0 };
        o[outcome as "YES" | "NO"] += q;
        outstanding.set(m, o);
        const x = listed.get(k);
        if (cold) continue;
        if (q === 0) {
          check(!x, `user ${u}: empty position ${k} listed`);
          continue;
        }
        check(!!x && n(x.quantity) === q, `user ${u}: position ${k} is ${x?.quantity}, trades imply ${q}`);
        const selling = p.open
          .filter((o) => o.side === "SELL" && `${o.marketId}:${o.outcome}` === k)
          .reduce((a, o) => a + n(o.remainingQuantity), 0);
        check(!!x && n(x.lockedQuantity) === selling, `user ${u}: ${k} locked ${x?.lockedQuantity}, open SELLs need ${selling}`);
      }
      for (const k of listed.keys()) check(pos.has(k), `user ${u}: position ${k} without trades`);
    }

    check(conservation.ok, `conservation: ${JSON.stringify(conservation)}`);
    check(conservation.deposits === funded.reduce((a, b) => a + b, 0), "deposits differ from what was funded");
    check(conservation.cash === totalCash, `ledger cash ${conservation.cash}, users hold ${totalCash}`);
    let pairs = 0;
    for (const [m, o] of outstanding) {
      check(o.YES === o.NO, `market ${m}: YES ${o.YES} != NO ${o.NO}`);
      pairs += o.YES;
    }
    check(conservation.collateral === pairs, `collateral ${conservation.collateral}, pairs outstanding ${pairs}`);

    if (books)
      markets.forEach((m, i) => {
        const open = openAll
          .filter((o) => o.marketId === m)
          .map((o) => ({ side: o.side, outcome: o.outcome, tick: priceToTick(n(o.price)) as number, remaining: n(o.remainingQuantity) }));
        check(
          JSON.stringify(books[i].yes) === JSON.stringify(expectedDepth(open, "YES")),
          `market ${m}: YES book ${JSON.stringify(books[i].yes)} != open orders ${JSON.stringify(expectedDepth(open, "YES"))}`,
        );
        check(JSON.stringify(books[i].no) === JSON.stringify(expectedDepth(open, "NO")), `market ${m}: NO book differs from open orders`);
      });
    return { problems, lag, trades: allTrades.length, open: openAll.length, unknown: unknown.size };
  }

  /** The request mix: GTC and FOK orders of all four kinds, cancels of own open orders, a few of others'. */
  function nextOp(): Op {
    const u = int(0, USERS - 1);
    const targeted = new Set(ops.flatMap((o) => (o.kind === "cancel" ? [o.orderId] : [])));
    const mine = ops.filter(
      (o): o is Extract<Op, { kind: "place" }> =>
        o.kind === "place" &&
        o.user === u &&
        o.status === 200 &&
        o.res.status !== "filled" &&
        o.body.orderType === "GTC" &&
        !targeted.has(o.res.orderId),
    );
    if (mine.length && rnd() < 0.22) return { kind: "cancel", user: u, orderId: pick(mine).res.orderId, owner: u };
    if (rnd() < 0.03) {
      const theirs = ops.filter((o): o is Extract<Op, { kind: "place" }> => o.kind === "place" && o.user !== u && o.status === 200);
      if (theirs.length) {
        const t = pick(theirs);
        return { kind: "cancel", user: u, orderId: t.res.orderId, owner: t.user };
      }
    }
    const side = rnd() < 0.62 ? "BUY" : "SELL";
    // Prices around 50 in both outcomes: transfers, mints and merges, and a book that keeps some depth.
    // One market gets most of the flow, so its book snapshots before the first kill.
    const tick = side === "BUY" ? int(42, 56) : int(44, 58);
    const quantity = rnd() < 0.15 ? int(1, 50) * LOT : int(1, 12) * SHARE + int(0, 99) * LOT * 100;
    return {
      kind: "place",
      user: u,
      body: {
        marketId: rnd() < 0.75 ? markets[0] : markets[1],
        side,
        outcome: rnd() < 0.5 ? "YES" : "NO",
        orderType: rnd() < 0.2 ? "FOK" : "GTC",
        price: tick / 100,
        quantity,
      },
    };
  }

  /** Streams requests from concurrent clients and SIGKILLs the node a few ms after the `killAfter`-th acknowledgement. */
  async function streamAndKill(nd: NodeProcess, killAfter: number) {
    let acks = 0;
    let sent = 0;
    let killed = false;
    let killTimer: NodeJS.Timeout | null = null;
    let inFlight = 0;
    const at = { acks: 0, inFlight: 0 };
    const kill = () => {
      killed = true;
      at.acks = acks;
      at.inFlight = inFlight;
      nd.child.kill("SIGKILL");
    };
    const worker = async () => {
      while (!killed && sent < MAX_REQUESTS) {
        const op = nextOp();
        ops.push(op);
        sent++;
        inFlight++;
        try {
          const token = users[op.user].token;
          const r =
            op.kind === "place"
              ? await nd.http("POST", "/api/v1/orders", { token, body: op.body })
              : await nd.http("DELETE", `/api/v1/orders/${op.orderId}`, { token });
          op.status = r.status;
          op.res = r.status === 200 ? r.body.data : r.body?.error;
          if (r.status === 200) acks++;
          // The random delay lands the kill at any step of the commands being processed.
          if (acks >= killAfter && !killTimer) killTimer = setTimeout(kill, int(0, 25));
        } catch {
          op.lost = true;
        } finally {
          inFlight--;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await nd.exited;
    expect(killed).toBe(true);
    expect(at.inFlight).toBeGreaterThan(0);
    return { requests: sent, acksAtKill: at.acks, inFlightAtKill: at.inFlight };
  }

  test("every acknowledged order and cancel survives exactly once; ledger, orders, trades and book agree; trading goes on", async () => {
    const t0 = Date.now();
    node = await NodeProcess.start(env);
    const a = node;
    for (const title of ["Crash A?", "Crash B?"]) {
      const r = await a.http("POST", "/api/v1/admin/events", {
        headers: { "x-admin-key": ADMIN_KEY },
        body: { title: `Event ${title}`, category: "Culture", markets: [{ title }] },
      });
      expect([200, 201]).toContain(r.status);
      markets.push(r.body.data.markets[0].id);
    }
    for (let i = 0; i < USERS; i++) {
      const r = await a.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: APP_DOMAIN }) });
      expect(r.status).toBe(200);
      users.push({ i, token: r.body.data.accessToken, userId: r.body.data.userId });
      await a.ctl({ cmd: "fund", userId: r.body.data.userId, amount: FUNDS });
    }
    const funded = users.map(() => FUNDS);
    await expect(a.ctl({ cmd: "call", action: "no.such.action" })).rejects.toThrow();

    // Crash, restart on the same data dir (tokens stay valid: sessions and secret persist), verify;
    // again on the recovered state.
    const cycles: unknown[] = [];
    let b = a;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const s = await streamAndKill(b, cycle === 0 ? int(260, 320) : int(80, 160));
      node = b = await NodeProcess.start(env);
      // Before any market is touched: everything acknowledged is already there, and the money adds up.
      const cold = verify(await observe(b, true), funded);
      if (cold.problems.length) throw new Error(`cycle ${cycle}, right after restart (seed ${seed}):\n${cold.problems.join("\n")}`);
      const warm = verify(await observe(b), funded);
      if (warm.problems.length) throw new Error(`cycle ${cycle}, after restart (seed ${seed}):\n${warm.problems.join("\n")}`);
      // The chain of hashes is whole and the journal replays to exactly the books and read models.
      const audit = await b.ctl<{ ok: boolean; problems: string[]; entries: number }>({ cmd: "call", action: "ledger.verify" });
      if (!audit.ok) throw new Error(`cycle ${cycle}, journal verification (seed ${seed}):\n${audit.problems.join("\n")}`);
      cycles.push({
        ...s,
        trades: warm.trades,
        open: warm.open,
        unacknowledgedButCommitted: warm.unknown,
        lagBeforeMarketsReload: cold.lag.length,
      });
    }
    for (const o of ops) if (o.status && o.status !== 200) expect([400, 404]).toContain(o.status);
    const summary = {
      seed,
      cycles,
      requests: ops.length,
      acknowledged: ops.filter((o) => o.status === 200).length,
      lost: ops.filter((o) => o.lost).length,
      rejected: ops.filter((o) => o.status && o.status !== 200).length,
      takerFills: ops.filter((o) => o.kind === "place" && o.status === 200 && n(o.res.filledQuantity) > 0).length,
      cancels: ops.filter((o) => o.kind === "cancel" && o.status === 200).length,
      refusals: ops.reduce<Record<string, number>>((acc, o) => {
        if (o.status && o.status !== 200) acc[`${o.kind}:${o.res?.code}`] = (acc[`${o.kind}:${o.res?.code}`] ?? 0) + 1;
        return acc;
      }, {}),
    };

    // And it keeps trading: a new market, a resting BUY, a crossing BUY of the other outcome (mint), a cancel.
    const created = await b.http("POST", "/api/v1/admin/events", {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { title: "Event after the crash", category: "Culture", markets: [{ title: "After the crash?" }] },
    });
    expect([200, 201]).toContain(created.status);
    const m = created.body.data.markets[0].id as string;
    markets.push(m);
    const u0 = users[0];
    const u1 = users[1];
    const before = await b.http("GET", `/api/v1/balance`, { token: u0.token });
    const rest = await b.http("POST", "/api/v1/orders", {
      token: u0.token,
      body: { marketId: m, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.3, quantity: 2 * SHARE },
    });
    expect(rest.status).toBe(200);
    ops.push({
      kind: "place",
      user: 0,
      body: { marketId: m, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.3, quantity: 2 * SHARE },
      status: 200,
      res: rest.body.data,
    });
    const cross = await b.http("POST", "/api/v1/orders", {
      token: u1.token,
      body: { marketId: m, side: "BUY", outcome: "NO", orderType: "FOK", price: 0.99, quantity: SHARE },
    });
    expect(cross.status).toBe(200);
    expect(cross.body.data.status).toBe("filled");
    ops.push({
      kind: "place",
      user: 1,
      body: { marketId: m, side: "BUY", outcome: "NO", orderType: "FOK", price: 0.99, quantity: SHARE },
      status: 200,
      res: cross.body.data,
    });
    const cancel = await b.http("DELETE", `/api/v1/orders/${rest.body.data.orderId}`, { token: u0.token });
    expect(cancel.status).toBe(200);
    ops.push({ kind: "cancel", user: 0, orderId: rest.body.data.orderId, owner: 0, status: 200, res: cancel.body.data });
    const after = await b.http("GET", `/api/v1/balance`, { token: u0.token });
    // Only the filled share (at the maker's 0.30 plus its maker fee) left u0's cash.
    expect(n(before.body.data.total) - n(after.body.data.total)).toBe(
      restingBuyLock(2 * SHARE, 30, FEES) - restingBuyLock(SHARE, 30, FEES),
    );
    expect(n(after.body.data.locked)).toBe(n(before.body.data.locked));
    const seen = await observe(b);
    const second = verify(seen, funded);
    if (second.problems.length) throw new Error(`after more trading (seed ${seed}):\n${second.problems.join("\n")}`);

    // A clean stop and start changes nothing at all.
    await b.stop("SIGTERM");
    node = await NodeProcess.start(env);
    expect(await observe(node)).toEqual(seen);

    if (process.env.CRASH_STATS) console.log(JSON.stringify({ ...summary, ms: Date.now() - t0 }));
    // About 30 s on an idle machine; the ceiling leaves room for a loaded one (each step waits on its own outcome).
  }, 600_000);
});
