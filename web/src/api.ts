/**
 * The exchange's own SDK (client/src) against this origin, and the session kept in localStorage so
 * a reload (or reopening the Mini App) stays signed in. The SDK refreshes the token in its last hour.
 */
import { PmxClient } from "@pmx/client/client";
import type { Session } from "@pmx/client/models";
import { Store } from "./store";

const SESSION_KEY = "pmx.session";

function loadSession(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null") as Session | null;
    return s && typeof s.accessToken === "string" && s.expiresAt > Date.now() / 1000 ? s : null;
  } catch {
    return null;
  }
}

export const session$ = new Store<Session | null>(loadSession());

export const client = new PmxClient({
  baseUrl: location.origin,
  session: session$.get(),
  onSessionChange(s) {
    if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
    else localStorage.removeItem(SESSION_KEY);
    session$.set(s);
  },
});

/** Forget the session here (after logout, or when the server says it has ended). */
export function dropSession(): void {
  client.setSession(null);
}
