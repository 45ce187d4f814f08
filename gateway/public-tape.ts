/**
 * The public tape from what a gateway hears per group commit: the users' trade records of
 * `ledger.committed`, turned into one row per execution with no user ids. A book fill reaches the
 * gateway twice (the maker's record and the taker's); it is told once, from the maker's record
 * (one fill each), on the taker's side and outcome. What a taker's record holds beyond its makers'
 * fills is the pool's leg (AMM, a race's pool): one row at its average price. Pure.
 */
import type { EventPayload, Model } from "../contract";
import { formatAvgPrice } from "../engine/money";

export type PublicTrade = Model<"PublicTrade">;
type Heard = EventPayload<"ledger.tradeCreated">["trade"];

function row(t: Heard, tradeId: string, quantity: number, cash: number, outcome: Heard["outcome"], side: Heard["side"], at: string) {
  // cash is in `outcome`'s terms; a YES share and a NO share cost one unit together.
  const yesCash = outcome === "YES" ? cash : quantity - cash;
  return {
    marketId: t.marketId,
    tradeId,
    outcome,
    side,
    price: formatAvgPrice(cash, quantity),
    quantity: String(quantity),
    yesPrice: formatAvgPrice(yesCash, quantity),
    at,
  } satisfies PublicTrade;
}

/** One commit's trade records -> its executions, in the order they were recorded. */
export function publicTrades(trades: readonly Heard[], now: () => string = () => new Date().toISOString()): PublicTrade[] {
  const takerOf = new Map<string, Heard>();
  const makerOf = new Map<string, Heard>();
  for (const t of trades) for (const f of t.fillIds) (t.role === "taker" ? takerOf : makerOf).set(f, t);
  const out: PublicTrade[] = [];
  for (const t of trades) {
    const at = t.at ?? now();
    if (t.role === "maker") {
      const fillId = t.fillIds[0];
      const taker = takerOf.get(fillId);
      // Without the taker's record (not a user's), the maker's counterpart traded the same outcome the other way.
      const outcome = taker?.outcome ?? t.outcome;
      const side = taker?.side ?? (t.side === "BUY" ? "SELL" : "BUY");
      const cash = outcome === t.outcome ? t.totalCost : t.filledQuantity - t.totalCost;
      out.push(row(t, fillId, t.filledQuantity, cash, outcome, side, at));
      continue;
    }
    if (t.venue === "CLOB") continue; // all of it told by its makers' records
    let bookQty = 0;
    let bookCash = 0;
    let poolFill: string | null = null;
    for (const f of t.fillIds) {
      const m = makerOf.get(f);
      if (!m) {
        poolFill = f;
        continue;
      }
      bookQty += m.filledQuantity;
      bookCash += m.outcome === t.outcome ? m.totalCost : m.filledQuantity - m.totalCost;
    }
    const qty = t.filledQuantity - bookQty;
    if (poolFill && qty > 0) out.push(row(t, poolFill, qty, t.totalCost - bookCash, t.outcome, t.side, at));
  }
  return out;
}
