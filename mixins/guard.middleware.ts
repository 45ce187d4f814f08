import type { ActionSchema, Middleware } from "moleculer";
import { forbidden, unauthorized } from "../lib/errors";
import type { ActionAuth, AppContext } from "./context";

/**
 * Authorization from the action's own `auth` property, in one place instead of checks in handlers:
 * - "user": a verified session user must be on the context (from the gateway or the socket);
 * - "admin": calls entering through the gateway or a socket need the operator flag; internal and
 *   REPL calls are trusted since only those two entry points face the outside.
 */
export const AuthGuard: Middleware = {
  name: "AuthGuard",
  localAction(handler: (ctx: AppContext) => Promise<unknown>, action: ActionSchema & { auth?: ActionAuth }) {
    const rule = action.auth;
    if (!rule) return handler;
    return function guarded(ctx: AppContext) {
      if (rule === "user" && !ctx.meta.user) return Promise.reject(unauthorized());
      if (rule === "admin" && ctx.meta.origin && !ctx.meta.admin) return Promise.reject(forbidden("Operator key required"));
      return handler(ctx);
    };
  },
} as unknown as Middleware;
