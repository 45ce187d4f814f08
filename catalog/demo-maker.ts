/**
 * The demo's house maker, framework-free and pure: what it does so each demo market opens at its
 * own price instead of 0.50, through the paths any trader uses. A market with its own AMM pool is
 * moved there by one AMM buy (YES above 0.50, NO below); a race's outcome, whose pool is the
 * event's, gets a resting bid and ask one cent either side of its price on the book, and the
 * event's pool is bought to the race's prices (YES of each outcome above the cheapest). The maker's
 * cash comes from the sandbox faucet like anyone's; it is an ordinary account (`maker:demo`).
 */
import { createPool, maxBuyUpToPrice, poolLiquidityOf, quoteBuy } from "../engine/amm";
import { createLmsr, liquidityParameter, NONE_OUTCOME, quote, type LmsrState } from "../engine/lmsr";
import { LOT } from "../engine/money";
import type { Outcome } from "../engine/types";
import { demoMarketId, type DemoEvent } from "./demo";

/** The maker's ledger account (not a `usr_` account: no wallet logs in as it). */
export const DEMO_MAKER = "maker:demo";
export const DEMO_MAKER_MARKER_ID = "demo-maker:v1";
/** Shares on each side of a race outcome's book. */
export const DEMO_QUOTE_SHARES = 100;

export type MakerStep =
  | { kind: "amm"; marketId: string; outcome: Outcome; quantity: number }
  | { kind: "order"; marketId: string; outcome: Outcome; price: number; quantity: number };

/** A price in ticks kept where both quotes around it are valid ticks (2..98). */
const clampTick = (t: number) => Math.min(98, Math.max(2, Math.round(t)));

/**
 * Every step for these demo events, and the cash they need at most (AMM buys at their quoted cost
 * with `ammFeeBps`, resting bids at their price).
 */
export function demoMakerPlan(events: readonly DemoEvent[], ammFeeBps: number): { steps: MakerStep[]; cash: number } {
  const steps: MakerStep[] = [];
  let cash = 0;
  for (const e of events) {
    const pooled = eventPoolSteps(e, ammFeeBps);
    cash += pooled.cash;
    e.markets.forEach((m, i) => {
      const marketId = demoMarketId(e.slug, i);
      const price = clampTick(m.price);
      const liquidity = poolLiquidityOf(Number(m.ammLiquidity));
      if (liquidity > 0) {
        if (price === 50) return;
        const outcome: Outcome = price > 50 ? "YES" : "NO";
        const quantity = maxBuyUpToPrice(createPool(liquidity), outcome, outcome === "YES" ? price : 100 - price);
        if (quantity <= 0) return;
        const q = quoteBuy(createPool(liquidity), outcome, quantity, ammFeeBps);
        if (!q.ok) return;
        steps.push({ kind: "amm", marketId, outcome, quantity });
        cash += q.net;
        return;
      }
      if (!e.mutuallyExclusive) return;
      const quantity = DEMO_QUOTE_SHARES * 1_000_000;
      // Bid YES a cent under the price; bid NO a cent under its complement (a YES ask a cent over).
      steps.push({ kind: "order", marketId, outcome: "YES", price: price - 1, quantity });
      steps.push({ kind: "order", marketId, outcome: "NO", price: 99 - price, quantity });
      cash += ((price - 1 + 99 - price) * quantity) / 100;
    });
    steps.push(...pooled.steps);
  }
  return { steps, cash: Math.ceil(cash / LOT) * LOT };
}

/**
 * A race's event pool bought from fresh (every price 1/N) to the race's prices: LMSR prices are
 * p_i ∝ exp(q_i / b), so q_i - q_ref = b·ln(p_i / p_ref); with the cheapest target as reference
 * every outcome above it gets a YES buy of that quantity (lots). A non-exhaustive race's "none"
 * outcome targets what its markets leave (at least a cent) and is never bought.
 */
export function eventPoolSteps(e: DemoEvent, ammFeeBps: number): { steps: MakerStep[]; cash: number; state: LmsrState | null } {
  const none = { steps: [], cash: 0, state: null };
  if (!e.mutuallyExclusive || !(Number(e.ammLiquidity) > 0)) return none;
  const ids = e.markets.map((_m, i) => demoMarketId(e.slug, i));
  const outcomes = [...ids, ...(e.exhaustive ? [] : [NONE_OUTCOME])];
  const b = liquidityParameter(Number(e.ammLiquidity), outcomes.length);
  if (b <= 0) return none;
  const targets = e.markets.map((m) => clampTick(m.price));
  const rest = 100 - targets.reduce((s, t) => s + t, 0);
  const ref = Math.min(...targets, ...(e.exhaustive ? [] : [Math.max(1, rest)]));
  let state = createLmsr(b, outcomes);
  const steps: MakerStep[] = [];
  let cash = 0;
  targets.forEach((t, i) => {
    const quantity = Math.round((b * Math.log(t / ref)) / LOT) * LOT;
    if (quantity <= 0) return;
    const q = quote(state, "BUY", ids[i], "YES", quantity, ammFeeBps);
    if (!q.ok) return;
    state = q.newState;
    steps.push({ kind: "amm", marketId: ids[i], outcome: "YES", quantity });
    cash += q.net;
  });
  return { steps, cash, state };
}
