/**
 * Trading modes (pauses): which order commands a market admits. A market's own mode, the
 * exchange-wide mode and the post-only window after a start combine by strictness; the market's
 * actor asks `admit` before every command that changes its book or trades against it.
 */
import { Refusal } from "../engine/refusal";
import { NORMAL, TRADING_MODES, type ModeSetting, type TradingMode } from "../models/trading-mode";

export { NORMAL, TRADING_MODES, type ModeSetting, type TradingMode };

/**
 * What a command asks of the market: a new order (post-only limit or not), an amend, a market
 * order through the router or the AMM (or its quote), a trader's cancel.
 */
export type OrderCommandKind = "place" | "placePostOnly" | "amend" | "route" | "quote" | "cancel";

/** The stricter of several settings (the first of equal strictness keeps its reason). */
export function strictest(...settings: ModeSetting[]): ModeSetting {
  let out = NORMAL;
  for (const s of settings) if (TRADING_MODES.indexOf(s.mode) > TRADING_MODES.indexOf(out.mode)) out = s;
  return out;
}

/** The post-only window after a start: post_only until `until` (ms since the epoch), normal after. */
export function reopenSetting(until: number, now: number): ModeSetting {
  return now < until ? { mode: "post_only", reason: "reopening after a start: post-only orders only" } : NORMAL;
}

/**
 * Does `mode` admit the command? post_only: post-only limit orders, amends (held to post-only:
 * see `amendMustRest`) and cancels; cancel_only: cancels; halted: nothing.
 */
export function admits(mode: TradingMode, kind: OrderCommandKind): boolean {
  switch (mode) {
    case "normal":
      return true;
    case "post_only":
      return kind === "placePostOnly" || kind === "amend" || kind === "cancel";
    case "cancel_only":
      return kind === "cancel";
    case "halted":
      return false;
  }
}

/** In post_only an amend may only rest: one that would execute at once is refused like a taker order. */
export function amendMustRest(mode: TradingMode): boolean {
  return mode === "post_only";
}

/** The refusal of a command the mode does not admit: 409 TRADING_PAUSED naming the mode and the reason. */
export function tradingPaused(s: ModeSetting, what = "this order"): Refusal {
  const why = s.reason ? `: ${s.reason}` : "";
  return new Refusal("conflict", "TRADING_PAUSED", `Trading is ${s.mode} in this market${why}; ${what} is not accepted`);
}

/** Throws TRADING_PAUSED unless the setting admits the command. */
export function checkAdmitted(s: ModeSetting, kind: OrderCommandKind): void {
  if (!admits(s.mode, kind)) throw tradingPaused(s, WHAT[kind]);
}

const WHAT: Record<OrderCommandKind, string> = {
  place: "an order that may take liquidity",
  placePostOnly: "a new order",
  amend: "an amend",
  route: "a market order",
  quote: "a quote",
  cancel: "a cancel",
};

/**
 * The node-wide part of every market's mode: the exchange-wide setting and the post-only window
 * after this node started. One per engine node, shared by its market actors.
 */
export class ExchangeModes {
  private exchange: ModeSetting = NORMAL;
  private known = false;

  constructor(
    private readonly now: () => number,
    /** End of the post-only window after the start (ms since the epoch); 0: none. */
    private readonly reopenUntil: number,
  ) {}

  get exchangeSetting(): ModeSetting {
    return this.exchange;
  }

  /** Was the exchange-wide setting ever received (else the first actor loaded asks for it)? */
  get loaded(): boolean {
    return this.known;
  }

  /** The operator set the exchange-wide mode. */
  setExchange(s: ModeSetting): void {
    this.exchange = s;
    this.known = true;
  }

  /** The stored setting, read once: a change heard meanwhile is newer and stays. */
  learn(s: ModeSetting): void {
    if (!this.known) this.setExchange(s);
  }

  /** The mode that applies to a market whose own setting is `market`, now. */
  effective(market: ModeSetting): ModeSetting {
    return strictest(market, this.exchange, reopenSetting(this.reopenUntil, this.now()));
  }
}
