/**
 * The amm service on a real ServiceBroker, the Moleculer way: its actions called through the
 * broker with the production middlewares; the pool lives in the market's actor next to its book,
 * so its dependencies are the real book and ledger services (temp-dir SQLite) with the catalog
 * faked (test/support/trading-broker.ts); what a trade emits heard by a listener.
 */
import AmmService from "../../services/amm.service";
import { ammPrintYesPrice } from "../../trading/publication";
import { formatAvgPrice } from "../../engine/money";
import { tradeView } from "../../trading/market-order";
import { fund, SHARE } from "../support/trading";
import { until } from "../support/until";
import { asUser, sessionUser, startTradingBroker, type TradingBroker } from "../support/trading-broker";

const ALICE = sessionUser("a");
const BOB = sessionUser("b");
const CAROL = sessionUser("c");
const POOL = "mkt_pool";
const BOOK_ONLY = "mkt_book";
const LIQUIDITY = 100 * SHARE;

/** The contract's trade execution answer. */
type TradeAnswer = ReturnType<typeof tradeView>;

describe("amm service", () => {
  let t: TradingBroker;
  const trade = (u: typeof ALICE | null, params: object) => t.broker.call<TradeAnswer, object>("amm.trade", params, asUser(u));
  const pool = (marketId: string) => t.broker.call<{ yes: string; no: string; liquidity: string } | null, object>("amm.pool", { marketId });
  const available = async (u: typeof ALICE) =>
    Number((await t.broker.call<{ available: string }, object>("ledger.balance", {}, asUser(u))).available);

  beforeAll(async () => {
    t = await startTradingBroker([AmmService], { AMM_FEE_BPS: "100", TAKER_FEE_BPS: "0", MAKER_FEE_BPS: "0" });
    t.markets.set(POOL, { status: "open", ammLiquidity: String(LIQUIDITY) });
    t.markets.set(BOOK_ONLY, { status: "open", ammLiquidity: "0" });
    for (const u of [ALICE, BOB]) await fund(t.broker, u.id, 100 * SHARE);
    await fund(t.broker, CAROL.id, SHARE);
  });
  afterAll(() => t?.stop());
  beforeEach(() => {
    t.heard.length = 0;
  });
  afterEach(() => t.expectMoneyCheck());

  test("a market opened with AMM liquidity gets its pool once (market.opened); a market without has none; an unknown one is 404", async () => {
    t.broker.emit("market.opened", { marketId: POOL });
    const funded = await until("the pool funded", () => pool(POOL));
    expect(funded).toEqual({ yes: String(LIQUIDITY), no: String(LIQUIDITY), liquidity: "100" });
    // Seen again (another event, a restart of the actor): funded once, by the journal.
    t.broker.emit("market.opened", { marketId: POOL });
    expect(await pool(POOL)).toEqual(funded);
    const entries = await t.broker.call<Array<{ command: { type: string } }>, object>("ledger.bookEntries", {
      marketId: POOL,
      afterSeq: 0,
    });
    expect(entries.filter((e) => e.command.type === "ammFund")).toHaveLength(1);
    expect(await pool(BOOK_ONLY)).toBeNull();
    await expect(pool("mkt_unknown")).rejects.toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
    await expect(t.broker.call("amm.pool", {})).rejects.toMatchObject({
      name: "ValidationError",
      data: [expect.objectContaining({ field: "marketId", type: "required" })],
    });
  });

  test("trade: the session user is required; params (digit-string quantity in whole lots) refused before the pool; nothing changes", async () => {
    const ok = { marketId: POOL, side: "BUY", outcome: "YES", quantity: String(SHARE) };
    await expect(trade(null, ok)).rejects.toMatchObject({ code: 401, type: "UNAUTHORIZED" });
    const refused = (p: object, field: string, type: string) =>
      expect(trade(ALICE, { ...ok, ...p })).rejects.toMatchObject({
        name: "ValidationError",
        code: 422,
        type: "VALIDATION_ERROR",
        data: [expect.objectContaining({ field, type })],
      });
    await refused({ quantity: SHARE }, "quantity", "string");
    await refused({ quantity: "0100" }, "quantity", "stringPattern");
    await refused({ quantity: "1e6" }, "quantity", "stringPattern");
    await refused({ side: "HOLD" }, "side", "enumValue");
    await refused({ outcome: "MAYBE" }, "outcome", "enumValue");
    await refused({ marketId: "mkt pool" }, "marketId", "stringPattern");
    await expect(trade(ALICE, { ...ok, quantity: "150" })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "quantity", rule: "lot" }] },
    });
    await expect(trade(ALICE, { ...ok, quantity: "0" })).rejects.toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      data: { fields: [{ field: "quantity", rule: "lot" }] },
    });
    expect(await pool(POOL)).toEqual({ yes: String(LIQUIDITY), no: String(LIQUIDITY), liquidity: "100" });
    expect(await available(ALICE)).toBe(100 * SHARE);
    expect(t.heard).toEqual([]);
  });

  test("a buy goes to the pool only, even with a better price resting in the book; it prints a trade and moves the pool's price", async () => {
    // Bob's BUY NO at 0.90 rests as a YES ask at 0.10, far below the pool's 0.50.
    const bobs = await t.broker.call<{ orderId: string }, object>(
      "book.place",
      { marketId: POOL, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.9, quantity: 5 * SHARE },
      asUser(BOB),
    );
    t.heard.length = 0;
    const r = await trade(ALICE, { marketId: POOL, side: "BUY", outcome: "YES", quantity: String(10 * SHARE), userId: BOB.id });
    expect(r).toEqual({
      tradeId: expect.stringMatching(/^trd_/),
      venue: "AMM",
      filledQuantity: String(10 * SHARE),
      avgPrice: expect.any(String),
      totalCost: expect.stringMatching(/^\d+$/),
      fee: expect.stringMatching(/^\d+$/),
    });
    const cost = Number(r.totalCost);
    // More than 0.50 a share (the price moves against the buyer); the LP fee grossed up, 1% of what the buyer pays.
    expect(cost).toBeGreaterThan(5 * SHARE);
    expect(r.avgPrice).toBe(formatAvgPrice(cost, 10 * SHARE));
    expect(Number(r.fee)).toBe(Math.ceil((cost * 100) / 9900));
    // The trade is the session user's (a userId in the body is dropped) and paid in full.
    expect(await available(ALICE)).toBe(100 * SHARE - cost - Number(r.fee));
    expect(await available(BOB)).toBe(100 * SHARE - 4.5 * SHARE);
    expect(await t.broker.call("ledger.getOrder", { orderId: bobs.orderId })).toMatchObject({ remaining: 5 * SHARE, status: "open" });
    const after = await pool(POOL);
    expect(Number(after?.yes)).toBe(LIQUIDITY + cost - 10 * SHARE);
    expect(Number(after?.no)).toBe(LIQUIDITY + cost);

    await until("the print", () => t.of("market.trade").length === 1 && t.of("market.pricesChanged").length === 1);
    expect(t.of("market.trade")).toEqual([
      {
        marketId: POOL,
        tradeId: expect.stringMatching(/^fil_/),
        outcome: "YES",
        takerSide: "BUY",
        takerOutcome: "YES",
        yesPrice: ammPrintYesPrice({ outcome: "YES", quantity: 10 * SHARE, cash: cost }),
        quantity: 10 * SHARE,
        notional: cost,
        at: expect.any(String),
      },
    ]);
    const [prices] = t.of("market.pricesChanged");
    expect(prices).toMatchObject({
      marketId: POOL,
      yesBid: null,
      yesAsk: 10,
      ammYes: { num: expect.any(String), den: expect.any(String) },
    });
    // The pool's marginal YES price rose above 0.50.
    expect(Number(prices.ammYes.num) / Number(prices.ammYes.den)).toBeGreaterThan(0.5);

    // And back: selling the shares to the pool.
    const sold = await trade(ALICE, { marketId: POOL, side: "SELL", outcome: "YES", quantity: String(10 * SHARE) });
    expect(sold).toMatchObject({ venue: "AMM", filledQuantity: String(10 * SHARE) });
    expect(Number(sold.totalCost)).toBeLessThan(cost);
    expect(await t.broker.call("ledger.account", { account: ALICE.id })).toMatchObject({
      positions: [expect.objectContaining({ marketId: POOL, outcome: "YES", quantity: 0 })],
    });
  });

  test("refusals keep their code and status and change nothing: no pool, not open, no money, no shares, unknown market", async () => {
    const before = await pool(POOL);
    const q = String(SHARE);
    await expect(trade(ALICE, { marketId: BOOK_ONLY, side: "BUY", outcome: "YES", quantity: q })).rejects.toMatchObject({
      code: 400,
      type: "NO_AMM",
    });
    await expect(trade(CAROL, { marketId: POOL, side: "BUY", outcome: "NO", quantity: String(10 * SHARE) })).rejects.toMatchObject({
      code: 400,
      type: "INSUFFICIENT_BALANCE",
    });
    await expect(trade(CAROL, { marketId: POOL, side: "SELL", outcome: "NO", quantity: q })).rejects.toMatchObject({
      code: 400,
      type: "INSUFFICIENT_SHARES",
    });
    await expect(trade(ALICE, { marketId: "mkt_unknown", side: "BUY", outcome: "YES", quantity: q })).rejects.toMatchObject({
      code: 404,
      type: "RESOURCE_NOT_FOUND",
    });
    expect(await pool(POOL)).toEqual(before);
    expect(await available(CAROL)).toBe(SHARE);

    t.markets.set("mkt_pool_closed", { status: "open", ammLiquidity: String(LIQUIDITY) });
    expect(await pool("mkt_pool_closed")).not.toBeNull();
    t.markets.set("mkt_pool_closed", { status: "closed", ammLiquidity: String(LIQUIDITY) });
    t.broker.emit("market.closed", { marketId: "mkt_pool_closed" });
    const quote = { marketId: "mkt_pool_closed", userId: ALICE.id, side: "BUY", outcome: "YES", quantity: SHARE, mode: "AMM" };
    await until("the market halted", () =>
      t.broker.call("book.quote", quote).then(
        () => false,
        (e) => e.type === "MARKET_NOT_OPEN",
      ),
    );
    await expect(trade(ALICE, { marketId: "mkt_pool_closed", side: "BUY", outcome: "YES", quantity: q })).rejects.toMatchObject({
      code: 400,
      type: "MARKET_NOT_OPEN",
    });
  });

  test("Idempotency-Key: the same trade again answers the first answer and trades nothing; another body under the key is 409", async () => {
    const params = { marketId: POOL, side: "BUY", outcome: "NO", quantity: String(2 * SHARE) };
    const first = await t.viaGateway<TradeAnswer>(BOB, "amm.trade", params, { idempotencyKey: "amm-1" });
    expect(first.headers).toEqual({});
    const poolAfter = await pool(POOL);
    const cash = await available(BOB);
    const again = await t.viaGateway<TradeAnswer>(BOB, "amm.trade", { ...params }, { idempotencyKey: "amm-1" });
    expect(again).toEqual({ data: first.data, headers: { "Idempotent-Replayed": "true" } });
    expect(await pool(POOL)).toEqual(poolAfter);
    expect(await available(BOB)).toBe(cash);
    await expect(
      t.viaGateway(BOB, "amm.trade", { ...params, quantity: String(3 * SHARE) }, { idempotencyKey: "amm-1" }),
    ).rejects.toMatchObject({ code: 409, type: "IDEMPOTENCY_KEY_REUSED" });
  });
});
