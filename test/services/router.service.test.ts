/**
 * The router service on a real ServiceBroker, the Moleculer way: quotes, trades and live prices
 * called through the broker with the production middlewares; its dependencies are the real book
 * and ledger services (temp-dir SQLite: the plan is made in the market's actor) with the catalog
 * faked (test/support/trading-broker.ts); what a trade emits heard by a listener.
 */
import RouterService from "../../services/router.service";
import { tradeView } from "../../trading/market-order";
import { fund, SHARE } from "../support/trading";
import { until } from "../support/until";
import { asUser, sessionUser, startTradingBroker, type TradingBroker } from "../support/trading-broker";

const ALICE = sessionUser("a");
const BOB = sessionUser("b");
const CAROL = sessionUser("c");
/** A pool at 0.50 and, once Bob places, a YES ask at 0.30 in the book. */
const BOTH = "mkt_both";
const BOOK_ONLY = "mkt_book";
const LIQUIDITY = 100 * SHARE;

/** The contract's trade execution answer. */
type TradeAnswer = ReturnType<typeof tradeView>;
interface QuoteAnswer {
  estimatedPrice: string;
  estimatedCost: string;
  source: string;
  fee: string;
}

describe("router service", () => {
  let t: TradingBroker;
  const trade = (u: typeof ALICE | null, params: object) => t.broker.call<TradeAnswer, object>("router.trade", params, asUser(u));
  const quote = (u: typeof ALICE | null, params: object) => t.broker.call<QuoteAnswer, object>("router.quote", params, asUser(u));
  const available = async (u: typeof ALICE) =>
    Number((await t.broker.call<{ available: string }, object>("ledger.balance", {}, asUser(u))).available);
  const buyYes = (marketId: string, shares: number) => ({ marketId, side: "BUY", outcome: "YES", quantity: String(shares * SHARE) });

  beforeAll(async () => {
    t = await startTradingBroker([RouterService], { AMM_FEE_BPS: "100", TAKER_FEE_BPS: "0", MAKER_FEE_BPS: "0" });
    t.markets.set(BOTH, { status: "open", ammLiquidity: String(LIQUIDITY) });
    t.markets.set(BOOK_ONLY, { status: "open", ammLiquidity: "0" });
    for (const u of [ALICE, BOB]) await fund(t.broker, u.id, 100 * SHARE);
    await fund(t.broker, CAROL.id, SHARE);
    // Bob's BUY NO at 0.70 rests as a YES ask at 0.30 for 4 shares.
    await t.broker.call(
      "book.place",
      { marketId: BOTH, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.7, quantity: 4 * SHARE },
      asUser(BOB),
    );
  });
  afterAll(() => t?.stop());
  beforeEach(() => {
    t.heard.length = 0;
  });
  afterEach(() => t.expectMoneyCheck());

  test("the session user is required; params (digit-string quantity in whole lots, venue) refused before the market; nothing changes", async () => {
    await expect(trade(null, buyYes(BOTH, 1))).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    await expect(quote(null, buyYes(BOTH, 1))).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    for (const call of [trade, quote]) {
      const refused = (p: object, field: string, type: string) =>
        expect(call(ALICE, { ...buyYes(BOTH, 1), ...p })).rejects.toMatchObject({
          name: "ValidationError",
          code: 422,
          type: "VALIDATION_ERROR",
          data: expect.arrayContaining([expect.objectContaining({ field, type })]),
        });
      await refused({ quantity: SHARE }, "quantity", "string");
      await refused({ quantity: "-100" }, "quantity", "stringPattern");
      await refused({ side: "buy" }, "side", "enumValue");
      await refused({ marketId: "" }, "marketId", "stringMin");
      await expect(call(ALICE, { ...buyYes(BOTH, 1), quantity: "50" })).rejects.toMatchObject({
        code: 400,
        type: "VALIDATION_ERROR",
        data: { fields: [{ field: "quantity", rule: "lot" }] },
      });
    }
    await expect(quote(ALICE, { ...buyYes(BOTH, 1), venue: "CLOB" })).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "venue", type: "enumValue" })],
    });
    expect(await available(ALICE)).toBe(100 * SHARE);
    expect(t.heard).toEqual([]);
  });

  test("a quote prices exactly what the trade then does, and changes nothing; venue AMM prices the pool alone", async () => {
    const auto = await quote(ALICE, buyYes(BOTH, 2));
    // Two shares at 0.30 in the book beat the pool's 0.50.
    expect(auto).toEqual({ estimatedPrice: "0.30", estimatedCost: String(0.6 * SHARE), source: "CLOB", fee: "0" });
    const amm = await quote(ALICE, { ...buyYes(BOTH, 2), venue: "AMM" });
    expect(amm).toMatchObject({ source: "AMM" });
    expect(Number(amm.estimatedCost)).toBeGreaterThan(SHARE);
    expect(Number(amm.fee)).toBeGreaterThan(0);
    expect(await quote(ALICE, buyYes(BOTH, 2))).toEqual(auto);
    expect(await available(ALICE)).toBe(100 * SHARE);
    expect(t.heard).toEqual([]);

    const r = await trade(ALICE, { ...buyYes(BOTH, 2), userId: BOB.id });
    expect(r).toEqual({
      tradeId: expect.stringMatching(/^trd_/),
      venue: auto.source,
      filledQuantity: String(2 * SHARE),
      avgPrice: auto.estimatedPrice,
      totalCost: auto.estimatedCost,
      fee: auto.fee,
    });
    // The session user's trade (a userId in the body is dropped), paid in full; Bob's order filled in part.
    expect(await available(ALICE)).toBe(100 * SHARE - 0.6 * SHARE);
    await until("the fill's broadcasts", () => t.of("market.trade").length === 1 && t.of("order.updated").length === 1);
    expect(t.of("market.trade")).toEqual([
      {
        marketId: BOTH,
        tradeId: expect.any(String),
        outcome: "YES",
        takerSide: "BUY",
        takerOutcome: "YES",
        yesPrice: 30,
        quantity: 2 * SHARE,
        notional: 0.6 * SHARE,
        at: expect.any(String),
      },
    ]);
    expect(t.of("order.updated")).toEqual([
      expect.objectContaining({
        userId: BOB.id,
        status: "partially_filled",
        remainingQuantity: String(2 * SHARE),
        filledDelta: String(2 * SHARE),
      }),
    ]);
  });

  test("a larger order takes the book, then the pool: one HYBRID trade, both venues print", async () => {
    const q = await quote(ALICE, buyYes(BOTH, 10));
    expect(q.source).toBe("HYBRID");
    const before = await available(ALICE);
    const r = await trade(ALICE, buyYes(BOTH, 10));
    expect(r).toMatchObject({
      venue: "HYBRID",
      filledQuantity: String(10 * SHARE),
      totalCost: q.estimatedCost,
      fee: q.fee,
      avgPrice: q.estimatedPrice,
    });
    expect(await available(ALICE)).toBe(before - Number(r.totalCost) - Number(r.fee));
    await until("both prints", () => t.of("market.trade").length === 2);
    const prints = t.of("market.trade");
    // The book's remaining 2 shares at 0.30, the pool the other 8.
    expect(prints.map((p) => p.quantity).sort((a, b) => a - b)).toEqual([2 * SHARE, 8 * SHARE]);
    expect(prints.reduce((a, p) => a + p.notional, 0)).toBe(Number(r.totalCost));
    expect(await t.broker.call("book.orderbook", { marketId: BOTH })).toEqual({ bids: [], asks: [] });
  });

  test("refusals keep their code and status and change nothing: no liquidity (own orders excluded), no money, no shares, unknown market", async () => {
    // Alice's own ask is the only liquidity of the book-only market: she cannot trade against it.
    await t.broker.call(
      "book.place",
      { marketId: BOOK_ONLY, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.6, quantity: SHARE },
      asUser(ALICE),
    );
    await expect(trade(ALICE, buyYes(BOOK_ONLY, 1))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_LIQUIDITY" });
    await expect(quote(ALICE, buyYes(BOOK_ONLY, 1))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_LIQUIDITY" });
    await expect(quote(ALICE, { ...buyYes(BOOK_ONLY, 1), venue: "AMM" })).rejects.toMatchObject({ code: 400, type: "NO_AMM" });
    // Bob can: it fills Alice's order.
    expect(await trade(BOB, buyYes(BOOK_ONLY, 1))).toMatchObject({ venue: "CLOB", avgPrice: "0.40" });

    const carol = await available(CAROL);
    await expect(trade(CAROL, buyYes(BOTH, 50))).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_BALANCE" });
    await expect(trade(CAROL, { ...buyYes(BOTH, 1), side: "SELL" })).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_SHARES" });
    await expect(trade(CAROL, buyYes("mkt_unknown", 1))).rejects.toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
    await expect(quote(CAROL, buyYes("mkt_unknown", 1))).rejects.toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
    expect(await available(CAROL)).toBe(carol);
  });

  test("livePrices: the better of book and pool per market, rounded against the trader; nulls for a market with neither", async () => {
    await t.broker.call(
      "book.place",
      { marketId: BOOK_ONLY, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.35, quantity: SHARE },
      asUser(BOB),
    );
    const prices = await t.broker.call<Record<string, Record<string, string | null>>, object>("router.livePrices", {
      marketIds: [BOTH, BOOK_ONLY, "mkt_unknown"],
    });
    expect(prices[BOOK_ONLY]).toEqual({ buyYesPrice: null, sellYesPrice: "0.35", buyNoPrice: "0.65", sellNoPrice: null });
    expect(prices["mkt_unknown"]).toEqual({ buyYesPrice: null, sellYesPrice: null, buyNoPrice: null, sellNoPrice: null });
    // Only the pool quotes the first market now (the book was swept): both sides, a cent apart at most.
    const cents = Object.fromEntries(Object.entries(prices[BOTH]).map(([k, v]) => [k, Math.round(Number(v) * 100)]));
    expect(Object.values(prices[BOTH]).every((v) => typeof v === "string" && /^0\.\d\d$/.test(v))).toBe(true);
    expect(cents.buyYesPrice).toBeGreaterThan(50);
    expect(cents.buyYesPrice - cents.sellYesPrice).toBeLessThanOrEqual(1);
    expect(cents.buyYesPrice + cents.sellNoPrice).toBe(100);
    expect(cents.buyNoPrice + cents.sellYesPrice).toBe(100);
    await expect(
      t.broker.call("router.livePrices", { marketIds: Array.from({ length: 201 }, (_, i) => `mkt_${i}`) }),
    ).rejects.toMatchObject({ name: "ValidationError", data: [expect.objectContaining({ field: "marketIds", type: "arrayMax" })] });
    await expect(t.broker.call("router.livePrices", { marketIds: "mkt_both" })).rejects.toMatchObject({ name: "ValidationError" });
  });

  test("Idempotency-Key: the same trade again answers the first answer and trades nothing; another body under the key is 409", async () => {
    const first = await t.viaGateway<TradeAnswer>(BOB, "router.trade", buyYes(BOTH, 1), { idempotencyKey: "route-1" });
    const cash = await available(BOB);
    const again = await t.viaGateway<TradeAnswer>(BOB, "router.trade", buyYes(BOTH, 1), { idempotencyKey: "route-1" });
    expect(again).toEqual({ data: first.data, headers: { "Idempotent-Replayed": "true" } });
    expect(await available(BOB)).toBe(cash);
    await expect(t.viaGateway(BOB, "router.trade", buyYes(BOTH, 2), { idempotencyKey: "route-1" })).rejects.toMatchObject({
      code: 409,
      type: "IDEMPOTENCY_KEY_REUSED",
    });
    // Quotes are not idempotent writes: a key changes nothing about them.
    expect((await t.viaGateway<QuoteAnswer>(BOB, "router.quote", buyYes(BOTH, 1), { idempotencyKey: "route-1" })).headers).toEqual({});
  });
});
