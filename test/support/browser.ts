/**
 * Real headless Chromium (Debian's /usr/bin/chromium, installed by scripts/test-setup.sh) driven
 * by playwright-core, against a real exchange started in the test process and serving the built
 * web app (npm run build). Screenshots go to test-artifacts/browser/ (not committed).
 */
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { findWebBuild } from "../../gateway/web";
import { startChainServer } from "./chain";
import type { TestServer } from "./server";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = resolve(__dirname, "../../test-artifacts/browser");

/** What works here: no sandbox as root, no GPU, and no background traffic to Google's hosts. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Playwright's launch() gives every browser a fresh, empty user-data dir of its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/test-setup.sh (npm test does)`);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/** A phone-sized page (the app is mobile first) with the page's console errors collected. */
export async function phone(
  browser: Browser,
  opts: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 390, height: opts.height ?? 844 },
    deviceScaleFactor: 1,
    locale: "en-GB",
    timezoneId: "UTC",
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return { context, page, errors };
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

/**
 * The exchange on the sandbox chain (fast settlement, limits out of the way unless `env` sets
 * them), on a known port so that APP_DOMAIN is the address the browser sees.
 */
export async function startWebServer(env: Record<string, string> = {}): Promise<TestServer & { domain: string }> {
  if (!findWebBuild()) throw new Error("The web app is not built: run npm run build first (npm test does)");
  const port = await freePort();
  const domain = `127.0.0.1:${port}`;
  const srv = await startChainServer({ PORT: String(port), APP_DOMAIN: domain, ...env });
  return Object.assign(srv, { domain });
}

/** Text of the element, whitespace collapsed. */
export async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();
}

/** Runs `steps`; when one fails, the page as it was is saved as `<name>.png` before the error goes on. */
export async function onFailureScreenshot(page: Page, name: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    await screenshot(page, name).catch(() => undefined);
    throw err;
  }
}
