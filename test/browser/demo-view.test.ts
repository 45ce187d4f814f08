/**
 * The embedded default as a newcomer finds it: the demo catalog seeded on the sandbox chain with
 * its house maker, in real headless Chromium. The two races' cards list their leading outcomes by
 * chance; the election's race page ranks every outcome by chance, and an exhaustive race's chances
 * add up to about 100%. With SCREENSHOTS_DIR set (e.g. web/screenshots), the phone and desktop
 * screenshots go there.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { PmxClient } from "../../client/src";
import type { Event } from "../../client/src/models";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import type { TestServer } from "../support/server";
import { until } from "../support/until";
import { demoEventId } from "../../catalog/demo";

jest.setTimeout(300_000);

const ELECTION = demoEventId("metropolis_mayor");
const LEAGUE = demoEventId("league_title");

let browser: Browser;
let srv: TestServer & { domain: string };
let api: PmxClient;

async function shot(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const dir = process.env.SCREENSHOTS_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
  }
}

const pct = (chance: string | null) => (chance === null ? "—" : `${Math.round(Number(chance) * 100)}%`);
const byChance = (e: Event) => [...e.outcomes].sort((a, b) => Number(b.chance ?? -1) - Number(a.chance ?? -1));

beforeAll(async () => {
  browser = await launchBrowser();
  srv = await startWebServer({ SEED_DEMO: "true", DEMO_TRADER: "false" });
  api = new PmxClient({ baseUrl: srv.url, domain: srv.domain });
  // The house maker quotes every race outcome shortly after the start: each has a chance then.
  await until(
    "every race outcome has a chance",
    async () => {
      await new Promise((r) => setTimeout(r, 200));
      const both = await Promise.all([api.events.get(ELECTION), api.events.get(LEAGUE)]);
      return both.every((e) => e.outcomes.every((o) => o.chance !== null));
    },
    120_000,
  );
});

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
});

test.each([
  ["phone", 390, 844],
  ["desktop", 1440, 900],
] as const)("the demo's races at %s size: cards with the leading outcomes, the election ranked by chance", async (size, width, height) => {
  const { context, page, errors } = await phone(browser, { width, height });
  await onFailureScreenshot(page, `failed-demo-${size}`, async () => {
    // The list, searched down to the two races.
    await page.goto(`${srv.url}/?q=race`);
    await page.locator("[data-testid=events] li [data-testid=top-outcomes]").first().waitFor();
    await page.waitForLoadState("networkidle");
    const titles = await page.locator("[data-testid=events] > li h2").allTextContents();
    const election = await api.events.get(ELECTION);
    const league = await api.events.get(LEAGUE);
    expect(new Set(titles)).toEqual(new Set([election.title, league.title]));
    for (const e of [election, league]) {
      const card = page.locator("[data-testid=events] > li", { has: page.locator("h2", { hasText: e.title }) });
      const rows = (await card.locator("[data-testid=top-outcomes] li:not(.muted)").allTextContents()).map((t) =>
        t.replace(/\s+/g, " ").trim(),
      );
      expect(rows).toEqual(
        byChance(e)
          .slice(0, 3)
          .map((o) => `${o.label} ${pct(o.chance)}`),
      );
    }
    await shot(page, `demo-events-${size}`);

    // The election's race page: every outcome, ranked by chance, the chances adding up to about 100%.
    await page.goto(`${srv.url}/events/${ELECTION}`);
    await page.locator("[data-testid=race-chart][data-drawn='1']").waitFor();
    await page.waitForLoadState("networkidle");
    const now = await api.events.get(ELECTION);
    const shown = await page.locator("[data-testid=race] li").evaluateAll((els) => els.map((e) => e.getAttribute("data-market")));
    expect(shown).toEqual(byChance(now).map((o) => o.marketId));
    const chances = (await page.locator("[data-testid=race] li [data-field=chance]").allTextContents()).map((t) =>
      Number(t.replace("%", "")),
    );
    expect(chances).toEqual([...chances].sort((a, b) => b - a));
    const sum = chances.reduce((a, b) => a + b, 0);
    expect(sum).toBeGreaterThanOrEqual(95);
    expect(sum).toBeLessThanOrEqual(105);
    expect(await textOf(page, "[data-testid=race] li:first-child .race-label")).toBe(byChance(now)[0].label);
    await shot(page, `demo-race-${size}`);
    expect(errors).toEqual([]);
  });
  await context.close();
});
