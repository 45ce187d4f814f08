/** A market's trading mode (pauses), shared by the catalog that stores it and the trading core that applies it. */

/** From least to most strict. */
export const TRADING_MODES = ["normal", "post_only", "cancel_only", "halted"] as const;
export type TradingMode = (typeof TRADING_MODES)[number];

/** A mode as the operator set it: the mode and the reason given. */
export interface ModeSetting {
  mode: TradingMode;
  reason: string | null;
}

export const NORMAL: ModeSetting = Object.freeze({ mode: "normal", reason: null });

export function isTradingMode(v: unknown): v is TradingMode {
  return typeof v === "string" && (TRADING_MODES as readonly string[]).includes(v);
}
