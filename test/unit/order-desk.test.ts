import { batchItemKey, OrderDesk, type OrderDeskPorts } from "../../trading/order-desk";
import type { PlaceCommand } from "../../trading/commands";
import type { IdemKey, OrderDoc, PlaceTerms, PlaceResult, OrderQuery, QuoteSetTerms } from "../../models/trading";
import { conflicting, isRefusal, notFoundFault, refused } from "../../engine/refusal";
import { Validator } from "../../lib/validator";
import { marketMoved } from "../../trading/market-registry";

/** The order desk on in-memory fakes: the owner's actor, the other nodes, the read model. */
type Req = { id: string; journaled: number };

const NOW = Date.parse("2030-01-01T00:00:00.000Z");
const shape = Validator.compile({
  marketId: "string",
  side: { type: "enum", values: ["BUY", "SELL"] },
  outcome: { type: "enum", values: ["YES", "NO"] },
  orderType: "string",
  price: "number",
  quantity: "number",
  orderGroupId: { type: "string", optional: true },
  $$strict: "remove",
}) as (v: unknown) => true | Array<{ field: string; type: string }>;

function result(orderId: string, over: Partial<PlaceResult> = {}): PlaceResult {
  return {
    orderId,
    status: "open",
    filledQuantity: 0,
    remainingQuantity: 100,
    cancelledQuantity: 0,
    totalCost: 0,
    fee: 0,
    tradeId: null,
    fills: [],
    createdAt: "2030-01-01T00:00:01.000Z",
    ...over,
  };
}

function order(over: Partial<OrderDoc> = {}): OrderDoc {
  return {
    _id: "ord_1",
    userId: "usr_a",
    marketId: "mkt_1",
    side: "BUY",
    outcome: "YES",
    orderType: "GTC",
    price: 40,
    quantity: 300,
    filledQuantity: 100,
    remaining: 200,
    cancelledQuantity: 0,
    holds: 8_000,
    status: "partially_filled",
    cancelReason: null,
    clientOrderId: "c-1",
    expiresAt: null,
    postOnly: false,
    prio: 3,
    seq: 9,
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
    ...over,
  };
}

function world() {
  const local = new Set(["mkt_1", "mkt_closed"]);
  const placed: Array<{ marketId: string; cmd: PlaceCommand }> = [];
  const remote: PlaceTerms[] = [];
  const claims: IdemKey[] = [];
  const answered = new Map<string, unknown>();
  const orders = new Map<string, OrderDoc>();
  const amends: unknown[] = [];
  const cancels: unknown[] = [];
  const queries: OrderQuery[] = [];
  const quoteSets: QuoteSetTerms[] = [];
  const joins: unknown[] = [];
  const turns: string[][] = [];
  let n = 0;
  const ports: OrderDeskPorts<Req> = {
    now: () => NOW,
    checkShape: shape,
    owns: (marketId) => local.has(marketId),
    place: async ({ marketId, ...cmd }, render) => {
      if (marketId === "mkt_closed") throw refused("MARKET_NOT_OPEN", "Market is closed");
      // As the registry: only the owner's actor takes a command.
      if (!local.has(marketId)) throw marketMoved(marketId);
      placed.push({ marketId, cmd });
      const r = result(`ord_${++n}`);
      // The actor journals the rendered answer with the command.
      if (cmd.idem) answered.set(`${cmd.idem.scope}\0${cmd.idem.key}`, render(r));
      return r;
    },
    // As the actor's one turn for a market's orders: each placed or refused in its place.
    placeMany: (ps) => {
      turns.push(ps.map((p) => `${p.marketId}@${p.price}`));
      return Promise.all(
        ps.map((p) =>
          ports
            .place(p, () => undefined)
            .then(
              (value) => ({ ok: true as const, value }),
              (error: unknown) => ({ ok: false as const, error }),
            ),
        ),
      );
    },
    placeRemote: async (_c, p) => {
      remote.push(p);
      return { orderId: "ord_remote" } as never;
    },
    quotes: async (q) => {
      quoteSets.push(q);
      return { cancelled: [], releasedAmount: 0, orders: q.quotes.map((_, i) => result(`ord_q${i}`)) };
    },
    quotesRemote: async (_c, q) => {
      quoteSets.push(q);
      return { cancelled: [], orders: [] };
    },
    cancelQuotes: async (_c, marketId, userId) => {
      cancels.push({ quotes: marketId, userId });
      return { cancelled: [], releasedAmount: 0 };
    },
    journaled: (c) => void c.journaled++,
    withIdempotency: async (_c, idem, run) => {
      claims.push(idem);
      const id = `${idem.scope}\0${idem.key}`;
      return answered.has(id) ? answered.get(id) : run();
    },
    order: async (_c, orderId) => orders.get(orderId) ?? null,
    orders: async (_c, q) => {
      queries.push(q);
      const mine = [...orders.values()].filter((o) => o.userId === q.userId);
      return { items: mine.slice((q.page - 1) * q.pageSize, q.page * q.pageSize), total: mine.length };
    },
    amendOrder: async (_c, a) => {
      amends.push(a);
      return result(a.orderId, { filledQuantity: 50, remainingQuantity: 150, createdAt: "2030-01-01T00:00:02.000Z" });
    },
    openMarketsOf: async () => ["mkt_1", "mkt_2"],
    cancelMany: async (_c, marketId, userId, reason) => {
      cancels.push({ marketId, userId, reason });
      return { cancelled: [`${marketId}_o1`, `${marketId}_o2`], releasedAmount: marketId === "mkt_1" ? 40 : 2 };
    },
    cancel: async (_c, marketId, orderId, userId) => {
      cancels.push({ marketId, orderId, userId });
      return { orderId, status: "cancelled", cancelledQuantity: 200, releasedAmount: 80 };
    },
    // The owner's book: ord_1 rests behind 2 orders; anything else no longer rests.
    queuePosition: async (_c, marketId, orderId) =>
      marketId === "mkt_1" && orderId === "ord_1" ? { price: 45, quantityAhead: 3_500_000, ordersAhead: 2 } : null,
    // grp_hot triggered; grp_b is another user's.
    groupAdmit: async (_c, orderGroupId, userId) => {
      if (orderGroupId === "grp_hot") throw conflicting("ORDER_GROUP_TRIGGERED", "Order group grp_hot was triggered");
      if (orderGroupId === "grp_b" && userId !== "usr_b") throw notFoundFault("Order group", "ORDER_GROUP_NOT_FOUND");
    },
    groupJoin: async (_c, j) => void joins.push(j),
  };
  return {
    desk: new OrderDesk(ports),
    ports,
    local,
    answered,
    placed,
    remote,
    claims,
    orders,
    amends,
    cancels,
    queries,
    joins,
    quoteSets,
    turns,
  };
}

const req = (): Req => ({ id: "r", journaled: 0 });
const body = { marketId: "mkt_1", side: "BUY", outcome: "YES", orderType: "GTC", price: 0.4, quantity: 300 } as const;

describe("OrderDesk", () => {
  test("an order's rules are checked before anything is placed (a refusal names its field)", async () => {
    const w = world();
    const bad = [
      { ...body, price: 0.405 },
      { ...body, quantity: 150 },
      { ...body, orderType: "GTD" as const },
      { ...body, orderType: "FOK" as const, postOnly: true },
      { ...body, clientOrderId: "no spaces" },
    ];
    const fields = [];
    for (const p of bad) {
      const err = await w.desk.placeOne(req(), "usr_a", p).catch((e: unknown) => e);
      expect(isRefusal(err) && err.code).toBe("VALIDATION_ERROR");
      fields.push((err as { data: { fields: Array<{ field: string }> } }).data.fields[0].field);
    }
    expect(fields).toEqual(["price", "quantity", "expiresAt", "postOnly", "clientOrderId"]);
    expect(w.placed).toEqual([]);
    expect(w.remote).toEqual([]);
  });

  test("on the market's owner the order goes to its actor with the checked terms; elsewhere it is one call to the owner", async () => {
    const w = world();
    const c = req();
    const view = await w.desk.placeOne(c, "usr_a", { ...body, clientOrderId: "c-7", postOnly: true });
    expect(w.placed).toEqual([
      {
        marketId: "mkt_1",
        cmd: {
          userId: "usr_a",
          side: "BUY",
          outcome: "YES",
          orderType: "GTC",
          price: 40,
          quantity: 300,
          expiresAt: undefined,
          postOnly: true,
          clientOrderId: "c-7",
          idem: undefined,
        },
      },
    ]);
    expect(view).toMatchObject({
      orderId: "ord_1",
      marketId: "mkt_1",
      price: "0.40",
      quantity: "300",
      status: "open",
      clientOrderId: "c-7",
      postOnly: true,
    });
    expect(c.journaled).toBe(0);
    await w.desk.placeOne(c, "usr_a", { ...body, marketId: "mkt_far" });
    expect(w.remote).toEqual([
      { marketId: "mkt_far", userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: 300, postOnly: false },
    ]);
  });

  test("terms sent to this node as the owner are placed here or refused as moved, never forwarded again (two views of the engines cannot bounce an order)", async () => {
    const w = world();
    const terms = {
      marketId: "mkt_far",
      side: "BUY",
      outcome: "YES",
      orderType: "GTC",
      price: 40,
      quantity: 300,
      postOnly: false,
    } as const;
    const err = await w.desk.placeHere(req(), { ...terms, userId: "usr_a" }).catch((e: unknown) => e);
    expect(isRefusal(err) && err.code).toBe("MARKET_MOVED");
    expect(w.remote).toEqual([]);
    expect(w.placed).toEqual([]);
    await w.desk.placeHere(req(), { ...terms, marketId: "mkt_1", userId: "usr_a" });
    expect(w.placed.map((p) => p.marketId)).toEqual(["mkt_1"]);
  });

  test("with an Idempotency-Key the answer is journaled with the command, on the owner or through it", async () => {
    const w = world();
    const c = req();
    const idem = { scope: "usr_a", key: "k1", fingerprint: "f" };
    await w.desk.placeOne(c, "usr_a", body, idem);
    expect(w.placed[0].cmd.idem).toMatchObject(idem);
    expect(c.journaled).toBe(1);
    await w.desk.placeOne(c, "usr_a", { ...body, marketId: "mkt_far" }, idem);
    expect(w.remote[0].idem).toEqual(idem);
    expect(c.journaled).toBe(2);
  });

  test("a batch answers each order in its place: shape errors with their index, refusals with their code, the rest placed", async () => {
    const w = world();
    const items = await w.desk.placeBatch(req(), "usr_a", [
      body,
      { ...body, side: "HOLD" },
      { ...body, price: 0.405 },
      { ...body, marketId: "mkt_closed" },
      body,
    ]);
    expect(items.map((i) => i.ok)).toEqual([true, false, false, false, true]);
    expect(items[1]).toEqual({
      ok: false,
      error: { code: "VALIDATION_ERROR", message: "Parameters validation error", fields: [{ field: "orders[1].side", rule: "enumValue" }] },
    });
    expect(items[2]).toEqual({
      ok: false,
      error: {
        code: "VALIDATION_ERROR",
        message: "price must be on the 0.01 grid between 0.01 and 0.99",
        fields: [{ field: "price", rule: "tick" }],
      },
    });
    expect(items[3]).toEqual({ ok: false, error: { code: "MARKET_NOT_OPEN", message: "Market is closed" } });
    expect(w.placed.length).toBe(2);
  });

  test("batch items name order groups like POST /orders: admitted first (a triggered or foreign group refuses that item only), joined once placed", async () => {
    const w = world();
    const items = await w.desk.placeBatch(req(), "usr_a", [
      { ...body, orderGroupId: "grp_a" },
      { ...body, orderGroupId: "grp_hot" },
      body,
      { ...body, orderGroupId: "grp_b" },
      { ...body, orderGroupId: "grp_a", marketId: "mkt_closed" },
    ]);
    expect(items.map((i) => (i.ok ? "ok" : i.error.code))).toEqual([
      "ok",
      "ORDER_GROUP_TRIGGERED",
      "ok",
      "ORDER_GROUP_NOT_FOUND",
      "MARKET_NOT_OPEN",
    ]);
    // The placement names its group (journaled with the order); a refused item placed nothing.
    expect(w.placed.map((p) => p.cmd.orderGroupId)).toEqual(["grp_a", undefined]);
    expect(w.joins).toEqual([{ orderGroupId: "grp_a", orderId: "ord_1", marketId: "mkt_1", open: true, filled: 0 }]);
  });

  test("an idempotent batch gives each order its own key, so a retry places only what did not land", async () => {
    const w = world();
    const idem = { scope: "usr_a", key: "batch-1", fingerprint: "f" };
    const first = await w.desk.placeBatch(req(), "usr_a", [body, { ...body, marketId: "mkt_closed" }], idem);
    expect(w.claims.map((k) => k.key)).toEqual(["batch-1#0", "batch-1#1"]);
    const again = await w.desk.placeBatch(req(), "usr_a", [body, { ...body, marketId: "mkt_closed" }], idem);
    expect(again[0]).toEqual(first[0]);
    expect(w.placed.length).toBe(1);
  });

  test("a batch hands its orders to the actors together, in request order, each answered in its place (one durability wait, not one per order)", async () => {
    const w = world();
    // The actor holds every placement until released, as a commit on its way to durability does.
    let release!: () => void;
    const durable = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const place = w.ports.place;
    w.ports.place = async (p, render) => {
      started.push(`${p.marketId}@${p.price}`);
      await durable;
      return place(p, render);
    };
    const idem = { scope: "usr_a", key: "b", fingerprint: "f" };
    const pending = w.desk.placeBatch(
      req(),
      "usr_a",
      [
        { ...body, price: 0.41 },
        { ...body, price: 0.42 },
        { ...body, side: "HOLD" },
        { ...body, marketId: "mkt_closed", price: 0.44 },
        { ...body, price: 0.45 },
      ],
      idem,
    );
    for (let k = 0; k < 100 && started.length < 4; k++) await new Promise((r) => setImmediate(r));
    expect(started).toEqual(["mkt_1@41", "mkt_1@42", "mkt_closed@44", "mkt_1@45"]);
    release();
    const items = await pending;
    expect(items.map((i) => (i.ok ? i.order.price : i.error.code))).toEqual([
      "0.41",
      "0.42",
      "VALIDATION_ERROR",
      "MARKET_NOT_OPEN",
      "0.45",
    ]);
    expect(w.claims.map((k) => k.key)).toEqual(["b#0", "b#1", "b#3", "b#4"]);
  });

  test("without a key, a batch gives the markets it owns their orders together, in request order; a market with an order group or owned elsewhere goes order by order", async () => {
    const w = world();
    w.local.add("mkt_2");
    w.local.add("mkt_g");
    const items = await w.desk.placeBatch(req(), "usr_a", [
      { ...body, price: 0.41 },
      { ...body, marketId: "mkt_2", price: 0.42 },
      { ...body, marketId: "mkt_far", price: 0.43 },
      { ...body, price: 0.44 },
      { ...body, marketId: "mkt_g", price: 0.45 },
      { ...body, marketId: "mkt_g", price: 0.46, orderGroupId: "grp_a" },
      { ...body, price: 0.405 },
      { ...body, marketId: "mkt_closed", price: 0.47 },
    ]);
    expect(w.turns).toEqual([["mkt_1@41", "mkt_2@42", "mkt_1@44", "mkt_closed@47"]]);
    // The others one by one: the far market through its owner, mkt_g's two in request order.
    expect(w.remote.map((p) => p.price)).toEqual([43]);
    expect(w.placed.filter((p) => p.marketId === "mkt_g").map((p) => p.cmd.price)).toEqual([45, 46]);
    expect(items.map((i) => (i.ok ? i.order.orderId : i.error.code))).toEqual([
      expect.stringMatching(/^ord_/),
      expect.stringMatching(/^ord_/),
      "ord_remote",
      expect.stringMatching(/^ord_/),
      expect.stringMatching(/^ord_/),
      expect.stringMatching(/^ord_/),
      "VALIDATION_ERROR",
      "MARKET_NOT_OPEN",
    ]);
    expect(items[6]).toEqual({
      ok: false,
      error: {
        code: "VALIDATION_ERROR",
        message: "price must be on the 0.01 grid between 0.01 and 0.99",
        fields: [{ field: "price", rule: "tick" }],
      },
    });
    expect(w.joins).toEqual([{ orderGroupId: "grp_a", orderId: expect.any(String), marketId: "mkt_g", open: true, filled: 0 }]);
  });

  test("batch item keys have their own namespace: a plain key `C#0` does not answer item 0 of batch `C`", async () => {
    const w = world();
    // A plain POST /orders with Idempotency-Key "C#0" was answered.
    w.answered.set("usr_a\0C#0", { orderId: "ord_plain" });
    const items = await w.desk.placeBatch(req(), "usr_a", [body], { scope: "usr_a", key: "C", fingerprint: "f" });
    expect(items).toEqual([{ ok: true, order: expect.objectContaining({ orderId: "ord_1" }) }]);
    expect(w.placed.length).toBe(1);
    expect(w.claims).toEqual([{ scope: "usr_a#batch", key: "C#0", fingerprint: "f" }]);
    expect(batchItemKey({ scope: "usr_a", key: "C", fingerprint: "f" }, 0).scope).not.toBe("usr_a");
  });

  test("a mass quote: each quote checked (the bad one named), a triggered group refuses the set before it goes, each quote order joins the group", async () => {
    const w = world();
    const bid = { side: "BUY" as const, outcome: "YES" as const, price: 0.4, quantity: 100 };
    const ask = { side: "BUY" as const, outcome: "NO" as const, price: 0.5, quantity: 200 };
    const bad = await w.desk
      .placeQuotes(req(), "usr_a", { marketId: "mkt_1", quotes: [bid, { ...bid, price: 0.405 }] })
      .catch((e: unknown) => e);
    expect(isRefusal(bad) && [bad.code, bad.fields]).toEqual(["VALIDATION_ERROR", [{ field: "quotes[1].price", rule: "tick" }]]);
    const hot = await w.desk
      .placeQuotes(req(), "usr_a", { marketId: "mkt_1", quotes: [bid], orderGroupId: "grp_hot" })
      .catch((e: unknown) => e);
    expect(isRefusal(hot) && hot.code).toBe("ORDER_GROUP_TRIGGERED");
    expect(w.quoteSets).toEqual([]);

    const c = req();
    const idem = { scope: "usr_a", key: "q1", fingerprint: "f" };
    const set = await w.desk.placeQuotes(
      c,
      "usr_a",
      { marketId: "mkt_1", quotes: [bid, ask], postOnly: true, orderGroupId: "grp_a" },
      idem,
    );
    expect(w.quoteSets).toEqual([
      {
        marketId: "mkt_1",
        userId: "usr_a",
        quotes: [
          { side: "BUY", outcome: "YES", price: 40, quantity: 100 },
          { side: "BUY", outcome: "NO", price: 50, quantity: 200 },
        ],
        postOnly: true,
        orderGroupId: "grp_a",
        idem,
      },
    ]);
    expect(set.orders.map((o) => [o.orderId, o.outcome, o.price, o.quantity, o.orderType, o.postOnly, o.quote])).toEqual([
      ["ord_q0", "YES", "0.40", "100", "GTC", true, true],
      ["ord_q1", "NO", "0.50", "200", "GTC", true, true],
    ]);
    expect(w.joins).toEqual([
      { orderGroupId: "grp_a", orderId: "ord_q0", marketId: "mkt_1", open: true, filled: 0 },
      { orderGroupId: "grp_a", orderId: "ord_q1", marketId: "mkt_1", open: true, filled: 0 },
    ]);
    // The answer was journaled with the set's entry.
    expect(c.journaled).toBe(1);
    // A market another node owns: the checked set goes there, once.
    await w.desk.placeQuotes(req(), "usr_a", { marketId: "mkt_far", quotes: [bid] });
    expect(w.quoteSets.map((q) => q.marketId)).toEqual(["mkt_1", "mkt_far"]);
  });

  test("an amend reads the order, refuses what is not the caller's open order, and answers with the order's whole size", async () => {
    const w = world();
    w.orders.set("ord_1", order());
    w.orders.set("ord_gone", order({ _id: "ord_gone", remaining: 0, status: "filled" }));
    await expect(w.desk.amend(req(), "usr_a", { orderId: "ord_1" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      data: { fields: [{ field: "price", rule: "required" }] },
    });
    await expect(w.desk.amend(req(), "usr_a", { orderId: "ord_1", price: 0.123 })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      data: { fields: [{ field: "price", rule: "tick" }] },
    });
    for (const [userId, orderId] of [
      ["usr_b", "ord_1"],
      ["usr_a", "ord_gone"],
      ["usr_a", "ord_none"],
    ]) {
      await expect(w.desk.amend(req(), userId, { orderId, price: 0.45 })).rejects.toMatchObject({
        kind: "not_found",
        code: "ORDER_NOT_FOUND",
        message: "Order not found",
      });
    }
    expect(w.amends).toEqual([]);
    const r = await w.desk.amend(req(), "usr_a", { orderId: "ord_1", price: 0.45 });
    expect(w.amends).toEqual([{ marketId: "mkt_1", orderId: "ord_1", userId: "usr_a", price: 45, quantity: undefined, postOnly: false }]);
    // Filled 100 before, 50 now, 150 resting: 300 in all, 150 filled.
    expect(r).toMatchObject({
      orderId: "ord_1",
      price: "0.45",
      quantity: "300",
      filledQuantity: "150",
      remainingQuantity: "150",
      clientOrderId: "c-1",
      createdAt: "2030-01-01T00:00:00.000Z",
      updatedAt: "2030-01-01T00:00:02.000Z",
    });
  });

  test("cancel-all cancels in each market with open orders (or the one named) and adds up what it released", async () => {
    const w = world();
    expect(await w.desk.cancelAll(req(), "usr_a")).toEqual({
      cancelled: ["mkt_1_o1", "mkt_1_o2", "mkt_2_o1", "mkt_2_o2"],
      releasedAmount: "42",
    });
    expect(await w.desk.cancelAll(req(), "usr_a", "mkt_2")).toEqual({ cancelled: ["mkt_2_o1", "mkt_2_o2"], releasedAmount: "2" });
    expect(w.cancels).toEqual([
      { marketId: "mkt_1", userId: "usr_a", reason: "user" },
      { marketId: "mkt_2", userId: "usr_a", reason: "user" },
      { marketId: "mkt_2", userId: "usr_a", reason: "user" },
    ]);
  });

  test("a cancel touches only the caller's open order, on its market, and answers amounts as digit strings", async () => {
    const w = world();
    w.orders.set("ord_1", order());
    w.orders.set("ord_done", order({ _id: "ord_done", status: "cancelled" }));
    for (const [userId, orderId] of [
      ["usr_b", "ord_1"],
      ["usr_a", "ord_done"],
      ["usr_a", "nope"],
    ]) {
      await expect(w.desk.cancelOrder(req(), userId, orderId)).rejects.toMatchObject({ code: "ORDER_NOT_FOUND" });
    }
    expect(await w.desk.cancelOrder(req(), "usr_a", "ord_1")).toEqual({
      orderId: "ord_1",
      status: "cancelled",
      cancelledQuantity: "200",
      releasedAmount: "80",
    });
    expect(w.cancels).toEqual([{ marketId: "mkt_1", orderId: "ord_1", userId: "usr_a" }]);
  });

  test("queue position: the caller's open order only (404 ORDER_NOT_FOUND otherwise, as for a cancel), from its market's owner", async () => {
    const w = world();
    w.orders.set("ord_1", order({ _id: "ord_1", userId: "usr_a" }));
    w.orders.set("ord_gone", order({ _id: "ord_gone", userId: "usr_a" }));
    w.orders.set("ord_done", order({ _id: "ord_done", userId: "usr_a", status: "filled" }));
    for (const [userId, orderId] of [
      ["usr_b", "ord_1"],
      ["usr_a", "ord_done"],
      ["usr_a", "nope"],
      ["usr_a", "ord_gone"],
    ])
      await expect(w.desk.queuePosition(req(), userId, orderId)).rejects.toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect(await w.desk.queuePosition(req(), "usr_a", "ord_1")).toEqual({ price: "0.45", quantityAhead: "3500000", ordersAhead: 2 });
  });

  test("the caller's orders are read for the caller only and answered in the contract's shape, one page with its pagination", async () => {
    const w = world();
    for (const [id, userId] of [
      ["ord_1", "usr_a"],
      ["ord_2", "usr_b"],
      ["ord_3", "usr_a"],
      ["ord_4", "usr_a"],
    ])
      w.orders.set(id, order({ _id: id, userId }));
    const listed = await w.desk.listOrders(req(), "usr_a", { status: "open", page: 1, pageSize: 2 });
    expect(w.queries).toEqual([{ status: "open", page: 1, pageSize: 2, userId: "usr_a" }]);
    expect(listed.pagination).toEqual({ total: 3, page: 1, pageSize: 2, hasNext: true });
    expect(listed.items.map((o) => o.orderId)).toEqual(["ord_1", "ord_3"]);
    expect(listed.items[0]).toMatchObject({
      id: "ord_1",
      price: "0.40",
      quantity: "300",
      filledQuantity: "100",
      remainingQuantity: "200",
      status: "partially_filled",
      clientOrderId: "c-1",
    });
    const last = await w.desk.listOrders(req(), "usr_a", { status: "open", page: 2, pageSize: 2 });
    expect(last.pagination.hasNext).toBe(false);
    expect(last.items.map((o) => o.orderId)).toEqual(["ord_4"]);
  });
});
