/**
 * Terminal output: aligned tables and human amounts (never floats: money.ts does the digits).
 * One precision rule, as the server's own texts: USDT with at least 2 decimals and at most 6,
 * exact ("12.50", "0.123456"); shares exact and trimmed ("20", "2.5"); prices as the API gives them.
 */
import { fromMicro, toMicro } from "../money";

/** Micro-USDT as USDT without the unit (table cells under a USDT header). */
export function money(micro: string | number | bigint): string {
  return fromMicro(micro, { minDecimals: 2 });
}

export function usdt(micro: string | number | bigint): string {
  return `${money(micro)} USDT`;
}

/** An amount the API gives in USDT units (volumes: "12.5" or 12.5), under the same rule. */
export function moneyUnits(units: string | number): string {
  try {
    return money(toMicro(units));
  } catch {
    return String(units);
  }
}

export function shares(micro: string | number | bigint): string {
  return fromMicro(micro);
}

export function orDash(v: string | null | undefined): string {
  return v === null || v === undefined || v === "" ? "-" : v;
}

export function localTime(unixSec: number): string {
  return new Date(unixSec * 1000).toISOString().replace(".000Z", "Z");
}

/** Columns padded to their widest cell; `right` lists the columns aligned right (numbers). */
export function table(headers: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const width = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(width[i]) : c.padEnd(width[i])))
      .join("  ")
      .trimEnd();
  return [line(headers), line(width.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Shorten long ids and hashes for tables: "0123456789abcdef" -> "01234567…cdef". */
export function short(s: string, keep = 8): string {
  return s.length > keep * 2 + 1 ? `${s.slice(0, keep)}…${s.slice(-4)}` : s;
}
