import { Ledger } from "../../ledger/ledger";
import { SqliteMoneyStore } from "../../ledger/sqlite-store";
import { isRefusal } from "../../engine/refusal";
import { MarketActor } from "../../trading/market-actor";
import { marketPortsOnLedger } from "../support/ledger-ports";
import {
  admits,
  checkAdmitted,
  ExchangeModes,
  NORMAL,
  reopenSetting,
  strictest,
  TRADING_MODES,
  type ModeSetting,
  type OrderCommandKind,
  type TradingMode,
} from "../../trading/trading-modes";

/** Trading modes: the admission rule, the strictness of combined settings, the reopen window, and the actor obeying them. */

const KINDS: OrderCommandKind[] = ["place", "placePostOnly", "amend", "route", "quote", "cancel"];

/** What each mode admits, written out (the rule of markets-api.md section 3). */
const ADMITTED: Record<TradingMode, OrderCommandKind[]> = {
  normal: ["place", "placePostOnly", "amend", "route", "quote", "cancel"],
  post_only: ["placePostOnly", "amend", "cancel"],
  cancel_only: ["cancel"],
  halted: [],
};

describe("trading modes: the rule", () => {
  test.each(TRADING_MODES.flatMap((mode) => KINDS.map((kind) => [mode, kind] as const)))(
    "%s admits %s only as the spec says",
    (mode, kind) => {
      const expected = ADMITTED[mode].includes(kind);
      expect(admits(mode, kind)).toBe(expected);
      const s: ModeSetting = { mode, reason: "scheduled maintenance" };
      if (expected) expect(() => checkAdmitted(s, kind)).not.toThrow();
      else {
        let err: unknown;
        try {
          checkAdmitted(s, kind);
        } catch (e) {
          err = e;
        }
        expect(isRefusal(err) && { kind: err.kind, code: err.code }).toEqual({ kind: "conflict", code: "TRADING_PAUSED" });
        expect((err as Error).message).toContain(mode);
        expect((err as Error).message).toContain("scheduled maintenance");
      }
    },
  );

  test("the stricter setting applies, with its own reason; equal strictness keeps the first", () => {
    const m = (mode: TradingMode, reason: string | null = mode): ModeSetting => ({ mode, reason });
    expect(strictest()).toEqual(NORMAL);
    for (const a of TRADING_MODES)
      for (const b of TRADING_MODES) {
        const s = strictest(m(a), m(b));
        expect(s.mode).toBe(TRADING_MODES[Math.max(TRADING_MODES.indexOf(a), TRADING_MODES.indexOf(b))]);
        expect(s.reason).toBe(s.mode === "normal" ? null : s.mode);
      }
    expect(strictest(m("post_only", "market"), m("post_only", "exchange"))).toEqual(m("post_only", "market"));
  });

  test("after a start every market is post-only until the window ends (fake clock); the stricter of it and the set modes applies", () => {
    let now = 1_000;
    const modes = new ExchangeModes(() => now, 1_000 + 5_000);
    expect(reopenSetting(0, now)).toEqual(NORMAL);
    expect(modes.effective(NORMAL).mode).toBe("post_only");
    expect(modes.effective({ mode: "halted", reason: "x" })).toEqual({ mode: "halted", reason: "x" });
    now = 5_999;
    expect(modes.effective(NORMAL).mode).toBe("post_only");
    now = 6_000;
    expect(modes.effective(NORMAL)).toEqual(NORMAL);
    modes.setExchange({ mode: "cancel_only", reason: "exchange" });
    expect(modes.effective({ mode: "post_only", reason: "market" })).toEqual({ mode: "cancel_only", reason: "exchange" });
    expect(modes.effective({ mode: "halted", reason: "market" })).toEqual({ mode: "halted", reason: "market" });
  });

  test("the stored exchange-wide setting read at load never overwrites a change heard meanwhile", () => {
    const modes = new ExchangeModes(() => 0, 0);
    expect(modes.loaded).toBe(false);
    modes.setExchange({ mode: "halted", reason: "new" });
    modes.learn({ mode: "normal", reason: null });
    expect(modes.exchangeSetting).toEqual({ mode: "halted", reason: "new" });
    const fresh = new ExchangeModes(() => 0, 0);
    fresh.learn({ mode: "post_only", reason: "stored" });
    expect(fresh.loaded).toBe(true);
    expect(fresh.exchangeSetting).toEqual({ mode: "post_only", reason: "stored" });
  });
});

const M = "mkt_modes";
const MAKER = "usr_maker";
const TAKER = "usr_taker";

/** One market's actor over a real ledger (SQLite in memory), its mode and the exchange-wide one settable. */
async function market(opts: { ownMode?: ModeSetting; reopenUntil?: number; now?: () => number } = {}) {
  const store = SqliteMoneyStore.open(":memory:", { fsync: false });
  const ledger = await Ledger.open(store);
  for (const u of [MAKER, TAKER]) {
    ledger.post({
      key: `dep:${u}`,
      postings: [
        { kind: "cash", account: u, available: 10_000_000 },
        { kind: "external", flow: "deposit", amount: 10_000_000 },
      ],
    });
  }
  const modes = new ExchangeModes(opts.now ?? (() => Date.now()), opts.reopenUntil ?? 0);
  const ports = marketPortsOnLedger(ledger, store, {
    market: async () => ({ status: "open", ammLiquidity: 0, tradingMode: opts.ownMode ?? NORMAL }),
    modes,
    publish: () => undefined,
  });
  const actor = await MarketActor.load(M, ports);
  const order = (userId: string, price: number, extra: { postOnly?: boolean; cancelOnPause?: boolean; outcome?: "YES" | "NO" } = {}) =>
    actor.place({
      userId,
      side: "BUY",
      outcome: extra.outcome ?? "YES",
      orderType: "GTC",
      price,
      quantity: 1_000_000,
      postOnly: extra.postOnly,
      cancelOnPause: extra.cancelOnPause,
    });
  return { actor, ledger, store, modes, ports, order };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (err: unknown) => (isRefusal(err) ? `${err.code}: ${err.message}` : String(err)),
  );

describe("trading modes: the market's actor", () => {
  test.each(TRADING_MODES)(
    "in %s the actor refuses exactly what the mode does not admit, changing nothing, and lets the rest through",
    async (mode) => {
      const w = await market();
      // Resting in normal: the maker's bids to amend and cancel, the taker's NO bid (a YES ask at 0.70) the router can take.
      const bid = await w.order(MAKER, 40);
      const bid2 = await w.order(MAKER, 41);
      await w.order(TAKER, 30, { outcome: "NO" });
      await w.actor.applyMode({ mode, reason: "audit in progress" });
      const before = { book: w.actor.book.openOrders().length, maker: w.ledger.balance(MAKER), taker: w.ledger.balance(TAKER) };

      const outcomes = {
        place: await refusal(w.order(TAKER, 30)),
        placePostOnly: await refusal(w.order(TAKER, 31, { postOnly: true })),
        amend: await refusal(w.actor.amend({ orderId: bid.orderId, userId: MAKER, price: 39 })),
        quote: await refusal(w.actor.quote({ userId: MAKER, side: "BUY", outcome: "YES", quantity: 1_000_000, mode: "ROUTE" })),
        route: await refusal(w.actor.route({ userId: MAKER, side: "BUY", outcome: "YES", quantity: 1_000_000, mode: "ROUTE" })),
        cancel: await refusal(w.actor.cancel(bid2.orderId, MAKER)),
      };
      for (const kind of KINDS) {
        if (ADMITTED[mode].includes(kind)) expect(`${kind} ${outcomes[kind]}`).toBe(`${kind} ok`);
        else expect(`${kind} ${outcomes[kind]}`).toMatch(new RegExp(`^${kind} TRADING_PAUSED: .*${mode}.*audit in progress`));
      }
      if (mode === "halted" || mode === "cancel_only") {
        // Nothing but (in cancel_only) the cancel changed the book or the money.
        const cancelled = mode === "cancel_only" ? 1 : 0;
        expect(w.actor.book.openOrders().length).toBe(before.book - cancelled);
        expect(w.ledger.balance(TAKER)).toEqual(before.taker);
      }
      // A trader's cancel-all obeys the mode; the exchange's own cancels (expiry) always run.
      const all = await refusal(w.actor.cancelMany(MAKER, null, "user"));
      expect(all.includes("TRADING_PAUSED")).toBe(mode === "halted");
      const expired = await w.actor.cancelMany(MAKER, [bid.orderId], "expired");
      if (mode === "halted") expect(expired.cancelled).toEqual([bid.orderId]);
    },
  );

  test("in post_only an amend that would execute at once is refused; one that rests goes through", async () => {
    const w = await market();
    await w.order(TAKER, 40, { outcome: "NO" });
    const bid = await w.order(MAKER, 40);
    await w.actor.applyMode({ mode: "post_only", reason: "reopening" });
    expect(await refusal(w.actor.amend({ orderId: bid.orderId, userId: MAKER, price: 60 }))).toMatch(
      /^TRADING_PAUSED: .*post_only.*reopening/,
    );
    expect(await refusal(w.actor.amend({ orderId: bid.orderId, userId: MAKER, price: 55 }))).toBe("ok");
    expect(await refusal(w.order(MAKER, 65, { postOnly: true }))).toMatch(/^POST_ONLY_WOULD_CROSS/);
  });

  test("cancelOnPause orders are cancelled (reason paused) when the market or the exchange leaves normal; the others stay; the flag survives a rebuild", async () => {
    const w = await market();
    const keep = await w.order(MAKER, 40);
    const go = await w.order(MAKER, 41, { cancelOnPause: true });
    expect(await w.actor.applyMode({ mode: "normal", reason: null })).toBe(0);
    expect(await w.actor.applyMode({ mode: "post_only", reason: "pause" })).toBe(1);
    expect(w.actor.book.openOrders().map((o) => o.orderId)).toEqual([keep.orderId]);
    expect(await w.store.order(go.orderId)).toMatchObject({ status: "cancelled", cancelReason: "paused", remaining: 0 });
    expect(w.ledger.balance(MAKER).locked).toBe((await w.store.order(keep.orderId))?.holds);

    // Back to normal: a new cancelOnPause order, then the exchange-wide mode pauses it.
    await w.actor.applyMode({ mode: "normal", reason: null });
    const later = await w.order(MAKER, 42, { cancelOnPause: true });
    // A rebuilt actor (a restart, a new owner) knows the flag from the ledger's order rows.
    const rebuilt = await MarketActor.load(M, w.ports);
    w.modes.setExchange({ mode: "cancel_only", reason: "exchange pause" });
    expect(await rebuilt.applyMode()).toBe(1);
    expect(await w.store.order(later.orderId)).toMatchObject({ status: "cancelled", cancelReason: "paused" });
    expect(rebuilt.book.openOrders().map((o) => o.orderId)).toEqual([keep.orderId]);
  });

  test("the reopen window after a start: post-only until it ends (fake clock), then normal", async () => {
    let now = 0;
    const w = await market({ reopenUntil: 10_000, now: () => now });
    expect(w.actor.tradingMode.mode).toBe("post_only");
    expect(await refusal(w.order(TAKER, 30))).toMatch(/^TRADING_PAUSED: .*post_only/);
    expect(await refusal(w.order(TAKER, 30, { postOnly: true }))).toBe("ok");
    now = 10_000;
    expect(w.actor.tradingMode).toEqual(NORMAL);
    expect(await refusal(w.order(TAKER, 31))).toBe("ok");
  });

  test("a mode stored with the market applies from the actor's load", async () => {
    const w = await market({ ownMode: { mode: "halted", reason: "stored" } });
    expect(w.actor.tradingMode).toEqual({ mode: "halted", reason: "stored" });
    expect(await refusal(w.order(TAKER, 30, { postOnly: true }))).toMatch(/^TRADING_PAUSED: .*halted.*stored/);
  });
});
