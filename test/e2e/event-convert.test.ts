/**
 * Conversion of NO positions over HTTP on a real server process: NO shares bought on the book of a
 * mutually exclusive event's markets become USDT plus YES of its other open market; an
 * Idempotency-Key replays the answer without converting twice; every refusal changes nothing; a
 * POSITIONS_CONVERTED notification; the money check holds; and after a SIGKILL restart nothing is
 * lost and the conversion account's advance is still covered.
 */
import { ExchangeNode, type User as U } from "../support/exchange-node";

jest.setTimeout(240_000);

const DOMAIN = "convert.exchange.test";
const ADMIN_KEY = "convert-admin";
const SHARE = 1_000_000;
const admin = { "x-admin-key": ADMIN_KEY };

describe("POST /events/:id/convert", () => {
  let ex: ExchangeNode;

  const until = <T>(what: string, fn: () => Promise<T | null | false>) => ex.until(what, fn, 60_000);
  const user = () => ex.user();
  const order = (u: U, marketId: string, body: Record<string, unknown>) => ex.order(u, marketId, body);
  const convert = (u: U, eventId: string, body: unknown, key?: string) =>
    ex.node.http("POST", `/api/v1/events/${eventId}/convert`, { token: u.token, body, headers: key ? { "idempotency-key": key } : {} });
  const balance = async (u: U) => (await ex.node.http("GET", "/api/v1/balance", { token: u.token })).body.data;
  const positions = async (u: U) => {
    const list = (await ex.node.http("GET", "/api/v1/positions", { token: u.token })).body.data as Array<{
      marketId: string;
      outcome: string;
      quantity: string;
    }>;
    return Object.fromEntries(list.filter((p) => p.quantity !== "0").map((p) => [`${p.marketId}:${p.outcome}`, p.quantity]));
  };
  const books = () => ex.books();

  beforeAll(async () => {
    ex = await ExchangeNode.start("event-convert", DOMAIN, ADMIN_KEY, { SEED_DEMO: "false" });
  });
  afterAll(() => ex?.close());

  test("NO of two outcomes becomes 1 USDT and YES of the third per share, once; refusals change nothing; survives a restart", async () => {
    const created = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: {
        title: "Who wins the race?",
        category: "Sports",
        mutuallyExclusive: true,
        exhaustive: true,
        markets: [
          { title: "Will Alice win?", outcomeLabel: "Alice" },
          { title: "Will Bob win?", outcomeLabel: "Bob" },
          { title: "Will Carol win?", outcomeLabel: "Carol" },
        ],
      },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const [a, b, c] = (created.body.data.markets as Array<{ id: string }>).map((m) => m.id);
    const plain = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Plain", category: "Sports", markets: [{ title: "Rain?" }, { title: "Snow?" }] },
    });
    expect(plain.status).toBe(201);

    // Trades first: the NO holder buys NO of Alice and Bob on the book, pairs minted against YES buyers.
    const [holder, other] = [await user(), await user()];
    for (const m of [a, b]) {
      expect((await order(other, m, { side: "BUY", outcome: "YES", price: 0.3, quantity: 10 * SHARE })).body.data.status).toBe("open");
      expect((await order(holder, m, { side: "BUY", outcome: "NO", price: 0.7, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    }
    // 4 of Bob's NO offered by a resting sell: locked.
    expect((await order(holder, b, { side: "SELL", outcome: "NO", price: 0.99, quantity: 4 * SHARE })).body.data.status).toBe("open");
    const before = await balance(holder);
    const held = await positions(holder);
    expect(held).toMatchObject({ [`${a}:NO`]: String(10 * SHARE), [`${b}:NO`]: String(10 * SHARE) });

    // Refusals, each changing nothing.
    const refusals: Array<[unknown, string, number, string]> = [
      [{ marketIds: [a, b], quantity: String(7 * SHARE) }, eventId, 400, "INSUFFICIENT_SHARES"],
      [{ marketIds: [a, a], quantity: String(SHARE) }, eventId, 400, "VALIDATION_ERROR"],
      [{ marketIds: [a, plain.body.data.markets[0].id], quantity: String(SHARE) }, eventId, 400, "VALIDATION_ERROR"],
      [{ marketIds: [a], quantity: "0" }, eventId, 400, "VALIDATION_ERROR"],
      [{ marketIds: [plain.body.data.markets[0].id], quantity: String(SHARE) }, plain.body.data.id, 400, "EVENT_NOT_MUTUALLY_EXCLUSIVE"],
    ];
    for (const [body, ev, status, code] of refusals) {
      const r = await convert(holder, ev, body);
      expect([r.status, r.body.error?.code]).toEqual([status, code]);
    }
    expect(await balance(holder)).toEqual(before);
    expect(await positions(holder)).toEqual(held);

    // 5 shares: 5 USDT and 5 YES of Carol; the same key again answers the same without converting twice.
    const body = { marketIds: [a, b], quantity: String(5 * SHARE) };
    const first = await convert(holder, eventId, body, "convert-1");
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      eventId,
      quantity: String(5 * SHARE),
      marketIds: [a, b],
      cashCredited: String(5 * SHARE),
      yesReceived: [{ marketId: c, quantity: String(5 * SHARE) }],
    });
    const again = await convert(holder, eventId, body, "convert-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    const after = await balance(holder);
    expect(Number(after.available) - Number(before.available)).toBe(5 * SHARE);
    const converted = {
      ...held,
      [`${a}:NO`]: String(5 * SHARE),
      [`${b}:NO`]: String(5 * SHARE),
      [`${c}:YES`]: String(5 * SHARE),
    };
    expect(await positions(holder)).toEqual(converted);

    const note = await until("the conversion's notification", async () => {
      const list = (await ex.node.http("GET", "/api/v1/notifications", { token: holder.token })).body.data as Array<{
        type: string;
        body: string;
        metadata: unknown;
      }>;
      return list.find((n) => n.type === "POSITIONS_CONVERTED") ?? null;
    });
    expect(note.metadata).toMatchObject({ eventId, marketIds: [a, b], quantity: String(5 * SHARE), cashCredited: String(5 * SHARE) });
    expect(note.body).toContain("became $5.00");

    const check = await books();
    expect(check.ok).toBe(true);
    expect(check.uncoveredConversions).toBeUndefined();

    // A crash: everything is still there, and the books still balance.
    await ex.restart("SIGKILL");
    expect(await balance(holder)).toEqual(after);
    expect(await positions(holder)).toEqual(converted);
    expect((await books()).ok).toBe(true);
    const replay = await convert(holder, eventId, body, "convert-1");
    expect(replay.body.data).toEqual(first.body.data);
    expect(await balance(holder)).toEqual(after);

    // The end: Alice and Bob out, Carol wins. The conversion account is paid its NO of Alice and
    // Bob, loses Carol's, and is left with what it advanced: nothing owed, nothing short.
    const conv = `conversion:${eventId}`;
    type Acc = { balance: { available: number }; positions: Array<{ quantity: number }> };
    expect((await ex.node.call<Acc>("ledger.account", { account: conv })).balance.available).toBe(-10 * SHARE);
    for (const [m, result] of [
      [a, "NO"],
      [b, "NO"],
      [c, "YES"],
    ] as const) {
      const r = await ex.node.http("POST", `/api/v1/admin/markets/${m}/resolve`, { headers: admin, body: { result } });
      expect(r.status).toBe(200);
    }
    const settled = await until("the conversion account paid out", async () => {
      const acc = await ex.node.call<Acc>("ledger.account", { account: conv });
      return acc.positions.every((p) => p.quantity === 0) ? acc : null;
    });
    expect(settled.balance.available).toBe(0);
    expect((await books()).ok).toBe(true);
    const verified = await ex.node.call<{ ok: boolean; problems: string[] }>("ledger.verify");
    expect(verified.problems).toEqual([]);
  });
});
