import { randomBytes } from "node:crypto";
import { Errors, type Service } from "moleculer";
import { defineService } from "../lib/service";
import { configOf, type AppConfig } from "../lib/config";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import { unauthorized } from "../lib/errors";
import { newId } from "../lib/ids";
import { verifyTonProof, type ConnectProof } from "../auth/ton-proof";
import { verifyTelegramInitData } from "../auth/telegram";
import { issueToken, verifyToken, type TokenClaims } from "../auth/tokens";
import type { SessionDoc, UsedProofDoc, UserDoc } from "../models/user";

type AuthCollections = { users: UserDoc; sessions: SessionDoc; usedProofs: UsedProofDoc };

/** A proof older than this is refused (the contract's 5 minutes). */
export const PROOF_MAX_AGE_SEC = 300;

/** Refresh is allowed only inside the last hour of a token's life. */
export const REFRESH_WINDOW_SEC = 3600;

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

type AuthThis = Service &
  DbState<AuthCollections> & {
    cfg: AppConfig;
    sweepTimer?: NodeJS.Timeout;
    now(): number;
    domainFor(ctx: AppContext): string;
    findOrCreateUser(wallet: string): Promise<UserDoc>;
    openSession(user: UserDoc): Promise<SessionResponse>;
    liveSession(claims: TokenClaims): Promise<SessionDoc | null>;
  };

const AuthService = defineService<AuthThis>({
  name: "auth",
  mixins: [
    createDbMixin<AuthCollections>({
      users: [{ fields: { walletAddress: 1 }, unique: true }],
      sessions: [{ fields: { userId: 1 } }],
      usedProofs: [{ fields: { staleAt: 1 } }],
    }),
  ],

  actions: {
    /** GET /auth/challenge: the proof domain this exchange checks and a fresh payload to sign. */
    challenge: {
      params: { $$strict: "remove" },
      handler(this: AuthThis, ctx: AppContext): ChallengeResponse {
        const domain = this.domainFor(ctx);
        return { domain, payload: randomBytes(32).toString("hex"), expiresAt: new Date((this.now() + PROOF_MAX_AGE_SEC) * 1000).toISOString() };
      },
    },

    /** POST /auth/connect: ton_proof login. Every failure is a 401, as the contract says. */
    connect: {
      params: {
        // Shapes are checked by the proof verifier so that a missing or malformed proof is a 401.
        address: { type: "any", optional: true },
        publicKey: { type: "any", optional: true },
        proof: { type: "any", optional: true },
        messengerInitData: { type: "string", optional: true, max: 8192 },
        $$strict: "remove",
      },
      async handler(this: AuthThis, ctx: AppContext<ConnectParams>): Promise<SessionResponse> {
        const { address, publicKey, proof, messengerInitData } = ctx.params;
        const nowSec = this.now();
        const verdict = verifyTonProof({ address, publicKey, proof } as ConnectProof, { domain: this.domainFor(ctx), nowSec, maxAgeSec: PROOF_MAX_AGE_SEC });
        if (!verdict.ok) throw unauthorized(verdict.message);

        let telegram: UserDoc["telegram"];
        if (messengerInitData && this.cfg.telegramBotToken) {
          const tg = verifyTelegramInitData(messengerInitData, this.cfg.telegramBotToken, { maxAgeSec: this.cfg.telegramInitDataMaxAgeSec, nowSec });
          if (!tg.ok) throw unauthorized(tg.reason === "EXPIRED" ? "Telegram init data expired" : "Invalid Telegram init data");
          telegram = { ...tg.user, verifiedAt: new Date(nowSec * 1000).toISOString() };
        }

        // One-time use, recorded only after the proof verified so junk cannot burn real proofs.
        const fresh = await this.stores.usedProofs.insertOnce({ _id: verdict.proofId, staleAt: (proof as { timestamp: number }).timestamp + 600 });
        if (!fresh) throw unauthorized("Proof already used");

        const user = await this.findOrCreateUser(verdict.rawAddress);
        if (telegram) {
          await this.stores.users.update({ _id: user._id }, { $set: { telegram } });
          user.telegram = telegram;
          ctx.emit("auth.telegramLinked", { userId: user._id, chatId: telegram.id });
        }
        return this.openSession(user);
      },
    },

    /** POST /auth/refresh: a new token only in the last hour; the old session ends with it. */
    refresh: {
      params: { token: { type: "string", optional: true, max: 4096 }, $$strict: "remove" },
      async handler(this: AuthThis, ctx: AppContext<{ token?: string }>): Promise<SessionResponse> {
        let sid: string | undefined;
        let exp: number | undefined;
        if (ctx.meta.user) {
          sid = ctx.meta.user.sid;
          exp = ctx.meta.user.exp;
        } else if (ctx.params.token) {
          const claims = verifyToken(this.cfg.jwtSecret, ctx.params.token, this.now());
          if (claims && (await this.liveSession(claims))) {
            sid = claims.sid;
            exp = claims.exp;
          }
        }
        if (!sid || exp === undefined) throw unauthorized("A valid token is required");
        if (exp - this.now() >= REFRESH_WINDOW_SEC) throw unauthorized("Token has more than 1 hour of validity left");
        const session = await this.stores.sessions.findOne({ _id: sid });
        const user = session && (await this.stores.users.findOne({ _id: session.userId }));
        if (!session || session.revokedAt || !user) throw unauthorized("Session not found");
        const revoked = await this.stores.sessions.update({ _id: sid, revokedAt: { $exists: false } }, { $set: { revokedAt: new Date().toISOString() } });
        if (!revoked) throw unauthorized("Session not found");
        ctx.broadcast("auth.sessionRevoked", { sid, userId: user._id });
        return this.openSession(user);
      },
    },

    /** POST /auth/logout: the session ends now, on every node. */
    logout: {
      auth: "user",
      params: { $$strict: "remove" },
      async handler(this: AuthThis, ctx: AppContext<Record<string, never>>): Promise<null> {
        const user = currentUser(ctx);
        await this.stores.sessions.update({ _id: user.sid }, { $set: { revokedAt: new Date().toISOString() } });
        ctx.broadcast("auth.sessionRevoked", { sid: user.sid, userId: user.id });
        ctx.meta.$statusCode = 204;
        return null;
      },
    },

    /** Internal: is this session still live? Used by the gateway and the socket on every request. */
    checkSession: {
      visibility: "public",
      params: { sid: { type: "string", max: 128 }, userId: { type: "string", max: 128 } },
      async handler(this: AuthThis, ctx: AppContext<{ sid: string; userId: string }>): Promise<boolean> {
        const s = await this.stores.sessions.findOne({ _id: ctx.params.sid });
        return !!s && !s.revokedAt && s.userId === ctx.params.userId && s.expiresAt > this.now();
      },
    },

    /** Internal: a verified token to its session user (socket `user` channel). */
    resolveToken: {
      visibility: "public",
      params: { token: { type: "string", max: 4096 } },
      async handler(this: AuthThis, ctx: AppContext<{ token: string }>) {
        const claims = verifyToken(this.cfg.jwtSecret, ctx.params.token, this.now());
        if (!claims || !(await this.liveSession(claims))) return null;
        return { id: claims.sub, wallet: claims.wal, sid: claims.sid, exp: claims.exp };
      },
    },

    /** Internal: user profile (wallet, Telegram link) for other services. */
    getUser: {
      visibility: "public",
      params: { userId: { type: "string", max: 128 } },
      handler(this: AuthThis, ctx: AppContext<{ userId: string }>): Promise<UserDoc | null> {
        return this.stores.users.findOne({ _id: ctx.params.userId });
      },
    },
  },

  methods: {
    now(): number {
      return Math.floor(Date.now() / 1000);
    },

    /** APP_DOMAIN when set, else the address of the gateway the request came through. */
    domainFor(this: AuthThis, ctx: AppContext): string {
      const domain = this.cfg.appDomain ?? ctx.meta.proofDomain;
      if (!domain) throw new Errors.MoleculerServerError("No proof domain: set APP_DOMAIN, or log in through the gateway", 500, "NO_PROOF_DOMAIN");
      return domain;
    },

    async findOrCreateUser(this: AuthThis, wallet: string): Promise<UserDoc> {
      const existing = await this.stores.users.findOne({ walletAddress: wallet });
      if (existing) return existing;
      const user: UserDoc = { _id: newId("usr"), walletAddress: wallet, createdAt: new Date().toISOString() };
      // Two first logins at once: the unique index lets one win, the other reads it back.
      if (await this.stores.users.insertOnce(user)) {
        this.broker.emit("auth.userCreated", { userId: user._id, walletAddress: wallet });
        return user;
      }
      const winner = await this.stores.users.findOne({ walletAddress: wallet });
      if (!winner) throw new Error("user creation raced and lost");
      return winner;
    },

    async openSession(this: AuthThis, user: UserDoc): Promise<SessionResponse> {
      const sid = newId("ses");
      const nowSec = this.now();
      const { token, expiresAt } = issueToken(this.cfg.jwtSecret, { userId: user._id, walletAddress: user.walletAddress, sessionId: sid }, nowSec);
      await this.stores.sessions.insert({ _id: sid, userId: user._id, walletAddress: user.walletAddress, expiresAt, createdAt: new Date(nowSec * 1000).toISOString() });
      return { accessToken: token, expiresAt, userId: user._id, walletAddress: user.walletAddress };
    },

    async liveSession(this: AuthThis, claims: TokenClaims): Promise<SessionDoc | null> {
      const s = await this.stores.sessions.findOne({ _id: claims.sid });
      return s && !s.revokedAt && s.userId === claims.sub && s.expiresAt > this.now() ? s : null;
    },
  },

  created() {
    this.cfg = configOf(this.broker);
  },

  started() {
    // Stale proofs can no longer log in, and expired sessions no longer authenticate: drop both.
    this.sweepTimer = setInterval(() => {
      const now = this.now();
      this.stores.usedProofs.remove({ staleAt: { $lt: now } }, { multi: true }).catch(() => undefined);
      this.stores.sessions.remove({ expiresAt: { $lt: now - 86_400 } }, { multi: true }).catch(() => undefined);
    }, 60_000);
    this.sweepTimer.unref();
  },

  stopped() {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  },
});

export default AuthService;
