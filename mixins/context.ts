import type { Context } from "moleculer";
import { unauthorized } from "../lib/errors";
import type { IdemKey } from "../models/trading";
import type { TokenUser } from "../models/user";

/**
 * What the gateway attaches to a request's context (kept small since it travels between nodes):
 * the user a verified token names, as `auth.resolveToken` answers it (REST and socket alike).
 */
export type SessionUser = TokenUser;

export interface RequestMeta {
  user?: SessionUser | null;
  admin?: boolean;
  /** Set by the entry points (REST gateway, socket); absent on internal and REPL calls. */
  origin?: "gateway" | "socket";
  requestId?: string;
  /** The ton_proof domain the gateway answers to (its APP_DOMAIN or listening address); on login calls only. */
  proofDomain?: string;
  /** The request's Idempotency-Key header (the gateway passes it on). */
  idempotencyKey?: string;
  /** Set by the idempotency layer while an idempotent action runs under a claimed key. */
  idem?: IdemKey;
  /** Set by an action whose command journaled its own answer under the key. */
  idemJournaled?: boolean;
  $statusCode?: number;
  $responseHeaders?: Record<string, string>;
}

export type AppContext<P = unknown> = Context<P, RequestMeta>;

/** Access rule declared on an action (`auth: "user"` or `auth: "admin"`), enforced by AuthGuard. */
export type ActionAuth = "user" | "admin";

export function currentUser(ctx: AppContext<unknown>): SessionUser {
  const user = ctx.meta.user;
  if (!user) throw unauthorized();
  return user;
}
