/**
 * Builds Telegram Mini App init data the way Telegram does, via the
 * library's own `sign` (HMAC-SHA256 keyed by the bot token).
 */
import { sign } from "@telegram-apps/init-data-node";

export interface TestTelegramUser {
  id: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  languageCode?: string;
  isPremium?: boolean;
}

export const TEST_BOT_TOKEN = "123456789:TEST-bot-token_for-unit-tests";

/**
 * Valid raw init data (query string) for `user`, issued at `authDate`
 * (unix seconds or Date). Pass `user: null` for init data without a user.
 */
export function signInitData(
  botToken: string,
  user: TestTelegramUser | null,
  authDate: number | Date,
  extra: { queryId?: string; startParam?: string } = {},
): string {
  const date = authDate instanceof Date ? authDate : new Date(authDate * 1000);
  return sign(
    {
      ...(user
        ? {
            user: {
              id: user.id,
              first_name: user.firstName ?? "Test",
              ...(user.lastName !== undefined && { last_name: user.lastName }),
              ...(user.username !== undefined && { username: user.username }),
              ...(user.languageCode !== undefined && { language_code: user.languageCode }),
              ...(user.isPremium !== undefined && { is_premium: user.isPremium }),
            },
          }
        : {}),
      ...(extra.queryId !== undefined && { query_id: extra.queryId }),
      ...(extra.startParam !== undefined && { start_param: extra.startParam }),
    },
    botToken,
    date,
  );
}
