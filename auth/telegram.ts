/**
 * Telegram Mini App init-data verification. The HMAC check is the library's
 * (@telegram-apps/init-data-node `validate`); only expiry is done here so the
 * caller's clock (nowSec) is used instead of Date.now().
 */
import { parse, validate } from "@telegram-apps/init-data-node";

export interface TelegramUser {
  id: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
  isPremium?: boolean;
}

export type TelegramVerdict = { ok: true; user: TelegramUser; authDate: number } | { ok: false; reason: "INVALID" | "EXPIRED" | "NO_USER" };

export interface TelegramVerifyOptions {
  /** must be > 0: there is no "never expires" mode */
  maxAgeSec: number;
  nowSec?: number;
}

/** How far ahead of our clock an auth_date may be (clock skew), in seconds; beyond it the data is refused. */
export const MAX_CLOCK_SKEW_SEC = 60;

/** Init data is a query string of a few hundred bytes; cap the work done on junk. */
const MAX_INIT_DATA_LENGTH = 8192;

export function verifyTelegramInitData(raw: string, botToken: string, opts: TelegramVerifyOptions): TelegramVerdict {
  if (!(opts.maxAgeSec > 0)) throw new TypeError("verifyTelegramInitData: maxAgeSec must be > 0");
  if (typeof botToken !== "string" || botToken.length === 0) throw new TypeError("verifyTelegramInitData: botToken is required");
  const nowSec = opts.nowSec ?? Math.floor(Date.now() / 1000);

  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_INIT_DATA_LENGTH) return { ok: false, reason: "INVALID" };

  try {
    // expiresIn: 0 disables the library's Date.now()-based expiry; checked below instead.
    validate(raw, botToken, { expiresIn: 0 });
  } catch {
    return { ok: false, reason: "INVALID" };
  }

  let data: ReturnType<typeof parseSigned>;
  try {
    data = parseSigned(raw);
  } catch {
    return { ok: false, reason: "INVALID" };
  }

  const authDate = Math.floor(data.authDate.getTime() / 1000);
  if (!Number.isSafeInteger(authDate)) return { ok: false, reason: "INVALID" };
  if (nowSec - authDate > opts.maxAgeSec) return { ok: false, reason: "EXPIRED" };
  // Signed data dated ahead would stay fresh for as long as it is ahead: not a real login.
  if (authDate - nowSec > MAX_CLOCK_SKEW_SEC) return { ok: false, reason: "INVALID" };

  const u = data.user;
  if (!u) return { ok: false, reason: "NO_USER" };
  if (!Number.isSafeInteger(u.id) || u.id <= 0) return { ok: false, reason: "INVALID" };

  const user: TelegramUser = { id: u.id };
  if (u.firstName !== undefined) user.firstName = u.firstName;
  if (u.lastName !== undefined) user.lastName = u.lastName;
  if (u.username !== undefined) user.username = u.username;
  if (u.languageCode !== undefined) user.languageCode = u.languageCode;
  if (u.isPremium !== undefined) user.isPremium = u.isPremium;
  return { ok: true, user, authDate };
}

/**
 * The library's parser requires the Ed25519 `signature` field that newer clients send.
 * Older clients omit it; it plays no part in the HMAC already verified above, so an
 * empty one is supplied for parsing only.
 */
function parseSigned(raw: string) {
  const params = new URLSearchParams(raw);
  if (!params.has("signature")) params.set("signature", "");
  return parse(params, true);
}
