/**
 * The app as a Telegram Mini App in real Chromium: opened the way Telegram opens it (launch
 * parameters in the URL's hash, init data signed with the bot token, theme parameters), with a
 * stand-in for the mobile client's TelegramWebviewProxy recording what the app tells Telegram.
 * The init data goes with the login and the exchange verifies it: the profile is linked and bot
 * notifications arrive at a Bot API stand-in on loopback.
 */
import type { Browser, Page } from "playwright-core";
import { startBotApi, type BotApiStandIn } from "../support/bot-api";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import { axeViolations, externalAssets } from "../support/page-checks";
import type { TestServer } from "../support/server";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";

jest.setTimeout(120_000);

/** Telegram Desktop's night theme. */
const THEME = {
  bg_color: "#17212b",
  text_color: "#f5f5f5",
  hint_color: "#708499",
  link_color: "#6ab3f3",
  button_color: "#5288c1",
  button_text_color: "#ffffff",
  secondary_bg_color: "#232e3c",
};
const USER = { id: 424242, firstName: "Ada", lastName: "Lovelace", username: "ada" };

type Events = Array<[string, string]>;
type TgWindow = {
  pmxTgEvents: Events;
  TelegramWebviewProxy: unknown;
  Telegram: { WebView: { receiveEvent(type: string, data: unknown): void } };
};

function launchUrl(base: string, initData: string): string {
  const p = new URLSearchParams({
    tgWebAppData: initData,
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "android",
    tgWebAppThemeParams: JSON.stringify(THEME),
  });
  return `${base}/#${p}`;
}

/** The mobile client's bridge: the app's events are recorded instead of going to Telegram. */
async function asTelegramClient(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = globalThis as unknown as TgWindow;
    w.pmxTgEvents = [];
    w.TelegramWebviewProxy = { postEvent: (type: string, data: string) => w.pmxTgEvents.push([type, data]) };
  });
}

type WithStyle = { getComputedStyle(el: unknown): { getPropertyValue(p: string): string } };
const css = (page: Page, selector: string, prop: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => (globalThis as unknown as WithStyle).getComputedStyle(el).getPropertyValue(p), prop);
const scheme = (page: Page) => page.evaluate("document.documentElement.dataset.scheme");

describe("inside Telegram as a Mini App", () => {
  let srv: TestServer & { domain: string };
  let bot: BotApiStandIn;
  let browser: Browser;
  beforeAll(async () => {
    bot = await startBotApi(TEST_BOT_TOKEN);
    srv = await startWebServer({ TELEGRAM_BOT_TOKEN: TEST_BOT_TOKEN, TELEGRAM_API_ROOT: bot.url, NOTIFIER_RETRY_BASE_MS: "100" });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await bot?.close();
  });

  test("theme and viewport follow Telegram; the signed init data goes with the login; the profile shows and the bot gets the notifications", async () => {
    const { page, errors } = await phone(browser, { width: 390, height: 700 });
    const external = externalAssets(page, srv.url);
    await asTelegramClient(page);
    const initData = signInitData(TEST_BOT_TOKEN, USER, Math.floor(Date.now() / 1000));
    await onFailureScreenshot(page, "failed-telegram", async () => {
      await page.goto(launchUrl(srv.url, initData));
      await page.getByRole("heading", { name: "Markets" }).waitFor();

      // The app told the client it is ready and asked for the full height, theme and viewport.
      const sent = () => page.evaluate(() => (globalThis as unknown as TgWindow).pmxTgEvents.map((e) => e[0]));
      expect(await sent()).toEqual(
        expect.arrayContaining(["web_app_ready", "web_app_expand", "web_app_request_theme", "web_app_request_viewport"]),
      );
      // Telegram's colours: page and surfaces; its button pair (#ffffff on #5288c1, 3.9:1) fails AA, so the app's own stays.
      expect(await css(page, "body", "background-color")).toBe("rgb(23, 33, 43)");
      expect(await css(page, "body", "color")).toBe("rgb(245, 245, 245)");
      expect(await css(page, ".toggle button[aria-pressed=false]", "background-color")).toBe("rgb(35, 46, 60)");
      expect(await scheme(page)).toBe("dark");
      expect(await axeViolations(page)).toEqual([]);

      // Viewport and theme changes pushed by the client apply at once.
      await page.evaluate(() =>
        (globalThis as unknown as TgWindow).Telegram.WebView.receiveEvent("viewport_changed", {
          height: 612,
          is_expanded: true,
          is_state_stable: true,
        }),
      );
      expect(await css(page, "body", "min-height")).toBe("612px");
      await page.evaluate(() =>
        (globalThis as unknown as TgWindow).Telegram.WebView.receiveEvent("safe_area_changed", { top: 24, bottom: 16, left: 0, right: 0 }),
      );
      expect(await css(page, "nav.tabs", "padding-bottom")).toBe("16px");

      // Sign in: the sandbox wallet's login carries the init data; the exchange verifies and links it.
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(textOf(page, "#signin-panel")).resolves.toContain("Signing in as Ada Lovelace from Telegram");
      await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
      const account = page.getByRole("button", { name: "Ada Lovelace" });
      await account.waitFor();
      await account.click();
      await expect(textOf(page, "[data-testid=telegram-profile]")).resolves.toBe(
        "Telegram: Ada Lovelace (@ada). Bot notifications are on.",
      );
      await screenshot(page, "20-telegram", false);
      const session = await page.evaluate(
        () =>
          JSON.parse((globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem("pmx.session")) as {
            userId: string;
          },
      );
      const user = await srv.broker.call<{ telegram?: { id: number; username?: string } } | null, { userId: string }>("auth.getUser", {
        userId: session.userId,
      });
      expect(user?.telegram).toMatchObject({ id: USER.id, username: "ada" });

      // Bot notifications on: the faucet's deposit is announced to the user's chat.
      await page.getByRole("link", { name: "Wallet" }).click();
      await page.getByRole("button", { name: "Get test USDT" }).click();
      await bot.waitFor((calls) => calls.some((c) => c.chatId === USER.id && /Deposit credited/.test(c.text)), 20_000);

      // A theme change from the client (to light) is followed too.
      await page.evaluate(() =>
        (globalThis as unknown as TgWindow).Telegram.WebView.receiveEvent("theme_changed", {
          theme_params: {
            bg_color: "#ffffff",
            text_color: "#000000",
            secondary_bg_color: "#f0f0f0",
            button_color: "#2481cc",
            button_text_color: "#ffffff",
          },
        }),
      );
      expect(await css(page, "body", "background-color")).toBe("rgb(255, 255, 255)");
      expect(await scheme(page)).toBe("light");
      expect(await axeViolations(page)).toEqual([]);
      expect(external()).toEqual([]);
      expect(errors).toEqual([]);
    });
    await page.context().close();
  });

  test("init data that does not verify refuses the login, in words", async () => {
    const { page } = await phone(browser);
    await asTelegramClient(page);
    // Someone edits the user in signed init data: the hash no longer matches.
    const forged = signInitData(TEST_BOT_TOKEN, USER, Math.floor(Date.now() / 1000)).replace(
      encodeURIComponent('"Ada"'),
      encodeURIComponent('"Eve"'),
    );
    await onFailureScreenshot(page, "failed-telegram-forged", async () => {
      await page.goto(launchUrl(srv.url, forged));
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
      await expect(textOf(page, "#signin-panel [role=alert]")).resolves.toBe(
        "The exchange refused the sign-in: Invalid Telegram init data.",
      );
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("pmx.session"),
        ),
      ).toBeNull();
    });
    await page.context().close();
  });
});
