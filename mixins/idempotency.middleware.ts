import { createHash } from "node:crypto";
import type { ActionSchema, Middleware } from "moleculer";
import { validationError } from "../lib/errors";
import type { AppContext } from "./context";
import type { IdemKey } from "../models/trading";
import { call, paramsWithDefaults } from "../contract";

/** IETF httpapi Idempotency-Key: the key is the client's, at most this long. */
export const MAX_IDEMPOTENCY_KEY = 255;

/** The Idempotency-Key header of a request, which the gateway hands over as `meta.idempotencyKey`. */
export function idempotencyKeyHeader(headers: { [name: string]: string | string[] | undefined }): string | undefined {
  const key = headers["idempotency-key"];
  return typeof key === "string" ? key : undefined;
}

/**
 * The request a key names: the action and its params with the contract's defaults applied, keys
 * sorted (the same body in any key order, an omitted default the same as the default sent).
 */
export function fingerprint(action: string, paramsIn: unknown): string {
  const params = paramsWithDefaults(action, paramsIn);
  const canon = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
        )
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  return createHash("sha256")
    .update(action)
    .update("\n")
    .update(JSON.stringify(canon(params)))
    .digest("hex");
}

/**
 * Runs `run` once per key: the first answer (journaled by the ledger) is returned again to every
 * later request with the key, also across restarts and crashes; a request arriving while the first
 * runs waits for its answer; the same key for another request is 409 IDEMPOTENCY_KEY_REUSED. A
 * refusal is not kept: the key may be used again.
 */
export async function withIdempotency<T>(
  ctx: AppContext,
  idem: IdemKey,
  run: () => Promise<T>,
): Promise<{ value: T | unknown; replayed: boolean; status?: number }> {
  const claim = await call(ctx, "ledger.idemClaim", idem);
  if (claim.answered && claim.answerFrom)
    return { value: await ctx.call(claim.answerFrom.action, claim.answerFrom.params), replayed: true, status: claim.status };
  if (claim.answered) return { value: claim.response, replayed: true, status: claim.status };
  const journaled = ctx.meta.idemJournaled;
  ctx.meta.idemJournaled = false;
  try {
    const value = await run();
    // An action whose command did not carry the answer (withdrawals, redemptions) stores it now.
    if (!ctx.meta.idemJournaled) await call(ctx, "ledger.idemAnswer", { ...idem, status: ctx.meta.$statusCode ?? 200, response: value });
    return { value, replayed: false };
  } catch (err) {
    await call(ctx, "ledger.idemRelease", { scope: idem.scope, key: idem.key }).catch(() => undefined);
    throw err;
  } finally {
    ctx.meta.idemJournaled = journaled;
  }
}

/**
 * Idempotency-Key on the actions marked `idempotent: true` (the contract's trade writes): the
 * gateway hands the header over as `meta.idempotencyKey`; the action runs under the claimed key
 * (`meta.idem`), and a replay answers the first answer with `Idempotent-Replayed: true`.
 */
export const Idempotency: Middleware = {
  name: "Idempotency",
  localAction(handler: (ctx: AppContext) => Promise<unknown>, action: ActionSchema & { idempotent?: boolean }) {
    if (!action.idempotent) return handler;
    // A request without a key (most orders) goes straight to the handler, with no promise of its own.
    return function idempotent(ctx: AppContext) {
      const key = ctx.meta.idempotencyKey;
      if (key === undefined || ctx.meta.idem) return handler(ctx);
      return claimed(ctx, key);
    };
    async function claimed(ctx: AppContext, key: unknown): Promise<unknown> {
      if (typeof key !== "string" || key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY)
        throw validationError(`Idempotency-Key is 1 to ${MAX_IDEMPOTENCY_KEY} characters`, [
          { field: "Idempotency-Key", rule: "stringMax" },
        ]);
      const user = ctx.meta.user;
      if (!user) return handler(ctx);
      const idem = { scope: user.id, key, fingerprint: fingerprint(action.name as string, ctx.params) };
      ctx.meta.idem = idem;
      try {
        const r = await withIdempotency(ctx, idem, () => handler(ctx));
        if (r.replayed) {
          ctx.meta.$responseHeaders = { ...(ctx.meta.$responseHeaders ?? {}), "Idempotent-Replayed": "true" };
          if (r.status) ctx.meta.$statusCode = r.status;
        }
        return r.value;
      } finally {
        delete ctx.meta.idem;
      }
    }
  },
} as unknown as Middleware;
