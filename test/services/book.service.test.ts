/**
 * The book service on a real ServiceBroker, the Moleculer way, with the production middlewares
 * (AuthGuard, Idempotency, MarketRouting): its actions and events called through the broker, the
 * catalog faked as a small service, what it broadcasts and emits heard by a listener.
 *
 * The ledger is the real ledger service on a temp-dir SQLite store, not a fake: the book's answers
 * (cancel, amend and list read the order read models; a placement is refused by the ledger for
 * want of funds; the Idempotency-Key's answer is journaled with the command) are the ledger's, so
 * a fake would have to re-implement the money engine and the test would be about the fake.
 * Fencing between engine nodes is covered by test/services/fencing.test.ts.
 */
import type { SessionUser } from "../../mixins/context";
import type { PlaceView } from "../../trading/order-views";
import { fund, SHARE } from "../support/trading";
import { until } from "../support/until";
import { asUser as as, sessionUser as user, startTradingBroker, type TradingBroker } from "../support/trading-broker";

const ALICE = user("a");
const BOB = user("b");
const CAROL = user("c");

describe("book service", () => {
  let t: TradingBroker;
  let broker: TradingBroker["broker"];
  let heard: TradingBroker["heard"];
  let of: TradingBroker["of"];

  const place = (u: SessionUser | null, body: object) => broker.call<PlaceView, object>("book.place", body, as(u));
  const order = (marketId: string, side: "BUY" | "SELL", outcome: "YES" | "NO", price: number, shares: number, extra: object = {}) => ({
    marketId,
    side,
    outcome,
    orderType: "GTC",
    price,
    quantity: shares * SHARE,
    ...extra,
  });
  const balance = (u: SessionUser) =>
    broker.call<{ available: string; locked: string; total: string }, object>("ledger.balance", {}, as(u));

  beforeAll(async () => {
    t = await startTradingBroker([], { TAKER_FEE_BPS: "0", MAKER_FEE_BPS: "0" });
    ({ broker, heard, of } = t);
    for (const u of [ALICE, BOB]) await fund(broker, u.id, 100 * SHARE);
    for (const m of ["mkt_1", "mkt_2", "mkt_3", "mkt_4", "mkt_5"]) t.markets.set(m, { status: "open", ammLiquidity: "0" });
  });
  afterAll(() => t?.stop());
  beforeEach(() => {
    heard.length = 0;
  });
  afterEach(() => t.expectMoneyCheck());

  test("place: the session user is required; params and the order's rules refused before the book (400 VALIDATION_ERROR naming the field); nothing changes", async () => {
    await expect(place(null, order("mkt_1", "BUY", "YES", 0.4, 1))).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    const refused = (body: object, field: string, type: string) =>
      expect(place(ALICE, body)).rejects.toMatchObject({
        name: "ValidationError",
        code: 422,
        type: "VALIDATION_ERROR",
        data: [expect.objectContaining({ field, type })],
      });
    await refused(order("mkt_1", "BUY", "YES", 1.5, 1), "price", "numberMax");
    await refused(order("mkt_1", "BUY", "YES", 0.4, 0), "quantity", "numberPositive");
    await refused(order("mkt_1", "BUY", "YES", 0.4, 1, { side: "HOLD" }), "side", "enumValue");
    await refused(order("mkt_1", "BUY", "YES", 0.4, 1, { orderType: "IOC" }), "orderType", "enumValue");
    await refused(order("mkt 1", "BUY", "YES", 0.4, 1), "marketId", "stringPattern");
    await refused(order("mkt_1", "BUY", "YES", 0.4, 1, { price: "0.4" }), "price", "number");
    const rule = (body: object, field: string, r: string) =>
      expect(place(ALICE, body)).rejects.toMatchObject({ code: 400, type: "VALIDATION_ERROR", data: { fields: [{ field, rule: r }] } });
    await rule(order("mkt_1", "BUY", "YES", 0.405, 1), "price", "tick");
    await rule({ ...order("mkt_1", "BUY", "YES", 0.4, 1), quantity: 150 }, "quantity", "lot");
    await rule(order("mkt_1", "BUY", "YES", 0.4, 1, { orderType: "GTD" }), "expiresAt", "required");
    await rule(order("mkt_1", "BUY", "YES", 0.4, 1, { expiresAt: new Date(Date.now() + 60_000).toISOString() }), "expiresAt", "forbidden");
    await rule(order("mkt_1", "BUY", "YES", 0.4, 1, { orderType: "FOK", postOnly: true }), "postOnly", "forbidden");
    await rule(order("mkt_1", "BUY", "YES", 0.4, 1, { clientOrderId: "white space" }), "clientOrderId", "stringPattern");
    expect(heard).toEqual([]);
    expect(await balance(ALICE)).toEqual({ available: String(100 * SHARE), locked: "0", total: String(100 * SHARE) });
    expect(await broker.call("ledger.openMarketsOf", { userId: ALICE.id })).toEqual([]);
  });

  test("a resting order locks its cost and is broadcast (book, prices, the owner's order update); a crossing order fills, prints a trade and updates both", async () => {
    const bid = await place(ALICE, order("mkt_1", "BUY", "YES", 0.4, 10, { clientOrderId: "alice-1", userId: BOB.id }));
    expect(bid).toMatchObject({
      orderId: expect.stringMatching(/^ord_/),
      marketId: "mkt_1",
      side: "BUY",
      outcome: "YES",
      orderType: "GTC",
      price: "0.40",
      quantity: String(10 * SHARE),
      status: "open",
      filledQuantity: "0",
      remainingQuantity: String(10 * SHARE),
      clientOrderId: "alice-1",
      postOnly: false,
      fills: [],
    });
    // The order is the session user's, whatever the body says.
    expect(await balance(ALICE)).toEqual({ available: String(96 * SHARE), locked: String(4 * SHARE), total: String(100 * SHARE) });
    await until("the placement's broadcasts", () => of("order.updated").length === 1);
    expect(of("book.changed")).toEqual([
      {
        marketId: "mkt_1",
        seq: expect.any(Number),
        yes: { bids: [{ price: "0.40", quantity: String(10 * SHARE), numOrders: 1 }], asks: [] },
      },
    ]);
    expect(of("market.pricesChanged")).toEqual([{ marketId: "mkt_1", yesBid: 40, yesAsk: null, ammYes: null }]);
    expect(of("order.updated")).toEqual([
      {
        orderId: bid.orderId,
        userId: ALICE.id,
        marketId: "mkt_1",
        status: "open",
        remainingQuantity: String(10 * SHARE),
        filledDelta: "0",
        clientOrderId: "alice-1",
        cancelReason: null,
      },
    ]);
    expect(of("market.trade")).toEqual([]);

    heard.length = 0;
    // BUY NO at 0.60 meets BUY YES at 0.40: 4 shares minted.
    const taker = await place(BOB, order("mkt_1", "BUY", "NO", 0.6, 4));
    expect(taker).toMatchObject({
      status: "filled",
      filledQuantity: String(4 * SHARE),
      remainingQuantity: "0",
      avgPrice: "0.60",
      totalCost: String(2.4 * SHARE),
      fee: "0",
      tradeId: expect.stringMatching(/^trd_/),
      fills: [{ price: "0.60", quantity: String(4 * SHARE) }],
    });
    await until("the fill's broadcasts", () => of("order.updated").length === 2 && of("market.trade").length === 1);
    expect(of("market.trade")).toEqual([
      {
        marketId: "mkt_1",
        tradeId: expect.any(String),
        outcome: "YES",
        takerSide: "BUY",
        takerOutcome: "NO",
        yesPrice: 40,
        quantity: 4 * SHARE,
        notional: 1.6 * SHARE,
        at: expect.any(String),
      },
    ]);
    expect(of("order.updated")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          orderId: bid.orderId,
          userId: ALICE.id,
          status: "partially_filled",
          remainingQuantity: String(6 * SHARE),
          filledDelta: String(4 * SHARE),
          clientOrderId: "alice-1",
        }),
        expect.objectContaining({
          orderId: taker.orderId,
          userId: BOB.id,
          status: "filled",
          remainingQuantity: "0",
          filledDelta: String(4 * SHARE),
          clientOrderId: null,
        }),
      ]),
    );
    expect(of("book.changed").at(-1).yes.bids).toEqual([{ price: "0.40", quantity: String(6 * SHARE), numOrders: 1 }]);

    expect(await broker.call("book.orderbook", { marketId: "mkt_1" })).toEqual({
      bids: [{ price: "0.40", quantity: String(6 * SHARE), numOrders: 1 }],
      asks: [],
    });
    // The NO view of the same book: a YES bid at 0.40 is a NO ask at 0.60.
    expect(await broker.call("book.orderbook", { marketId: "mkt_1", outcome: "NO" })).toEqual({
      bids: [],
      asks: [{ price: "0.60", quantity: String(6 * SHARE), numOrders: 1 }],
    });
    await expect(broker.call("book.orderbook", { marketId: "mkt_unknown" })).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
    });
    await expect(broker.call("book.orderbook", { marketId: "mkt_1", outcome: "MAYBE" })).rejects.toMatchObject({ name: "ValidationError" });

    const listed = await broker.call<{ items: Array<Record<string, unknown>>; pagination: object }, object>(
      "book.listOrders",
      { status: "all", page: "1", pageSize: "10" },
      as(ALICE),
    );
    expect(listed.items).toEqual([
      expect.objectContaining({
        orderId: bid.orderId,
        price: "0.40",
        filledQuantity: String(4 * SHARE),
        remainingQuantity: String(6 * SHARE),
        status: "partially_filled",
        clientOrderId: "alice-1",
      }),
    ]);
    expect(listed.pagination).toMatchObject({ page: 1, pageSize: 10, total: 1 });
    expect(
      (await broker.call<{ items: unknown[] }, object>("book.listOrders", { clientOrderId: "alice-1" }, as(ALICE))).items,
    ).toHaveLength(1);
    expect((await broker.call<{ items: unknown[] }, object>("book.listOrders", {}, as(BOB))).items).toEqual([]);
    await expect(broker.call("book.listOrders", { pageSize: "501" }, as(ALICE))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "pageSize", type: "numberMax" })],
    });
  });

  test("domain refusals keep their code and status and change nothing: funds, FOK, post-only, client ids, closed and unknown markets", async () => {
    const before = await balance(ALICE);
    await expect(place(ALICE, order("mkt_2", "BUY", "YES", 0.5, 1000))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_BALANCE" });
    await expect(place(ALICE, order("mkt_2", "SELL", "YES", 0.5, 1))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_SHARES" });
    await place(BOB, order("mkt_2", "BUY", "YES", 0.3, 2));
    await expect(place(ALICE, order("mkt_2", "BUY", "NO", 0.7, 3, { orderType: "FOK" }))).rejects.toMatchObject({
      code: 400,
      type: "FOK_NOT_FILLED",
    });
    await expect(place(ALICE, order("mkt_2", "BUY", "NO", 0.7, 1, { postOnly: true }))).rejects.toMatchObject({
      code: 400,
      type: "POST_ONLY_WOULD_CROSS",
    });
    await place(ALICE, order("mkt_2", "BUY", "NO", 0.5, 1, { clientOrderId: "dup" }));
    await expect(place(ALICE, order("mkt_2", "BUY", "NO", 0.4, 1, { clientOrderId: "dup" }))).rejects.toMatchObject({
      code: 409,
      type: "DUPLICATE_CLIENT_ORDER_ID",
    });
    await expect(place(ALICE, order("mkt_unknown", "BUY", "YES", 0.4, 1))).rejects.toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
    t.markets.set("mkt_closed", { status: "closed", ammLiquidity: "0" });
    await expect(place(ALICE, order("mkt_closed", "BUY", "YES", 0.4, 1))).rejects.toMatchObject({ code: 400, type: "MARKET_NOT_OPEN" });
    // Only the one order that was accepted holds Alice's money (0.50 x 1 share).
    expect(await balance(ALICE)).toEqual({
      available: String(Number(before.available) - 0.5 * SHARE),
      locked: String(Number(before.locked) + 0.5 * SHARE),
      total: before.total,
    });
    // FAK: what it can at once, the rest cancelled, nothing rests.
    const fak = await place(ALICE, order("mkt_2", "BUY", "NO", 0.7, 3, { orderType: "FAK" }));
    expect(fak).toMatchObject({
      status: "cancelled",
      filledQuantity: String(2 * SHARE),
      cancelledQuantity: String(1 * SHARE),
      remainingQuantity: "0",
    });
  });

  test("cancelOrder: the caller's open order only, else 404 ORDER_NOT_FOUND; releases its lock and broadcasts the cancel", async () => {
    const o = await place(ALICE, order("mkt_3", "BUY", "YES", 0.25, 4, { clientOrderId: "to-cancel" }));
    const locked = Number((await balance(ALICE)).locked);
    heard.length = 0;
    await expect(broker.call("book.cancelOrder", { orderId: "ord_nope" }, as(ALICE))).rejects.toMatchObject({
      code: 404,
      type: "ORDER_NOT_FOUND",
    });
    await expect(broker.call("book.cancelOrder", { orderId: o.orderId }, as(BOB))).rejects.toMatchObject({
      code: 404,
      type: "ORDER_NOT_FOUND",
    });
    await expect(broker.call("book.cancelOrder", { orderId: "" }, as(ALICE))).rejects.toMatchObject({
      code: 422,
      type: "VALIDATION_ERROR",
      data: expect.arrayContaining([expect.objectContaining({ field: "orderId" })]),
    });
    await expect(broker.call("book.cancelOrder", { orderId: o.orderId }, as(null))).rejects.toMatchObject({ code: 401 });
    expect(heard).toEqual([]);

    expect(await broker.call("book.cancelOrder", { orderId: o.orderId }, as(ALICE))).toEqual({
      orderId: o.orderId,
      status: "cancelled",
      cancelledQuantity: String(4 * SHARE),
      releasedAmount: String(1 * SHARE),
    });
    expect(Number((await balance(ALICE)).locked)).toBe(locked - 1 * SHARE);
    await until("the cancel's broadcast", () => of("order.updated").length === 1);
    expect(of("order.updated")).toEqual([
      {
        orderId: o.orderId,
        userId: ALICE.id,
        marketId: "mkt_3",
        status: "cancelled",
        remainingQuantity: "0",
        filledDelta: "0",
        clientOrderId: "to-cancel",
        cancelReason: "user",
      },
    ]);
    expect(of("book.changed")).toEqual([{ marketId: "mkt_3", seq: expect.any(Number), yes: { bids: [], asks: [] } }]);
    await expect(broker.call("book.cancelOrder", { orderId: o.orderId }, as(ALICE))).rejects.toMatchObject({
      code: 404,
      type: "ORDER_NOT_FOUND",
    });
  });

  test("amend: price and/or quantity under the same id, checked like a new order; someone else's order is 404 ORDER_NOT_FOUND; a refusal leaves the order as it was", async () => {
    const o = await place(ALICE, order("mkt_3", "BUY", "YES", 0.2, 5));
    await expect(broker.call("book.amend", { orderId: o.orderId }, as(ALICE))).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "price", rule: "required" }] },
    });
    await expect(broker.call("book.amend", { orderId: o.orderId, price: 0.205 }, as(ALICE))).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "price", rule: "tick" }] },
    });
    await expect(broker.call("book.amend", { orderId: o.orderId, price: 2 }, as(ALICE))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "price", type: "numberMax" })],
    });
    await expect(broker.call("book.amend", { orderId: o.orderId, quantity: SHARE }, as(BOB))).rejects.toMatchObject({
      code: 404,
      type: "ORDER_NOT_FOUND",
    });
    await expect(broker.call("book.amend", { orderId: o.orderId, quantity: 1000 * SHARE }, as(ALICE))).rejects.toMatchObject({
      code: 400,
      type: "INSUFFICIENT_BALANCE",
    });
    expect(await broker.call("ledger.getOrder", { orderId: o.orderId })).toMatchObject({ price: 20, remaining: 5 * SHARE, status: "open" });

    heard.length = 0;
    const amended = await broker.call<PlaceView, object>("book.amend", { orderId: o.orderId, price: 0.22, quantity: 3 * SHARE }, as(ALICE));
    expect(amended).toMatchObject({
      orderId: o.orderId,
      price: "0.22",
      quantity: String(3 * SHARE),
      remainingQuantity: String(3 * SHARE),
      filledQuantity: "0",
      status: "open",
      createdAt: o.createdAt,
    });
    expect(await broker.call("ledger.getOrder", { orderId: o.orderId })).toMatchObject({ price: 22, remaining: 3 * SHARE });
    await until("the amend's broadcast", () => of("book.changed").length === 1);
    expect(of("book.changed")[0].yes.bids).toEqual([{ price: "0.22", quantity: String(3 * SHARE), numOrders: 1 }]);
  });

  test("an amend that crosses and fills its order completely prints its fills on the amended order's side", async () => {
    await place(BOB, order("mkt_5", "BUY", "YES", 0.5, 2));
    const o = await place(ALICE, order("mkt_5", "BUY", "NO", 0.4, 2));
    heard.length = 0;
    // BUY NO at 0.55 now meets BUY YES at 0.50: Alice's order fills whole and leaves the book.
    const amended = await broker.call<PlaceView, object>("book.amend", { orderId: o.orderId, price: 0.55 }, as(ALICE));
    expect(amended).toMatchObject({ orderId: o.orderId, status: "filled" });
    await until("the amend's print", () => of("market.trade").length === 1);
    expect(of("market.trade")[0]).toMatchObject({
      marketId: "mkt_5",
      takerSide: "BUY",
      takerOutcome: "NO",
      yesPrice: 50,
      quantity: 2 * SHARE,
    });
  });

  test("placeBatch: each order stands alone, answers in request order; 1..20 orders", async () => {
    await expect(broker.call("book.placeBatch", { orders: [] }, as(BOB))).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "orders", type: "arrayMin" })],
    });
    await expect(
      broker.call("book.placeBatch", { orders: Array.from({ length: 21 }, () => order("mkt_4", "BUY", "YES", 0.1, 1)) }, as(BOB)),
    ).rejects.toMatchObject({ name: "ValidationError", data: [expect.objectContaining({ field: "orders", type: "arrayMax" })] });
    const r = await broker.call<Array<{ ok: boolean; order?: PlaceView; error?: { code: string; fields?: unknown } }>, object>(
      "book.placeBatch",
      {
        orders: [
          order("mkt_4", "BUY", "YES", 0.1, 1),
          { ...order("mkt_4", "BUY", "YES", 0.1, 1), price: "cheap" },
          order("mkt_4", "BUY", "YES", 0.105, 1),
          order("mkt_4", "BUY", "YES", 0.9, 10_000),
          order("mkt_4", "BUY", "NO", 0.8, 1),
        ],
      },
      as(BOB),
    );
    expect(r).toEqual([
      { ok: true, order: expect.objectContaining({ status: "open", price: "0.10" }) },
      {
        ok: false,
        error: { code: "VALIDATION_ERROR", message: "Parameters validation error", fields: [{ field: "orders[1].price", rule: "number" }] },
      },
      { ok: false, error: { code: "VALIDATION_ERROR", message: expect.any(String), fields: [{ field: "price", rule: "tick" }] } },
      { ok: false, error: { code: "INSUFFICIENT_BALANCE", message: "Insufficient balance" } },
      { ok: true, order: expect.objectContaining({ status: "open", outcome: "NO", price: "0.80" }) },
    ]);
    expect((await broker.call<string[], object>("ledger.openOrders", { userId: BOB.id, marketId: "mkt_4" })).length).toBe(2);
  });

  test("cancelAll: every open order of the caller, or those of one market; answered with the ids and what was released", async () => {
    const open = async (u: SessionUser) =>
      (await broker.call<Array<{ _id: string; marketId: string }>, object>("ledger.openOrders", { userId: u.id })).map((o) => o._id).sort();
    const bobs = await open(BOB);
    const inMkt4 = (await broker.call<Array<{ _id: string }>, object>("ledger.openOrders", { userId: BOB.id, marketId: "mkt_4" }))
      .map((o) => o._id)
      .sort();
    expect(inMkt4.length).toBe(2);
    await expect(broker.call("book.cancelAll", { marketId: "bad id" }, as(BOB))).rejects.toMatchObject({ name: "ValidationError" });
    // A user with nothing open: nothing to cancel, nothing broadcast.
    expect(await broker.call("book.cancelAll", {}, as(CAROL))).toEqual({ cancelled: [], releasedAmount: "0" });

    heard.length = 0;
    const one = await broker.call<{ cancelled: string[]; releasedAmount: string }, object>(
      "book.cancelAll",
      { marketId: "mkt_4" },
      as(BOB),
    );
    expect([...one.cancelled].sort()).toEqual(inMkt4);
    expect(one.releasedAmount).toBe(String(0.1 * SHARE + 0.8 * SHARE));
    await until("the cancels' broadcasts", () => of("order.updated").length === 2);
    expect(of("order.updated").map((u) => [u.status, u.cancelReason])).toEqual([
      ["cancelled", "user"],
      ["cancelled", "user"],
    ]);

    const rest = await broker.call<{ cancelled: string[] }, object>("book.cancelAll", {}, as(BOB));
    expect([...rest.cancelled, ...one.cancelled].sort()).toEqual(bobs);
    expect(await open(BOB)).toEqual([]);
    expect((await balance(BOB)).locked).toBe("0");
    expect(await broker.call("book.cancelAll", {}, as(BOB))).toEqual({ cancelled: [], releasedAmount: "0" });
  });

  test("Idempotency-Key: the same order again answers the first answer (Idempotent-Replayed) and places nothing; another body under the key is 409", async () => {
    const body = order("mkt_3", "BUY", "NO", 0.3, 1);
    const viaGateway = (b: object, key: string) => t.viaGateway<PlaceView>(ALICE, "book.place", b, { idempotencyKey: key });
    const openIds = async () =>
      (await broker.call<Array<{ _id: string }>, object>("ledger.openOrders", { userId: ALICE.id, marketId: "mkt_3" }))
        .map((o) => o._id)
        .sort();
    const before = await openIds();
    const first = await viaGateway(body, "idem-1");
    expect(first.headers).toEqual({});
    expect(await openIds()).toEqual([...before, first.data.orderId].sort());
    const again = await viaGateway({ ...body }, "idem-1");
    expect(again).toEqual({ data: first.data, headers: { "Idempotent-Replayed": "true" } });
    expect(await openIds()).toEqual([...before, first.data.orderId].sort());
    await expect(viaGateway({ ...body, price: 0.31 }, "idem-1")).rejects.toMatchObject({ code: 409, type: "IDEMPOTENCY_KEY_REUSED" });
    await expect(viaGateway(body, "k".repeat(256))).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "Idempotency-Key", rule: "stringMax" }] },
    });
    // A refused order keeps no answer: the key may be used again.
    await expect(viaGateway(order("mkt_3", "BUY", "NO", 0.3, 10_000), "idem-2")).rejects.toMatchObject({ type: "INSUFFICIENT_BALANCE" });
    expect((await viaGateway(body, "idem-2")).data.orderId).not.toBe(first.data.orderId);
  });

  test("market lifecycle events: a closed market's owner releases every resting order (market_closed) and refuses new ones", async () => {
    const open = await broker.call<Array<{ _id: string; userId: string }>, object>("ledger.openOrders", {
      userId: ALICE.id,
      marketId: "mkt_1",
    });
    expect(open.length).toBeGreaterThan(0);
    t.markets.set("mkt_1", { status: "closed", ammLiquidity: "0" });
    heard.length = 0;
    broker.emit("market.closed", { marketId: "mkt_1" });
    await until("the halt's order updates", () => of("order.updated").length === open.length && of("order.updated"));
    expect(of("order.updated").every((u) => u.status === "cancelled" && u.cancelReason === "market_closed")).toBe(true);
    expect(await broker.call("ledger.openOrders", { userId: ALICE.id, marketId: "mkt_1" })).toEqual([]);
    await expect(place(BOB, order("mkt_1", "BUY", "YES", 0.4, 1))).rejects.toMatchObject({ code: 400, type: "MARKET_NOT_OPEN" });
    expect(await broker.call("book.orderbook", { marketId: "mkt_1" })).toEqual({ bids: [], asks: [] });
  });

  test("an order's entry reaches the ledger on the same node as a method call, not a broker call: the same answer, the same refusals", async () => {
    const called: string[] = [];
    const call = broker.call.bind(broker);
    const spy = jest.spyOn(broker, "call").mockImplementation(((name: string, ...rest: unknown[]) => {
      called.push(name);
      return (call as (...a: unknown[]) => unknown)(name, ...rest);
    }) as typeof broker.call);
    let placed: PlaceView;
    try {
      placed = await place(BOB, order("mkt_2", "BUY", "YES", 0.2, 1));
      // CAROL holds nothing: refused by the ledger's books with its code and status.
      await expect(place(CAROL, order("mkt_2", "BUY", "YES", 0.2, 1))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_BALANCE" });
    } finally {
      spy.mockRestore();
    }
    expect(called).toContain("book.place");
    expect(called).not.toContain("ledger.post");
    expect(placed).toMatchObject({ status: "open", marketId: "mkt_2" });
    const open = await broker.call<Array<{ _id: string }>, object>("ledger.openOrders", { userId: BOB.id, marketId: "mkt_2" });
    expect(open.map((o) => o._id)).toContain(placed.orderId);
    expect(await broker.call("ledger.openOrders", { userId: CAROL.id, marketId: "mkt_2" })).toEqual([]);
  });
});
