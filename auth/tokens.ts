/**
 * Session JWTs. The algorithm is pinned to HS256 on both sides so a token
 * cannot pick its own verification rules (alg "none", RS/ES key confusion).
 */
import jwt from "jsonwebtoken";

export const TOKEN_ALGORITHM = "HS256" as const;
export const DEFAULT_TOKEN_TTL_SEC = 86_400;

export interface TokenSubject {
  userId: string;
  /** raw "wc:hex" wallet address */
  walletAddress: string;
  sessionId: string;
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
}

export interface IssuedToken {
  token: string;
  /** unix seconds */
  expiresAt: number;
}

export function issueToken(secret: string, subject: TokenSubject, nowSec: number, ttlSec: number = DEFAULT_TOKEN_TTL_SEC): IssuedToken {
  if (typeof secret !== "string" || secret.length === 0) throw new TypeError("issueToken: secret is required");
  if (!Number.isSafeInteger(nowSec) || !Number.isSafeInteger(ttlSec) || ttlSec <= 0) {
    throw new TypeError("issueToken: nowSec and ttlSec must be integers, ttlSec > 0");
  }
  for (const [k, v] of Object.entries(subject)) {
    if (typeof v !== "string" || v.length === 0) throw new TypeError(`issueToken: ${k} must be a non-empty string`);
  }
  const claims: TokenClaims = {
    sub: subject.userId,
    wal: subject.walletAddress,
    sid: subject.sessionId,
    iat: nowSec,
    exp: nowSec + ttlSec,
  };
  // iat/exp are set explicitly so the caller's clock (nowSec) is the only clock
  // (jsonwebtoken keeps a given iat; `noTimestamp` would strip it).
  const token = jwt.sign(claims, secret, { algorithm: TOKEN_ALGORITHM });
  return { token, expiresAt: claims.exp };
}

/** Claims of a valid, unexpired HS256 token signed with `secret`; null for anything else. */
export function verifyToken(secret: string, token: string, nowSec?: number): TokenClaims | null {
  if (typeof secret !== "string" || secret.length === 0) return null;
  if (typeof token !== "string" || token.length === 0 || token.length > 4096) return null;
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, secret, {
      algorithms: [TOKEN_ALGORITHM],
      clockTimestamp: nowSec,
      clockTolerance: 0,
    });
  } catch {
    return null;
  }
  if (typeof payload !== "object" || payload === null) return null;
  const { sub, wal, sid, iat, exp } = payload as Record<string, unknown>;
  if (!nonEmpty(sub) || !nonEmpty(wal) || !nonEmpty(sid)) return null;
  // jsonwebtoken only checks exp when present; we require it.
  if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp) || (exp as number) <= (iat as number)) return null;
  return { sub, wal, sid, iat: iat as number, exp: exp as number };
}

function nonEmpty(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}
