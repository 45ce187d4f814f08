/**
 * Who a request is: its bearer token verified (signature and expiry, locally), then its session
 * confirmed live by the auth service, so a logout is immediate on every gateway. A confirmed
 * session is kept until it is revoked: auth has every gateway forget it (`api.forgetSession`, and
 * the `auth.sessionRevoked` broadcast) before a logout or refresh answers, so it is not asked
 * again per request, embedded or in a cluster.
 */
import { timingSafeEqual } from "node:crypto";
import type { TokenClaims } from "../auth/tokens";
import { forbidden, unauthorized } from "../lib/errors";
import type { SessionUser } from "../mixins/context";

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== "string") return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : undefined;
}

export interface SessionPorts<C> {
  /** The token's claims when its signature and expiry hold, else null. */
  verify(token: string): TokenClaims | null;
  /** Is the session still live (not logged out)? Asked under the request `c`. */
  isLive(c: C, sid: string, userId: string): Promise<boolean>;
}

/** Confirmed sessions kept at most (a flood of sessions empties the cache, never grows it). */
export const MAX_CACHED_SESSIONS = 100_000;

export class SessionCache<C> {
  /** Sessions auth confirmed, by sid (null: every request asks). */
  private readonly live: Map<string, string> | null;
  /** Revocations seen: a confirmation that crossed one is not kept (it may predate the logout). */
  private revocations = 0;

  constructor(
    private readonly ports: SessionPorts<C>,
    opts: { keep: boolean },
  ) {
    this.live = opts.keep ? new Map() : null;
  }

  async resolve(c: C, token: string | undefined): Promise<SessionUser | null> {
    if (!token) return null;
    const claims = this.ports.verify(token);
    if (!claims) return null;
    const user: SessionUser = {
      id: claims.sub,
      wallet: claims.wal,
      sid: claims.sid,
      exp: claims.exp,
      ...(claims.tir ? { tier: claims.tir } : {}),
    };
    if (this.live?.get(claims.sid) === claims.sub) return user;
    const before = this.revocations;
    const live = await this.ports.isLive(c, claims.sid, claims.sub);
    if (live && this.live && this.revocations === before) {
      if (this.live.size >= MAX_CACHED_SESSIONS) this.live.clear();
      this.live.set(claims.sid, claims.sub);
    }
    return live ? user : null;
  }

  /** Confirmed sessions kept now. */
  get size(): number {
    return this.live?.size ?? 0;
  }

  /** A session ended: it is asked again (and found gone). True when it was kept here. */
  revoked(sid: string): boolean {
    this.revocations++;
    return this.live?.delete(sid) ?? false;
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The operator API's `X-Admin-Key`: 401 without one, 403 for a wrong one (compared in constant time). */
export function checkOperatorKey(given: unknown, key: string): void {
  if (typeof given !== "string" || !given) throw unauthorized("X-Admin-Key header required");
  if (!sameSecret(given, key)) throw forbidden("Invalid operator key");
}
