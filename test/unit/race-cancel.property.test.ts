/**
 * A race's outcome cancelled, over random sequences: pairs minted on its markets, conversions of NO
 * positions, trades against the event's pool, outcomes cancelled at whatever price an operator asks
 * (the catalog's rule decides what is paid: catalog/exclusive.ts `cancelPriceInEvent`), then the
 * final resolution and every winner redeeming. The money check stays clean after every step: the
 * conversion account and the pool covered (cash + what their shares are guaranteed to pay >= 0),
 * every cancelled market paid from its own collateral, nothing left owed at the end.
 */
import fc from "fast-check";
import type { Posting } from "../../engine/accounts";
import { conversionAccount, ConversionRefusal, planConversion } from "../../engine/conversion";
import { conversionCover } from "../../engine/conversion-guarantee";
import { eventPoolAccount, eventPoolFunding, planEventPoolTrade, poolState } from "../../engine/event-pool";
import { liquidityParameter, NONE_OUTCOME } from "../../engine/lmsr";
import { LOT } from "../../engine/money";
import { yesPayoutOfPrice } from "../../engine/payout";
import type { Outcome, Side } from "../../engine/types";
import { cancelledPayout, redeemWinner, resolutionPostings } from "../../chain/redemption";
import { cancelPriceInEvent } from "../../catalog/exclusive";
import { entryRuleProblems } from "../../ledger/entry-rules";
import type { EventDoc } from "../../models/catalog";
import type { ConversionRecord, PayoutRecord } from "../../models/trading";
import { PureExchange } from "../support/pure-exchange";

const USDT = 1_000_000;
const E = "evt_cancel";
const CONV = conversionAccount(E);
const POOL = eventPoolAccount(E);
const users = [0, 1, 2].map((i) => `usr_${i}`);
const RACE = { _id: E, mutuallyExclusive: true } as EventDoc;

type Cmd =
  | { kind: "pair"; user: number; other: number; market: number; price: number; lots: number }
  | { kind: "convert"; user: number; pick: number[] }
  | { kind: "pool"; user: number; market: number; side: Side; outcome: Outcome; lots: number }
  | { kind: "cancel"; market: number; cents: number | null };

const lots = fc.integer({ min: 1, max: 20 * (USDT / LOT) });
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("pair" as const),
      user: fc.nat(1),
      other: fc.nat(2),
      market: fc.nat(5),
      price: fc.integer({ min: 5, max: 95 }),
      lots,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("convert" as const),
      user: fc.nat(1),
      pick: fc.array(fc.nat(5), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("pool" as const),
      user: fc.nat(2),
      market: fc.nat(5),
      side: fc.constantFrom<Side>("BUY", "BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      lots,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      market: fc.nat(5),
      cents: fc.option(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100 })), { freq: 3 }),
    }),
  },
);

const scenario = fc.record({
  exhaustive: fc.boolean(),
  markets: fc.integer({ min: 2, max: 5 }),
  funding: fc.constantFrom(50 * USDT, 500 * USDT),
  cmds: fc.array(cmd, { minLength: 1, maxLength: 50 }),
  winner: fc.nat(6),
});

const priceText = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

describe("a race's outcome cancelled", () => {
  test("at the price the catalog's rule gives, the money check stays clean through conversions, pool trades and the end", () => {
    const seen = { cancelled: 0, refusedPrices: 0, poolTrades: 0, conversions: 0, coveredCancels: 0 };
    fc.assert(
      fc.property(scenario, (s) => {
        const ex = new PureExchange({ takerBps: 0, makerBps: 0 });
        const a = ex.accounts;
        users.forEach((u) => ex.deposit(u, 1_000 * USDT));
        const markets = Array.from({ length: s.markets }, (_, i) => `m${i}`);
        const open = new Set(markets);
        const b = liquidityParameter(s.funding, markets.length + (s.exhaustive ? 0 : 1));
        const entry = (postings: Posting[], rec: { conversion?: ConversionRecord; payout?: PayoutRecord } = {}) => {
          expect(entryRuleProblems({ key: "e", postings, ...rec }, a)).toEqual([]);
          a.apply(postings);
        };
        const check = () => {
          const c = a.conservation();
          expect(c).toMatchObject({ ok: true, unbalancedMarkets: [] });
          expect(c.uncoveredConversions).toBeUndefined();
          for (const acc of [CONV, POOL]) expect(conversionCover(a.balance(acc).available, a.positionsOf(acc))).toBeGreaterThanOrEqual(0);
        };
        entry(eventPoolFunding(E, s.funding));
        const live = () => markets.filter((m) => open.has(m));
        const books = () => ({ cash: a.balance(POOL).available, positions: a.positionsOf(POOL) });
        const outcomes = () => [...live(), ...(s.exhaustive ? [] : [NONE_OUTCOME])];

        for (const c of s.cmds) {
          if (c.kind === "pair") {
            const m = markets[c.market % markets.length];
            if (!open.has(m)) continue;
            const q = c.lots * LOT;
            ex.place(m, { userId: users[c.user], side: "BUY", outcome: "NO", price: c.price, quantity: q, orderType: "GTC" });
            ex.place(m, { userId: users[c.other], side: "BUY", outcome: "YES", price: 100 - c.price, quantity: q, orderType: "GTC" });
          } else if (c.kind === "convert") {
            const user = users[c.user];
            const has = live().filter((m) => {
              const p = a.position(user, m, "NO");
              return !!p && p.quantity - p.locked >= LOT;
            });
            const named = [...new Set(c.pick.map((i) => has[i % Math.max(1, has.length)]).filter(Boolean))];
            if (!named.length) continue;
            const quantity = Math.min(...named.map((m) => a.position(user, m, "NO")!.quantity - a.position(user, m, "NO")!.locked));
            const rec: ConversionRecord = {
              eventId: E,
              userId: user,
              marketIds: named,
              otherOpen: live().filter((m) => !named.includes(m)),
              quantity: Math.floor(quantity / LOT) * LOT,
              feeBps: 0,
            };
            try {
              entry(planConversion({ ...rec, account: user, positions: a.positionsOf(user) }).postings, { conversion: rec });
              seen.conversions++;
            } catch (err) {
              expect(err).toBeInstanceOf(ConversionRefusal);
            }
          } else if (c.kind === "pool") {
            const m = markets[c.market % markets.length];
            if (!open.has(m)) continue;
            const user = users[c.user];
            const held = a.position(user, m, c.outcome);
            const quantity = c.side === "SELL" ? Math.min(c.lots * LOT, held ? held.quantity - held.locked : 0) : c.lots * LOT;
            if (quantity <= 0) continue;
            const pl = planEventPoolTrade(poolState(b, books(), outcomes()), books(), {
              eventId: E,
              userId: user,
              side: c.side,
              marketId: m,
              outcome: c.outcome,
              quantity,
              feeBps: 0,
            });
            if (!pl.ok) continue;
            entry(pl.postings);
            seen.poolTrades++;
          } else {
            const m = markets[c.market % markets.length];
            if (!open.has(m) || (s.exhaustive && live().length < 2)) continue;
            const rule = cancelPriceInEvent(RACE, c.cents === null ? undefined : priceText(c.cents));
            if (!rule.ok) {
              expect(c.cents).toBeGreaterThan(0);
              seen.refusedPrices++;
              continue;
            }
            const yesPayout = yesPayoutOfPrice(rule.price ?? "0.50")!;
            if (a.positionsOf(CONV).some((p) => p.marketId === m && p.quantity > 0)) seen.coveredCancels++;
            ex.halt(m);
            open.delete(m);
            entry(cancelledPayout(m, yesPayout, a.holders(m)).postings, { payout: { marketId: m, yesPayout } });
            expect(a.collateralOf(m)).toBe(0);
            seen.cancelled++;
          }
          check();
        }

        // The end: a winner among the open markets (or none, on an event that is not exhaustive), every winner redeemed.
        const rest = live();
        const winner = s.winner < rest.length || s.exhaustive ? rest[s.winner % Math.max(1, rest.length)] : null;
        for (const m of rest) {
          const w: Outcome = m === winner ? "YES" : "NO";
          ex.halt(m);
          entry(resolutionPostings(m, w, a.holders(m)));
          for (const u of users) {
            const p = a.position(u, m, w);
            if (p && p.quantity > 0) entry(redeemWinner(m, u, w, p.quantity));
          }
        }
        check();
        for (const m of markets) {
          expect(a.collateralOf(m)).toBe(0);
          expect(a.holders(m)).toEqual([]);
        }
        expect(a.balance(CONV).available).toBeGreaterThanOrEqual(0);
        expect(a.balance(POOL).available).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 150 },
    );
    expect(seen.cancelled).toBeGreaterThan(20);
    expect(seen.refusedPrices).toBeGreaterThan(20);
    expect(seen.coveredCancels).toBeGreaterThan(5);
    expect(seen.poolTrades).toBeGreaterThan(100);
    expect(seen.conversions).toBeGreaterThan(20);
  });

  test("why: the same cancel at 0.50 would leave the conversion account short of what it advanced", () => {
    const ex = new PureExchange({ takerBps: 0, makerBps: 0 });
    const a = ex.accounts;
    users.forEach((u) => ex.deposit(u, 100 * USDT));
    const q = 10 * USDT;
    for (const m of ["A", "B"]) {
      ex.place(m, { userId: users[0], side: "BUY", outcome: "NO", price: 60, quantity: q, orderType: "GTC" });
      ex.place(m, { userId: users[1], side: "BUY", outcome: "YES", price: 40, quantity: q, orderType: "GTC" });
    }
    const rec: ConversionRecord = { eventId: E, userId: users[0], marketIds: ["A", "B"], otherOpen: ["C"], quantity: q, feeBps: 0 };
    a.apply(planConversion({ ...rec, account: users[0], positions: a.positionsOf(users[0]) }).postings);
    expect(conversionCover(a.balance(CONV).available, a.positionsOf(CONV))).toBe(0);
    // C cancelled at 0.50: its NO pays the conversion account half, the rest of its cover is gone.
    expect(() => a.apply(cancelledPayout("C", 500_000, a.holders("C")).postings)).toThrow();
    expect(cancelPriceInEvent(RACE, "0.50").ok).toBe(false);
    // At 0.00 (the rule): paid in full, the cover intact.
    a.apply(cancelledPayout("C", 0, a.holders("C")).postings);
    expect(a.conservation()).toMatchObject({ ok: true });
    expect(conversionCover(a.balance(CONV).available, a.positionsOf(CONV))).toBeGreaterThanOrEqual(0);
  });
});
