/**
 * Reading a command's arguments: options, flags and positionals, and the values they carry
 * (outcomes, sides, share quantities, expiry times, the idempotency key of a write). Every
 * refusal is a UsageError (exit code 2) naming what is wrong.
 */
import { newIdempotencyKey, type WriteOptions } from "../client";
import { toMicroBigInt } from "../money";
import type { Outcome, Side } from "../models";
import { UsageError, type ParsedArgs } from "./args";

/** What reading arguments needs of a command's context. */
type WithArgs = { args: ParsedArgs };

export function opt(ctx: WithArgs, name: string): string | undefined {
  return ctx.args.options.get(name);
}

export function flag(ctx: WithArgs, name: string): boolean {
  const v = ctx.args.options.get(name);
  return v !== undefined && v !== "false";
}

export function pos(ctx: WithArgs, i: number, what: string): string {
  const v = ctx.args.positionals[i];
  if (v === undefined) throw new UsageError(`missing ${what}`);
  return v;
}

export function intOpt(ctx: WithArgs, name: string): number | undefined {
  const v = opt(ctx, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

export function outcomeOf(raw: string): Outcome {
  const o = raw.toUpperCase();
  if (o !== "YES" && o !== "NO") throw new UsageError(`outcome must be YES or NO, got "${raw}"`);
  return o;
}

export function sideOf(raw: string): Side {
  const s = raw.toUpperCase();
  if (s !== "BUY" && s !== "SELL") throw new UsageError(`side must be buy or sell, got "${raw}"`);
  return s;
}

/** Quantities typed as shares ("10", "2.5") to micro-shares, in whole lots as the server wants. */
export function sharesToMicro(raw: string): bigint {
  const q = toMicroBigInt(raw, "quantity");
  if (q <= 0n) throw new UsageError("quantity must be positive");
  if (q % 100n !== 0n) throw new UsageError("quantity must be a multiple of 0.0001 share");
  return q;
}

/** `--expires`: an ISO 8601 time, or a delay from now such as 30s, 10m, 2h, 7d. */
export function expiresAt(raw: string, nowMs = Date.now()): string {
  const rel = /^(\d+)([smhd])$/.exec(raw);
  if (rel)
    return new Date(
      nowMs + Number(rel[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as "s" | "m" | "h" | "d"],
    ).toISOString();
  if (!Number.isFinite(Date.parse(raw)))
    throw new UsageError(`--expires must be an ISO 8601 time or a delay such as 30s, 10m, 2h, 7d; got "${raw}"`);
  return raw;
}

/**
 * The Idempotency-Key of a trade write: `--idempotency-key`, else a fresh one when `--wait` may
 * send the request again (so a retry after a lost answer never executes twice), else none.
 */
export function writeOptions(ctx: WithArgs): WriteOptions {
  const key = opt(ctx, "idempotency-key");
  if (key !== undefined) return { idempotencyKey: key };
  return flag(ctx, "wait") ? { idempotencyKey: newIdempotencyKey() } : {};
}
