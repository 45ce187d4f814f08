/**
 * The sandbox's background trader: a demo user that buys and sells small amounts through the
 * router so a fresh demo's prices move over its first minutes. Each market gets a hidden "belief"
 * that drifts; the trader buys the side the price is below its belief (YES when YES is cheap, NO
 * when YES is dear), sells back part of what it holds now and then, and tops up its balance from
 * the sandbox faucet when it runs low. Decisions are pure given the random source; the ports do
 * the calls.
 */

export interface DemoMarket {
  id: string;
  /** Best prices now (decimal strings), null where neither venue trades. */
  buyYesPrice: string | null;
  sellYesPrice: string | null;
}

export interface DemoHolding {
  marketId: string;
  outcome: "YES" | "NO";
  /** Free micro-shares (not offered in open orders). */
  free: number;
}

export interface DemoOrder {
  marketId: string;
  side: "BUY" | "SELL";
  outcome: "YES" | "NO";
  /** Micro-shares, a multiple of 10,000 (0.01 share). */
  quantity: number;
}

export interface DemoTraderPorts {
  /** Open markets in normal trading, with their prices. */
  markets(): Promise<DemoMarket[]>;
  holdings(): Promise<DemoHolding[]>;
  /** Available micro-USDT. */
  available(): Promise<number>;
  /** Ask the sandbox faucet for test USDT (credited later, through the deposit path). */
  topUp(amount: number): Promise<void>;
  trade(order: DemoOrder): Promise<void>;
  log: { info(m: string): void; warn(m: string, err?: unknown): void };
}

export const DEMO_TOP_UP = 2_000_000_000;
/** Below this much available USDT the trader asks the faucet again. */
export const DEMO_LOW_BALANCE = 50_000_000;
const SHARE = 1_000_000;

/** A price in (0, 1) from a decimal string, or null. */
const num = (p: string | null) => (p === null ? null : Number(p));

/** Where the market trades now: the midpoint of the best buy and sell, or the one there is. */
export function midOf(m: DemoMarket): number | null {
  const b = num(m.buyYesPrice);
  const s = num(m.sellYesPrice);
  if (b !== null && s !== null) return (b + s) / 2;
  return b ?? s;
}

/**
 * The next belief of a market: a small random step, kept inside 0.08..0.92 so the trader never
 * pushes a price to the edge.
 */
export function nextBelief(current: number, rand: () => number): number {
  const step = (rand() - 0.5) * 0.06;
  return Math.min(0.92, Math.max(0.08, current + step));
}

/**
 * One decision: sell part of a holding one time in four (when there is one), else buy the side
 * that is cheap against the belief, 2 to 12 shares (more the further the price is off).
 */
export function decide(market: DemoMarket, belief: number, holdings: readonly DemoHolding[], rand: () => number): DemoOrder | null {
  const mid = midOf(market);
  if (mid === null) return null;
  const held = holdings.filter((h) => h.marketId === market.id && h.free >= SHARE);
  if (held.length && rand() < 0.25) {
    const h = held[Math.floor(rand() * held.length)];
    const quantity = Math.floor((h.free * (0.2 + rand() * 0.3)) / 10_000) * 10_000;
    if (quantity >= SHARE) return { marketId: market.id, side: "SELL", outcome: h.outcome, quantity };
  }
  const gap = belief - mid;
  // Noise trades too, so a market at its belief still prints now and then.
  const outcome: "YES" | "NO" = Math.abs(gap) < 0.01 ? (rand() < 0.5 ? "YES" : "NO") : gap > 0 ? "YES" : "NO";
  const shares = Math.min(12, 2 + Math.round(Math.abs(gap) * 100 * rand()));
  return { marketId: market.id, side: "BUY", outcome, quantity: shares * SHARE };
}

export class DemoTrader {
  private readonly beliefs = new Map<string, number>();
  private toppedUpAt = 0;

  constructor(
    private readonly ports: DemoTraderPorts,
    private readonly rand: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** One round: top up when low, then one trade on one market. Returns the order sent, if any. */
  async step(): Promise<DemoOrder | null> {
    const available = await this.ports.available();
    if (available < DEMO_LOW_BALANCE && this.now() - this.toppedUpAt > 60_000) {
      this.toppedUpAt = this.now();
      await this.ports.topUp(DEMO_TOP_UP);
      this.ports.log.info(`demo trader: asked the faucet for ${DEMO_TOP_UP / SHARE} test USDT`);
    }
    const markets = await this.ports.markets();
    if (!markets.length) return null;
    const market = markets[Math.floor(this.rand() * markets.length)];
    const mid = midOf(market);
    if (mid === null) return null;
    const belief = nextBelief(this.beliefs.get(market.id) ?? mid, this.rand);
    this.beliefs.set(market.id, belief);
    const order = decide(market, belief, await this.ports.holdings(), this.rand);
    if (!order) return null;
    if (order.side === "BUY" && available < DEMO_LOW_BALANCE / 5) return null;
    await this.ports.trade(order);
    return order;
  }
}
