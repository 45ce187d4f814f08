/**
 * The SDK's trader API (../shared/spec/trading-api.md) against a started exchange on the sandbox
 * chain: order options, Idempotency-Key on every trade write with the `replayed` flag, a lost
 * answer sent again safely, batch, amend, cancel-all, order history pages, the dead man's switch
 * (kept alive, then left to lapse), transfers, and the user channel's order updates.
 */
import {
  BadRequestError,
  collect,
  ConflictError,
  INDEX_SET,
  NetworkError,
  newIdempotencyKey,
  NotFoundError,
  PmxClient,
  randomKeyPair,
  toMicro,
  type ApiError,
  type OrderUpdate,
  type PlaceOrderRequest,
  type PmxSocket,
  type UserUpdate,
} from "../../client/src";
import { startChainServer, waitFor } from "../support/chain";
import { TEST_DOMAIN, type TestServer } from "../support/server";
import { createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { Refusal } from "../../engine/refusal";

jest.setTimeout(180_000);

async function refusal<E extends ApiError>(p: Promise<unknown>, cls: abstract new (...a: never[]) => E, code: string): Promise<E> {
  const err = await p.then(
    () => {
      throw new Error(`expected ${cls.name} ${code}, got success`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(cls);
  expect((err as E).code).toBe(code);
  return err as E;
}

describe("SDK: the trader API", () => {
  let srv: TestServer;
  let market: string;
  let alice: PmxClient;
  let bob: PmxClient;
  const sockets: PmxSocket[] = [];

  const login = async (o: Partial<ConstructorParameters<typeof PmxClient>[0]> = {}): Promise<PmxClient> => {
    const c = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN, ...o });
    const s = await c.auth.loginWithKeyPair(randomKeyPair());
    await fund(srv.broker, s.userId, 1000 * SHARE);
    return c;
  };
  const limit = (o: Partial<PlaceOrderRequest> & Pick<PlaceOrderRequest, "price">): PlaceOrderRequest => ({
    marketId: market,
    side: "BUY",
    outcome: "YES",
    orderType: "GTC",
    quantity: SHARE,
    ...o,
  });
  const userUpdates = async (c: PmxClient) => {
    const ws = c.socket({ pingIntervalMs: 2000 });
    sockets.push(ws);
    await ws.connect();
    const orders: OrderUpdate[] = [];
    const sub = ws.subscribeUser({ onUpdate: (u: UserUpdate) => "order" in u && orders.push(u.order) });
    await sub.ready;
    return orders;
  };

  beforeAll(async () => {
    srv = await startChainServer({ TAKER_FEE_BPS: "0" });
    market = await createMarket(srv, "Will the SDK trade safely?", String(500 * SHARE));
    alice = await login();
    bob = await login();
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    for (const c of [alice, bob]) await c.orders.cancelAll();
    await expectConserved(srv.broker);
  });
  afterAll(() => srv.stop());

  test("orders.place: GTD with its deadline, post-only, client order ids, FAK; refusals are typed errors", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const gtd = await alice.orders.place(limit({ orderType: "GTD", price: 0.3, expiresAt, postOnly: true, clientOrderId: "sdk:q-1" }));
    expect(gtd).toMatchObject({
      orderType: "GTD",
      status: "open",
      expiresAt,
      postOnly: true,
      clientOrderId: "sdk:q-1",
      cancelledQuantity: "0",
      cancelReason: null,
    });
    expect(gtd.replayed).toBe(false);
    await refusal(alice.orders.place(limit({ price: 0.29, clientOrderId: "sdk:q-1" })), ConflictError, "DUPLICATE_CLIENT_ORDER_ID");
    const e = await refusal(alice.orders.place(limit({ orderType: "GTD", price: 0.3 })), BadRequestError, "VALIDATION_ERROR");
    expect(e.fields.map((f) => f.field)).toEqual(["expiresAt"]);
    // Bob's NO bid at 0.60 is a YES ask at 0.40: a post-only bid there would execute at once.
    await bob.orders.place(limit({ outcome: "NO", price: 0.6, quantity: 2 * SHARE }));
    await refusal(alice.orders.place(limit({ price: 0.4, postOnly: true })), BadRequestError, "POST_ONLY_WOULD_CROSS");
    const fak = await alice.orders.place(limit({ orderType: "FAK", price: 0.4, quantity: 3 * SHARE }));
    expect(fak).toMatchObject({
      status: "cancelled",
      filledQuantity: String(2 * SHARE),
      cancelledQuantity: String(SHARE),
      remainingQuantity: "0",
      cancelReason: null,
    });
  });

  test("idempotencyKey: a second send answers the first answer (replayed) and executes nothing; another body is IDEMPOTENCY_KEY_REUSED; an overlong key is refused", async () => {
    const key = newIdempotencyKey();
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(newIdempotencyKey()).not.toBe(key);
    const body = limit({ price: 0.21, clientOrderId: "sdk-idem" });
    const [first, again] = [
      await alice.orders.place(body, { idempotencyKey: key }),
      await alice.orders.place(body, { idempotencyKey: key }),
    ];
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    // The flag is not enumerable: the answer equals the server's data, also in JSON.
    expect(again).toEqual(first);
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect((await alice.orders.list({ clientOrderId: "sdk-idem" })).items).toHaveLength(1);
    await refusal(alice.orders.place({ ...body, price: 0.22 }, { idempotencyKey: key }), ConflictError, "IDEMPOTENCY_KEY_REUSED");
    const long = await refusal(alice.orders.place(body, { idempotencyKey: "k".repeat(256) }), BadRequestError, "VALIDATION_ERROR");
    expect(long.fields).toEqual([{ field: "Idempotency-Key", rule: "stringMax" }]);
    // Keys are the caller's: Bob's same key is a request of his own.
    expect((await bob.orders.place(limit({ price: 0.21 }), { idempotencyKey: key })).replayed).toBe(false);
  });

  test("a lost answer: with a key and retry on, the SDK sends the request again and gets the first answer (executed once); without a key it cannot know, and says so", async () => {
    let lose = 0;
    // The request reaches the exchange and executes; only its answer is lost on the way back.
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (lose > 0 && init?.method === "POST") {
        lose--;
        await res.text();
        throw new TypeError("socket hang up");
      }
      return res;
    };
    const waits: string[] = [];
    const c = new PmxClient({
      baseUrl: srv.url,
      domain: TEST_DOMAIN,
      session: alice.session,
      fetch: lossy,
      retry: { maxRetries: 2, maxWaitSeconds: 5, onWait: (s, err) => waits.push(`${s} ${err.constructor.name}`) },
    });
    lose = 1;
    const o = await c.orders.place(limit({ price: 0.17, clientOrderId: "sdk-lost-1" }), { idempotencyKey: newIdempotencyKey() });
    expect(o.replayed).toBe(true);
    expect(waits).toEqual(["1 NetworkError"]);
    expect((await alice.orders.list({ clientOrderId: "sdk-lost-1" })).items.map((x) => x.orderId)).toEqual([o.orderId]);
    // Without a key a retry could place it twice, so the SDK does not retry: the caller learns the
    // answer was lost (and the order did execute).
    lose = 1;
    await expect(c.orders.place(limit({ price: 0.16, clientOrderId: "sdk-lost-2" }))).rejects.toBeInstanceOf(NetworkError);
    expect(waits).toHaveLength(1);
    expect((await alice.orders.list({ clientOrderId: "sdk-lost-2" })).items).toHaveLength(1);
  });

  test("orders.batch: results in request order, narrowed by `ok`; a key replays the whole batch", async () => {
    const key = newIdempotencyKey();
    const orders = [
      limit({ price: 0.11, clientOrderId: "sdk-b1" }),
      limit({ price: 0.115 }),
      limit({ price: 0.12, quantity: 10_000 * SHARE }),
    ];
    const r = await alice.orders.batch(orders, { idempotencyKey: key });
    expect(r.map((x) => x.ok)).toEqual([true, false, false]);
    const [ok, tick, money] = r;
    if (!ok.ok || tick.ok || money.ok) throw new Error("narrowing");
    expect(ok.order).toMatchObject({ clientOrderId: "sdk-b1", status: "open", price: "0.11" });
    expect(tick.error).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "price", rule: "tick" }] });
    expect(money.error.code).toBe("INSUFFICIENT_BALANCE");
    const again = await alice.orders.batch(orders, { idempotencyKey: key });
    expect([r.replayed, again.replayed]).toEqual([false, true]);
    expect(again).toEqual(r);
    expect((await alice.orders.open()).map((o) => o.clientOrderId)).toEqual(["sdk-b1"]);
  });

  test("orders.amend: same id, new terms; a lower quantity keeps the place in the queue; refusals leave it standing", async () => {
    const a = await alice.orders.place(limit({ price: 0.4, quantity: 2 * SHARE, clientOrderId: "sdk-amend" }));
    await bob.orders.place(limit({ price: 0.4, quantity: 2 * SHARE }));
    const down = await alice.orders.amend(a.orderId, { quantity: SHARE });
    expect(down).toMatchObject({
      orderId: a.orderId,
      price: "0.40",
      quantity: String(SHARE),
      remainingQuantity: String(SHARE),
      clientOrderId: "sdk-amend",
      createdAt: a.createdAt,
    });
    // Alice is still first at 0.40: a seller meets her order before Bob's.
    await bob.orders.place(limit({ outcome: "NO", orderType: "FAK", price: 0.6, quantity: SHARE / 2 }));
    expect((await alice.orders.open())[0]).toMatchObject({
      orderId: a.orderId,
      filledQuantity: String(SHARE / 2),
      status: "partially_filled",
    });
    const moved = await alice.orders.amend(a.orderId, { price: 0.39 });
    expect(moved).toMatchObject({
      orderId: a.orderId,
      price: "0.39",
      remainingQuantity: String(SHARE / 2),
      filledQuantity: String(SHARE / 2),
    });
    const before = await alice.orders.open();
    await refusal(alice.orders.amend(a.orderId, { quantity: 100_000 * SHARE }), BadRequestError, "INSUFFICIENT_BALANCE");
    expect(await alice.orders.open()).toEqual(before);
    await refusal(bob.orders.amend(a.orderId, { price: 0.3 }), NotFoundError, "ORDER_NOT_FOUND");
  });

  test("orders.cancelAll (one market, then all), orders.list with status, client id and pages, orders.iterate and orders.open", async () => {
    const other = await createMarket(srv, "A second SDK market?");
    for (const p of [0.21, 0.22, 0.23]) await alice.orders.place(limit({ price: p }));
    const elsewhere = await alice.orders.place(limit({ marketId: other, price: 0.5 }));
    const first = await alice.orders.list({ pageSize: 2 });
    expect(first.items.map((o) => o.price)).toEqual(["0.50", "0.23"]);
    expect(first.pagination).toEqual({ total: 4, page: 1, pageSize: 2, hasNext: true });
    expect((await collect(alice.orders.iterate({ pageSize: 2 }))).map((o) => o.price)).toEqual(["0.50", "0.23", "0.22", "0.21"]);
    expect((await alice.orders.open({ marketId: other })).map((o) => o.orderId)).toEqual([elsewhere.orderId]);
    const one = await alice.orders.cancelAll({ marketId: other });
    expect(one).toEqual({ cancelled: [elsewhere.orderId], releasedAmount: String(0.5 * SHARE) });
    const rest = await alice.orders.cancelAll();
    expect(rest.cancelled).toHaveLength(3);
    expect(rest.releasedAmount).toBe(String(0.66 * SHARE));
    expect(await alice.orders.cancelAll()).toEqual({ cancelled: [], releasedAmount: "0" });
    const closed = await alice.orders.list({ status: "closed", pageSize: 4 });
    // Newest first by creation: the four just cancelled.
    expect(closed.items.map((o) => [o.price, o.status, o.cancelReason])).toEqual([
      ["0.50", "cancelled", "user"],
      ["0.23", "cancelled", "user"],
      ["0.22", "cancelled", "user"],
      ["0.21", "cancelled", "user"],
    ]);
    expect((await alice.orders.list({ status: "all", pageSize: 500 })).pagination.pageSize).toBe(500);
    await refusal(alice.orders.list({ pageSize: 501 }), BadRequestError, "VALIDATION_ERROR");
  });

  test("what the README records where the contract is silent: post-only against one's own order, an amend to the same terms, a FAK's rest, batch field names", async () => {
    const ask = await alice.orders.place(limit({ outcome: "NO", price: 0.55 })); // a YES ask at 0.45
    await refusal(alice.orders.place(limit({ price: 0.45, postOnly: true })), BadRequestError, "POST_ONLY_WOULD_CROSS");
    // The same terms again change nothing: Alice stays ahead of Bob at 0.55 NO.
    const behind = await bob.orders.place(limit({ outcome: "NO", price: 0.55 }));
    const same = await alice.orders.amend(ask.orderId, { price: 0.55, quantity: SHARE });
    expect(same).toMatchObject({ orderId: ask.orderId, status: "open", remainingQuantity: String(SHARE), fills: [] });
    const carol = await login();
    const fak = await carol.orders.place(limit({ orderType: "FAK", price: 0.45, quantity: SHARE / 2 }));
    expect(fak).toMatchObject({ status: "filled", filledQuantity: String(SHARE / 2), cancelledQuantity: "0" });
    expect((await alice.orders.open())[0]).toMatchObject({ orderId: ask.orderId, filledQuantity: String(SHARE / 2) });
    expect((await bob.orders.open())[0]).toMatchObject({ orderId: behind.orderId, filledQuantity: "0" });
    // A FAK's unfilled rest: cancelled, with no cancel reason (it never rested).
    const rest = await carol.orders.place(limit({ orderType: "FAK", price: 0.45, quantity: 3 * SHARE }));
    expect(rest).toMatchObject({
      status: "cancelled",
      filledQuantity: String(1.5 * SHARE),
      cancelledQuantity: String(1.5 * SHARE),
      cancelReason: null,
    });
    expect((await carol.orders.list({ status: "closed", pageSize: 1 })).items[0]).toMatchObject({
      orderId: rest.orderId,
      status: "cancelled",
      cancelReason: null,
    });
    const [bad] = await alice.orders.batch([{ ...limit({ price: 0.5 }), price: 2 }]);
    expect(bad).toEqual({
      ok: false,
      error: { code: "VALIDATION_ERROR", message: expect.any(String), fields: [{ field: "orders[0].price", rule: "numberMax" }] },
    });
  });

  test("heartbeats: send and disarm; keepAlive holds the switch while it runs; stopped without disarming, the switch lapses and the user channel tells why", async () => {
    expect(await alice.heartbeats.send(30)).toEqual({ armed: true, expiresAt: expect.any(String) });
    expect(await alice.heartbeats.disarm()).toEqual({ armed: false, expiresAt: null });
    await refusal(alice.heartbeats.send(4), BadRequestError, "VALIDATION_ERROR");

    const updates = await userUpdates(bob);
    const errors: unknown[] = [];
    const keeper = bob.heartbeats.keepAlive(5, { onError: (e) => errors.push(e) });
    expect((await keeper.ready).armed).toBe(true);
    const o = await bob.orders.place(limit({ price: 0.15, clientOrderId: "sdk-hb" }));
    // Longer than the timeout: re-armed in time, the order stands.
    await new Promise((r) => setTimeout(r, 7_000));
    expect((await bob.orders.open()).map((x) => x.orderId)).toEqual([o.orderId]);
    expect(Date.parse(keeper.last?.expiresAt as string)).toBeGreaterThan(Date.now());
    await keeper.stop({ disarm: false });
    const update = await waitFor(
      "heartbeat cancel",
      async () => updates.find((u) => u.orderId === o.orderId && u.status === "cancelled"),
      15_000,
      100,
    );
    expect(update).toMatchObject({ clientOrderId: "sdk-hb", cancelReason: "heartbeat", remainingQuantity: "0" });
    expect(errors).toEqual([]);
    // stop() disarms by default.
    const k2 = bob.heartbeats.keepAlive(60);
    await k2.ready;
    await k2.stop();
    expect(k2.last).toEqual({ armed: false, expiresAt: null });
  });

  test("a GTD order expiring reaches the user channel as status expired with its client id", async () => {
    const updates = await userUpdates(alice);
    const o = await alice.orders.place(
      limit({ orderType: "GTD", price: 0.14, expiresAt: new Date(Date.now() + 5_500).toISOString(), clientOrderId: "sdk-gtd" }),
    );
    const u = await waitFor("expiry", async () => updates.find((x) => x.orderId === o.orderId && x.status === "expired"), 15_000, 100);
    expect(u).toMatchObject({ cancelReason: "expired", clientOrderId: "sdk-gtd", remainingQuantity: "0" });
    expect((await alice.orders.list({ status: "closed", clientOrderId: "sdk-gtd" })).items[0]).toMatchObject({
      status: "expired",
      cancelReason: "expired",
      cancelledQuantity: String(SHARE),
    });
  });

  test("the other trade writes take keys too: AMM and routed trades, withdrawals and redemptions replay their first answer; transfers list what moved", async () => {
    const c = await login();
    await c.wallet.faucet({ amount: toMicro(50) });
    await waitFor("credit", async () => BigInt((await c.portfolio.balance()).available) >= BigInt(1000 * SHARE + 50 * SHARE));
    await c.wallet.faucet({ amount: "500000000", asset: "TON" });

    const trade = { marketId: market, side: "BUY", outcome: "YES", quantity: toMicro(4) } as const;
    const k1 = newIdempotencyKey();
    const amm = [await c.trade.amm(trade, { idempotencyKey: k1 }), await c.trade.amm(trade, { idempotencyKey: k1 })];
    expect(amm[1]).toEqual(amm[0]);
    expect(amm.map((t) => t.replayed)).toEqual([false, true]);
    const k2 = newIdempotencyKey();
    const routed = [await c.trade.market(trade, { idempotencyKey: k2 }), await c.trade.market(trade, { idempotencyKey: k2 })];
    expect(routed[1]).toEqual(routed[0]);
    expect(routed[1].replayed).toBe(true);
    expect((await c.portfolio.trades()).pagination.total).toBe(2);

    const k3 = newIdempotencyKey();
    const w = [
      await c.wallet.withdraw({ amount: toMicro(5) }, { idempotencyKey: k3 }),
      await c.wallet.withdraw({ amount: toMicro(5) }, { idempotencyKey: k3 }),
    ];
    expect(w[0]).toMatchObject({ status: "accepted", txHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // The replay is the first answer itself, not the server's "duplicate" answer to a new request.
    expect(w[1]).toEqual(w[0]);
    expect(w[1].replayed).toBe(true);
    expect((await c.wallet.withdraw({ amount: toMicro(5) })).status).toBe("duplicate");

    const deposits = await waitFor("the TON deposit recorded", async () => {
      const p = await c.portfolio.transfers({ type: "deposit" });
      return p.items.length === 2 ? p.items : null;
    });
    expect(deposits.map((t) => [t.status, t.asset, t.reason])).toEqual(
      expect.arrayContaining([
        ["credited", "USDT", undefined],
        ["not_credited", "TON", "native_coin"],
      ]),
    );
    const withdrawals = (await c.portfolio.transfers({ type: "withdrawal" })).items;
    expect(withdrawals).toEqual([expect.objectContaining({ type: "withdrawal", amount: toMicro(5), txHash: w[0].txHash, asset: "USDT" })]);
    const all = await collect(c.portfolio.iterateTransfers({ pageSize: 1 }));
    expect(all).toHaveLength(3);
    // Newest first (two records of one deposit can share a millisecond).
    expect(all.map((t) => t.createdAt)).toEqual([...all.map((t) => t.createdAt)].sort().reverse());

    await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, {
      headers: { "x-admin-key": "test-admin-key" },
      body: { result: "YES" },
    });
    const m = await c.markets.get(market);
    expect((await c.portfolio.positions()).find((p) => p.marketId === market && p.outcome === "YES")).toMatchObject({ markPrice: "1.00" });
    const k4 = newIdempotencyKey();
    const body = { conditionId: m.conditionId, indexSets: [INDEX_SET.YES] };
    const r = [await c.wallet.redeem(market, body, { idempotencyKey: k4 }), await c.wallet.redeem(market, body, { idempotencyKey: k4 })];
    expect(r[0]).toMatchObject({ status: "accepted", payout: toMicro(8) });
    expect(r[1]).toEqual(r[0]);
    expect(r[1].replayed).toBe(true);
    expect((await c.wallet.redeem(market, body)).status).toBe("duplicate");
  });
});

/**
 * trading-api.md: an Idempotency-Key is "journaled with the command it names", kept "across
 * restarts and crashes", and "nothing executes twice". A withdrawal's answer is known only once the
 * chain answered, after its debit: the key is journaled with the debit (bound to the withdrawal),
 * and the answer stored by a second write. When that write does not happen (a crash, or as here the
 * ledger refusing it for a moment), the same key sent again is answered from the withdrawal's record,
 * even once the withdrawal's own duplicate window (WITHDRAW_DEDUP_MS, 60 s by default; 1 ms here to
 * show the key alone) is over.
 */
describe("a withdrawal whose answer was not stored", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startChainServer({ WITHDRAW_DEDUP_MS: "1" });
  });
  afterAll(() => srv.stop());

  test("the same Idempotency-Key after a lost answer store executes the withdrawal once and answers from its record", async () => {
    const c = new PmxClient({ baseUrl: srv.url, domain: TEST_DOMAIN });
    await c.auth.loginWithKeyPair(randomKeyPair());
    await c.wallet.faucet({ amount: toMicro(50) });
    await waitFor("credit", async () => (await c.portfolio.balance()).available === toMicro(50));
    // The ledger refuses the one write that stores the withdrawal's answer (status 202, the answer
    // itself rather than the key's binding to the debit), as if the node had died right after the chain answered.
    const ledger = (
      srv.broker.getLocalService("ledger") as unknown as {
        cores: { ledger: { post(input: { idem?: { status: number; answerFrom?: unknown } }): unknown } };
      }
    ).cores.ledger;
    const post = ledger.post.bind(ledger);
    let refuse = 1;
    ledger.post = (input) => {
      if (input.idem?.status === 202 && !input.idem.answerFrom && refuse-- > 0)
        throw new Refusal("unavailable", "LEDGER_UNAVAILABLE", "simulated: the node stopped before the answer was stored");
      return post(input);
    };
    const key = newIdempotencyKey();
    await expect(c.wallet.withdraw({ amount: toMicro(5) }, { idempotencyKey: key })).rejects.toMatchObject({ status: 503 });
    expect(refuse).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    const replay = await c.wallet.withdraw({ amount: toMicro(5) }, { idempotencyKey: key });
    expect(replay.replayed).toBe(true);
    const withdrawals = (await c.portfolio.transfers({ type: "withdrawal" })).items;
    expect(withdrawals).toHaveLength(1);
    expect(replay).toMatchObject({ status: "accepted", txHash: withdrawals[0].txHash });
    expect((await c.portfolio.balance()).available).toBe(toMicro(45));
    // Without the key, the same request is a new withdrawal (the duplicate window is 1 ms here).
    expect((await c.wallet.withdraw({ amount: toMicro(5) })).status).toBe("accepted");
    expect((await c.portfolio.transfers({ type: "withdrawal" })).items).toHaveLength(2);
  });
});
