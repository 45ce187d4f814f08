/**
 * Session JWTs. The algorithm is pinned to HS256 on both sides so a token
 * cannot pick its own verification rules (alg "none", RS/ES key confusion).
 */
import { createSecretKey, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";

export const TOKEN_ALGORITHM = "HS256" as const;
export const DEFAULT_TOKEN_TTL_SEC = 86_400;

export interface TokenSubject {
  userId: string;
  /** raw "wc:hex" wallet address */
  walletAddress: string;
  sessionId: string;
  /** Rate tier at issue; left out for `default`. */
  tier?: string;
}

export interface TokenClaims {
  /** user id */
  sub: string;
  /** wallet raw address */
  wal: string;
  /** session id */
  sid: string;
  iat: number;
  exp: number;
  /** rate tier at issue (absent: default) */
  tir?: string;
}

export interface IssuedToken {
  token: string;
  /** unix seconds */
  expiresAt: number;
}

/**
 * jsonwebtoken turns a string secret into a key on every call, first trying (and failing) to parse
 * it as a public key; a KeyObject made once per secret skips that, which was a quarter of the
 * gateway's CPU per request.
 */
const keys = new Map<string, KeyObject>();
function keyFor(secret: string): KeyObject {
  let k = keys.get(secret);
  if (!k) keys.set(secret, (k = createSecretKey(Buffer.from(secret, "utf8"))));
  return k;
}

/**
 * Tokens already verified under a secret: a token's signature and claims never change, so only
 * its expiry is checked again (session liveness is checked by the caller on every request).
 * Bounded; the oldest entries go first.
 */
const VERIFIED_CACHE_MAX = 50_000;
const verified = new Map<string, Map<string, TokenClaims>>();

export function issueToken(secret: string, subject: TokenSubject, nowSec: number, ttlSec: number = DEFAULT_TOKEN_TTL_SEC): IssuedToken {
  if (typeof secret !== "string" || secret.length === 0) throw new TypeError("issueToken: secret is required");
  if (!Number.isSafeInteger(nowSec) || !Number.isSafeInteger(ttlSec) || ttlSec <= 0) {
    throw new TypeError("issueToken: nowSec and ttlSec must be integers, ttlSec > 0");
  }
  for (const [k, v] of Object.entries(subject)) {
    if (k === "tier" && v === undefined) continue;
    if (typeof v !== "string" || v.length === 0) throw new TypeError(`issueToken: ${k} must be a non-empty string`);
  }
  const claims: TokenClaims = {
    sub: subject.userId,
    wal: subject.walletAddress,
    sid: subject.sessionId,
    iat: nowSec,
    exp: nowSec + ttlSec,
    ...(subject.tier && subject.tier !== "default" ? { tir: subject.tier } : {}),
  };
  // iat/exp are set explicitly so the caller's clock (nowSec) is the only clock
  // (jsonwebtoken keeps a given iat; `noTimestamp` would strip it).
  const token = jwt.sign(claims, keyFor(secret), { algorithm: TOKEN_ALGORITHM });
  return { token, expiresAt: claims.exp };
}

/** Claims of a valid, unexpired HS256 token signed with `secret`; null for anything else. */
export function verifyToken(secret: string, token: string, nowSec?: number): TokenClaims | null {
  if (typeof secret !== "string" || secret.length === 0) return null;
  if (typeof token !== "string" || token.length === 0 || token.length > 4096) return null;
  const now = nowSec ?? Math.floor(Date.now() / 1000);
  let cache = verified.get(secret);
  const hit = cache?.get(token);
  if (hit) return now < hit.exp ? hit : null;
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, keyFor(secret), {
      algorithms: [TOKEN_ALGORITHM],
      clockTimestamp: now,
      clockTolerance: 0,
    });
  } catch {
    return null;
  }
  if (typeof payload !== "object" || payload === null) return null;
  const { sub, wal, sid, iat, exp, tir } = payload as Record<string, unknown>;
  if (!nonEmpty(sub) || !nonEmpty(wal) || !nonEmpty(sid)) return null;
  if (tir !== undefined && !nonEmpty(tir)) return null;
  // jsonwebtoken only checks exp when present; we require it.
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp) || (exp as number) <= (iat as number)) return null;
  const claims: TokenClaims = { sub, wal, sid, iat: iat as number, exp: exp as number, ...(tir ? { tir } : {}) };
  if (!cache) verified.set(secret, (cache = new Map()));
  if (cache.size >= VERIFIED_CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(token, claims);
  return claims;
}

/** Verified tokens kept (every secret's), for the memory bench. */
export function verifiedTokenCount(): number {
  let n = 0;
  for (const m of verified.values()) n += m.size;
  return n;
}

function nonEmpty(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}
