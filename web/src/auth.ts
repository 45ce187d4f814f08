/**
 * Signing in and out. Both ways end in POST /auth/connect with a ton_proof; inside Telegram the
 * Mini App's init data goes along (`messengerInitData`), which links the Telegram profile and turns
 * bot notifications on. The wallet code is loaded only when a way is chosen.
 */
import { UnauthorizedError } from "@pmx/client/errors";
import { client, dropSession } from "./api";
import { telegram$ } from "./telegram";

const SANDBOX_KEY = "pmx.sandboxKey";
let tonConnectLoaded = false;

export function hasSandboxKey(): boolean {
  return !!localStorage.getItem(SANDBOX_KEY);
}

/** A fresh payload from the exchange (GET /auth/challenge) for the wallet to sign. */
async function loginPayload(): Promise<string> {
  return (await client.auth.challenge()).payload;
}

/** A login the exchange refuses (401) says why, in the server's words. */
async function refusalInWords(login: Promise<unknown>): Promise<void> {
  try {
    await login;
  } catch (err) {
    if (err instanceof UnauthorizedError) throw new Error(`The exchange refused the sign-in: ${err.message}.`);
    throw err;
  }
}

export async function signInSandbox(): Promise<void> {
  const { signInWithSandboxKey } = await import("./wallet/sandbox");
  await refusalInWords(signInWithSandboxKey(telegram$.get()?.initData));
}

export async function signInTonConnect(): Promise<void> {
  const [{ signInWithTonConnect }, payload] = await Promise.all([import("./wallet/tonconnect"), loginPayload()]);
  tonConnectLoaded = true;
  await refusalInWords(signInWithTonConnect(payload, telegram$.get()?.initData));
}

export async function signOut(): Promise<void> {
  try {
    await client.auth.logout();
  } finally {
    dropSession();
    if (tonConnectLoaded) await (await import("./wallet/tonconnect")).disconnectTonConnect().catch(() => undefined);
  }
}
