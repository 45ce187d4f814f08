import fc from "fast-check";
import { OrderBook } from "../../engine/book";
import { ReferenceBook } from "../support/reference-book";
import type { BookEvent, Order, OrderType, Outcome, PriceLevel, RestingOrder, Side } from "../../engine/types";

type Cmd =
  | { kind: "place"; user: number; side: Side; outcome: Outcome; price: number; qty: number; type: OrderType; reuse: number | null }
  | { kind: "replace"; target: number; price: number; qty: number }
  | { kind: "cancel"; target: number; as: "none" | "owner" | "other" }
  | { kind: "cancelUnknown" }
  | { kind: "cancelAll" };

interface Probe {
  side: Side;
  outcome: Outcome;
  qty: number;
  limit?: number;
  exclude?: number;
}

const side = fc.constantFrom<Side>("BUY", "SELL");
const outcome = fc.constantFrom<Outcome>("YES", "NO");

/** Prices cluster around 50 in both outcomes so YES/NO orders cross often; a few are garbage on purpose. */
const price = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 44, max: 56 }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 99 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 100, 50.5) },
);
const qty = fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 1, max: 30 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -3, 2.5) });

function cmdArb(users: number): fc.Arbitrary<Cmd> {
  return fc.oneof(
    {
      weight: 30,
      arbitrary: fc.record({
        kind: fc.constant("place" as const),
        user: fc.integer({ min: 0, max: users - 1 }),
        side,
        outcome,
        price,
        qty,
        type: fc.constantFrom<OrderType>("GTC", "GTC", "GTD", "FOK", "FAK"),
        // Mostly fresh ids; sometimes a previous one (live = DUPLICATE_ORDER, finished = legal reuse).
        reuse: fc.oneof({ weight: 15, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
      }),
    },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("cancel" as const),
        target: fc.nat(),
        as: fc.constantFrom("none" as const, "owner" as const, "other" as const),
      }),
    },
    // An amend that loses priority: the resting order cancelled and placed again under its id.
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("replace" as const),
        target: fc.nat(),
        price: fc.integer({ min: 44, max: 56 }),
        qty: fc.integer({ min: 1, max: 30 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "cancelUnknown" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "cancelAll" as const }) },
  );
}

const probeArb: fc.Arbitrary<Probe> = fc.record(
  {
    side,
    outcome,
    qty: fc.integer({ min: 1, max: 200 }),
    limit: fc.integer({ min: 1, max: 99 }),
    exclude: fc.integer({ min: 0, max: 5 }),
  },
  { requiredKeys: ["side", "outcome", "qty"] },
);

/** Shared driver state: turns abstract commands into concrete orders identically for both books. */
class Driver {
  private placed: Array<{ id: string; user: string; side: Side; outcome: Outcome }> = [];
  private next = 0;
  /** The order of the latest place command (for preview). */
  lastOrder: Order | null = null;
  /** The new terms of the latest replace command. */
  lastReplace: Order | null = null;

  command(c: Cmd): (b: OrderBook | ReferenceBook) => BookEvent[] {
    switch (c.kind) {
      case "place": {
        const user = `u${c.user}`;
        const id = c.reuse !== null && this.placed.length > 0 ? this.placed[c.reuse % this.placed.length].id : `o${this.next++}`;
        this.placed.push({ id, user, side: c.side, outcome: c.outcome });
        const o: Order = {
          orderId: id,
          userId: user,
          side: c.side,
          outcome: c.outcome,
          price: c.price,
          quantity: c.qty,
          orderType: c.type,
        };
        this.lastOrder = o;
        return (b) => b.place({ ...o });
      }
      case "cancel": {
        if (this.placed.length === 0) return (b) => b.cancel("none");
        const t = this.placed[c.target % this.placed.length];
        const as = c.as === "none" ? undefined : c.as === "owner" ? t.user : `${t.user}x`;
        return (b) => b.cancel(t.id, as);
      }
      case "replace": {
        this.lastOrder = null;
        this.lastReplace = null;
        if (this.placed.length === 0) return () => [];
        const t = this.placed[c.target % this.placed.length];
        const o: Order = {
          orderId: t.id,
          userId: t.user,
          side: t.side,
          outcome: t.outcome,
          price: c.price,
          quantity: c.qty,
          orderType: "GTC",
        };
        this.lastReplace = o;
        return (b) =>
          b.openOrders().some((r) => r.orderId === t.id && r.userId === t.user) ? [...b.cancel(t.id, t.user), ...b.place({ ...o })] : [];
      }
      case "cancelUnknown":
        return (b) => b.cancel("unknown", "u0");
      case "cancelAll":
        return (b) => b.cancelAll("MARKET_CLOSED");
    }
  }
}

/** Tracks every accepted order: original = filled + resting + cancelled after every command. */
class Ledger {
  private live = new Map<string, { original: number; filled: number; cancelled: number }>();

  apply(placedQty: number | null, events: BookEvent[], fak = false): void {
    let taker: string | null = null;
    for (const e of events) {
      if (e.type === "accepted") {
        if (placedQty === null) throw new Error("accepted outside place");
        this.live.set(e.orderId, { original: placedQty, filled: 0, cancelled: 0 });
        taker = e.orderId;
      } else if (e.type === "fill") {
        this.rec(e.makerOrderId).filled += e.quantity;
        this.rec(e.takerOrderId).filled += e.quantity;
      } else if (e.type === "cancelled") {
        this.rec(e.orderId).cancelled += e.remaining;
      }
    }
    // A fill-and-kill never rests: what it did not fill is cancelled.
    if (fak && taker !== null && !events.some((e) => e.type === "rested")) {
      const r = this.rec(taker);
      r.cancelled = r.original - r.filled;
    }
  }

  check(open: RestingOrder[]): void {
    const resting = new Map(open.map((r) => [r.orderId, r.remaining]));
    for (const [id, r] of this.live) {
      const rest = resting.get(id) ?? 0;
      if (r.filled + rest + r.cancelled !== r.original)
        throw new Error(`quantity not conserved for ${id}: ${JSON.stringify({ ...r, rest })}`);
      // Finished: any later event for this id without a new "accepted" now throws in rec().
      if (rest === 0) this.live.delete(id);
    }
  }

  private rec(id: string) {
    const r = this.live.get(id);
    if (r === undefined) throw new Error(`event for unknown order ${id}`);
    return r;
  }
}

/** Fast structural compare; falls back to jest's toEqual only to report a difference. */
function same<T>(got: T, want: T): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
}

function aggregateYes(open: RestingOrder[]): { bids: PriceLevel[]; asks: PriceLevel[] } {
  const bids = new Map<number, PriceLevel>();
  const asks = new Map<number, PriceLevel>();
  for (const r of open) {
    const isBid = (r.side === "BUY") === (r.outcome === "YES");
    const t = r.outcome === "YES" ? r.price : 100 - r.price;
    const m = isBid ? bids : asks;
    const l = m.get(t) ?? { price: t, quantity: 0, numOrders: 0 };
    l.quantity += r.remaining;
    l.numOrders++;
    m.set(t, l);
  }
  return {
    bids: [...bids.values()].sort((a, b) => b.price - a.price),
    asks: [...asks.values()].sort((a, b) => a.price - b.price),
  };
}

function checkInvariants(book: OrderBook, ref: ReferenceBook, probe: Probe): void {
  same(book.checkIntegrity(), []);
  const best = book.best("YES");
  if (best.bid !== null && best.ask !== null) expect(best.bid).toBeLessThan(best.ask);
  const open = book.openOrders();
  same(open, ref.openOrders());
  // Incremental level aggregates against a recount of the orders themselves.
  same(book.depth("YES", 99), aggregateYes(open));
  for (const o of ["YES", "NO"] as const) {
    same(book.depth(o, 5), ref.depth(o, 5));
    same(book.depth(o, 99), ref.depth(o, 99));
    same(book.best(o), ref.best(o));
  }
  const opts = { limit: probe.limit, excludeUserId: probe.exclude === undefined ? undefined : `u${probe.exclude}` };
  same(book.sweep(probe.side, probe.outcome, probe.qty, opts), ref.sweep(probe.side, probe.outcome, probe.qty, opts));
}

function run(cmds: Array<[Cmd, Probe]>, book: OrderBook, ref: ReferenceBook, driver = new Driver(), ledger = new Ledger()): void {
  for (const [c, probe] of cmds) {
    const exec = driver.command(c);
    const before = book.seq;
    // preview() predicts place() exactly and changes nothing.
    const live = (id: string) => book.openOrders().some((r) => r.orderId === id);
    const preview =
      c.kind === "place" && driver.lastOrder
        ? book.preview({ ...driver.lastOrder })
        : c.kind === "replace" &&
            driver.lastReplace &&
            live(driver.lastReplace.orderId) &&
            book.getOrder(driver.lastReplace.orderId)?.userId === driver.lastReplace.userId
          ? book.preview({ ...driver.lastReplace }, { replacing: true })
          : null;
    if (preview) {
      expect(book.seq).toBe(before);
      same(book.checkIntegrity(), []);
    }
    const got = exec(book);
    if (preview) same(preview, got);
    const want = exec(ref);
    same(got, want);
    same(
      got.map((e) => e.seq),
      got.map((_, i) => before + 1 + i),
    );
    expect(book.seq).toBe(before + got.length);
    ledger.apply(c.kind === "place" || c.kind === "replace" ? c.qty : null, got, c.kind === "place" && c.type === "FAK");
    ledger.check(book.openOrders());
    checkInvariants(book, ref, probe);
  }
}

const script = (users: number, max: number) => fc.array(fc.tuple(cmdArb(users), probeArb), { minLength: 1, maxLength: max, size: "max" });

describe("OrderBook vs ReferenceBook", () => {
  test("identical events, depth and invariants on random command streams", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((users) => script(users, 120)),
        fc.integer({ min: 0, max: 1000 }),
        (cmds, startSeq) => run(cmds, new OrderBook("m", { startSeq }), new ReferenceBook("m", { startSeq })),
      ),
      { numRuns: 500 },
    );
  });

  test("long streams with few users (heavy self-trade prevention)", () => {
    fc.assert(
      fc.property(script(2, 400), (cmds) => run(cmds, new OrderBook("m"), new ReferenceBook("m"))),
      { numRuns: 150 },
    );
  });

  test("a book restored from openOrders in any order behaves identically", () => {
    fc.assert(
      fc.property(script(4, 80), script(4, 80), fc.integer(), (first, second, shuffleSeed) => {
        const book = new OrderBook("m");
        const ref = new ReferenceBook("m");
        const driver = new Driver();
        const ledger = new Ledger();
        run(first, book, ref, driver, ledger);
        const open = book.openOrders();
        // Deterministic shuffle so restore must rely on seq, not call order.
        const shuffled = open
          .map((o, i) => ({ o, k: Math.imul(i + 1, 2654435761 ^ shuffleSeed) >>> 0 }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.o);
        const restored = new OrderBook("m", { startSeq: book.seq });
        for (const o of shuffled) restored.restore(o);
        expect(restored.openOrders()).toEqual(open);
        expect(restored.checkIntegrity()).toEqual([]);
        // Same driver state is needed for both continuations, so replay the second half against
        // the restored book paired with the reference (which continued from the original).
        run(second, restored, ref, driver, ledger);
      }),
      { numRuns: 300 },
    );
  });
});
