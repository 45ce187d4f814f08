import fc from "fast-check";
import {
  compareFractions,
  compareToTick,
  invariant,
  isqrt,
  marginalPrice,
  maxBuyUpToPrice,
  maxSellDownToPrice,
  quote,
  type PoolState,
} from "../../engine/amm";
import { LOT } from "../../engine/money";
import type { Outcome, Side } from "../../engine/types";

const side = fc.constantFrom<Side>("BUY", "SELL");
const outcome = fc.constantFrom<Outcome>("YES", "NO");
const feeBps = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 9_999 }));

/** Pools from tiny (rounding dominates) to large (1e9 USDT), prices inside the bounds. */
const pool: fc.Arbitrary<PoolState> = fc
  .oneof(
    fc.tuple(fc.integer({ min: 100, max: 100_000 }), fc.integer({ min: 100, max: 100_000 })),
    fc.tuple(fc.integer({ min: 1_000_000, max: 1_000_000_000_000 }), fc.integer({ min: 1_000_000, max: 1_000_000_000_000 })),
    fc.tuple(fc.integer({ min: 1, max: 1_000_000_000_000_000 }), fc.integer({ min: 1, max: 1_000_000_000_000_000 })),
  )
  .map(([yes, no]) => ({ yes, no }))
  .filter((s) => 99 * s.yes >= s.no && 99 * s.no >= s.yes);

/** Quantities in lots, scaled to the pool so that many trades are accepted. */
const trade = pool.chain((s) =>
  fc.record({
    s: fc.constant(s),
    side,
    outcome,
    fee: feeBps,
    q: fc
      .oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: Math.max(1, Math.floor((2 * Math.min(s.yes, s.no)) / LOT)) }))
      .map((l) => l * LOT),
  }),
);

describe("AMM properties", () => {
  test("accepted trades: invariant never decreases, cash is the exact bound, fee rounded up, price moves the right way", () => {
    fc.assert(
      fc.property(trade, ({ s, side, outcome, fee, q }) => {
        const r = quote(s, side, outcome, q, fee);
        if (!r.ok) {
          expect(["PRICE_BOUNDS", "OVERFLOW"]).toContain(r.reason);
          return;
        }
        const k = invariant(s);
        expect(invariant(r.newState) >= k).toBe(true);
        expect(Number.isSafeInteger(r.newState.yes) && Number.isSafeInteger(r.newState.no)).toBe(true);
        const x = BigInt(outcome === "YES" ? s.yes : s.no);
        const o = BigInt(outcome === "YES" ? s.no : s.yes);
        const c = BigInt(r.cash);
        const qq = BigInt(q);
        if (side === "BUY") {
          // c is the least cash that keeps the product: c - 1 would not.
          expect(c >= 0n && c <= qq).toBe(true);
          if (c > 0n) expect((x + c - 1n - qq) * (o + c - 1n) < k).toBe(true);
          expect(r.net).toBe(r.cash + r.fee);
          expect(BigInt(r.fee) * 10_000n >= BigInt(r.net) * BigInt(fee)).toBe(true); // >= bps of what is paid
          expect(BigInt(r.fee - 1) * 10_000n < BigInt(r.net) * BigInt(fee) || r.fee === 0).toBe(true); // by at most 1
          expect(compareFractions(r.priceAfter, r.priceBefore)).toBeGreaterThanOrEqual(0);
          expect(compareToTick(r.priceAfter, 99)).toBeLessThanOrEqual(0);
        } else {
          // c is the most cash the pool can pay: c + 1 would break the product (or empty a side).
          expect(c >= 0n && c < o).toBe(true);
          if (c + 1n < o) expect((x + qq - c - 1n) * (o - c - 1n) < k).toBe(true);
          expect(r.net).toBe(r.cash - r.fee);
          expect(r.fee).toBe(Number((c * BigInt(fee) + 9_999n) / 10_000n));
          expect(compareFractions(r.priceAfter, r.priceBefore)).toBeLessThanOrEqual(0);
          expect(compareToTick(r.priceAfter, 1)).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("buy q then sell q back never returns more than was paid (and the reverse never gains)", () => {
    fc.assert(
      fc.property(trade, ({ s, outcome, fee, q }) => {
        const b = quote(s, "BUY", outcome, q, fee);
        if (b.ok) {
          // The round trip leaves the pool plus some pairs: closer to 0.5, so never out of bounds.
          const back = quote(b.newState, "SELL", outcome, q, fee);
          expect(back.ok).toBe(true);
          if (back.ok) {
            expect(back.cash).toBeLessThanOrEqual(b.cash);
            expect(back.net).toBeLessThanOrEqual(b.net);
            expect(invariant(back.newState) >= invariant(s)).toBe(true);
          }
        }
        const sl = quote(s, "SELL", outcome, q, fee);
        if (sl.ok) {
          const again = quote(sl.newState, "BUY", outcome, q, fee);
          // Only a huge fee on a huge pool can make the buy-back unpayable (not a safe integer).
          if (!again.ok) expect(again.reason).toBe("OVERFLOW");
          if (again.ok) expect(again.net).toBeGreaterThanOrEqual(sl.net);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("maxBuyUpToPrice / maxSellDownToPrice: the result reaches at most the price, one more lot crosses it", () => {
    fc.assert(
      fc.property(pool, outcome, side, fc.integer({ min: 1, max: 99 }), ({ yes, no }, outcome, side, tick) => {
        const s = { yes, no };
        const m = side === "BUY" ? maxBuyUpToPrice(s, outcome, tick) : maxSellDownToPrice(s, outcome, tick);
        expect(m % LOT).toBe(0);
        const after = (q: number) =>
          q === 0
            ? { ok: true as const, p: marginalPrice(s, outcome) }
            : ((r) => (r.ok ? { ok: true as const, p: r.priceAfter } : { ok: false as const }))(quote(s, side, outcome, q, 0));
        const sign = side === "BUY" ? 1 : -1;
        const at = after(m);
        expect(at.ok).toBe(true);
        if (at.ok && m > 0) expect(sign * compareToTick(at.p, tick)).toBeLessThanOrEqual(0);
        const next = after(m + LOT);
        if (next.ok) expect(sign * compareToTick(next.p, tick)).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  test("isqrt is the exact floor", () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: 1n << 110n }), fc.bigInt({ min: 0n, max: 1n << 200n })), (n) => {
        const r = isqrt(n);
        expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
