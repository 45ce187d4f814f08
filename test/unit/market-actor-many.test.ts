/**
 * A market actor taking several orders in one turn (a batch's orders of one market): each is
 * planned on the book the ones before it left, committed as its own entry and answered or refused
 * in its place; the turn waits for durability once; what the store refuses is refused to each
 * order it held, and the actor resumes from the ledger.
 */
import { LedgerDesk } from "../../ledger/desk";
import { Ledger } from "../../ledger/ledger";
import { verifyAll } from "../../ledger/verify";
import { MarketActor, type MarketPorts } from "../../trading/market-actor";
import { MarketRegistry } from "../../trading/market-registry";
import { placeMany } from "../../trading/book-cores";
import type { BookJournalDoc } from "../../models/trading";
import { switchedStore } from "../support/switched-store";

const M = "mkt_m";
const SHARE = 1_000_000;

async function setup(opts: { now?: boolean } = {}) {
  const { store, ctl } = switchedStore();
  const ledger = await Ledger.open(store);
  const desk = new LedgerDesk(ledger, store, { now: () => Date.now(), newId: (p) => `${p}_x` });
  for (const u of ["usr_a", "usr_b"])
    await desk.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: 100 * SHARE },
        { kind: "external", flow: "deposit", amount: 100 * SHARE },
      ],
    });
  let ids = 0;
  const waits: number[] = [];
  const published: BookJournalDoc[] = [];
  const ports: MarketPorts = {
    fees: { takerBps: 100, makerBps: 0 },
    ammFeeBps: 0,
    newId: (p) => `${p}_${String(++ids).padStart(6, "0")}`,
    nodeID: "eng",
    market: async () => ({ status: "open", ammLiquidity: 0 }),
    ledger: {
      acquire: async (m) => desk.acquire(m, "eng"),
      restingOrders: (m, after, limit) => store.restingOrders(m, after, limit),
      lease: (m) => desk.committedLease(m),
      post: async (e) => ledger.post(e),
      ...(opts.now ? { postNow: (e: Parameters<Ledger["post"]>[0]) => ledger.post(e) } : {}),
      durable: (seq, instance) => {
        waits.push(seq);
        return ledger.waitDurable(seq, instance);
      },
    },
    publish: (doc) => void published.push(doc),
  };
  const actor = await MarketActor.load(M, ports);
  waits.length = 0;
  const registry = new MarketRegistry<MarketActor>({
    nodeID: "eng",
    ownerOf: () => "eng",
    refreshOwners: () => undefined,
    load: (m) => MarketActor.load(m, ports),
    measured: () => undefined,
    log: () => undefined,
  });
  return { store, ctl, ledger, actor, waits, published, registry };
}

const open = (actor: MarketActor) =>
  actor.book
    .openOrders()
    .map((o) => `${o.userId} ${o.side} ${o.outcome} ${o.price} ${o.remaining}`)
    .sort();

describe("a market actor placing several orders in one turn", () => {
  test("each order on the book the ones before it left, each answered or refused in its place, one durability wait", async () => {
    const { store, ledger, actor, waits, published } = await setup();
    const out = await actor.placeMany([
      { userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE },
      // Meets usr_a's bid placed just before it in the same turn.
      { userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE },
      // Nobody funded usr_c: refused alone.
      { userId: "usr_c", side: "BUY", outcome: "YES", orderType: "GTC", price: 30, quantity: SHARE },
      { userId: "usr_b", side: "BUY", outcome: "YES", orderType: "GTC", price: 20, quantity: 2 * SHARE },
    ]);
    expect(out.map((r) => (r.ok ? r.value.status : (r.error as { code: string }).code))).toEqual([
      "open",
      "filled",
      "INSUFFICIENT_BALANCE",
      "open",
    ]);
    expect(waits).toHaveLength(1);
    // The three commands that landed, published in order once durable.
    expect(published.map((d) => d.command.type)).toEqual(["place", "place", "place"]);
    expect(published.map((d) => d.seq)).toEqual([...published.map((d) => d.seq)].sort((a, b) => a - b));
    expect(ledger.durableSeq).toBeGreaterThanOrEqual(waits[0]);
    expect(open(actor)).toEqual([`usr_b BUY YES 20 ${2 * SHARE}`]);
    expect((await ledger.check()).ok).toBe(true);
    const audit = await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() });
    expect(audit.problems).toEqual([]);
  });

  test("a turn the store refuses: every order it held is refused, nothing changed, and the actor goes on from the ledger", async () => {
    const { ctl, ledger, actor } = await setup();
    await actor.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE });
    const committed = open(actor);
    const before = ["usr_a", "usr_b"].map((u) => ledger.balance(u));
    ctl.refuse = true;
    const out = await actor.placeMany([
      { userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE },
      { userId: "usr_b", side: "BUY", outcome: "YES", orderType: "GTC", price: 30, quantity: SHARE },
    ]);
    expect(out.map((r) => (r.ok ? "ok" : (r.error as { code: string }).code))).toEqual(["SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE"]);
    expect(["usr_a", "usr_b"].map((u) => ledger.balance(u))).toEqual(before);
    ctl.refuse = false;
    const again = await actor.placeMany([{ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE }]);
    expect(again[0]).toMatchObject({ ok: true, value: { status: "filled" } });
    expect(committed).toHaveLength(1);
    expect(open(actor)).toEqual([]);
    expect(actor.fenced).toBe(false);
    expect((await ledger.check()).ok).toBe(true);
  });
});

describe("a single order on an idle actor with the ledger on its node", () => {
  test("is committed in the caller's turn (the ledger holds it before the call returns), acknowledged once durable", async () => {
    const { ledger, actor, waits } = await setup({ now: true });
    const seq = ledger.lastSeq;
    const placed = actor.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE });
    expect(ledger.lastSeq).toBe(seq + 1);
    expect(actor.book.openOrders()).toHaveLength(1);
    await expect(placed).resolves.toMatchObject({ status: "open" });
    expect(waits).toEqual([seq + 1]);
  });

  test("a refusal of the ledger or of the store is that order's; the actor resumes from the ledger", async () => {
    const { ctl, ledger, actor } = await setup({ now: true });
    await expect(
      actor.place({ userId: "usr_c", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE }),
    ).rejects.toMatchObject({ code: "INSUFFICIENT_BALANCE" });
    ctl.refuse = true;
    await expect(
      actor.place({ userId: "usr_a", side: "BUY", outcome: "YES", orderType: "GTC", price: 40, quantity: SHARE }),
    ).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    ctl.refuse = false;
    await expect(
      actor.place({ userId: "usr_b", side: "BUY", outcome: "NO", orderType: "GTC", price: 60, quantity: SHARE }),
    ).resolves.toMatchObject({ status: "open" });
    expect(open(actor)).toEqual([`usr_b BUY NO 60 ${SHARE}`]);
    expect((await ledger.check()).ok).toBe(true);
  });
});

describe("a batch's orders on several markets (book-cores placeMany)", () => {
  afterEach(() => jest.restoreAllMocks());

  const order = (marketId: string, userId: string, outcome: "YES" | "NO", price: number, quantity = SHARE) => ({
    marketId,
    userId,
    side: "BUY" as const,
    outcome,
    orderType: "GTC" as const,
    price,
    quantity,
  });

  test("idle actors with the ledger here take their orders at once: each answered in its place, one durability wait per market", async () => {
    const { ledger, store, registry, waits, published } = await setup({ now: true });
    // Loaded first (a batch's fast path is for loaded, idle actors).
    await registry.onMarket("mkt_x", async () => undefined);
    await registry.onMarket("mkt_y", async () => undefined);
    waits.length = 0;
    const queueTurns = jest.spyOn(MarketActor.prototype, "placeMany");
    const out = await placeMany(registry, [
      order("mkt_x", "usr_a", "YES", 40),
      order("mkt_y", "usr_a", "YES", 30),
      order("mkt_x", "usr_b", "NO", 60),
      order("mkt_y", "usr_c", "NO", 70),
      order("mkt_x", "usr_b", "YES", 10, 3 * SHARE),
    ]);
    expect(out.map((r) => (r.ok ? r.value.status : (r.error as { code: string }).code))).toEqual([
      "open",
      "open",
      "filled",
      "INSUFFICIENT_BALANCE",
      "open",
    ]);
    expect(waits).toHaveLength(2);
    expect(published.map((d) => `${d.marketId}:${d.seq}`)).toEqual(["mkt_x:1", "mkt_x:2", "mkt_x:3", "mkt_y:1"]);
    // Not one turn of a queue.
    expect(queueTurns).not.toHaveBeenCalled();
    expect((await ledger.check()).ok).toBe(true);
    expect((await verifyAll(store, { accounts: ledger.snapshotAccounts(), leases: ledger.leases() })).problems).toEqual([]);
  });

  test("a market that cannot take them now (not loaded, or busy) gets its orders in one turn of its queue, in request order", async () => {
    const { ledger, registry, published } = await setup({ now: true });
    await registry.onMarket("mkt_x", async () => undefined);
    const x = registry.ready("mkt_x") as MarketActor;
    // Busy: a command of its own is queued first.
    const first = x.cancelMany("usr_c", null, "user");
    const queueTurns = jest.spyOn(MarketActor.prototype, "placeMany");
    const out = await placeMany(registry, [
      order("mkt_x", "usr_a", "YES", 40),
      order("mkt_new", "usr_b", "YES", 30),
      order("mkt_x", "usr_b", "NO", 60),
    ]);
    await first;
    expect(queueTurns.mock.calls.map((c) => c[0].length)).toEqual([2, 1]);
    expect(out.map((r) => (r.ok ? r.value.status : (r.error as { code: string }).code))).toEqual(["open", "open", "filled"]);
    expect(published.filter((d) => d.marketId === "mkt_x").map((d) => (d.command.type === "place" ? d.command.order.price : 0))).toEqual([
      40, 60,
    ]);
    expect((await ledger.check()).ok).toBe(true);
  });

  test("orders taken at once that the store then refuses are each refused; the actor resumes from the ledger", async () => {
    const { ctl, ledger, registry } = await setup({ now: true });
    await registry.onMarket("mkt_x", async () => undefined);
    const before = ["usr_a", "usr_b"].map((u) => ledger.balance(u));
    ctl.refuse = true;
    const out = await placeMany(registry, [order("mkt_x", "usr_a", "YES", 40), order("mkt_x", "usr_b", "NO", 60)]);
    expect(out.map((r) => (r.ok ? "ok" : (r.error as { code: string }).code))).toEqual(["SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE"]);
    expect(["usr_a", "usr_b"].map((u) => ledger.balance(u))).toEqual(before);
    ctl.refuse = false;
    const again = await placeMany(registry, [order("mkt_x", "usr_a", "YES", 40), order("mkt_x", "usr_b", "NO", 60)]);
    expect(again.map((r) => (r.ok ? r.value.status : "refused"))).toEqual(["open", "filled"]);
    expect((registry.ready("mkt_x") as MarketActor).book.openOrders()).toEqual([]);
    expect((await ledger.check()).ok).toBe(true);
  });
});
