import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { connectSocket, type Msg, type TestSocket } from "../support/socket";
import { until } from "../support/until";

type U = { token: string; userId: string };
type Quote = { side: "BUY" | "SELL"; outcome: "YES" | "NO"; price: number; quantity: number };
type OrderRow = { orderId: string; status: string; quote: boolean; cancelReason: string | null; price: string };

const bid = (price: number, quantity = SHARE): Quote => ({ side: "BUY", outcome: "YES", price, quantity });
/** BUY NO at 1 - p: an ask at YES p, with no shares needed. */
const ask = (yesPrice: number, quantity = SHARE): Quote => ({
  side: "BUY",
  outcome: "NO",
  price: Math.round((1 - yesPrice) * 100) / 100,
  quantity,
});

describe("mass quotes over HTTP and Socket.IO", () => {
  let srv: TestServer;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "1000" });
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });
  afterAll(() => srv.stop());

  const trader = async (amount = 100 * SHARE): Promise<U> => {
    const u = await srv.login();
    await fund(srv.broker, u.userId, amount);
    return u;
  };
  const quote = (u: U, body: Record<string, unknown>, headers?: Record<string, string>) =>
    srv.http("POST", "/api/v1/quotes", { token: u.token, body, headers });
  const orders = async (u: U, status = "open") =>
    (await srv.http("GET", `/api/v1/orders?status=${status}`, { token: u.token })).body.data as OrderRow[];
  const balance = async (u: U) => (await srv.http("GET", "/api/v1/balance", { token: u.token })).body.data as { locked: string };
  const ids = (r: { body: { data: { orders: Array<{ orderId: string }> } } }) => r.body.data.orders.map((o) => o.orderId);
  const connect = async () => {
    const s = await connectSocket(srv.url, { autoPingMs: 3000 });
    sockets.push(s);
    return s;
  };
  const isUpdate = (channel: string) => (m: Msg) => m.type === "update" && "channel" in m && m.channel === channel;

  test("a set replaced twice: each POST cancels the previous set and places the new one; one trade request each; sockets as for orders", async () => {
    const market = await createMarket(srv, "Quoted twice?");
    const mm = await trader();
    const watcher = await connect();
    watcher.subscribe({ channel: "book", marketId: market });
    await watcher.waitFor((m) => m.type === "subscribed" && m.channel === "book");
    const mine = await connect();
    mine.subscribe({ channel: "user", token: mm.token });
    await mine.waitFor((m) => m.type === "subscribed" && m.channel === "user");

    const a = await quote(mm, { marketId: market, quotes: [bid(0.45), ask(0.5)], postOnly: true });
    expect(a.status).toBe(200);
    expect(a.body.data.cancelled).toEqual([]);
    expect(a.body.data.orders).toEqual([
      expect.objectContaining({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        price: "0.45",
        orderType: "GTC",
        status: "open",
        quote: true,
        postOnly: true,
      }),
      expect.objectContaining({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        price: "0.50",
        orderType: "GTC",
        status: "open",
        quote: true,
      }),
    ]);
    // Twenty quotes spend one trade request, like one order.
    const before = Number(a.headers.get("x-ratelimit-remaining"));
    const twenty = Array.from({ length: 20 }, (_, i) => (i < 10 ? bid(0.3 + i / 100) : ask(0.6 + (i - 10) / 100)));
    const b = await quote(mm, { marketId: market, quotes: twenty });
    expect(b.status).toBe(200);
    expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(before - 1);
    expect(b.body.data.cancelled).toEqual(ids(a));
    expect(b.body.data.orders).toHaveLength(20);
    const c = await quote(mm, { marketId: market, quotes: [bid(0.47, 2 * SHARE), ask(0.49, 3 * SHARE)] });
    expect(c.body.data.cancelled).toEqual(ids(b));

    // Ordinary orders in every view, marked as quotes.
    expect((await orders(mm)).map((o) => [o.orderId, o.quote]).sort()).toEqual(
      ids(c)
        .map((id) => [id, true])
        .sort(),
    );
    const closed = await orders(mm, "closed");
    expect(closed.map((o) => o.orderId).sort()).toEqual([...ids(a), ...ids(b)].sort());
    expect(closed.every((o) => o.status === "cancelled" && o.cancelReason === "user" && o.quote)).toBe(true);
    // Locked: 0.47 x 2 (BUY YES) + 0.51 x 3 (BUY NO at 0.51).
    expect((await balance(mm)).locked).toBe(String(0.94 * SHARE + 1.53 * SHARE));
    const q = await srv.http("GET", `/api/v1/orders/${ids(c)[0]}/queue-position`, { token: mm.token });
    expect(q.body.data).toEqual({ price: "0.47", quantityAhead: "0", ordersAhead: 0 });
    const amended = await srv.http("PATCH", `/api/v1/orders/${ids(c)[0]}`, { token: mm.token, body: { quantity: SHARE } });
    expect(amended.body.data).toMatchObject({ orderId: ids(c)[0], remainingQuantity: String(SHARE), quote: true });

    // The book channel shows the last set; the user channel told each order's changes.
    await watcher.waitFor(
      (m) =>
        isUpdate("book")(m) &&
        JSON.stringify((m as { data: unknown }).data) ===
          JSON.stringify({
            marketId: market,
            bids: [{ price: "0.47", quantity: String(SHARE), numOrders: 1 }],
            asks: [{ price: "0.49", quantity: String(3 * SHARE), numOrders: 1 }],
          }),
    );
    await until("every quote order's updates on the user channel", async () => {
      const updates = mine.since(0, isUpdate("user")).flatMap((m) => {
        const d = (m as { data: { order?: { orderId: string; status: string } } }).data;
        return d.order ? [d.order] : [];
      });
      return (
        [...ids(a), ...ids(b)].every((id) => updates.some((o) => o.orderId === id && o.status === "cancelled")) &&
        ids(c).every((id) => updates.some((o) => o.orderId === id && o.status === "open"))
      );
    });
    await expectConserved(srv.broker);
  });

  test("one bad quote refuses the whole set with the spec's code: the previous set stands and nothing moves", async () => {
    const market = await createMarket(srv, "Refused sets?");
    const mm = await trader(10 * SHARE);
    const other = await trader();
    const standing = await quote(mm, { marketId: market, quotes: [bid(0.4), ask(0.6)] });
    expect(standing.status).toBe(200);
    expect(
      (
        await srv.http("POST", "/api/v1/orders", {
          token: other.token,
          body: { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.55, quantity: SHARE },
        })
      ).status,
    ).toBe(200);
    const locked = (await balance(mm)).locked;
    const refusals: Array<[Record<string, unknown>, number, string, unknown?]> = [
      [{ quotes: [bid(0.41), bid(0.415)] }, 400, "VALIDATION_ERROR", [{ field: "quotes[1].price", rule: "tick" }]],
      [{ quotes: [bid(0.41, 150)] }, 400, "VALIDATION_ERROR", [{ field: "quotes[0].quantity", rule: "lot" }]],
      [{ quotes: [bid(0.48), ask(0.47)] }, 400, "VALIDATION_ERROR", [{ field: "quotes", rule: "crossed" }]],
      [{ quotes: Array.from({ length: 21 }, () => bid(0.3)) }, 400, "VALIDATION_ERROR"],
      [{ quotes: [] }, 400, "VALIDATION_ERROR"],
      // 0.30 x 40 = 12 USDT for the set; the account holds 10 (the previous set's 1 comes back first).
      [{ quotes: [bid(0.3, 20 * SHARE), bid(0.29, 20 * SHARE)] }, 400, "INSUFFICIENT_BALANCE"],
      // An ask at 0.55 meets the other trader's bid at 0.55.
      [{ quotes: [bid(0.41), ask(0.55)], postOnly: true }, 400, "POST_ONLY_WOULD_CROSS"],
      [{ quotes: [bid(0.41)], orderGroupId: "grp_nope" }, 404, "ORDER_GROUP_NOT_FOUND"],
    ];
    for (const [body, status, code, fields] of refusals) {
      const r = await quote(mm, { marketId: market, ...body });
      expect([r.status, r.body.error?.code]).toEqual([status, code]);
      if (fields) expect(r.body.error.fields).toEqual(fields);
      expect((await orders(mm)).map((o) => o.orderId).sort()).toEqual(ids(standing).sort());
      expect((await balance(mm)).locked).toBe(locked);
    }
    const unknown = await quote(mm, { marketId: "mkt_unknown", quotes: [bid(0.4)] });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "RESOURCE_NOT_FOUND"]);
    // A closed market refuses the set as it refuses an order (400, like POST /orders).
    await srv.http("POST", `/api/v1/admin/markets/${market}/close`, { headers: { "x-admin-key": ADMIN_KEY } });
    const shut = await quote(mm, { marketId: market, quotes: [bid(0.4)] });
    expect([shut.status, shut.body.error.code]).toEqual([400, "MARKET_NOT_OPEN"]);
    await expectConserved(srv.broker);
  });

  test("the same Idempotency-Key answers the first answer again and places nothing twice; another body is refused", async () => {
    const market = await createMarket(srv, "Quoted once?");
    const mm = await trader();
    const body = { marketId: market, quotes: [bid(0.42), ask(0.58)] };
    const first = await quote(mm, body, { "Idempotency-Key": "q-1" });
    expect(first.status).toBe(200);
    const again = await quote(mm, body, { "Idempotency-Key": "q-1" });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(again.body.data).toEqual(first.body.data);
    expect((await orders(mm)).map((o) => o.orderId).sort()).toEqual(ids(first).sort());
    const reused = await quote(mm, { ...body, quotes: [bid(0.43)] }, { "Idempotency-Key": "q-1" });
    expect([reused.status, reused.body.error.code]).toEqual([409, "IDEMPOTENCY_KEY_REUSED"]);
    // A new key is a new set, replacing the first.
    const next = await quote(mm, body, { "Idempotency-Key": "q-2" });
    expect(next.body.data.cancelled).toEqual(ids(first));
  });

  test("DELETE /quotes withdraws the caller's set in that market and nothing else", async () => {
    const [m1, m2] = [await createMarket(srv, "Withdrawn quotes one?"), await createMarket(srv, "Withdrawn quotes two?")];
    const mm = await trader();
    const plain = await srv.http("POST", "/api/v1/orders", {
      token: mm.token,
      body: { marketId: m1, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.2, quantity: SHARE },
    });
    const set1 = await quote(mm, { marketId: m1, quotes: [bid(0.4), ask(0.6)] });
    const set2 = await quote(mm, { marketId: m2, quotes: [bid(0.3)] });
    const del = await srv.http("DELETE", `/api/v1/quotes?marketId=${m1}`, { token: mm.token });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ cancelled: ids(set1), releasedAmount: String(0.4 * SHARE + 0.4 * SHARE) });
    expect((await srv.http("DELETE", `/api/v1/quotes?marketId=${m1}`, { token: mm.token })).body.data).toEqual({
      cancelled: [],
      releasedAmount: "0",
    });
    expect((await orders(mm)).map((o) => o.orderId).sort()).toEqual([plain.body.data.orderId, ...ids(set2)].sort());
    const missing = await srv.http("DELETE", "/api/v1/quotes", { token: mm.token });
    expect([missing.status, missing.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    // A quote order cancelled on its own leaves the set; the next set replaces what is left.
    await srv.http("DELETE", `/api/v1/orders/${ids(set2)[0]}`, { token: mm.token });
    const set3 = await quote(mm, { marketId: m2, quotes: [bid(0.31)] });
    expect(set3.body.data.cancelled).toEqual([]);
    await expectConserved(srv.broker);
  });

  test("quotes naming an order group join it; once the group triggered, a set naming it is refused and the standing set stays", async () => {
    const market = await createMarket(srv, "Grouped quotes?");
    const [mm, taker] = [await trader(), await trader()];
    const group = (
      await srv.http("POST", "/api/v1/order-groups", { token: mm.token, body: { fillLimit: String(SHARE), windowSeconds: 60 } })
    ).body.data.orderGroupId as string;
    const grouped = await quote(mm, { marketId: market, quotes: [bid(0.45), bid(0.44)], orderGroupId: group });
    expect(grouped.status).toBe(200);
    // One share sold into the 0.45 bid reaches the limit: the group cancels its other quote.
    const hit = await srv.http("POST", "/api/v1/orders", {
      token: taker.token,
      body: { marketId: market, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.55, quantity: SHARE },
    });
    expect(hit.body.data.status).toBe("filled");
    await until("the group's quote cancelled", async () => (await orders(mm)).length === 0);
    expect((await orders(mm, "closed")).find((o) => o.orderId === ids(grouped)[1])?.cancelReason).toBe("order_group");
    const standing = await quote(mm, { marketId: market, quotes: [bid(0.4)] });
    expect(standing.status).toBe(200);
    const refused = await quote(mm, { marketId: market, quotes: [bid(0.41)], orderGroupId: group });
    expect([refused.status, refused.body.error.code]).toEqual([409, "ORDER_GROUP_TRIGGERED"]);
    expect((await orders(mm)).map((o) => o.orderId)).toEqual(ids(standing));
    await expectConserved(srv.broker);
  });
});
