/**
 * Which notifications the Telegram bot pushes: each type belongs to one kind, and a user may turn
 * kinds off (GET/PUT /account/notification-settings). Every notification is still stored and
 * listed by GET /notifications; only the push follows the setting. Pure.
 */
import { PUSH_KINDS, type NotificationType, type PushKind, type PushSettings } from "../models/notification";

export const KIND_OF: Record<NotificationType, PushKind> = {
  TRADE_FILLED: "trades",
  ORDER_CANCELLED: "trades",
  SETTLEMENT_CONFIRMED: "settlement",
  SETTLEMENT_FAILED: "settlement",
  MARKET_RESOLVED: "results",
  MARKET_CANCELLED: "results",
  RESOLUTION_PROPOSED: "results",
  RESOLUTION_DISPUTED: "results",
  DEPOSIT_CREDITED: "transfers",
  WITHDRAWAL_SENT: "transfers",
  WITHDRAWAL_FAILED: "transfers",
  POSITIONS_CONVERTED: "trades",
  REWARD_PAID: "transfers",
};

/** Everything on: what a user who never chose gets (the pushes as before settings existed). */
export const DEFAULT_PUSH: PushSettings = { trades: true, settlement: true, results: true, transfers: true };

/** The stored settings with a partial change applied; unknown kinds are refused by the caller's schema. */
export function mergePush(current: PushSettings | null, change: Partial<Record<PushKind, boolean>>): PushSettings {
  const out = { ...(current ?? DEFAULT_PUSH) };
  for (const k of PUSH_KINDS) if (typeof change[k] === "boolean") out[k] = change[k] as boolean;
  return out;
}

/** Whether a notification of this type is pushed under these settings (a failed settlement always is: it needs attention). */
export function pushes(type: NotificationType, settings: PushSettings | null): boolean {
  if (type === "SETTLEMENT_FAILED") return true;
  return (settings ?? DEFAULT_PUSH)[KIND_OF[type]];
}
