/**
 * One market maker across a race over HTTP on a real server process: POST /trade/amm, POST
 * /trade/market and POST /markets/:id/quote on any of its markets use the event's LMSR pool, its
 * outcome prices sum to exactly 1 after every trade, buying NO of one market moves every other
 * outcome up, conversions after trades, an outcome resolved NO early leaves the pool, and a SIGKILL
 * restart loses nothing (the pool is read from the books).
 */
import type { EventPoolView } from "../../models/trading";
import { ExchangeNode, type User as U } from "../support/exchange-node";
import { connectSocket } from "../support/socket";
import { until } from "../support/until";

jest.setTimeout(240_000);

const DOMAIN = "event-amm.exchange.test";
const ADMIN_KEY = "event-amm-admin";
const SHARE = 1_000_000;
const admin = { "x-admin-key": ADMIN_KEY };

describe("the event's one market maker", () => {
  let ex: ExchangeNode;

  const user = () => ex.user(500 * SHARE);
  const trade = (u: U, path: "amm" | "market", marketId: string, side: string, outcome: string, quantity: number) =>
    ex.node.http("POST", `/api/v1/trade/${path}`, { token: u.token, body: { marketId, side, outcome, quantity: String(quantity) } });
  const pool = (eventId: string) => ex.node.call<EventPoolView>("ledger.eventPool", { eventId });
  const sum = (v: EventPoolView) => Object.values(v.prices).reduce((a, x) => a + Number(x), 0);
  const books = () => ex.books();

  beforeAll(async () => {
    ex = await ExchangeNode.start("event-amm", DOMAIN, ADMIN_KEY, { SEED_DEMO: "false" });
  });
  afterAll(() => ex?.close());

  test("trades on any market use one pool whose prices sum to 1; conversion, a drop-out and a restart", async () => {
    const created = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: {
        title: "Who wins the cup?",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        ammLiquidity: String(100 * SHARE),
        markets: ["Ann", "Ben", "Cat", "Dan"].map((n) => ({ title: `Will ${n} win?`, outcomeLabel: n })),
      },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const ids = (created.body.data.markets as Array<{ id: string }>).map((m) => m.id);
    const start = await pool(eventId);
    expect(Object.keys(start.prices).sort()).toEqual([...ids].sort());
    expect(Object.values(start.prices)).toEqual(["250000", "250000", "250000", "250000"]);

    const [x, y] = [await user(), await user()];
    // A quote is what the trade then costs.
    const q = await ex.node.http("POST", `/api/v1/markets/${ids[0]}/quote`, {
      token: x.token,
      body: { side: "BUY", outcome: "YES", quantity: String(10 * SHARE) },
    });
    expect(q.status).toBe(200);
    expect(q.body.data.source).toBe("AMM");
    const steps: Array<[U, "amm" | "market", number, string, string, number]> = [
      [x, "amm", 0, "BUY", "YES", 10 * SHARE],
      [y, "market", 1, "BUY", "NO", 20 * SHARE],
      [y, "amm", 2, "BUY", "NO", 15 * SHARE],
      [x, "market", 3, "BUY", "YES", 5 * SHARE],
      [x, "amm", 0, "SELL", "YES", 4 * SHARE],
    ];
    const ws = await connectSocket(ex.node.url, { autoPingMs: 3000 });
    ws.subscribe({ channel: "market", marketIds: ids });
    await ws.waitFor((m) => m.type === "subscribed");
    let last = start;
    for (const [u, path, m, side, outcome, qty] of steps) {
      const r = await trade(u, path, ids[m], side, outcome, qty);
      expect([r.status, r.body.data?.venue]).toEqual([200, "AMM"]);
      if (u === x && m === 0 && side === "BUY") expect(r.body.data.totalCost).toBe(q.body.data.estimatedCost);
      const now = await pool(eventId);
      expect(sum(now)).toBe(SHARE);
      if (outcome === "NO" && side === "BUY")
        for (const [id, p] of Object.entries(now.prices)) if (id !== ids[m]) expect(Number(p)).toBeGreaterThan(Number(last.prices[id]));
      last = now;
    }
    expect((await books()).ok).toBe(true);
    // The markets' prices and the event's chances come from the pool (ceil/floor to a cent).
    for (const id of ids) {
      const m = (await ex.node.http("GET", `/api/v1/markets/${id}`)).body.data;
      const p = Number(last.prices[id]);
      expect(Number(m.buyYesPrice)).toBeCloseTo(Math.min(99, Math.max(1, Math.ceil(p / 10_000))) / 100, 6);
      expect(Number(m.sellYesPrice)).toBeCloseTo(Math.min(99, Math.max(1, Math.floor(p / 10_000))) / 100, 6);
    }
    // Every market's socket pushes reach the pool's prices too (a trade there moves them all; no book has any order).
    try {
      for (const id of ids) {
        const want = Math.min(99, Math.max(1, Math.ceil(Number(last.prices[id]) / 10_000))) / 100;
        await ws.waitFor((msg) => {
          const d = (msg as { type: string; channel?: string; data?: { marketId?: string; buyYesPrice?: string } }).data;
          return msg.type === "update" && d?.marketId === id && Math.abs(Number(d.buyYesPrice) - want) < 1e-9;
        });
      }
    } finally {
      ws.close();
    }
    const outcomes = (await ex.node.http("GET", `/api/v1/events/${eventId}`)).body.data.outcomes as Array<{ chance: string | null }>;
    expect(outcomes.every((o) => o.chance !== null)).toBe(true);
    // Every pool trade printed to its market's price history (Ann: a buy of 10 and a sell of 4).
    for (const [m, volume] of [
      [0, 14],
      [1, 20],
      [2, 15],
      [3, 5],
    ] as const)
      await until(
        `price history of market ${m}: ${volume} shares`,
        async () => {
          const h = (await ex.node.http("GET", `/api/v1/markets/${ids[m]}/price-history`)).body.data;
          const shares = ((h?.candles ?? []) as Array<{ volume: number }>).reduce((a, c) => a + c.volume, 0);
          return Math.abs(shares - volume) < 1e-9 && h.volume24h > 0;
        },
        60_000,
      );

    // y holds NO of Ben and Cat from the pool: converted into USDT and YES of Ann and Dan.
    const conv = await ex.node.http("POST", `/api/v1/events/${eventId}/convert`, {
      token: y.token,
      body: { marketIds: [ids[1], ids[2]], quantity: String(10 * SHARE) },
    });
    expect(conv.status).toBe(200);
    expect(conv.body.data.cashCredited).toBe(String(10 * SHARE));
    expect((await books()).ok).toBe(true);

    // Dan drops out: his outcome leaves the pool, the others renormalise.
    expect((await ex.node.http("POST", `/api/v1/admin/markets/${ids[3]}/resolve`, { headers: admin, body: { result: "NO" } })).status).toBe(
      200,
    );
    const after = await pool(eventId);
    expect(Object.keys(after.prices).sort()).toEqual([ids[0], ids[1], ids[2]].sort());
    expect(sum(after)).toBe(SHARE);
    const r = await trade(x, "amm", ids[1], "BUY", "YES", SHARE);
    expect(r.status).toBe(200);
    expect(sum(await pool(eventId))).toBe(SHARE);

    // A crash: the pool is what its books say, nothing lost.
    const before = await pool(eventId);
    // In any order: a restart reads positions back in the store's order.
    const held = async () =>
      ((await ex.node.http("GET", "/api/v1/positions", { token: y.token })).body.data as Array<{ id: string }>).sort((p, q) =>
        p.id < q.id ? -1 : 1,
      );
    const positions = await held();
    await ex.restart("SIGKILL");
    expect(await pool(eventId)).toEqual(before);
    expect(await held()).toEqual(positions);
    expect((await books()).ok).toBe(true);
    const verified = await ex.node.call<{ problems: string[] }>("ledger.verify");
    expect(verified.problems).toEqual([]);

    // A gateway started after the last pool trade: a book change on a race's market pushes the pool's price with the book, as REST shows it.
    const late = await connectSocket(ex.node.url, { autoPingMs: 3000 });
    try {
      late.subscribe({ channel: "market", marketIds: [ids[0]] });
      await late.waitFor((m) => m.type === "subscribed");
      const bid = await ex.node.http("POST", "/api/v1/orders", {
        token: x.token,
        body: { marketId: ids[0], side: "BUY", outcome: "YES", orderType: "GTC", price: 0.01, quantity: SHARE },
      });
      expect(bid.status).toBe(200);
      const rest = (await ex.node.http("GET", `/api/v1/markets/${ids[0]}`)).body.data;
      expect(rest.buyYesPrice).not.toBeNull();
      const pushed = await late.waitFor((msg) => {
        const d = (msg as { type: string; data?: { marketId?: string } }).data;
        return msg.type === "update" && d?.marketId === ids[0];
      });
      const d = (pushed as unknown as { data: Record<string, string | null> }).data;
      expect([d.buyYesPrice, d.sellYesPrice]).toEqual([rest.buyYesPrice, rest.sellYesPrice]);
    } finally {
      late.close();
    }
  });

  test("POST /trade/market on a race's market splits between its book and the race's pool, best price first, as quoted", async () => {
    const created = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: {
        title: "Who wins the split?",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        ammLiquidity: String(100 * SHARE),
        markets: ["Amy", "Bo", "Cy", "Di"].map((n) => ({ title: `Will ${n} take the split?`, outcomeLabel: n })),
      },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const ids = (created.body.data.markets as Array<{ id: string }>).map((m) => m.id);
    const [maker, taker] = [await user(), await user()];
    // YES of Amy offered on its book at 0.20 (3 shares) and 0.45 (5 shares): NO bids at 0.80 and 0.55.
    for (const [price, qty] of [
      [0.8, 3],
      [0.55, 5],
    ] as const) {
      const o = await ex.node.http("POST", "/api/v1/orders", {
        token: maker.token,
        body: { marketId: ids[0], side: "BUY", outcome: "NO", orderType: "GTC", price, quantity: qty * SHARE },
      });
      expect(o.status).toBe(200);
    }
    const before = await pool(eventId);
    expect(before.prices[ids[0]]).toBe("250000");
    const body = { side: "BUY", outcome: "YES", quantity: String(10 * SHARE) };
    const q = await ex.node.http("POST", `/api/v1/markets/${ids[0]}/quote`, { token: taker.token, body });
    expect(q.status).toBe(200);
    expect(q.body.data.source).toBe("HYBRID");
    // Each venue alone costs more: the book cannot fill 10, the pool alone climbs past the book's 0.20.
    const poolOnly = await ex.node.http("POST", `/api/v1/markets/${ids[0]}/quote`, { token: taker.token, body: { ...body, venue: "AMM" } });
    expect(poolOnly.body.data.source).toBe("AMM");
    const net = (d: { estimatedCost: string; fee: string }) => Number(d.estimatedCost) + Number(d.fee);
    expect(net(q.body.data)).toBeLessThan(net(poolOnly.body.data));

    const cash = async (u: U) => Number((await ex.node.http("GET", "/api/v1/balance", { token: u.token })).body.data.available);
    const paidBefore = await cash(taker);
    const r = await trade(taker, "market", ids[0], "BUY", "YES", 10 * SHARE);
    expect(r.status).toBe(200);
    // One answer for both fills: the whole quantity, at the quoted cost.
    expect(r.body.data).toMatchObject({ venue: "HYBRID", filledQuantity: String(10 * SHARE) });
    expect([r.body.data.totalCost, r.body.data.fee]).toEqual([q.body.data.estimatedCost, q.body.data.fee]);
    expect(paidBefore - (await cash(taker))).toBe(Number(r.body.data.totalCost) + Number(r.body.data.fee));
    // The book's best level went first (all 3 at 0.20); the pool took the rest of what beat 0.45.
    const book = (await ex.node.http("GET", `/api/v1/markets/${ids[0]}/orderbook?outcome=YES`)).body.data as {
      asks: Array<{ price: string }>;
    };
    expect(book.asks.map((a) => a.price)).not.toContain("0.20");
    const after = await pool(eventId);
    expect(Number(after.prices[ids[0]])).toBeGreaterThan(Number(before.prices[ids[0]]));
    expect(sum(after)).toBe(SHARE);
    const held = (await ex.node.http("GET", "/api/v1/positions", { token: taker.token })).body.data as Array<{
      marketId: string;
      outcome: string;
      quantity: string;
    }>;
    expect(held.find((p) => p.marketId === ids[0] && p.outcome === "YES")?.quantity).toBe(String(10 * SHARE));
    expect((await books()).ok).toBe(true);
    expect((await ex.node.call<{ problems: string[] }>("ledger.verify")).problems).toEqual([]);

    // Selling back splits too (the pool now bids above the book's empty YES bids): the whole quantity or nothing.
    const sold = await trade(taker, "market", ids[0], "SELL", "YES", 4 * SHARE);
    expect(sold.status).toBe(200);
    expect(sold.body.data.filledQuantity).toBe(String(4 * SHARE));
    expect((await books()).ok).toBe(true);
  });
  test("an outcome added, one resolved NO early, one cancelled: the pool's new prices of the others pushed at once, as REST shows them", async () => {
    const created = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: {
        title: "Who wins the relay?",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        ammLiquidity: String(100 * SHARE),
        markets: ["Ada", "Bea", "Cal", "Dov"].map((n) => ({ title: `Will ${n} win the relay?`, outcomeLabel: n })),
      },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const ids = (created.body.data.markets as Array<{ id: string }>).map((m) => m.id);
    const ws = await connectSocket(ex.node.url, { autoPingMs: 3000 });
    const buyYes = async (id: string): Promise<string> => (await ex.node.http("GET", `/api/v1/markets/${id}`)).body.data.buyYesPrice;
    /** After `change`: every market of `open` shows a new price on REST, and its socket got that price pushed. */
    const pushedAsRest = async (open: string[], change: () => Promise<void>) => {
      const before = Object.fromEntries(await Promise.all(open.map(async (id) => [id, await buyYes(id)] as const)));
      const from = ws.messages.length;
      await change();
      for (const id of open) {
        const now = await buyYes(id);
        expect(now).not.toBe(before[id]);
        await ws.waitFor(
          (msg) => {
            const d = (msg as { type: string; data?: { marketId?: string; buyYesPrice?: string } }).data;
            return msg.type === "update" && d?.marketId === id && d.buyYesPrice === now;
          },
          { from },
        );
      }
    };
    try {
      ws.subscribe({ channel: "market", marketIds: ids });
      await ws.waitFor((m) => m.type === "subscribed");
      // Ada bought up first: the outcomes no longer all alike.
      const u = await user();
      expect((await trade(u, "amm", ids[0], "BUY", "YES", 10 * SHARE)).status).toBe(200);

      // Eve joins: four outcomes share their probability with a fifth.
      let eve = "";
      await pushedAsRest(ids, async () => {
        const added = await ex.node.http("POST", `/api/v1/admin/events/${eventId}/markets`, {
          headers: admin,
          body: { title: "Will Eve win the relay?", outcomeLabel: "Eve" },
        });
        expect(added.status).toBe(201);
        eve = added.body.data.id;
      });
      expect(Object.keys((await pool(eventId)).prices)).toHaveLength(5);
      ws.subscribe({ channel: "market", marketIds: [eve] });
      await ws.waitFor((m) => m.type === "subscribed", { from: ws.messages.length - 1 });

      // Dov drops out (NO early): the others renormalise up.
      await pushedAsRest([ids[0], ids[1], ids[2], eve], async () => {
        const r = await ex.node.http("POST", `/api/v1/admin/markets/${ids[3]}/resolve`, { headers: admin, body: { result: "NO" } });
        expect(r.status).toBe(200);
      });
      // Cal cancelled (no price given: 0.00, an outcome leaves a race as one that dropped out): again.
      await pushedAsRest([ids[0], ids[1], eve], async () => {
        const r = await ex.node.http("POST", `/api/v1/admin/markets/${ids[2]}/cancel`, { headers: admin });
        expect(r.status).toBe(200);
      });
      const left = await pool(eventId);
      expect(Object.keys(left.prices).sort()).toEqual([ids[0], ids[1], eve].sort());
      expect(sum(left)).toBe(SHARE);
    } finally {
      ws.close();
    }
  });
});
