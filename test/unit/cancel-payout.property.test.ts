/**
 * Cancellation's money invariants over random trading on the book and the AMM, a cancel at a
 * random price and every holder redeeming: payouts never exceed the market's collateral, the fee
 * account and house funding never fall, conservation holds after every step, and every entry
 * keeps the ledger's rules of the exchange's own money.
 */
import fc from "fast-check";
import type { Posting } from "../../engine/accounts";
import { quoteCost, type PoolState } from "../../engine/amm";
import { LOT, type FeeSchedule } from "../../engine/money";
import { FULL_PAYOUT, holderPayout } from "../../engine/payout";
import { ammAccount, ammLegPostings, poolFunding, type TradeRecord } from "../../engine/settlement";
import type { Outcome, Side } from "../../engine/types";
import { Redemptions } from "../../chain/redemptions";
import { entryRuleProblems, feesIn, tradeFees } from "../../ledger/entry-rules";
import type { MarketInternal } from "../../models/catalog";
import { ManualClock, MemRedemptions, Recorder } from "../support/chain-fakes";
import { PureExchange } from "../support/pure-exchange";

const M = "mX";
const USDT = 1_000_000;
const COND = "0x" + "ee".repeat(32);

type Cmd =
  | { kind: "book"; user: number; side: Side; outcome: Outcome; price: number; lots: number }
  | { kind: "amm"; user: number; side: Side; outcome: Outcome; lots: number };

const side = fc.constantFrom<Side>("BUY", "SELL");
const outcome = fc.constantFrom<Outcome>("YES", "NO");
const lots = fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: USDT / LOT, max: 40 * (USDT / LOT) }));
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("book" as const),
      user: fc.nat(4),
      side,
      outcome,
      // Near 50 in both outcomes so orders cross (transfer, mint, merge); the extremes too.
      price: fc.oneof(fc.integer({ min: 40, max: 60 }), fc.integer({ min: 1, max: 99 })),
      lots,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("amm" as const), user: fc.nat(4), side, outcome, lots }) },
);
const fees: fc.Arbitrary<FeeSchedule> = fc.record({
  takerBps: fc.constantFrom(0, 25, 200, 1000),
  makerBps: fc.constantFrom(0, 0, 10, 200),
});
/** Any micro payout, the API's 2-decimal prices, and the ends. */
const yesPayout = fc.oneof(
  fc.integer({ min: 0, max: FULL_PAYOUT }),
  fc.integer({ min: 0, max: 100 }).map((c) => c * 10_000),
  fc.constantFrom(0, FULL_PAYOUT, 500_000),
);

const scenario = fc.record({
  fees,
  ammFeeBps: fc.constantFrom(0, 100, 500),
  liquidity: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 500 }).map((u) => u * USDT),
  ),
  funds: fc.array(fc.oneof(fc.constant(50 * USDT), fc.integer({ min: 0, max: 2000 * USDT })), { minLength: 5, maxLength: 5 }),
  cmds: fc.array(cmd, { minLength: 1, maxLength: 60 }),
  yesPayout,
});

const users = [0, 1, 2, 3, 4].map((i) => `usr_${i}`);

describe("a cancelled market pays out of its own collateral", () => {
  test("payouts never exceed the collateral; fees and house funding never fall; conserved throughout", async () => {
    const seen = { mints: 0, ammTrades: 0, dust: 0, paidHolders: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const ex = new PureExchange(s.fees);
        const a = ex.accounts;
        users.forEach((u, i) => s.funds[i] && ex.deposit(u, s.funds[i]));
        if (s.liquidity) a.apply(poolFunding(M, s.liquidity));
        const house = a.conservation().house;
        let feesBefore = a.feeBalance();
        // Every entry the trading wrote, judged by the ledger's rules on the books before it.
        const entry = (postings: Posting[], trades: TradeRecord[]) => {
          expect(entryRuleProblems({ key: "e", postings, trades, book: {} as never }, a)).toEqual([]);
          expect(feesIn(postings)).toBeLessThanOrEqual(tradeFees(trades));
        };
        const step = () => {
          const c = a.conservation();
          expect(c).toMatchObject({ ok: true, unbalancedMarkets: [], house });
          expect(c.fees).toBeGreaterThanOrEqual(feesBefore);
          feesBefore = c.fees;
        };

        for (const c of s.cmds) {
          const userId = users[c.user];
          const quantity = c.lots * LOT;
          if (c.kind === "book") {
            const r = ex.place(M, { userId, side: c.side, outcome: c.outcome, price: c.price, quantity, orderType: "GTC" });
            if (r.kind === "accepted") {
              entry(r.settlement.postings, r.settlement.trades);
              seen.mints += r.events.filter((e) => e.type === "fill" && e.kind === "mint").length;
            }
          } else {
            const yes = a.position(ammAccount(M), M, "YES")?.quantity ?? 0;
            const no = a.position(ammAccount(M), M, "NO")?.quantity ?? 0;
            if (!s.liquidity) continue;
            const pool: PoolState = { yes, no };
            const q = quoteCost(pool, c.side, c.outcome, quantity, s.ammFeeBps);
            if (!q.ok) continue;
            const lock: Posting[] =
              c.side === "BUY"
                ? [{ kind: "cash", account: userId, available: -(q.cash + q.fee), locked: q.cash + q.fee }]
                : [{ kind: "shares", account: userId, marketId: M, outcome: c.outcome, locked: quantity }];
            const leg = ammLegPostings(M, userId, c.side, c.outcome, { quantity, cash: q.cash, fee: q.fee });
            const trade = { fee: q.fee } as TradeRecord;
            try {
              a.prepare([...lock, ...leg], lock.length);
            } catch {
              continue; // cannot afford it: refused, nothing changes
            }
            entry([...lock, ...leg], [trade]);
            a.apply([...lock, ...leg]);
            seen.ammTrades++;
          }
          step();
        }

        // Cancelled: the book halts (resting orders released), then the market is paid out at the price.
        ex.halt(M);
        step();
        const collateral = a.collateralOf(M);
        const held = new Map<string, { yes: number; no: number }>();
        for (const h of a.holders(M)) {
          const cur = held.get(h.account) ?? { yes: 0, no: 0 };
          if (h.outcome === "YES") cur.yes += h.quantity;
          else cur.no += h.quantity;
          held.set(h.account, cur);
        }
        const cashBefore = new Map([...held.keys()].map((k) => [k, a.balance(k).available]));

        const rec = new Recorder();
        const store = new MemRedemptions();
        const r = new Redemptions({
          ledger: {
            // The ledger's rules, then the books: as the ledger service applies an entry.
            post: async (e) => {
              expect(entryRuleProblems(e, a)).toEqual([]);
              a.apply(e.postings);
              return { applied: true };
            },
            positions: async (account) => a.positionsOf(account).map((p) => ({ ...p })),
            holders: async (marketId) => a.holders(marketId).map((p) => ({ ...p })),
          },
          store,
          clock: new ManualClock(),
          emit: rec.emit,
          log: rec.log,
        });
        const info: MarketInternal = {
          id: M,
          eventId: "evt",
          title: "?",
          status: "cancelled",
          result: null,
          conditionId: COND,
          ammLiquidity: String(s.liquidity),
          yesPayout: s.yesPayout,
        };
        // As the chain service does on market.cancelled: the payout is owed, then made.
        await r.cancelled(M, s.yesPayout);
        expect(await r.refundMarket(M)).toMatchObject({ status: "done" });
        let paid = 0;
        for (const u of users) {
          if (!a.positionsOf(u).some((p) => p.marketId === M)) continue;
          const res = await r.redeem({ userId: u, marketId: M, conditionId: COND, indexSets: ["0x1", "0x2"] }, async () => info);
          expect(res.status).toBe("accepted");
          const want = held.has(u) ? holderPayout(held.get(u)!.yes, held.get(u)!.no, s.yesPayout) : 0;
          expect(Number(res.status === "accepted" ? res.payout : -1)).toBe(want);
          expect(a.balance(u).available - (cashBefore.get(u) ?? a.balance(u).available)).toBe(held.has(u) ? want : 0);
        }
        const [done] = rec.of("chain.refunded");
        if (collateral > 0) {
          expect(done).toBeDefined();
          for (const x of done.refunds) paid += Number(x.amount);
          expect(paid).toBeLessThanOrEqual(collateral);
          expect(paid + Number(done.dust)).toBe(collateral);
          // Each holder's rounding loses less than one micro-USDT.
          expect(Number(done.dust)).toBeLessThan(Math.max(1, done.refunds.length));
          if (Number(done.dust) > 0) seen.dust++;
          seen.paidHolders += done.refunds.length;
        }
        step();
        expect(a.collateralOf(M)).toBe(0);
        expect(a.holders(M)).toEqual([]);
        expect(a.conservation()).toMatchObject({ ok: true, house });
      }),
      { numRuns: 150 },
    );
    // The generators really trade: pairs minted on the book, trades with the pool, rounding dust.
    expect(seen.mints).toBeGreaterThan(20);
    expect(seen.ammTrades).toBeGreaterThan(20);
    expect(seen.dust).toBeGreaterThan(0);
    expect(seen.paidHolders).toBeGreaterThan(100);
  });
});
