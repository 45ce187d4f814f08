/**
 * The sandbox wallet: an ed25519 key made in one click and kept in this browser (test funds only),
 * whose standard v4r2 wallet signs the login proof here with the SDK's proof code. Loaded only
 * when used, since it carries @ton/core.
 */
import type { Session } from "@pmx/client/models";
import { keyPairFromSeed, walletAddress } from "@pmx/client/proof";
import { client } from "../api";

const KEY = "pmx.sandboxKey";

const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const fromHex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));

function storedSeed(): Uint8Array | null {
  const h = localStorage.getItem(KEY);
  return h && /^[0-9a-f]{64}$/.test(h) ? fromHex(h) : null;
}

/** Creates the key when there is none yet. */
export function ensureSandboxKey(): { created: boolean; address: string } {
  let seed = storedSeed();
  const created = !seed;
  if (!seed) {
    seed = crypto.getRandomValues(new Uint8Array(32));
    localStorage.setItem(KEY, toHex(seed));
  }
  return { created, address: walletAddress(keyPairFromSeed(seed).publicKey).toRawString() };
}

export async function signInWithSandboxKey(messengerInitData?: string): Promise<Session> {
  ensureSandboxKey();
  const seed = storedSeed() as Uint8Array;
  return client.auth.loginWithKeyPair(keyPairFromSeed(seed), { messengerInitData });
}
