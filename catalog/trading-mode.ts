/**
 * The operator's trading modes as the catalog stores them: a market's own mode (on the market)
 * and the exchange-wide one (one record). The market's owner applies them (trading/trading-modes.ts);
 * here they are checked, stored (so they survive a restart) and announced.
 */
import type { MarketDoc, TradingModeDoc } from "../models/catalog";
import { isTradingMode, NORMAL, type ModeSetting, type TradingMode } from "../models/trading-mode";
import { catalogRefusal, lifecycleOf, type CatalogOut } from "./catalog";

/** The exchange-wide record's id. */
export const EXCHANGE_MODE_ID = "exchange";
export const MAX_REASON = 500;

export interface TradingModePorts {
  market(id: string): Promise<MarketDoc | null>;
  setMarketMode(id: string, set: Pick<MarketDoc, "tradingMode" | "tradingModeReason" | "updatedAt">): Promise<void>;
  exchange(): Promise<TradingModeDoc | null>;
  setExchange(doc: TradingModeDoc): Promise<void>;
  now(): number;
}

/** What the exchange-wide route answers: the mode now in force exchange-wide, its reason and when it was set. */
export interface ExchangeModeView {
  mode: TradingMode;
  reason: string | null;
  updatedAt: string | null;
}

/** The market's own setting as stored (a market from before modes existed trades normally). */
export function marketSetting(m: MarketDoc): ModeSetting {
  return m.tradingMode ? { mode: m.tradingMode, reason: m.tradingModeReason ?? null } : NORMAL;
}

function checked(mode: unknown, reason: unknown): ModeSetting {
  if (!isTradingMode(mode))
    throw catalogRefusal("rejected", "VALIDATION_ERROR", "mode is normal, post_only, cancel_only or halted", [
      { field: "mode", rule: "enumValue" },
    ]);
  const r = typeof reason === "string" ? reason.trim() : "";
  if (r.length > MAX_REASON)
    throw catalogRefusal("rejected", "VALIDATION_ERROR", `reason is at most ${MAX_REASON} characters`, [
      { field: "reason", rule: "stringMax" },
    ]);
  return { mode, reason: r || null };
}

/** Where a stored mode is carried out: the market's owner, or every engine node. */
export type ApplyMarketMode = (marketId: string, s: ModeSetting) => Promise<unknown>;
export type ApplyExchangeMode = (s: ModeSetting) => Promise<unknown>;

export class TradingModes {
  constructor(private readonly ports: TradingModePorts) {}

  /** A market's own mode; only while it is open (an ended market trades no more anyway). */
  async setMarket(id: string, mode: unknown, reason: unknown): Promise<MarketDoc> {
    const s = checked(mode, reason);
    const m = await this.ports.market(id);
    if (!m) throw catalogRefusal("not_found", "RESOURCE_NOT_FOUND", "Market not found");
    if (m.status !== "open") throw catalogRefusal("conflict", "MARKET_NOT_OPEN", `Market is ${m.status}; its trading mode is final`);
    const set = { tradingMode: s.mode, tradingModeReason: s.reason, updatedAt: new Date(this.ports.now()).toISOString() };
    await this.ports.setMarketMode(id, set);
    return { ...m, ...set };
  }

  async exchange(): Promise<ExchangeModeView> {
    const d = await this.ports.exchange();
    return d ? { mode: d.mode, reason: d.reason, updatedAt: d.updatedAt } : { mode: "normal", reason: null, updatedAt: null };
  }

  async setExchange(mode: unknown, reason: unknown): Promise<ExchangeModeView> {
    const s = checked(mode, reason);
    const doc: TradingModeDoc = {
      _id: EXCHANGE_MODE_ID,
      mode: s.mode,
      reason: s.reason,
      updatedAt: new Date(this.ports.now()).toISOString(),
    };
    await this.ports.setExchange(doc);
    return { mode: doc.mode, reason: doc.reason, updatedAt: doc.updatedAt };
  }

  /**
   * A market's own mode, in order: stored first (a restart or a new owner reads it), every cached
   * copy dropped, the market channel told, then applied by the market's owner before the answer.
   */
  async changeMarket(id: string, mode: unknown, reason: unknown, out: CatalogOut, apply: ApplyMarketMode): Promise<MarketDoc> {
    const m = await this.setMarket(id, mode, reason);
    await out.changed(m._id);
    out.lifecycle(lifecycleOf(m));
    await apply(m._id, marketSetting(m));
    return m;
  }

  /** The exchange-wide mode: stored, then applied (by every engine node) before the answer. */
  async changeExchange(mode: unknown, reason: unknown, apply: ApplyExchangeMode): Promise<ExchangeModeView> {
    const v = await this.setExchange(mode, reason);
    await apply({ mode: v.mode, reason: v.reason });
    return v;
  }
}
