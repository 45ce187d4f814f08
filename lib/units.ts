/**
 * How amounts read in text the exchange writes (answers' messages, errors, notifications): one
 * rule, the one the `trade` CLI prints too. USDT with at least 2 decimals and at most 6 (exact,
 * never rounded: "1.00 USDT", "12.50 USDT", "0.123456 USDT"); shares exact and trimmed ("20",
 * "2.5"); every amount in an error also in the integer unit the API takes.
 */
import { formatMicro } from "../engine/money";

type Micro = number | bigint | string;

export function usdtText(micro: Micro): string {
  const [whole, frac = ""] = formatMicro(BigInt(micro)).split(".");
  return `${whole}.${frac.padEnd(2, "0")} USDT`;
}

export function sharesText(micro: Micro): string {
  return formatMicro(BigInt(micro));
}

/** For limits in errors: "1.00 USDT (1000000 micro-USDT)". */
export function usdtLimitText(micro: Micro): string {
  return `${usdtText(micro)} (${BigInt(micro)} micro-USDT)`;
}

/** nanoTON as TON, exact: "100 TON (100000000000 nanoTON)". */
export function tonLimitText(nano: bigint): string {
  const whole = nano / 1_000_000_000n;
  const frac = (nano % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${whole}${frac ? "." + frac : ""} TON (${nano} nanoTON)`;
}
