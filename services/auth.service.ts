import { Errors, type Service } from "moleculer";
import { defineService } from "../mixins/service";
import type { ServiceBroker } from "moleculer";
import { type ActionResult, type Answer, type HandlerParams, broadcast, call, emit, internalAction, routeAction } from "../contract";
import { configOf, type AppConfig } from "../lib/config";
import { throwWire } from "../lib/errors";
import { newId } from "../lib/ids";
import { createDbMixin, type DbState } from "../mixins/db.mixin";
import { currentUser, type AppContext } from "../mixins/context";
import { Auth, type AuthOut } from "../auth/auth";
import { authStorePorts, type AuthCollections } from "../auth/store";

/** How long a logout waits for a gateway to forget the session. */
const FORGET_TIMEOUT_MS = 2_000;

/** The nodes whose gateway may have kept a session. */
function gatewayNodes(broker: ServiceBroker): string[] {
  const list = (
    broker.registry as unknown as {
      getActionEndpoints(name: string): { endpoints: Array<{ id: string; isAvailable: boolean }> } | undefined;
    }
  ).getActionEndpoints("api.forgetSession");
  return list ? list.endpoints.filter((e) => e.isAvailable).map((e) => e.id) : [];
}

/** How often stale proofs and long-expired sessions are dropped. */
const SWEEP_MS = 60_000;

type AuthThis = Service &
  DbState<AuthCollections> & {
    cfg: AppConfig;
    auth: Auth;
    sweepTimer?: NodeJS.Timeout;
    domainFor(ctx: AppContext): string;
    out(ctx: AppContext<unknown>): AuthOut & { forgotten(): Promise<void> };
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

  hooks: {
    // The core's refusals (each a 401) leave as the broker's errors.
    error: {
      "*"(ctx: AppContext, err: unknown) {
        throwWire(err);
      },
    },
  },

  actions: {
    /** GET /auth/challenge: the proof domain this exchange checks and a fresh payload to sign. */
    challenge: {
      ...routeAction("auth.challenge"),
      handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.challenge">>): Answer<"auth.challenge"> {
        return this.auth.challenge(this.domainFor(ctx));
      },
    },

    /** POST /auth/connect: ton_proof login. Every failure is a 401, as the contract says. */
    connect: {
      ...routeAction("auth.connect"),
      async handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.connect">>): Promise<ActionResult<"auth.connect">> {
        const out = this.out(ctx);
        const answer = await this.auth.connect(ctx.params, this.domainFor(ctx), out);
        // Sessions it evicted (one user's limit) are refused by every gateway from now on.
        await out.forgotten();
        return answer;
      },
    },

    /** POST /auth/refresh: a new token only in the last hour; the old session ends with it. */
    refresh: {
      ...routeAction("auth.refresh"),
      async handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.refresh">>): Promise<ActionResult<"auth.refresh">> {
        const out = this.out(ctx);
        const answer = await this.auth.refresh(ctx.meta.user ?? null, ctx.params.token, out);
        await out.forgotten();
        return answer;
      },
    },

    /** POST /auth/logout: the session ends now, on every node. */
    logout: {
      ...routeAction("auth.logout"),
      async handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.logout">>): Promise<ActionResult<"auth.logout">> {
        const out = this.out(ctx);
        await this.auth.logout(currentUser(ctx), out);
        // Refused from now on by every gateway, also one that had confirmed the session.
        await out.forgotten();
        ctx.meta.$statusCode = 204;
        return null;
      },
    },

    /** Internal: is this session still live? Used by the gateway and the socket on every request. */
    checkSession: {
      ...internalAction("auth.checkSession"),
      handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.checkSession">>): Answer<"auth.checkSession"> {
        return this.auth.checkSession(ctx.params.sid, ctx.params.userId);
      },
    },

    /** Internal: a verified token to its session user (socket `user` channel). */
    resolveToken: {
      ...internalAction("auth.resolveToken"),
      handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.resolveToken">>): Answer<"auth.resolveToken"> {
        return this.auth.resolveToken(ctx.params.token);
      },
    },

    /** PUT /admin/users/:userId/tier: the operator grants a rate tier; every gateway hears it. */
    setTier: {
      ...routeAction("auth.setTier"),
      handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.setTier">>): Answer<"auth.setTier"> {
        return this.auth.setTier(ctx.params.userId, ctx.params.tier, this.out(ctx));
      },
    },

    /** Internal: every user granted a tier other than `default` (a gateway learns them as it starts). */
    tiersGranted: {
      ...internalAction("auth.tiersGranted"),
      handler(this: AuthThis): Answer<"auth.tiersGranted"> {
        return this.auth.tiersGranted();
      },
    },

    /** Internal: user profile (wallet, Telegram link) for other services. */
    getUser: {
      ...internalAction("auth.getUser"),
      handler(this: AuthThis, ctx: AppContext<HandlerParams<"auth.getUser">>): Answer<"auth.getUser"> {
        return this.stores.users.findOne({ _id: ctx.params.userId });
      },
    },
  },

  methods: {
    /** APP_DOMAIN when set, else the address of the gateway the request came through. */
    domainFor(this: AuthThis, ctx: AppContext): string {
      const domain = this.cfg.appDomain ?? ctx.meta.proofDomain;
      if (!domain)
        throw new Errors.MoleculerServerError("No proof domain: set APP_DOMAIN, or log in through the gateway", 500, "NO_PROOF_DOMAIN");
      return domain;
    },

    /**
     * Events travel with the request; a revoked session is broadcast (sockets end its user channel)
     * and every gateway is asked to forget it; `forgotten()` resolves once each one answered.
     */
    out(this: AuthThis, ctx: AppContext<unknown>): AuthOut & { forgotten(): Promise<void> } {
      const forgetting: Array<Promise<unknown>> = [];
      return {
        emit: (e) => emit(ctx, e.name, e.payload),
        sessionRevoked: (e) => {
          broadcast(ctx, "auth.sessionRevoked", e);
          for (const nodeID of gatewayNodes(this.broker))
            // A gateway that cannot answer (gone, an older version) serves no request with a kept session of it.
            forgetting.push(call(ctx, "api.forgetSession", { sid: e.sid }, { nodeID, timeout: FORGET_TIMEOUT_MS }).catch(() => null));
        },
        tierChanged: (e) => broadcast(ctx, "auth.tierChanged", e),
        forgotten: async () => {
          await Promise.all(forgetting.splice(0));
        },
      };
    },
  },

  created() {
    this.cfg = configOf(this.broker);
    const { jwtSecret, telegramBotToken, telegramInitDataMaxAgeSec } = this.cfg;
    this.auth = new Auth({
      ...authStorePorts(() => this.stores),
      jwtSecret,
      tiers: Object.keys(this.cfg.rateLimit.tiers),
      telegramBotToken,
      telegramInitDataMaxAgeSec,
      newId,
      now: Date.now,
    });
  },

  started() {
    this.sweepTimer = setInterval(() => void this.auth.sweep(), SWEEP_MS);
    this.sweepTimer.unref();
  },

  stopped() {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  },
});

export default AuthService;
