/** Display helpers: amounts through the SDK's exact money functions, TON addresses, times. */
import { fromMicro } from "@pmx/client/money";

/** "12500000" -> "12.50" (at least two decimals, never rounded). */
export function usdt(micro: string | number | bigint | null | undefined): string {
  if (micro === null || micro === undefined || micro === "") return "–";
  return fromMicro(typeof micro === "number" ? Math.trunc(micro) : micro, { minDecimals: 2 });
}

/** Cents only, rounded down (the header's balance; exact amounts are on the portfolio page). */
export function usdtShort(micro: string | null | undefined): string {
  if (!micro) return "–";
  const v = BigInt(micro);
  return usdt(v - (v % 10_000n));
}

/** Micro-shares as shares: "10500000" -> "10.5". */
export function shares(micro: string | number | bigint | null | undefined): string {
  if (micro === null || micro === undefined || micro === "") return "–";
  return fromMicro(typeof micro === "number" ? Math.trunc(micro) : micro);
}

/** Signed micro-USDT with a sign: "+1.20", "-0.35". */
export function pnl(micro: string | null | undefined): string {
  if (micro === null || micro === undefined) return "–";
  const v = BigInt(micro);
  return `${v > 0n ? "+" : ""}${usdt(v)}`;
}

export function pnlClass(micro: string | null | undefined): string {
  if (!micro) return "";
  const v = BigInt(micro);
  return v > 0n ? "up" : v < 0n ? "down" : "";
}

export function price(p: string | number | null | undefined): string {
  if (p === null || p === undefined) return "–";
  return typeof p === "number" ? p.toFixed(2) : p;
}

export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function shortHash(h: string | null | undefined): string {
  return h ? `${h.slice(0, 8)}…${h.slice(-6)}` : "–";
}

function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * A raw address ("0:<64 hex>") in the user-friendly form wallets show: non-bounceable, with the
 * test-network flag on testnet ("0Q…"/"UQ…"). Anything else is returned as given.
 */
export function friendlyAddress(raw: string, testnet: boolean): string {
  const m = /^(-?\d+):([0-9a-fA-F]{64})$/.exec(raw);
  if (!m) return raw;
  const bytes = new Uint8Array(36);
  bytes[0] = 0x51 | (testnet ? 0x80 : 0);
  bytes[1] = Number(m[1]) & 0xff;
  for (let i = 0; i < 32; i++) bytes[2 + i] = parseInt(m[2].slice(i * 2, i * 2 + 2), 16);
  const crc = crc16(bytes.subarray(0, 34));
  bytes[34] = crc >> 8;
  bytes[35] = crc & 0xff;
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

export function shortAddress(a: string): string {
  return a.length > 12 ? `${a.slice(0, 4)}…${a.slice(-4)}` : a;
}

/** A day without the time: "31 Dec" (the viewer's locale); the year only when it is not this one. */
export function day(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const year = d.getFullYear() !== new Date().getFullYear() ? { year: "numeric" as const } : {};
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric", ...year });
}

/** Time left until `iso` from `now`: "2 d 4 h", "3 h 12 min", "4 min 05 s", "12 s"; "0 s" once passed. */
export function timeLeft(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((new Date(iso).getTime() - now) / 1000));
  if (Number.isNaN(s)) return "–";
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}

/** A price in cents, as traders read it: "0.52" -> "52¢", "0.50625" -> "50.6¢" (one decimal at most, rounded). */
export function cents(p: string | number | null | undefined): string {
  if (p === null || p === undefined || p === "") return "–";
  const v = typeof p === "number" ? p : Number(p);
  if (!Number.isFinite(v)) return "–";
  const c = Math.round(v * 1000) / 10;
  return `${Number.isInteger(c) ? c.toFixed(0) : c.toFixed(1)}¢`;
}

/** A price as the chance it implies: "0.62" -> "62%"; below 1% and above 99% said as such. */
export function chance(p: string | number | null | undefined): string {
  if (p === null || p === undefined || p === "") return "–";
  const v = (typeof p === "number" ? p : Number(p)) * 100;
  if (!Number.isFinite(v)) return "–";
  if (v > 0 && v < 1) return "<1%";
  if (v > 99 && v < 100) return ">99%";
  return `${Math.round(v)}%`;
}

/** Micro-USDT as dollars: "12500000" -> "$12.50", "-1290331" -> "-$1.29" (cents, rounded toward zero). */
export function dollars(micro: string | number | bigint | null | undefined): string {
  if (micro === null || micro === undefined || micro === "") return "–";
  const v = BigInt(typeof micro === "number" ? Math.trunc(micro) : micro);
  const abs = v < 0n ? -v : v;
  const body = usdt(abs - (abs % 10_000n));
  const [whole, frac] = body.split(".");
  return `${v < 0n && abs >= 10_000n ? "-" : ""}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${frac}`;
}

/** Signed dollars for profit and loss: "+$1.20", "-$0.35", "$0.00". */
export function signedDollars(micro: string | bigint | null | undefined): string {
  if (micro === null || micro === undefined) return "–";
  const v = BigInt(micro);
  return v >= 10_000n ? `+${dollars(v)}` : dollars(v);
}

/** A share count for people: "10500000" -> "10.5", whole shares with thousands separators. */
export function shareCount(micro: string | number | bigint | null | undefined): string {
  const s = shares(micro);
  const [whole, frac] = s.split(".");
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac.slice(0, 2)}` : ""}`;
}
