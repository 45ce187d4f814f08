/**
 * The sandbox faucet's rule (POST /sandbox/faucet): a positive whole amount of the asset's base
 * unit, at most the configured limit for that asset (TON in nanoton, jettons in micro-units).
 */
import { invalid } from "../engine/refusal";
import { tonLimitText, usdtLimitText } from "../lib/units";
import type { FaucetAsset } from "./sandbox";

export interface FaucetLimits {
  maxNano: bigint;
  maxUsdt: bigint;
}

/** The amount to send, or a VALIDATION_ERROR naming the limit. `amount` is validated digits. */
export function faucetAmount(asset: FaucetAsset, amount: string, limits: FaucetLimits): bigint {
  const n = BigInt(amount);
  const max = asset === "TON" ? limits.maxNano : limits.maxUsdt;
  if (n < 1n) throw invalid("amount must be positive", [{ field: "amount", rule: "min" }]);
  if (n > max)
    throw invalid(`amount must be at most ${asset === "TON" ? tonLimitText(max) : usdtLimitText(max)}`, [{ field: "amount", rule: "max" }]);
  return n;
}
