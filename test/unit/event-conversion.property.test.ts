/**
 * A mutually exclusive event's money over random sequences: orders on its markets, conversions of
 * NO positions, outcomes added, markets resolved NO early, then a final resolution (a winner, or
 * none on an event that is not exhaustive) and every holder redeeming. Conservation after every
 * command, no balance or position below zero (the conversion account's cash only as far as its
 * NO shares are guaranteed to pay), every entry within the ledger's rules, every winning share paid
 * exactly once, and the conversion account never short at the end.
 */
import fc from "fast-check";
import type { Posting } from "../../engine/accounts";
import { conversionAccount, ConversionRefusal, guaranteedPayout, planConversion } from "../../engine/conversion";
import { LOT } from "../../engine/money";
import type { Outcome, Side } from "../../engine/types";
import { redeemWinner, resolutionPostings } from "../../chain/redemption";
import { entryRuleProblems } from "../../ledger/entry-rules";
import type { ConversionRecord } from "../../models/trading";
import { PureExchange } from "../support/pure-exchange";

const USDT = 1_000_000;
const E = "evt_race";
const CONV = conversionAccount(E);
const users = [0, 1, 2, 3].map((i) => `usr_${i}`);

type Cmd =
  | { kind: "order"; user: number; market: number; side: Side; outcome: Outcome; price: number; lots: number }
  | { kind: "pair"; user: number; other: number; market: number; price: number; lots: number }
  | { kind: "convert"; user: number; pick: number[]; share: number }
  | { kind: "add" }
  | { kind: "dropOut"; market: number };

const lots = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: USDT / LOT, max: 20 * (USDT / LOT) }));
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("order" as const),
      user: fc.nat(3),
      market: fc.nat(7),
      side: fc.constantFrom<Side>("BUY", "SELL"),
      outcome: fc.constantFrom<Outcome>("YES", "NO"),
      price: fc.oneof(fc.integer({ min: 20, max: 80 }), fc.integer({ min: 1, max: 99 })),
      lots,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("pair" as const),
      user: fc.nat(1),
      other: fc.nat(3),
      market: fc.nat(7),
      price: fc.integer({ min: 5, max: 95 }),
      lots,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("convert" as const),
      user: fc.nat(1),
      pick: fc.array(fc.nat(7), { minLength: 1, maxLength: 4 }),
      // Of what the holder can convert: all, some, or more than it holds (refused).
      share: fc.oneof(fc.constant(1), fc.double({ min: 0.01, max: 1, noNaN: true }), fc.constant(1.5)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("add" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dropOut" as const), market: fc.nat(7) }) },
);

const scenario = fc.record({
  exhaustive: fc.boolean(),
  markets: fc.integer({ min: 2, max: 4 }),
  feeBps: fc.constantFrom(0, 0, 30),
  cmds: fc.array(cmd, { minLength: 1, maxLength: 60 }),
  winner: fc.nat(8), // beyond the open markets: none won (an event that is not exhaustive)
});

describe("a mutually exclusive event's money with conversions", () => {
  test("conserved after every command; each winning share paid once; the conversion account never short", () => {
    const seen = { conversions: 0, withYes: 0, dropOuts: 0, none: 0, surplus: 0 };
    fc.assert(
      fc.property(scenario, (s) => {
        const ex = new PureExchange({ takerBps: 0, makerBps: 0 });
        const a = ex.accounts;
        users.forEach((u) => ex.deposit(u, 500 * USDT));
        const markets = Array.from({ length: s.markets }, (_, i) => `m${i}`);
        const open = new Set(markets);
        const entry = (postings: Posting[], conversion?: ConversionRecord) => {
          expect(entryRuleProblems({ key: "e", postings, ...(conversion ? { conversion } : {}) }, a)).toEqual([]);
          a.apply(postings);
        };
        const check = () => {
          const c = a.conservation();
          expect(c).toMatchObject({ ok: true, unbalancedMarkets: [] });
          expect(c.uncoveredConversions).toBeUndefined();
          for (const [account, bal] of a.snapshot().cash) if (account !== CONV) expect(bal.available >= 0 && bal.locked >= 0).toBe(true);
          for (const p of a.snapshot().positions) expect(p.quantity >= 0 && p.locked >= 0 && p.locked <= p.quantity).toBe(true);
          expect(a.balance(CONV).available + guaranteedPayout(a.positionsOf(CONV))).toBeGreaterThanOrEqual(0);
        };
        /** A market resolved: orders released, losers escrowed, the pool and conversion account paid; then every holder redeems. */
        const resolve = (m: string, winner: Outcome) => {
          ex.halt(m);
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

        for (const c of s.cmds) {
          const live = markets.filter((m) => open.has(m));
          if (c.kind === "order") {
            const m = markets[c.market % markets.length];
            if (!open.has(m)) continue;
            ex.place(m, {
              userId: users[c.user],
              side: c.side,
              outcome: c.outcome,
              price: c.price,
              quantity: c.lots * LOT,
              orderType: "GTC",
            });
          } else if (c.kind === "pair") {
            // A NO buyer meets a YES buyer: pairs minted into the market.
            const m = markets[c.market % markets.length];
            if (!open.has(m)) continue;
            const q = c.lots * LOT;
            ex.place(m, { userId: users[c.user], side: "BUY", outcome: "NO", price: c.price, quantity: q, orderType: "GTC" });
            ex.place(m, { userId: users[c.other], side: "BUY", outcome: "YES", price: 100 - c.price, quantity: q, orderType: "GTC" });
          } else if (c.kind === "convert") {
            // Mostly markets the holder has NO of (the rest are refused).
            const has = live.filter((m) => (a.position(users[c.user], m, "NO")?.quantity ?? 0) > 0);
            const from = c.share > 1 ? live : has;
            const named = [...new Set(c.pick.map((i) => from[i % Math.max(1, from.length)]).filter(Boolean))];
            if (!named.length) continue;
            const free = Math.min(
              ...named.map((m) => {
                const p = a.position(users[c.user], m, "NO");
                return p ? p.quantity - p.locked : 0;
              }),
            );
            const quantity = Math.max(LOT, Math.floor((free * c.share) / LOT) * LOT);
            const rec: ConversionRecord = {
              eventId: E,
              userId: users[c.user],
              marketIds: named,
              otherOpen: live.filter((m) => !named.includes(m)),
              quantity,
              feeBps: s.feeBps,
            };
            let plan;
            try {
              plan = planConversion({ ...rec, account: rec.userId, positions: a.positionsOf(rec.userId) });
            } catch (err) {
              expect(err).toBeInstanceOf(ConversionRefusal);
              continue;
            }
            entry(plan.postings, rec);
            seen.conversions++;
            if (plan.yesReceived.length) seen.withYes++;
          } else if (c.kind === "add") {
            if (markets.length >= 8) continue;
            const m = `m${markets.length}`;
            markets.push(m);
            open.add(m);
          } else {
            const m = markets[c.market % markets.length];
            // An exhaustive event keeps at least one outcome that can win.
            if (!open.has(m) || (s.exhaustive && live.length < 2)) continue;
            resolve(m, "NO");
            seen.dropOuts++;
          }
          check();
        }

        // The end: a winner among the open markets (or none, on an event that is not exhaustive).
        const live = markets.filter((m) => open.has(m));
        const winner = s.winner < live.length || s.exhaustive ? live[s.winner % Math.max(1, live.length)] : null;
        if (!winner) seen.none++;
        for (const m of live) resolve(m, m === winner ? "YES" : "NO");
        check();
        for (const m of markets) {
          expect(a.collateralOf(m)).toBe(0);
          expect(a.holders(m)).toEqual([]);
        }
        // Every advance came back: zero or more left, the exchange's surplus.
        expect(a.balance(CONV).available).toBeGreaterThanOrEqual(0);
        if (a.balance(CONV).available > 0) seen.surplus++;
        expect(a.conservation()).toMatchObject({ ok: true });
      }),
      { numRuns: 200 },
    );
    // The generators reach what matters: conversions with YES handed out, drop-outs, none winning, surpluses.
    expect(seen.conversions).toBeGreaterThan(20);
    expect(seen.withYes).toBeGreaterThan(15);
    expect(seen.dropOuts).toBeGreaterThan(20);
    expect(seen.none).toBeGreaterThan(5);
    expect(seen.surplus).toBeGreaterThan(5);
  });
});
