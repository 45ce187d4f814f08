/**
 * One Socket.IO connection (the SDK's PmxSocket at /ws) for the whole app: the public market and
 * book channels the pages subscribe to, and the signed-in user's channel, which keeps the balance
 * and the unread count current and tells pages when orders, trades or positions changed.
 * Books are kept by the SDK: updates applied by sequence number, a gap or a reconnection gets a
 * fresh snapshot (`resyncOnGap`).
 */
import { UnauthorizedError } from "@pmx/client/errors";
import type { Balance } from "@pmx/client/models";
import type { TradeUpdate, UserSubscription, UserUpdate } from "@pmx/client/socket";
import { client, dropSession, session$ } from "./api";
import { Pulse, Store } from "./store";

export const socket = client.socket({ resyncOnGap: true });

export type Connection = "connecting" | "live" | "offline";
export const connection$ = new Store<Connection>("connecting");
socket.on("connect", () => connection$.set("live"));
socket.on("disconnect", () => connection$.set("offline"));

export const balance$ = new Store<Balance | null>(null);
export const unread$ = new Store<number>(0);
/** Orders, trades or positions of the user changed (pages refetch what they show). */
export const portfolioPulse = new Pulse(300);
/** A notification arrived. */
export const notificationPulse = new Pulse(300);
/** Who hears each of the user's own trades as the user channel sends it (the market page's recent trades). */
export const ownTrades = new Set<(t: TradeUpdate) => void>();

let userSub: UserSubscription | null = null;

function onUser(u: UserUpdate): void {
  if ("balance" in u) balance$.set(u.balance);
  else if ("notification" in u) {
    unread$.update((n) => n + 1);
    notificationPulse.fire();
    // Settlement, deposits and resolutions change what the portfolio shows.
    portfolioPulse.fire();
  } else {
    if ("trade" in u) for (const hear of ownTrades) hear(u.trade);
    portfolioPulse.fire();
  }
}

/** Balance and unread count over REST, then kept current by the user channel. */
export async function refreshAccount(): Promise<void> {
  if (!client.session) return;
  const [balance, unread] = await Promise.all([client.portfolio.balance(), client.notifications.unreadCount()]);
  balance$.set(balance);
  unread$.set(unread);
}

function follow(): void {
  const signedIn = !!session$.get();
  if (signedIn && !userSub) {
    userSub = socket.subscribeUser({ onUpdate: onUser });
    userSub.ready.catch(() => undefined);
    // A stored session the exchange no longer knows (logged out elsewhere, expired) is forgotten.
    refreshAccount().catch((err: unknown) => err instanceof UnauthorizedError && dropSession());
  } else if (!signedIn && userSub) {
    userSub.unsubscribe();
    userSub = null;
    balance$.set(null);
    unread$.set(0);
  }
}

/** Connects, and keeps trying while the first connection fails (socket.io retries by itself after that). */
function connect(): void {
  socket.connect().catch(() => {
    connection$.set("offline");
    setTimeout(connect, 3000);
  });
}

export function startLive(): void {
  connect();
  session$.subscribe(follow);
  follow();
}
