/**
 * The trader API (../shared/spec/trading-api.md) over real HTTP and Socket.IO against a started
 * exchange: GTD, FAK, post-only, client order ids, Idempotency-Key, batch, cancel-all, amend,
 * the dead man's switch, order history, transfers, positions at resolution, the user channel.
 */
import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { connectSocket, type TestSocket } from "../support/socket";
import { waitFor } from "../support/chain";

jest.setTimeout(180_000);

type U = { token: string; userId: string };

describe("trader API", () => {
  let srv: TestServer;
  let market: string;
  let alice: U;
  let bob: U;
  let carol: U;

  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000", TAKER_FEE_BPS: "0" });
    market = await createMarket(srv, "Trader API market?");
    alice = await srv.login();
    bob = await srv.login();
    carol = await srv.login();
    for (const u of [alice, bob, carol]) await fund(srv.broker, u.userId, 1000 * SHARE);
  });
  afterAll(() => srv.stop());
  afterEach(() => expectConserved(srv.broker));

  const order = (u: U, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, headers, body: { marketId: market, orderType: "GTC", ...body } });
  const balance = async (u: U) =>
    (await srv.http("GET", "/api/v1/balance", { token: u.token })).body.data as { available: string; locked: string };
  const openOrders = async (u: U, qs = "") => (await srv.http("GET", `/api/v1/orders${qs}`, { token: u.token })).body;
  const cancelAll = async (u: U) => srv.http("DELETE", "/api/v1/orders", { token: u.token });
  const refusedField = (
    res: { status: number; body: { error: { code: string; fields?: Array<{ field: string; rule: string }> } } },
    field: string,
  ) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.fields?.map((f) => f.field)).toContain(field);
  };

  afterEach(async () => {
    for (const u of [alice, bob, carol]) await cancelAll(u);
  });

  test("the new fields' rules are 400 VALIDATION_ERROR naming the field, and nothing changes", async () => {
    const before = await balance(alice);
    const soon = new Date(Date.now() + 2_000).toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    refusedField(await order(alice, { orderType: "GTD", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE }), "expiresAt");
    refusedField(
      await order(alice, { orderType: "GTD", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, expiresAt: soon }),
      "expiresAt",
    );
    refusedField(
      await order(alice, {
        orderType: "GTD",
        side: "BUY",
        outcome: "YES",
        price: 0.3,
        quantity: SHARE,
        expiresAt: new Date(Date.now() + 400 * 86400_000).toISOString(),
      }),
      "expiresAt",
    );
    refusedField(
      await order(alice, { orderType: "GTD", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, expiresAt: "tomorrow" }),
      "expiresAt",
    );
    refusedField(
      await order(alice, { orderType: "GTC", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, expiresAt: later }),
      "expiresAt",
    );
    refusedField(
      await order(alice, { orderType: "FOK", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, postOnly: true }),
      "postOnly",
    );
    refusedField(
      await order(alice, { orderType: "FAK", side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, postOnly: true }),
      "postOnly",
    );
    refusedField(
      await order(alice, { side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, clientOrderId: "has space" }),
      "clientOrderId",
    );
    refusedField(
      await order(alice, { side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, clientOrderId: "x".repeat(65) }),
      "clientOrderId",
    );
    refusedField(await srv.http("POST", "/api/v1/heartbeats", { token: alice.token, body: { timeoutSeconds: 4 } }), "timeoutSeconds");
    refusedField(await srv.http("POST", "/api/v1/heartbeats", { token: alice.token, body: { timeoutSeconds: 301 } }), "timeoutSeconds");
    expect(await balance(alice)).toEqual(before);
    expect((await openOrders(alice)).data).toEqual([]);
  });

  test("GTD: rests, shows its deadline, and at that time is cancelled with status expired and its lock released (socket update and notification)", async () => {
    const ws: TestSocket = await connectSocket(srv.url, { autoPingMs: 2000 });
    ws.subscribe({ channel: "user", token: alice.token });
    await ws.waitFor((m) => m.type === "subscribed");
    const expiresAt = new Date(Date.now() + 5_500).toISOString();
    const r = await order(alice, {
      orderType: "GTD",
      side: "BUY",
      outcome: "YES",
      price: 0.3,
      quantity: SHARE,
      expiresAt,
      clientOrderId: "gtd-1",
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      orderType: "GTD",
      status: "open",
      expiresAt: new Date(Date.parse(expiresAt)).toISOString(),
      clientOrderId: "gtd-1",
      cancelledQuantity: "0",
      cancelReason: null,
    });
    expect((await balance(alice)).locked).toBe(String(0.3 * SHARE));
    const listed = (await openOrders(alice)).data[0];
    expect(listed).toMatchObject({ orderId: r.body.data.orderId, expiresAt: r.body.data.expiresAt, status: "open" });
    const update = await ws.waitFor(
      (m) => m.type === "update" && (m as { data?: { order?: { status: string } } }).data?.order?.status === "expired",
      { timeoutMs: 15_000 },
    );
    const expiredAt = Date.now();
    expect(expiredAt).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect((update as { data: { order: unknown } }).data.order).toMatchObject({
      orderId: r.body.data.orderId,
      clientOrderId: "gtd-1",
      cancelReason: "expired",
      remainingQuantity: "0",
    });
    expect((await balance(alice)).locked).toBe("0");
    const closed = (await openOrders(alice, "?status=closed")).data.find((o: { orderId: string }) => o.orderId === r.body.data.orderId);
    expect(closed).toMatchObject({ status: "expired", cancelReason: "expired", cancelledQuantity: String(SHARE), remainingQuantity: "0" });
    await waitFor("expiry notification", async () => {
      const n = await srv.http("GET", "/api/v1/notifications", { token: alice.token });
      return n.body.data.find(
        (x: { type: string; metadata: { orderId?: string; reason?: string } }) =>
          x.type === "ORDER_CANCELLED" && x.metadata.orderId === r.body.data.orderId && x.metadata.reason === "EXPIRED",
      );
    });
    ws.close();
  });

  test("FAK: fills what it can at once, cancels the rest; nothing rests or stays locked", async () => {
    await order(bob, { side: "BUY", outcome: "NO", price: 0.6, quantity: SHARE });
    const r = await order(alice, { orderType: "FAK", side: "BUY", outcome: "YES", price: 0.4, quantity: 3 * SHARE });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      orderType: "FAK",
      status: "cancelled",
      filledQuantity: String(SHARE),
      remainingQuantity: "0",
      cancelledQuantity: String(2 * SHARE),
    });
    expect((await balance(alice)).locked).toBe("0");
    const none = await order(alice, { orderType: "FAK", side: "BUY", outcome: "YES", price: 0.1, quantity: SHARE });
    expect(none.body.data).toMatchObject({ status: "cancelled", filledQuantity: "0", cancelledQuantity: String(SHARE) });
    expect((await openOrders(alice)).data).toEqual([]);
    const book = await srv.http("GET", `/api/v1/markets/${market}/orderbook`);
    expect(book.body.data.bids).toEqual([]);
  });

  test("post-only: refused whole when it would execute at once (nothing changes); accepted when it rests", async () => {
    await order(bob, { side: "BUY", outcome: "NO", price: 0.6, quantity: SHARE });
    const before = await balance(alice);
    const refused = await order(alice, { side: "BUY", outcome: "YES", price: 0.4, quantity: SHARE, postOnly: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("POST_ONLY_WOULD_CROSS");
    expect(await balance(alice)).toEqual(before);
    const rests = await order(alice, {
      orderType: "GTD",
      side: "BUY",
      outcome: "YES",
      price: 0.39,
      quantity: SHARE,
      postOnly: true,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(rests.body.data).toMatchObject({ status: "open", postOnly: true });
  });

  test("clientOrderId: echoed, unique among the caller's open orders (409), free again once the order closed, a filter of GET /orders", async () => {
    const a = await order(alice, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE, clientOrderId: "mm.q-1:a_b" });
    expect(a.body.data.clientOrderId).toBe("mm.q-1:a_b");
    const dup = await order(alice, { side: "BUY", outcome: "YES", price: 0.21, quantity: SHARE, clientOrderId: "mm.q-1:a_b" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("DUPLICATE_CLIENT_ORDER_ID");
    // Another user may use it.
    expect((await order(bob, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE, clientOrderId: "mm.q-1:a_b" })).status).toBe(200);
    await srv.http("DELETE", `/api/v1/orders/${a.body.data.orderId}`, { token: alice.token });
    const again = await order(alice, { side: "BUY", outcome: "YES", price: 0.22, quantity: SHARE, clientOrderId: "mm.q-1:a_b" });
    expect(again.status).toBe(200);
    const byId = await openOrders(alice, "?status=all&clientOrderId=mm.q-1:a_b");
    expect(byId.data.map((o: { orderId: string }) => o.orderId)).toEqual([again.body.data.orderId, a.body.data.orderId]);
    expect(byId.pagination).toMatchObject({ total: 2, page: 1, pageSize: 100 });
  });

  test("Idempotency-Key: the same key 20 times at once executes once and answers 20 identical bodies; another body is 409; over 255 characters 400", async () => {
    const key = `k-${Date.now()}`;
    const body = { side: "BUY", outcome: "YES", price: 0.25, quantity: SHARE };
    const all = await Promise.all(Array.from({ length: 20 }, () => order(carol, body, { "idempotency-key": key })));
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
    const first = JSON.stringify(all[0].body.data);
    for (const r of all) expect(JSON.stringify(r.body.data)).toBe(first);
    expect(new Set(all.map((r) => r.body.requestId)).size).toBe(20);
    expect(all.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    expect((await openOrders(carol)).data).toHaveLength(1);
    expect((await balance(carol)).locked).toBe(String(0.25 * SHARE));
    const later = await order(carol, body, { "idempotency-key": key });
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(JSON.stringify(later.body.data)).toBe(first);
    const other = await order(carol, { ...body, price: 0.26 }, { "idempotency-key": key });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    refusedField(await order(carol, body, { "idempotency-key": "x".repeat(256) }), "Idempotency-Key");
    // A refusal is not kept: the key can be used once the request can succeed.
    const k2 = `${key}-refused`;
    const refusedOnce = await order(carol, { ...body, quantity: 100_000 * SHARE }, { "idempotency-key": k2 });
    expect(refusedOnce.body.error.code).toBe("INSUFFICIENT_BALANCE");
    // AMM/market trades and the batch take keys too (the batch below).
  });

  test("Idempotency-Key: an omitted default and the default sent are the same request (orders and batch items); a plain key never answers a batch item", async () => {
    const key = `d-${Date.now()}`;
    const body = { side: "BUY", outcome: "YES", price: 0.21, quantity: SHARE };
    const first = await order(carol, body, { "idempotency-key": key });
    expect(first.status).toBe(200);
    const explicit = await order(carol, { ...body, postOnly: false }, { "idempotency-key": key });
    expect([explicit.status, explicit.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(explicit.body.data).toEqual(first.body.data);
    expect((await order(carol, { ...body, postOnly: true }, { "idempotency-key": key })).body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");

    const item = { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.22, quantity: SHARE };
    const batch = (orders: object[], k: string) =>
      srv.http("POST", "/api/v1/orders/batch", { token: carol.token, body: { orders }, headers: { "idempotency-key": k } });
    const b1 = await batch([item], `${key}-b`);
    const b2 = await batch([{ ...item, postOnly: false }], `${key}-b`);
    expect([b2.status, b2.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(b2.body.data).toEqual(b1.body.data);
    expect((await openOrders(carol)).data).toHaveLength(2);

    // A plain order under the key "<batch key>#0" and item 0 of that batch are two requests.
    const plain = await order(carol, { ...body, price: 0.23 }, { "idempotency-key": `${key}-c#0` });
    expect(plain.status).toBe(200);
    const c = await batch([{ ...item, price: 0.24 }], `${key}-c`);
    expect(c.body.data).toEqual([{ ok: true, order: expect.objectContaining({ price: "0.24", status: "open" }) }]);
    expect(c.body.data[0].order.orderId).not.toBe(plain.body.data.orderId);
    expect((await openOrders(carol)).data).toHaveLength(4);
  });

  test("POST /orders/batch: each order stands alone; one bad order among good ones; answers in request order", async () => {
    const r = await srv.http("POST", "/api/v1/orders/batch", {
      token: alice.token,
      body: {
        orders: [
          { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.11, quantity: SHARE, clientOrderId: "b1" },
          { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.115, quantity: SHARE },
          { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.12, quantity: 10_000 * SHARE },
          { marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.13, quantity: SHARE, clientOrderId: "b4" },
        ],
      },
    });
    expect(r.status).toBe(200);
    const d = r.body.data as Array<{
      ok: boolean;
      order?: { clientOrderId: string; status: string };
      error?: { code: string; fields?: Array<{ field: string }> };
    }>;
    expect(d.map((x) => x.ok)).toEqual([true, false, false, true]);
    expect(d[0].order).toMatchObject({ clientOrderId: "b1", status: "open" });
    expect(d[1].error).toMatchObject({ code: "VALIDATION_ERROR", fields: [expect.objectContaining({ field: "price" })] });
    expect(d[2].error?.code).toBe("INSUFFICIENT_BALANCE");
    expect(d[3].order).toMatchObject({ clientOrderId: "b4" });
    expect((await openOrders(alice)).data.map((o: { clientOrderId: string }) => o.clientOrderId).sort()).toEqual(["b1", "b4"]);
    refusedField(await srv.http("POST", "/api/v1/orders/batch", { token: alice.token, body: { orders: [] } }), "orders");
    refusedField(
      await srv.http("POST", "/api/v1/orders/batch", { token: alice.token, body: { orders: Array(21).fill({ marketId: market }) } }),
      "orders",
    );
    // With a key: replayed whole, nothing placed twice.
    const body = { orders: [{ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.14, quantity: SHARE }] };
    const k = `batch-${Date.now()}`;
    const b1 = await srv.http("POST", "/api/v1/orders/batch", { token: alice.token, body, headers: { "idempotency-key": k } });
    const b2 = await srv.http("POST", "/api/v1/orders/batch", { token: alice.token, body, headers: { "idempotency-key": k } });
    expect(b2.headers.get("idempotent-replayed")).toBe("true");
    expect(b2.body.data).toEqual(b1.body.data);
    expect((await openOrders(alice)).data).toHaveLength(3);
  });

  test("DELETE /orders: cancels every open order (or one market's) and says what it released", async () => {
    const other = await createMarket(srv, "Second market?");
    await order(alice, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE });
    await order(alice, { side: "BUY", outcome: "NO", price: 0.3, quantity: SHARE });
    await srv.http("POST", "/api/v1/orders", {
      token: alice.token,
      body: { marketId: other, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: SHARE },
    });
    const one = await srv.http("DELETE", `/api/v1/orders?marketId=${other}`, { token: alice.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ cancelled: [expect.any(String)], releasedAmount: String(0.5 * SHARE) });
    const rest = await cancelAll(alice);
    expect(rest.body.data.cancelled).toHaveLength(2);
    expect(rest.body.data.releasedAmount).toBe(String(0.5 * SHARE));
    expect((await balance(alice)).locked).toBe("0");
    expect((await cancelAll(alice)).body.data).toEqual({ cancelled: [], releasedAmount: "0" });
    const closed = await openOrders(alice, "?status=closed&pageSize=2");
    expect(closed.data).toHaveLength(2);
    expect(closed.data[0]).toMatchObject({ status: "cancelled", cancelReason: "user" });
    expect(closed.pagination).toMatchObject({ page: 1, pageSize: 2, hasNext: true });
  });

  test("PATCH /orders/:id: a lower quantity keeps time priority, a new price loses it (who fills first shows it); refused terms leave the order as it was", async () => {
    const a = await order(alice, { side: "BUY", outcome: "YES", price: 0.4, quantity: 2 * SHARE });
    const b = await order(bob, { side: "BUY", outcome: "YES", price: 0.4, quantity: 2 * SHARE });
    // Down: alice keeps her place ahead of bob.
    const down = await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, { token: alice.token, body: { quantity: SHARE } });
    expect(down.status).toBe(200);
    expect(down.body.data).toMatchObject({
      orderId: a.body.data.orderId,
      remainingQuantity: String(SHARE),
      quantity: String(SHARE),
      status: "open",
    });
    expect((await balance(alice)).locked).toBe(String(0.4 * SHARE));
    const fill1 = await order(carol, { orderType: "FAK", side: "BUY", outcome: "NO", price: 0.6, quantity: SHARE / 2 });
    expect(fill1.body.data.filledQuantity).toBe(String(SHARE / 2));
    const afterFirst = (await openOrders(alice)).data[0];
    expect(afterFirst).toMatchObject({ orderId: a.body.data.orderId, filledQuantity: String(SHARE / 2), status: "partially_filled" });
    // A new price: alice goes behind bob at 0.40 even coming back to it.
    const moved = await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, { token: alice.token, body: { price: 0.39 } });
    expect(moved.status).toBe(200);
    const back = await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, {
      token: alice.token,
      body: { price: 0.4, quantity: SHARE },
    });
    expect(back.body.data).toMatchObject({ price: "0.40", remainingQuantity: String(SHARE), filledQuantity: String(SHARE / 2) });
    const fill2 = await order(carol, { orderType: "FAK", side: "BUY", outcome: "NO", price: 0.6, quantity: SHARE });
    expect(fill2.body.data.filledQuantity).toBe(String(SHARE));
    const bobNow = (await openOrders(bob)).data[0];
    expect(bobNow).toMatchObject({ orderId: b.body.data.orderId, filledQuantity: String(SHARE) });
    expect((await openOrders(alice)).data[0]).toMatchObject({ filledQuantity: String(SHARE / 2), remainingQuantity: String(SHARE) });
    // Refused: more than the balance allows; the order stands unchanged.
    const before = (await openOrders(alice)).data[0];
    const tooBig = await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, {
      token: alice.token,
      body: { quantity: 10_000 * SHARE },
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.code).toBe("INSUFFICIENT_BALANCE");
    expect((await openOrders(alice)).data[0]).toEqual(before);
    // Another user's order, and an empty amend.
    expect(
      (await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, { token: bob.token, body: { price: 0.3 } })).body.error.code,
    ).toBe("ORDER_NOT_FOUND");
    refusedField(await srv.http("PATCH", `/api/v1/orders/${a.body.data.orderId}`, { token: alice.token, body: {} }), "price");
  });

  test("dead man's switch: armed, re-armed, disarmed; left to lapse it cancels every open order with reason heartbeat", async () => {
    const armed = await srv.http("POST", "/api/v1/heartbeats", { token: bob.token, body: { timeoutSeconds: 5 } });
    expect(armed.status).toBe(200);
    expect(armed.body.data).toMatchObject({ armed: true, expiresAt: expect.any(String) });
    const off = await srv.http("POST", "/api/v1/heartbeats", { token: bob.token, body: { timeoutSeconds: 0 } });
    expect(off.body.data).toEqual({ armed: false, expiresAt: null });
    await order(bob, { side: "BUY", outcome: "YES", price: 0.2, quantity: SHARE, clientOrderId: "hb-1" });
    await order(bob, { side: "BUY", outcome: "NO", price: 0.2, quantity: SHARE });
    await srv.http("POST", "/api/v1/heartbeats", { token: bob.token, body: { timeoutSeconds: 5 } });
    await new Promise((r) => setTimeout(r, 3_000));
    // Re-armed in time: still standing.
    await srv.http("POST", "/api/v1/heartbeats", { token: bob.token, body: { timeoutSeconds: 5 } });
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await openOrders(bob)).data).toHaveLength(2);
    await waitFor("heartbeat lapse", async () => ((await openOrders(bob)).data.length === 0 ? true : null), 10_000, 200);
    const closed = (await openOrders(bob, "?status=closed")).data.slice(0, 2);
    expect(closed.map((o: { cancelReason: string }) => o.cancelReason)).toEqual(["heartbeat", "heartbeat"]);
    expect((await balance(bob)).locked).toBe("0");
    await waitFor("heartbeat notification", async () => {
      const n = await srv.http("GET", "/api/v1/notifications", { token: bob.token });
      return (
        n.body.data.some(
          (x: { type: string; metadata: { reason?: string } }) => x.type === "ORDER_CANCELLED" && x.metadata.reason === "HEARTBEAT",
        ) || null
      );
    });
  });

  test("GET /transfers: deposits (credited) and withdrawals, newest first, paged and filtered", async () => {
    const t = await srv.http("GET", "/api/v1/transfers", { token: alice.token });
    expect(t.status).toBe(200);
    expect(t.body.pagination).toMatchObject({ page: 1, pageSize: 20 });
    refusedField(await srv.http("GET", "/api/v1/transfers?type=refund", { token: alice.token }), "type");
    refusedField(await srv.http("GET", "/api/v1/transfers?pageSize=101", { token: alice.token }), "pageSize");
  });
});
