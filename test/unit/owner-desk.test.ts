import { OrderBook } from "../../engine/book";
import type { PoolState } from "../../engine/amm";
import type { RoutePlan } from "../../engine/router";
import type { CancelReasonCode } from "../../engine/settlement";
import type { Order, Outcome, Side } from "../../engine/types";
import { isRefusal } from "../../engine/refusal";
import type { AmendCommand, RouteCommand } from "../../trading/commands";
import { MarketRegistry, type RegisteredActor } from "../../trading/market-registry";
import { OwnerDesk, type OwnedActor } from "../../trading/owner-desk";
import type { PlaceResult, RouteExecution, TopOfBook } from "../../models/trading";
import { ExchangeModes, type ModeSetting } from "../../trading/trading-modes";

/** The owner's desk on in-memory fakes: this node's actors (a real registry over fake loads), the owners elsewhere. */
type Req = { id: string; journaled: number };

const EXEC: RouteExecution = { tradeId: "trd_1", venue: "HYBRID", filledQuantity: 300, totalCost: 150, fee: 2, avgPrice: "0.50" };

/** A market's actor: a real book for the reads, commands recorded and answered as told. */
class FakeActor implements RegisteredActor, OwnedActor {
  fenced = false;
  queueDepth = 0;
  readonly book: OrderBook;
  readonly commands: unknown[] = [];
  /** The route's answer as the actor would journal it under the request's key. */
  journaledAnswer: unknown = undefined;

  constructor(
    readonly marketId: string,
    public status: string | null,
    public pool: PoolState | null,
  ) {
    this.book = new OrderBook(marketId);
  }

  async drain(): Promise<void> {}

  async amend(cmd: AmendCommand): Promise<PlaceResult> {
    this.commands.push({ amend: cmd });
    return {
      orderId: cmd.orderId,
      status: "open",
      filledQuantity: 0,
      remainingQuantity: cmd.quantity ?? 100,
      cancelledQuantity: 0,
      totalCost: 0,
      fee: 0,
      tradeId: null,
      fills: [],
      createdAt: "2030-01-01T00:00:00.000Z",
    };
  }

  async cancelMany(userId: string | null, orderIds: string[] | null, reason: CancelReasonCode) {
    this.commands.push({ cancelMany: { userId, orderIds, reason } });
    return { cancelled: ["ord_1"], releasedAmount: 40 };
  }

  async cancelQuotes(userId: string) {
    this.commands.push({ cancelQuotes: { userId } });
    return { cancelled: [], releasedAmount: 0 };
  }

  async cancel(orderId: string, userId: string) {
    this.commands.push({ cancel: { orderId, userId } });
    return { orderId, status: "cancelled" as const, cancelledQuantity: 100, releasedAmount: 40 };
  }

  async route(cmd: RouteCommand): Promise<RouteExecution> {
    this.commands.push({ route: { ...cmd, idem: cmd.idem && { key: cmd.idem.key } } });
    if (cmd.idem) this.journaledAnswer = cmd.idem.render(EXEC);
    return EXEC;
  }

  async quote(cmd: RouteCommand): Promise<RoutePlan> {
    this.commands.push({ quote: cmd });
    return {
      ok: true,
      side: cmd.side,
      outcome: cmd.outcome,
      venue: "CLOB",
      legs: { book: [{ price: 50, quantity: cmd.quantity }], amm: null },
      filled: cmd.quantity,
      totalCost: 150,
      fee: 1,
      bookFee: 1,
      net: 151,
      avgPrice: "0.50",
    };
  }

  async halt(status: string): Promise<number> {
    this.commands.push({ halt: status });
    this.status = status;
    const released = this.book.size;
    this.book.cancelAll();
    return released;
  }

  setStatus(status: string): void {
    this.commands.push({ setStatus: status });
    this.status = status;
  }

  async applyMode(mode?: ModeSetting): Promise<number> {
    this.commands.push({ applyMode: mode ?? null });
    return 1;
  }

  exitQuote(outcome: Outcome, quantity: number, side: Side = "SELL", excludeUserId?: string) {
    this.commands.push({ exitQuote: { outcome, quantity, side, excludeUserId } });
    return { filled: quantity, proceeds: 42 };
  }
}

const resting = (orderId: string, side: Side, outcome: Outcome, price: number, quantity: number): Order => ({
  orderId,
  userId: "usr_maker",
  side,
  outcome,
  price,
  quantity,
  orderType: "GTC",
});

function world() {
  /** Markets the catalog knows (status) and their pools; any other id is unknown (status null). */
  const catalog = new Map<string, { status: string; pool: PoolState | null }>([
    ["mkt_1", { status: "open", pool: { yes: 1_000_000, no: 1_000_000 } }],
    ["mkt_2", { status: "open", pool: null }],
  ]);
  /** Best prices the owners elsewhere answer (book.top there); a missing one fails. */
  const remoteTops = new Map<string, TopOfBook>([["mkt_far", { yesBid: 40, yesAsk: 45, ammYes: null }]]);
  /** Markets another engine owns; the rest are this node's. */
  const elsewhere = new Set(["mkt_far", "mkt_down"]);
  const asked: string[] = [];
  const actors: FakeActor[] = [];
  const modes = new ExchangeModes(() => 0, 0);
  const registry = new MarketRegistry<FakeActor>({
    nodeID: "eng-a",
    ownerOf: (marketId) => (elsewhere.has(marketId) ? "eng-b" : "eng-a"),
    refreshOwners: () => undefined,
    load: async (marketId) => {
      const m = catalog.get(marketId);
      const actor = new FakeActor(marketId, m?.status ?? null, m?.pool ?? null);
      actors.push(actor);
      return actor;
    },
    measured: () => undefined,
    log: () => undefined,
  });
  const desk = new OwnerDesk<Req, FakeActor>({
    nodeID: "eng-a",
    actors: registry,
    modes,
    journaled: (c) => void c.journaled++,
    topOnOwner: async (_c, marketId) => {
      asked.push(marketId);
      const top = remoteTops.get(marketId);
      if (!top) throw new Error(`no engine answers for ${marketId}`);
      return top;
    },
  });
  const actor = async (marketId: string) => (await registry.existingActor(marketId)) as FakeActor;
  return { desk, actor, actors, modes, asked };
}

const req = (): Req => ({ id: "r", journaled: 0 });
const code = (err: unknown) => (isRefusal(err) ? { kind: err.kind, code: err.code } : err);

describe("OwnerDesk", () => {
  test("commands routed here run on the market's actor with only the actor's terms; an unknown market is 404 and nothing runs", async () => {
    const w = world();
    await w.desk.amend({ marketId: "mkt_1", orderId: "ord_1", userId: "usr_a", price: 45, quantity: 200, postOnly: true });
    await w.desk.cancelMany({ marketId: "mkt_1", reason: "expired", orderIds: ["ord_2"] });
    await w.desk.cancelMany({ marketId: "mkt_1", userId: "usr_a", reason: "user" });
    expect(await w.desk.cancel({ marketId: "mkt_1", orderId: "ord_3", userId: "usr_a" })).toEqual({
      orderId: "ord_3",
      status: "cancelled",
      cancelledQuantity: 100,
      releasedAmount: 40,
    });
    expect((await w.actor("mkt_1")).commands).toEqual([
      { amend: { orderId: "ord_1", userId: "usr_a", price: 45, quantity: 200, postOnly: true } },
      { cancelMany: { userId: null, orderIds: ["ord_2"], reason: "expired" } },
      { cancelMany: { userId: "usr_a", orderIds: null, reason: "user" } },
      { cancel: { orderId: "ord_3", userId: "usr_a" } },
    ]);
    for (const run of [
      () => w.desk.amend({ marketId: "mkt_none", orderId: "ord_1", userId: "usr_a", price: 45 }),
      () => w.desk.cancelMany({ marketId: "mkt_none", userId: "usr_a", reason: "user" }),
      () => w.desk.cancel({ marketId: "mkt_none", orderId: "ord_1", userId: "usr_a" }),
      () => w.desk.route(req(), { marketId: "mkt_none", userId: "usr_a", side: "BUY", outcome: "YES", quantity: 100, mode: "ROUTE" }),
      () => w.desk.quote({ marketId: "mkt_none", userId: "usr_a", side: "BUY", outcome: "YES", quantity: 100, mode: "AMM" }),
      () => w.desk.orderbook("mkt_none", "YES"),
      () => w.desk.depth("mkt_none", 10),
    ])
      expect(code(await run().catch((e: unknown) => e))).toEqual({ kind: "not_found", code: "RESOURCE_NOT_FOUND" });
    expect(w.actors.filter((a) => a.marketId === "mkt_none").flatMap((a) => a.commands)).toEqual([]);
  });

  test("a market order with a key journals the trade's wire view with the trade and marks the request journaled; without one nothing is journaled", async () => {
    const w = world();
    const c = req();
    const order = { marketId: "mkt_1", userId: "usr_a", side: "BUY", outcome: "YES", quantity: 300, mode: "ROUTE" } as const;
    expect(await w.desk.route(c, order)).toEqual(EXEC);
    expect(c.journaled).toBe(0);
    const a = await w.actor("mkt_1");
    expect(a.journaledAnswer).toBeUndefined();
    await w.desk.route(c, { ...order, idem: { scope: "usr_a:router.trade", key: "k-1", fingerprint: "f" } });
    expect(c.journaled).toBe(1);
    expect(a.journaledAnswer).toEqual({
      tradeId: "trd_1",
      venue: "HYBRID",
      filledQuantity: "300",
      avgPrice: "0.50",
      totalCost: "150",
      fee: "2",
    });
    expect(a.commands).toEqual([
      { route: { userId: "usr_a", side: "BUY", outcome: "YES", quantity: 300, mode: "ROUTE" } },
      { route: { userId: "usr_a", side: "BUY", outcome: "YES", quantity: 300, mode: "ROUTE", idem: { key: "k-1" } } },
    ]);
  });

  test("a quote answers the plan's venue and amounts only, and changes nothing", async () => {
    const w = world();
    const q = await w.desk.quote({ marketId: "mkt_1", userId: "usr_a", side: "SELL", outcome: "NO", quantity: 300, mode: "ROUTE" });
    expect(q).toEqual({ venue: "CLOB", filled: 300, totalCost: 150, fee: 1, avgPrice: "0.50" });
    expect((await w.actor("mkt_1")).status).toBe("open");
  });

  test("book reads: the order book's 10 levels of one view and both views' depth with the book's sequence, as the contract shows them", async () => {
    const w = world();
    const book = (await w.actor("mkt_1")).book;
    for (let i = 0; i < 12; i++) book.place(resting(`b${i}`, "BUY", "YES", 20 + i, 100 * (i + 1)));
    book.place(resting("s1", "SELL", "YES", 60, 500));
    const yes = await w.desk.orderbook("mkt_1", "YES");
    expect(yes.bids).toHaveLength(10);
    expect(yes.bids[0]).toEqual({ price: "0.31", quantity: "1200", numOrders: 1 });
    expect(yes.asks).toEqual([{ price: "0.60", quantity: "500", numOrders: 1 }]);
    // The NO view mirrors the YES book: a YES bid at p is a NO ask at 1 - p.
    const no = await w.desk.orderbook("mkt_1", "NO");
    expect(no.asks[0]).toEqual({ price: "0.69", quantity: "1200", numOrders: 1 });
    const d = await w.desk.depth("mkt_1", 2);
    expect(d).toEqual({
      seq: book.seq,
      yes: { bids: yes.bids.slice(0, 2), asks: yes.asks },
      no: { bids: no.bids.slice(0, 2), asks: no.asks.slice(0, 2) },
    });
  });

  test("best prices: this node's book and pool, all null for a market it does not serve; many markets each from its owner, one that cannot answer shows all null", async () => {
    const w = world();
    const book = (await w.actor("mkt_1")).book;
    book.place(resting("b1", "BUY", "YES", 40, 100));
    book.place(resting("s1", "SELL", "YES", 55, 100));
    expect(await w.desk.top("mkt_1")).toEqual({ yesBid: 40, yesAsk: 55, ammYes: { num: "1000000", den: "2000000" } });
    expect(await w.desk.top("mkt_2")).toEqual({ yesBid: null, yesAsk: null, ammYes: null });
    expect(await w.desk.top("mkt_none")).toEqual({ yesBid: null, yesAsk: null, ammYes: null });
    expect(await w.desk.topOfMany(req(), ["mkt_far", "mkt_down"])).toEqual({
      mkt_far: { yesBid: 40, yesAsk: 45, ammYes: null },
      mkt_down: { yesBid: null, yesAsk: null, ammYes: null },
    });
    expect(w.asked).toEqual(["mkt_far", "mkt_down"]);
  });

  test("best prices of many markets: this node's own are read here, without asking their owner, the others from theirs", async () => {
    const w = world();
    const book = (await w.actor("mkt_1")).book;
    book.place(resting("b1", "BUY", "YES", 40, 100));
    expect(await w.desk.topOfMany(req(), ["mkt_1", "mkt_far", "mkt_2"])).toEqual({
      mkt_1: { yesBid: 40, yesAsk: null, ammYes: { num: "1000000", den: "2000000" } },
      mkt_far: { yesBid: 40, yesAsk: 45, ammYes: null },
      mkt_2: { yesBid: null, yesAsk: null, ammYes: null },
    });
    expect(w.asked).toEqual(["mkt_far"]);
  });

  test("ensureMarket loads the actor here and answers its pool and this node; an unknown market is not loaded", async () => {
    const w = world();
    expect(await w.desk.ensureMarket("mkt_1")).toEqual({ loaded: true, pool: { yes: 1_000_000, no: 1_000_000 }, nodeID: "eng-a" });
    expect(await w.desk.ensureMarket("mkt_2")).toEqual({ loaded: true, pool: null, nodeID: "eng-a" });
    expect(await w.desk.ensureMarket("mkt_none")).toEqual({ loaded: false, pool: null, nodeID: "eng-a" });
  });

  test("a halt releases every resting order with the market's new status; a failed resolution only sets the status; an unknown market releases nothing", async () => {
    const w = world();
    const a = await w.actor("mkt_1");
    a.book.place(resting("b1", "BUY", "YES", 40, 100));
    a.book.place(resting("b2", "BUY", "NO", 30, 100));
    expect(await w.desk.halt("mkt_2", "resolution_failed")).toEqual({ released: 0 });
    expect((await w.actor("mkt_2")).commands).toEqual([{ setStatus: "resolution_failed" }]);
    expect(await w.desk.halt("mkt_1", "closed")).toEqual({ released: 2 });
    expect(a.commands).toEqual([{ halt: "closed" }]);
    expect(a.status).toBe("closed");
    expect(await w.desk.halt("mkt_none", "cancelled")).toEqual({ released: 0 });
    expect(w.actors.filter((x) => x.marketId === "mkt_none").flatMap((x) => x.commands)).toEqual([]);
  });

  test("an exit quote asks the actor (side and the user to leave out passed on); an unknown market gets nothing", async () => {
    const w = world();
    expect(await w.desk.exitQuote({ marketId: "mkt_1", outcome: "YES", quantity: 300, side: "BUY", userId: "usr_a" })).toEqual({
      filled: 300,
      proceeds: 42,
    });
    expect((await w.actor("mkt_1")).commands).toEqual([
      { exitQuote: { outcome: "YES", quantity: 300, side: "BUY", excludeUserId: "usr_a" } },
    ]);
    expect(await w.desk.exitQuote({ marketId: "mkt_none", outcome: "NO", quantity: 300, side: "SELL" })).toEqual({
      filled: 0,
      proceeds: 0,
    });
  });

  test("a market's mode goes to its actor; the exchange-wide mode is kept for every market and applied to each actor loaded here", async () => {
    const w = world();
    await w.actor("mkt_1");
    await w.actor("mkt_2");
    expect(await w.desk.setTradingMode("mkt_1", { mode: "halted", reason: "incident" })).toEqual({ cancelled: 1 });
    expect(await w.desk.setTradingMode("mkt_unknown", { mode: "halted", reason: null })).toEqual({ cancelled: 0 });
    expect((await w.actor("mkt_1")).commands).toEqual([{ applyMode: { mode: "halted", reason: "incident" } }]);
    expect((await w.actor("mkt_2")).commands).toEqual([]);

    expect(await w.desk.exchangeModeChanged({ mode: "cancel_only", reason: "maintenance" })).toEqual({ cancelled: 2 });
    expect(w.modes.exchangeSetting).toEqual({ mode: "cancel_only", reason: "maintenance" });
    expect(w.modes.effective({ mode: "normal", reason: null })).toEqual({ mode: "cancel_only", reason: "maintenance" });
    expect((await w.actor("mkt_2")).commands).toEqual([{ applyMode: null }]);
  });
});
