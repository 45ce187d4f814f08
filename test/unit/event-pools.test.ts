import { Accounts } from "../../engine/accounts";
import { eventPoolAccount } from "../../engine/event-pool";
import { MICRO } from "../../engine/money";
import { eventPoolQuote, eventPoolTrade, eventPoolView, type EventPoolPorts } from "../../ledger/event-pools";
import type { EventInternal, MarketInternal } from "../../models/catalog";
import type { RouteRequest } from "../../models/trading";

const market = (id: string, over: Partial<MarketInternal> = {}): MarketInternal => ({
  id,
  eventId: "evt",
  title: id,
  status: "open",
  result: null,
  conditionId: "0x",
  ammLiquidity: "0",
  ...over,
});

function setup(event: Partial<EventInternal> = {}, exchange = "normal") {
  const a = new Accounts();
  for (const u of ["usr_1", "usr_2"])
    a.apply([
      { kind: "cash", account: u, available: 100 * MICRO },
      { kind: "external", flow: "deposit", amount: 100 * MICRO },
    ]);
  const ev: EventInternal = {
    id: "evt",
    mutuallyExclusive: true,
    exhaustive: true,
    ammLiquidity: String(50 * MICRO),
    markets: [market("a"), market("b"), market("c")],
    ...event,
  };
  let n = 0;
  const keys: string[] = [];
  const ports: EventPoolPorts = {
    market: async (id) => ev.markets.find((m) => m.id === id) ?? market(id, { eventId: "other", ammLiquidity: "1000000" }),
    event: async () => ev,
    balance: (acc) => a.balance(acc),
    positionsOf: (acc) => a.positionsOf(acc),
    post: (entry) => {
      keys.push(entry.key);
      a.apply(entry.postings);
      return { applied: true, seq: keys.length, instance: "i" };
    },
    waitDurable: () => new Promise((r) => setTimeout(r, 1)),
    exchangeMode: async () => ({ mode: exchange, reason: null }),
    feeBps: 100,
    newId: (p) => `${p}_${++n}`,
  };
  return { a, ports, keys };
}

const order = (marketId: string, over: Partial<RouteRequest> = {}): RouteRequest => ({
  marketId,
  userId: "usr_1",
  side: "BUY",
  outcome: "YES",
  quantity: 5 * MICRO,
  mode: "AMM",
  ...over,
});

describe("the event pool owned by the ledger", () => {
  test("funded once before its first trade; concurrent trades each priced on the pool the one before left", async () => {
    const { a, ports, keys } = setup();
    const q = await eventPoolQuote(ports, order("a"));
    const [t1, t2] = await Promise.all([eventPoolTrade(ports, order("a")), eventPoolTrade(ports, order("a", { userId: "usr_2" }))]);
    expect(keys.filter((k) => k.startsWith("evpool-fund:"))).toEqual(["evpool-fund:evt"]);
    expect(t1!.totalCost).toBe(q!.totalCost);
    expect(t2!.totalCost).toBeGreaterThan(t1!.totalCost);
    const v = await eventPoolView(ports, "evt");
    expect(Object.values(v!.prices).reduce((s, x) => s + Number(x), 0)).toBe(MICRO);
    expect(a.conservation().ok).toBe(true);
    expect(a.balance(eventPoolAccount("evt")).available).toBeLessThan(50 * MICRO + t1!.totalCost + t2!.totalCost);
  });

  test("markets without an event pool are not its business; refusals", async () => {
    expect(await eventPoolTrade(setup().ports, order("zzz"))).toBeNull();
    expect(await eventPoolTrade(setup({ ammLiquidity: "0" }).ports, order("a"))).toBeNull();
    expect(await eventPoolTrade(setup({ mutuallyExclusive: false }).ports, order("a"))).toBeNull();
    await expect(
      eventPoolTrade(setup({ markets: [market("a", { status: "closed" }), market("b")] }).ports, order("a")),
    ).rejects.toMatchObject({
      code: "MARKET_NOT_OPEN",
    });
    await expect(eventPoolTrade(setup({}, "halted").ports, order("a"))).rejects.toMatchObject({ code: "TRADING_PAUSED" });
    const paused = setup({ markets: [market("a", { tradingMode: { mode: "cancel_only", reason: "news" } }), market("b")] });
    await expect(eventPoolQuote(paused.ports, order("a"))).rejects.toMatchObject({ code: "TRADING_PAUSED" });
    await expect(eventPoolTrade(setup().ports, order("a", { quantity: 150 }))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
