/**
 * One LMSR pool across a mutually exclusive event, traded in the binary markets' shares, over
 * random sequences: pool trades (BUY/SELL of YES/NO of any open market), conversions, early NO
 * resolutions, then a final winner (or none): conservation and every account's cover after every
 * command, the pool's YES prices summing to 1 (with "none" on an event that is not exhaustive),
 * every winning share paid exactly once, and the house losing at most what it funded.
 */
import fc from "fast-check";
import { Accounts, type Posting } from "../../engine/accounts";
import { conversionAccount, ConversionRefusal, planConversion } from "../../engine/conversion";
import { eventPoolAccount, eventPoolFunding, planEventPoolTrade, poolState, solvent, worth } from "../../engine/event-pool";
import { liquidityParameter, NONE_OUTCOME, prices, worstLoss } from "../../engine/lmsr";
import { LOT, MICRO } from "../../engine/money";
import type { Outcome, Side } from "../../engine/types";
import { redeemWinner, resolutionPostings } from "../../chain/redemption";
import { entryRuleProblems } from "../../ledger/entry-rules";
import type { ConversionRecord } from "../../models/trading";

const USDT = 1_000_000;
const E = "evt_pool";
const POOL = eventPoolAccount(E);
const users = [0, 1, 2].map((i) => `usr_${i}`);

type Cmd =
  | { kind: "trade"; user: number; market: number; side: Side; outcome: Outcome; lots: number; fee: number }
  | { kind: "convert"; user: number; pick: number[]; share: number }
  | { kind: "dropOut"; market: number };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("trade" as const),
      user: fc.nat(2),
      market: fc.nat(7),
      side: fc.constantFrom<Side>("BUY", "BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      lots: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: USDT / LOT, max: 40 * (USDT / LOT) })),
      fee: fc.constantFrom(0, 100),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("convert" as const),
      user: fc.nat(2),
      pick: fc.array(fc.nat(7), { minLength: 1, maxLength: 4 }),
      share: fc.double({ min: 0.05, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dropOut" as const), market: fc.nat(7) }) },
);

const scenario = fc.record({
  exhaustive: fc.boolean(),
  markets: fc.integer({ min: 2, max: 6 }),
  funding: fc.oneof(
    fc.integer({ min: 1, max: 50 }).map((u) => u * USDT),
    fc.integer({ min: 1_000, max: 100_000 }),
  ),
  cmds: fc.array(cmd, { minLength: 1, maxLength: 50 }),
  winner: fc.nat(7),
});

describe("an event's LMSR pool in binary shares", () => {
  test("conserved and covered after every command; prices sum to 1; each winning share paid once; the house loses at most its funding", () => {
    const seen = { trades: 0, sells: 0, conversions: 0, dropOuts: 0, negativeCash: 0 };
    fc.assert(
      fc.property(scenario, (s) => {
        const a = new Accounts();
        const entry = (postings: Posting[], conversion?: ConversionRecord) => {
          expect(entryRuleProblems({ key: "e", postings, ...(conversion ? { conversion } : {}) }, a)).toEqual([]);
          a.apply(postings);
        };
        for (const u of users)
          a.apply([
            { kind: "cash", account: u, available: 300 * USDT },
            { kind: "external", flow: "deposit", amount: 300 * USDT },
          ]);
        const markets = Array.from({ length: s.markets }, (_, i) => `m${i}`);
        const open = new Set(markets);
        const outcomes = () => [...markets.filter((m) => open.has(m)), ...(s.exhaustive ? [] : [NONE_OUTCOME])];
        const b = liquidityParameter(s.funding, outcomes().length);
        expect(worstLoss(b, outcomes().length)).toBeLessThanOrEqual(s.funding);
        entry(eventPoolFunding(E, s.funding));
        const books = () => ({ cash: a.balance(POOL).available, positions: a.positionsOf(POOL) });
        const check = () => {
          const c = a.conservation();
          expect(c).toMatchObject({ ok: true, unbalancedMarkets: [] });
          expect(c.uncoveredConversions).toBeUndefined();
          const st = poolState(b, books(), outcomes());
          if (st.outcomes.length >= 2) {
            const p = prices(st);
            expect([...p.values()].reduce((x, y) => x + y, 0)).toBe(MICRO);
          }
          expect(solvent(st)).toBe(true);
          for (const [, v] of worth(books(), outcomes())) expect(v >= 0n).toBe(true);
          if (a.balance(POOL).available < 0) seen.negativeCash++;
        };
        const resolve = (m: string, winner: Outcome) => {
          open.delete(m);
          entry(resolutionPostings(m, winner, a.holders(m)));
          for (const u of users) {
            const p = a.position(u, m, winner);
            if (!p || p.quantity === 0) continue;
            const before = a.balance(u).available;
            entry(redeemWinner(m, u, winner, p.quantity));
            expect(a.balance(u).available - before).toBe(p.quantity);
          }
          expect(a.collateralOf(m)).toBe(0);
          expect(a.holders(m)).toEqual([]);
        };
        check();

        for (const c of s.cmds) {
          const live = markets.filter((m) => open.has(m));
          if (c.kind === "trade") {
            // A SELL gives back shares the trader holds (of any open market).
            const mine = live.filter((x) => (a.position(users[c.user], x, c.outcome)?.quantity ?? 0) >= LOT);
            const from = c.side === "SELL" ? mine : live;
            if (!from.length) continue;
            const m = from[c.market % from.length];
            const quantity = c.lots * LOT;
            const state = poolState(b, books(), outcomes());
            const plan = planEventPoolTrade(state, books(), {
              eventId: E,
              userId: users[c.user],
              side: c.side,
              marketId: m,
              outcome: c.outcome,
              quantity:
                c.side === "SELL"
                  ? Math.min(quantity, Math.floor((a.position(users[c.user], m, c.outcome)?.quantity ?? 0) / LOT) * LOT)
                  : quantity,
              feeBps: c.fee,
            });
            if (!plan.ok) continue;
            try {
              a.prepare(plan.postings);
            } catch {
              continue; // the trader cannot pay: refused, nothing changes
            }
            entry(plan.postings);
            seen.trades++;
            if (c.side === "SELL") seen.sells++;
            // Before fees the pool moved exactly as the LMSR quote said.
            const after = poolState(b, books(), outcomes());
            const shift = after.outcomes[0].q - plan.quote.newState.outcomes[0].q;
            expect(after.outcomes.map((o) => o.q - shift)).toEqual(plan.quote.newState.outcomes.map((o) => o.q));
          } else if (c.kind === "convert") {
            const user = users[c.user];
            const has = live.filter((m) => (a.position(user, m, "NO")?.quantity ?? 0) > 0);
            const named = [...new Set(c.pick.map((i) => has[i % Math.max(1, has.length)]).filter(Boolean))];
            if (!named.length) continue;
            const free = Math.min(...named.map((m) => a.position(user, m, "NO")!.quantity));
            const rec: ConversionRecord = {
              eventId: E,
              userId: user,
              marketIds: named,
              otherOpen: live.filter((m) => !named.includes(m)),
              quantity: Math.max(1, Math.floor(free * c.share)),
              feeBps: 0,
            };
            try {
              entry(planConversion({ ...rec, account: user, positions: a.positionsOf(user) }).postings, rec);
            } catch (err) {
              expect(err).toBeInstanceOf(ConversionRefusal);
              continue;
            }
            seen.conversions++;
          } else {
            const m = markets[c.market % markets.length];
            if (!open.has(m) || live.length <= 2) continue;
            resolve(m, "NO");
            seen.dropOuts++;
          }
          check();
        }

        const live = markets.filter((m) => open.has(m));
        const winner = s.exhaustive || s.winner < live.length ? live[s.winner % live.length] : null;
        for (const m of live) resolve(m, m === winner ? "YES" : "NO");
        expect(a.conservation()).toMatchObject({ ok: true });
        for (const m of markets) expect(a.holders(m)).toEqual([]);
        // Every advance back; the pool ends with cash only, the house's loss at most its funding.
        expect(a.balance(conversionAccount(E)).available).toBeGreaterThanOrEqual(0);
        expect(a.balance(POOL).available).toBeGreaterThanOrEqual(0);
        expect(s.funding - a.balance(POOL).available).toBeLessThanOrEqual(worstLoss(b, s.markets + (s.exhaustive ? 0 : 1)));
      }),
      { numRuns: 150 },
    );
    expect(seen.trades).toBeGreaterThan(300);
    expect(seen.sells).toBeGreaterThan(20);
    expect(seen.conversions).toBeGreaterThan(10);
    expect(seen.dropOuts).toBeGreaterThan(20);
    expect(seen.negativeCash).toBeGreaterThan(5);
  });
});
