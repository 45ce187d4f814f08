import fc from "fast-check";
import { cost, createLmsr, liquidityParameter, prices, quote, removeOutcome, worstLoss, type LmsrState } from "../../engine/lmsr";
import { LOT, MICRO } from "../../engine/money";
import type { Side } from "../../engine/types";

const ids = ["m0", "m1", "m2", "m3", "m4", "none"];

/** A funded pool over 2..6 outcomes, from tiny (rounding dominates) to a million USDT. */
const pool = fc
  .record({
    funding: fc.oneof(fc.integer({ min: 100, max: 100_000 }), fc.integer({ min: 1_000_000, max: 1_000_000_000_000 })),
    n: fc.integer({ min: 2, max: ids.length }),
  })
  .map(({ funding, n }) => ({ funding, state: createLmsr(Math.max(1, liquidityParameter(funding, n)), ids.slice(0, n)) }));

const step = fc.record({
  side: fc.constantFrom<Side>("BUY", "SELL"),
  market: fc.integer({ min: 0, max: ids.length - 1 }),
  outcome: fc.constantFrom<"YES" | "NO">("YES", "NO"),
  lots: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 10_000_000 })),
  fee: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 })),
  leave: fc.integer({ min: 0, max: 30 }),
});

/** What traders hold of each outcome: the pool must pay it if that outcome wins. */
function holdings(s: LmsrState): Map<string, number> {
  return new Map(s.outcomes.map((o) => [o.id, o.q]));
}

describe("LMSR properties", () => {
  test("prices sum to exactly 1 and each is within [0, 1]", () => {
    fc.assert(
      fc.property(pool, fc.array(step, { maxLength: 30 }), ({ state }, steps) => {
        let s = state;
        for (const st of steps) {
          const r = quote(s, st.side, s.outcomes[st.market % s.outcomes.length].id, st.outcome, st.lots * LOT, st.fee);
          if (r.ok) s = r.newState;
          const p = [...prices(s).values()];
          expect(p.reduce((a, x) => a + x, 0)).toBe(MICRO);
          for (const x of p) expect(x >= 0 && x <= MICRO).toBe(true);
        }
      }),
    );
  });

  test("path independence: trades in any order cost what their end points cost; a round trip nets zero before fees", () => {
    fc.assert(
      fc.property(pool, fc.array(step, { minLength: 1, maxLength: 12 }), ({ state }, steps) => {
        let s = state;
        let paid = 0;
        const done: Array<{ side: Side; id: string; outcome: "YES" | "NO"; q: number }> = [];
        for (const st of steps) {
          const id = s.outcomes[st.market % s.outcomes.length].id;
          const r = quote(s, st.side, id, st.outcome, st.lots * LOT);
          if (!r.ok) continue;
          paid += st.side === "BUY" ? r.cash : -r.cash;
          done.push({ side: st.side, id, outcome: st.outcome, q: st.lots * LOT });
          s = r.newState;
        }
        expect(paid).toBe(cost(s) - cost(state));
        // The same trades in reverse order reach the same state at the same total.
        let t = state;
        let paid2 = 0;
        for (const d of [...done].reverse()) {
          const r = quote(t, d.side, d.id, d.outcome, d.q);
          if (!r.ok) throw new Error(r.reason);
          paid2 += d.side === "BUY" ? r.cash : -r.cash;
          t = r.newState;
        }
        expect(t).toEqual(s);
        expect(paid2).toBe(paid);
        // Undo everything: back to the start, nothing gained or lost.
        let u = s;
        let back = 0;
        for (const d of [...done].reverse()) {
          const r = quote(u, d.side === "BUY" ? "SELL" : "BUY", d.id, d.outcome, d.q);
          if (!r.ok) throw new Error(r.reason);
          back += d.side === "BUY" ? r.cash : -r.cash;
          u = r.newState;
        }
        expect(u).toEqual(state);
        expect(back).toBe(paid);
      }),
    );
  });

  test("rounding favours the pool: its cost is at or above the exact rule, by less than a micro-unit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: -5_000_000_000, max: 5_000_000_000 }), { minLength: 2, maxLength: 6 }),
        (b, q) => {
          const c = cost({ b, outcomes: q.map((x, i) => ({ id: String(i), q: x })) });
          const m = Math.max(...q);
          const exact = m + b * Math.log(q.reduce((s, x) => s + Math.exp((x - m) / b), 0));
          // Float error of the reference is far below 1e-3 at these sizes.
          expect(c).toBeGreaterThanOrEqual(Math.ceil(exact - 1e-3));
          expect(c).toBeLessThanOrEqual(Math.ceil(exact + 1e-3));
          expect(c).toBeGreaterThanOrEqual(m);
        },
      ),
    );
  });

  test("bounded loss: funding plus what traders paid always covers the winning outcome's shares, whichever wins", () => {
    fc.assert(
      fc.property(pool, fc.array(step, { maxLength: 40 }), ({ funding, state }, steps) => {
        let s = state;
        let cash = funding;
        if (worstLoss(s.b, s.outcomes.length) > funding) return; // too little funding for any pool
        for (const st of steps) {
          if (st.leave === 0 && s.outcomes.length > 2) {
            // An outcome resolved NO: its shares pay nothing, the pool leaves it.
            s = removeOutcome(s, s.outcomes[st.market % s.outcomes.length].id);
            continue;
          }
          const r = quote(s, st.side, s.outcomes[st.market % s.outcomes.length].id, st.outcome, st.lots * LOT, st.fee);
          if (!r.ok) continue;
          cash += st.side === "BUY" ? r.cash : -r.cash; // fees go elsewhere
          s = r.newState;
          // Worth if w wins: cash less w's shares held by traders (a negative q is shares the pool bought back).
          for (const [, held] of holdings(s)) expect(cash - held).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});
