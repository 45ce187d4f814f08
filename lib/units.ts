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

/**
 * Money as the app says it (notifications): "$12.50", "$1,234.00"; exact, so a fraction of a cent
 * stays ("$0.501875") rather than being rounded into a figure the ledger does not hold.
 */
export function dollarsText(micro: Micro): string {
  const v = BigInt(micro);
  const [whole, frac = ""] = formatMicro(v < 0n ? -v : v).split(".");
  return `${v < 0n ? "-" : ""}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${frac.padEnd(2, "0")}`;
}

/** A price (a decimal string of USDT per share) in cents, exact: "0.52" -> "52¢", "0.5019" -> "50.19¢", "0.05" -> "5¢". */
export function centsText(price: string): string {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(price.trim());
  if (!m) return price;
  const frac = (m[2] ?? "").padEnd(2, "0");
  const whole = String(Number(m[1]) * 100 + Number(frac.slice(0, 2)));
  const rest = frac.slice(2).replace(/0+$/, "");
  return `${whole}${rest ? `.${rest}` : ""}¢`;
}
