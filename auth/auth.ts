/**
 * Login and sessions, framework-free: a ton_proof login (the proof first, then the Telegram init
 * data, then the proof's one-time use, then the user found or created, the Telegram link, the
 * session), refresh inside a token's last hour, logout, and the session checks the gateway and
 * the socket make. The auth service wires the ports to its store and the broker.
 */
import { randomBytes } from "node:crypto";
import type { EventMessage, EventPayload } from "../contract/broker-events";
import { invalid, notFoundFault } from "../engine/refusal";
import type { SessionDoc, UsedProofDoc, UserDoc, TokenUser, UserTier } from "../models/user";
import { verifyTonProof, type ConnectProof } from "./ton-proof";
import { verifyTelegramInitData } from "./telegram";
import { issueToken, verifyToken, type TokenClaims } from "./tokens";
import { Refusal } from "../engine/refusal";

/** A proof older than this is refused (the contract's 5 minutes). */
export const PROOF_MAX_AGE_SEC = 300;
/** Refresh is allowed only inside the last hour of a token's life. */
export const REFRESH_WINDOW_SEC = 3600;
/** A used proof is remembered this long past its timestamp (beyond its freshness window). */
const USED_PROOF_KEEP_SEC = 600;
/** Expired sessions are kept a day (a late refresh or logout still finds them), then swept. */
const EXPIRED_SESSION_KEEP_SEC = 86_400;
/**
 * Sessions one user keeps at most: a login past it ends the user's oldest (revoked and expired
 * ones go first), so what one user (one wallet, able to sign any number of proofs) takes is bounded.
 */
export const MAX_SESSIONS_PER_USER = 10;
/** The store is compacted (its file rewritten without what was dropped) after this many drops... */
const COMPACT_AFTER_DROPS = 1_000;
/** ...or this long after the first drop since the last compaction. */
const COMPACT_AFTER_MS = 10 * 60_000;

/** Every refusal of a login or a session is one kind and code: not authenticated (401). */
export const AUTH_CODES = ["UNAUTHORIZED"] as const;
export type AuthCode = (typeof AUTH_CODES)[number];

const denied = (message: string) => new Refusal<AuthCode>("unauthorized", "UNAUTHORIZED", message);

export interface ConnectParams {
  address?: unknown;
  publicKey?: unknown;
  proof?: unknown;
  messengerInitData?: string;
}

/** GET /auth/challenge: what a wallet signs into its ton_proof. */
export interface ChallengeResponse {
  /** The domain the proof must be made for (exactly what POST /auth/connect checks). */
  domain: string;
  /** A fresh random payload (32 bytes, hex); client-made payloads are accepted too. */
  payload: string;
  /** Until when a proof made now is fresh enough (the 5-minute freshness window). */
  expiresAt: string;
}

export interface SessionResponse {
  accessToken: string;
  expiresAt: number;
  userId: string;
  walletAddress: string;
}

/** Broker events auth announces (payloads: contract/broker-events.ts). */
export type AuthEvent = EventMessage<"auth.userCreated" | "auth.telegramLinked">;

/** Where a command's announcements go (the caller's context: they travel with its request). */
export interface AuthOut {
  emit(event: AuthEvent): void;
  /** A session ended: every node forgets it at once (to every node, before the command answers). */
  sessionRevoked(e: EventPayload<"auth.sessionRevoked">): void;
  /** A user's rate tier changed: every gateway applies it from the next request. */
  tierChanged?(e: EventPayload<"auth.tierChanged">): void;
}

export interface AuthPorts {
  users: {
    byId(id: string): Promise<UserDoc | null>;
    byWallet(walletAddress: string): Promise<UserDoc | null>;
    /** Insert unless the id or the wallet is taken; true when this call inserted it. */
    insertOnce(user: UserDoc): Promise<boolean>;
    setTelegram(userId: string, telegram: NonNullable<UserDoc["telegram"]>): Promise<void>;
    /** Set (or, for `default`, drop) the user's rate tier. */
    setTier(userId: string, tier: string): Promise<void>;
    /** Every user with a tier other than `default`. */
    withTier(): Promise<UserTier[]>;
  };
  sessions: {
    get(sid: string): Promise<SessionDoc | null>;
    insert(session: SessionDoc): Promise<void>;
    /** Every stored session of the user (live, revoked or expired). */
    ofUser(userId: string): Promise<SessionDoc[]>;
    /** Drop these sessions. */
    remove(sids: string[]): Promise<void>;
    /** Mark revoked unless it already is; true when this call did. */
    revokeOnce(sid: string, at: string): Promise<boolean>;
    /** Mark revoked (again, if it was). */
    revoke(sid: string, at: string): Promise<void>;
    /** Drop sessions that expired before `expiresBefore` (unix seconds); how many were dropped. */
    sweep(expiresBefore: number): Promise<number>;
  };
  usedProofs: {
    /** Record a proof's use; false when it was used before. */
    claim(doc: UsedProofDoc): Promise<boolean>;
    /** Drop proofs stale before `staleBefore` (unix seconds); how many were dropped. */
    sweep(staleBefore: number): Promise<number>;
  };
  /** Rewrites the session and proof stores without what was dropped (an append-only file keeps it otherwise). */
  compact?(): Promise<void>;
  jwtSecret: string;
  /** The rate tiers configured (RATE_TIERS plus `default`): the only ones a user may be granted. */
  tiers: readonly string[];
  /** Verifies Mini App init data when set; without a bot, init data is ignored. */
  telegramBotToken?: string;
  telegramInitDataMaxAgeSec: number;
  newId(prefix: string): string;
  /** Epoch ms. */
  now(): number;
}

export class Auth {
  /** Drops since the store was last compacted, and when the first of them happened (epoch ms). */
  private drops = 0;
  private firstDropMs = 0;

  constructor(private readonly ports: AuthPorts) {}

  /** A fresh payload to sign for `domain`, fresh enough until the proof window ends. */
  challenge(domain: string): ChallengeResponse {
    return {
      domain,
      payload: randomBytes(32).toString("hex"),
      expiresAt: new Date((this.nowSec() + PROOF_MAX_AGE_SEC) * 1000).toISOString(),
    };
  }

  /** ton_proof login for `domain`. Every failure is a refusal (401), as the contract says. */
  async connect(p: ConnectParams, domain: string, out: AuthOut): Promise<SessionResponse> {
    const { address, publicKey, proof, messengerInitData } = p;
    const nowSec = this.nowSec();
    const verdict = verifyTonProof({ address, publicKey, proof } as ConnectProof, { domain, nowSec, maxAgeSec: PROOF_MAX_AGE_SEC });
    if (!verdict.ok) throw denied(verdict.message);

    let telegram: UserDoc["telegram"];
    const botToken = this.ports.telegramBotToken;
    if (messengerInitData && botToken) {
      const tg = verifyTelegramInitData(messengerInitData, botToken, { maxAgeSec: this.ports.telegramInitDataMaxAgeSec, nowSec });
      if (!tg.ok) throw denied(tg.reason === "EXPIRED" ? "Telegram init data expired" : "Invalid Telegram init data");
      telegram = { ...tg.user, verifiedAt: new Date(nowSec * 1000).toISOString() };
    }

    // One-time use, recorded only after the proof verified so junk cannot burn real proofs.
    const fresh = await this.ports.usedProofs.claim({
      _id: verdict.proofId,
      staleAt: (proof as { timestamp: number }).timestamp + USED_PROOF_KEEP_SEC,
    });
    if (!fresh) throw denied("Proof already used");

    const user = await this.findOrCreateUser(verdict.rawAddress, out);
    if (telegram) {
      await this.ports.users.setTelegram(user._id, telegram);
      user.telegram = telegram;
      out.emit({ name: "auth.telegramLinked", payload: { userId: user._id, chatId: telegram.id } });
    }
    return this.openSession(user, out);
  }

  /**
   * A new token only in the last hour of the current one, named by the request's session or by
   * a token given; the old session ends with it.
   */
  async refresh(current: { sid: string; exp: number } | null, token: string | undefined, out: AuthOut): Promise<SessionResponse> {
    let sid: string | undefined;
    let exp: number | undefined;
    if (current) {
      sid = current.sid;
      exp = current.exp;
    } else if (token) {
      const claims = verifyToken(this.ports.jwtSecret, token, this.nowSec());
      if (claims && (await this.liveSession(claims))) {
        sid = claims.sid;
        exp = claims.exp;
      }
    }
    if (!sid || exp === undefined) throw denied("A valid token is required");
    if (exp - this.nowSec() >= REFRESH_WINDOW_SEC) throw denied("Token has more than 1 hour of validity left");
    const session = await this.ports.sessions.get(sid);
    const user = session && (await this.ports.users.byId(session.userId));
    if (!session || session.revokedAt || !user) throw denied("Session not found");
    if (!(await this.ports.sessions.revokeOnce(sid, this.nowIso()))) throw denied("Session not found");
    out.sessionRevoked({ sid, userId: user._id });
    return this.openSession(user, out);
  }

  /** The session ends now, on every node. */
  async logout(user: { id: string; sid: string }, out: AuthOut): Promise<void> {
    await this.ports.sessions.revoke(user.sid, this.nowIso());
    out.sessionRevoked({ sid: user.sid, userId: user.id });
  }

  /** Whether the session is live: known, not revoked, the user's, not expired. */
  async checkSession(sid: string, userId: string): Promise<boolean> {
    const s = await this.ports.sessions.get(sid);
    return !!s && !s.revokedAt && s.userId === userId && s.expiresAt > this.nowSec();
  }

  /** A verified token of a live session to its user; null otherwise. */
  async resolveToken(token: string): Promise<TokenUser | null> {
    const claims = verifyToken(this.ports.jwtSecret, token, this.nowSec());
    if (!claims || !(await this.liveSession(claims))) return null;
    return { id: claims.sub, wallet: claims.wal, sid: claims.sid, exp: claims.exp };
  }

  /** The operator grants a rate tier (a configured one; `default` takes a grant back). */
  async setTier(userId: string, tier: string, out: AuthOut): Promise<UserTier> {
    if (!this.ports.tiers.includes(tier))
      throw invalid(`Unknown tier "${tier}" (configured: ${this.ports.tiers.join(", ")})`, [{ field: "tier", rule: "enum" }]);
    if (!(await this.ports.users.byId(userId))) throw notFoundFault("User");
    await this.ports.users.setTier(userId, tier);
    out.tierChanged?.({ userId, tier });
    return { userId, tier };
  }

  /** Every user granted a tier other than `default` (a gateway starting learns them). */
  tiersGranted(): Promise<UserTier[]> {
    return this.ports.users.withTier();
  }

  /**
   * Stale proofs can no longer log in, and expired sessions no longer authenticate: drop both, and
   * compact the store once enough was dropped (or the oldest drop is old enough). Returns how many
   * records were dropped.
   */
  async sweep(): Promise<number> {
    const now = this.nowSec();
    const [proofs, sessions] = await Promise.all([
      this.ports.usedProofs.sweep(now).catch(() => 0),
      this.ports.sessions.sweep(now - EXPIRED_SESSION_KEEP_SEC).catch(() => 0),
    ]);
    this.dropped(proofs + sessions);
    await this.compactIfDue();
    return proofs + sessions;
  }

  private dropped(n: number): void {
    if (n <= 0) return;
    if (this.drops === 0) this.firstDropMs = this.ports.now();
    this.drops += n;
  }

  private async compactIfDue(): Promise<void> {
    if (!this.ports.compact || this.drops === 0) return;
    if (this.drops < COMPACT_AFTER_DROPS && this.ports.now() - this.firstDropMs < COMPACT_AFTER_MS) return;
    this.drops = 0;
    await this.ports.compact().catch(() => undefined);
  }

  private async findOrCreateUser(wallet: string, out: AuthOut): Promise<UserDoc> {
    const existing = await this.ports.users.byWallet(wallet);
    if (existing) return existing;
    const user: UserDoc = { _id: this.ports.newId("usr"), walletAddress: wallet, createdAt: this.nowIso() };
    // Two first logins at once: the unique index lets one win, the other reads it back.
    if (await this.ports.users.insertOnce(user)) {
      out.emit({ name: "auth.userCreated", payload: { userId: user._id, walletAddress: wallet } });
      return user;
    }
    const winner = await this.ports.users.byWallet(wallet);
    if (!winner) throw new Error("user creation raced and lost");
    return winner;
  }

  private async openSession(user: UserDoc, out: AuthOut): Promise<SessionResponse> {
    const sid = this.ports.newId("ses");
    const nowSec = this.nowSec();
    const { token, expiresAt } = issueToken(
      this.ports.jwtSecret,
      { userId: user._id, walletAddress: user.walletAddress, sessionId: sid, tier: user.tier },
      nowSec,
    );
    await this.ports.sessions.insert({
      _id: sid,
      userId: user._id,
      walletAddress: user.walletAddress,
      expiresAt,
      createdAt: new Date(nowSec * 1000).toISOString(),
    });
    await this.keepSessionsBounded(user._id, sid, out);
    return { accessToken: token, expiresAt, userId: user._id, walletAddress: user.walletAddress };
  }

  /**
   * At most MAX_SESSIONS_PER_USER sessions of a user stay stored: revoked and expired ones go
   * first, then the oldest live ones, which end on every node as a logout would end them.
   */
  private async keepSessionsBounded(userId: string, opened: string, out: AuthOut): Promise<void> {
    const all = await this.ports.sessions.ofUser(userId);
    if (all.length <= MAX_SESSIONS_PER_USER) return;
    const now = this.nowSec();
    const live = (s: SessionDoc) => !s.revokedAt && s.expiresAt > now;
    const victims = all
      .filter((s) => s._id !== opened)
      .sort((a, b) => Number(live(a)) - Number(live(b)) || a.createdAt.localeCompare(b.createdAt) || a._id.localeCompare(b._id))
      .slice(0, all.length - MAX_SESSIONS_PER_USER);
    await this.ports.sessions.remove(victims.map((s) => s._id));
    this.dropped(victims.length);
    for (const s of victims) if (live(s)) out.sessionRevoked({ sid: s._id, userId });
  }

  private async liveSession(claims: TokenClaims): Promise<SessionDoc | null> {
    const s = await this.ports.sessions.get(claims.sid);
    return s && !s.revokedAt && s.userId === claims.sub && s.expiresAt > this.nowSec() ? s : null;
  }

  private nowSec(): number {
    return Math.floor(this.ports.now() / 1000);
  }

  private nowIso(): string {
    return new Date(this.ports.now()).toISOString();
  }
}
