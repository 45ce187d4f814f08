/**
 * The embedded default as a newcomer finds it: the demo catalog seeded on the sandbox chain with
 * its house maker, in real headless Chromium. The two races' cards list their leading outcomes by
 * chance; the election's race page ranks every outcome by chance, and an exhaustive race's chances
 * add up to about 100%. A trader holding NO on several of the election's outcomes converts them
 * from the portfolio, and the page then shows the balance and positions the API gives. With
 * SCREENSHOTS_DIR set (e.g. web/screenshots), the phone and desktop
 * screenshots go there.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { PmxClient, toMicro } from "../../client/src";
import { fromMicro } from "../../client/src/money";
import type { Event } from "../../client/src/models";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import type { TestServer } from "../support/server";
import { until } from "../support/until";
import { fund, SHARE } from "../support/trading";
import { demoEventId, demoMarketId } from "../../catalog/demo";
import { axeViolations } from "../support/page-checks";

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
  // The house maker quotes every race outcome shortly after the start (a race's own pool prices
  // each outcome at 1/N until then): both sides of every race market's book are in.
  await until(
    "the house maker quotes every race outcome",
    async () => {
      await new Promise((r) => setTimeout(r, 200));
      const markets = (await Promise.all([api.events.get(ELECTION), api.events.get(LEAGUE)])).flatMap((e) => e.markets);
      const books = await Promise.all(markets.map((m) => api.markets.orderbook(m.id, "YES")));
      return books.every((b) => b.bids.length > 0 && b.asks.length > 0);
    },
    120_000,
  );
});

/** "20 Dec" as the page's en-GB, UTC browser writes a day (the year only when it is not this one). */
function endDay(iso: string): string {
  const d = new Date(iso);
  const year = d.getUTCFullYear() !== new Date().getUTCFullYear() ? { year: "numeric" as const } : {};
  return d.toLocaleDateString("en-GB", { month: "short", day: "numeric", timeZone: "UTC", ...year });
}

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
      // The demo's markets close days to months from the start: the card says when.
      expect(e.closeTime).not.toBeNull();
      expect(Date.parse(e.closeTime!) - Date.now()).toBeGreaterThan(24 * 3600_000);
      expect(await textOf(page, `[data-testid=events] > li:has(h2:text-is("${e.title}")) [data-testid=event-ends]`)).toBe(
        `Ends ${endDay(e.closeTime!)}`,
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
    expect(await textOf(page, "[data-testid=event-ends]")).toBe(`Ends ${endDay(now.closeTime!)}`);
    await shot(page, `demo-race-${size}`);
    expect(errors).toEqual([]);
  });
  await context.close();
});

/** The session the page keeps, as an SDK client of the same user. */
async function sameUser(page: Page): Promise<PmxClient> {
  const raw = await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("pmx.session"),
  );
  return new PmxClient({ baseUrl: srv.url, domain: srv.domain, session: JSON.parse(raw as string) });
}

test.each([
  ["phone", 390, 844],
  ["desktop", 1440, 900],
] as const)(
  "convert at %s size: NO of two outcomes becomes dollars and YES of the others, as the API then says",
  async (size, width, height) => {
    const { context, page, errors } = await phone(browser, { width, height });
    await onFailureScreenshot(page, `failed-convert-${size}`, async () => {
      const [a, b, c] = [0, 1, 2].map((i) => demoMarketId("metropolis_mayor", i));
      await page.goto(`${srv.url}/markets/${a}`);
      await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
      await page.locator("[data-testid=header-balance]").waitFor();
      const me = await sameUser(page);
      await fund(srv.broker, me.session!.userId, 50 * SHARE);
      for (const m of [a, b, c]) await me.trade.market({ marketId: m, side: "BUY", outcome: "NO", quantity: toMicro(5) });
      const before = await me.portfolio.balance();
      const held = await me.portfolio.positions();
      const noOf = (m: string) => BigInt(held.find((p) => p.marketId === m && p.outcome === "NO")?.quantity ?? "0");
      expect([a, b, c].map(noOf).every((q) => q >= BigInt(toMicro(5)))).toBe(true);

      await page.goto(`${srv.url}/portfolio`);
      const form = page.locator(`[data-testid=convert-form][data-event="${ELECTION}"]`);
      await form.waitFor();
      // All three are offered; the third is left out: 2 NO of Alvarez and Okafor.
      const event = await api.events.get(ELECTION);
      const labelOf = (id: string) => event.markets.find((m) => m.id === id)!.outcomeLabel!;
      expect(
        await form.locator("input[name=market]").evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value)),
      ).toEqual([a, b, c]);
      await form.getByRole("checkbox", { name: new RegExp(labelOf(c)) }).uncheck();
      await form.getByLabel("Shares of each").fill("2");
      await form.getByRole("button", { name: "Review" }).click();
      await form.locator("[data-testid=convert-review]").waitFor();
      expect(await textOf(page, "[data-testid=convert-cash]")).toBe("$2.00");
      const others = event.markets.filter((m) => m.id !== a && m.id !== b).map((m) => m.outcomeLabel);
      expect(await textOf(page, "[data-testid=convert-yes]")).toBe(`2 YES of each of ${others.join(", ")}`);
      // The review and its Confirm button above the phone's tab bar.
      await form.getByRole("button", { name: "Confirm convert" }).scrollIntoViewIfNeeded();
      await page.evaluate(() => (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, 120));
      await shot(page, `portfolio-convert-${size}`);
      if (size === "phone") expect(await axeViolations(page)).toEqual([]);
      expect(
        await page.evaluate(() => {
          const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
          return g.document.documentElement.scrollWidth - g.innerWidth;
        }),
      ).toBe(0);
      await form.getByRole("button", { name: "Confirm convert" }).click();
      await page.locator("[data-testid=convert-result]").waitFor();
      expect(await textOf(page, "[data-testid=convert-result]")).toBe(
        `Converted 2 NO of ${labelOf(a)}, ${labelOf(b)}: $2.00 added to your balance and 2 YES of ${others.join(", ")}.`,
      );

      // The API: $2 more available, 2 NO fewer of each given up, 2 YES of every other outcome.
      const after = await me.portfolio.balance();
      expect(BigInt(after.available) - BigInt(before.available)).toBe(BigInt(toMicro(2)));
      const now = await me.portfolio.positions();
      const q = (m: string, o: "YES" | "NO") => BigInt(now.find((p) => p.marketId === m && p.outcome === o)?.quantity ?? "0");
      expect([a, b, c].map((m) => q(m, "NO"))).toEqual([noOf(a) - 2_000_000n, noOf(b) - 2_000_000n, noOf(c)]);
      for (const m of event.markets.filter((x) => x.id !== a && x.id !== b)) expect(q(m.id, "YES")).toBe(2_000_000n);

      // The page shows the same: balance and every position's shares.
      await page
        .locator("[data-testid=balance] dd", { hasText: dollarsOf(after.available) })
        .first()
        .waitFor({ timeout: 20_000 });
      const want = now
        .filter((p) => BigInt(p.quantity) > 0n)
        .map((p) => `${p.market.title} ${p.outcome} ${sharesOf(p.quantity)}`)
        .sort();
      await until(
        "the positions list shows the API's positions",
        async () => {
          const rows = await page.locator("[data-testid=positions] > li").evaluateAll((els) =>
            els.map((e) => {
              const title = e.querySelector(".card-title a")?.textContent ?? "";
              const side = e.querySelector(".card-title .side")?.textContent ?? "";
              const shares = e.querySelector("[data-field=shares]")?.textContent ?? "";
              return `${title} ${side} ${shares.replace(/,/g, "")}`;
            }),
          );
          return JSON.stringify(rows.sort()) === JSON.stringify(want);
        },
        20_000,
      );
      expect(errors).toEqual([]);
    });
    await context.close();
  },
);

/** "$12.50" from micro-USDT, as the page writes money. */
function dollarsOf(micro: string): string {
  const v = BigInt(micro);
  const whole = (v / 1_000_000n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = ((v % 1_000_000n) / 10_000n).toString().padStart(2, "0");
  return `$${whole}.${cents}`;
}

/** Shares as the page writes them: up to two decimals, cut not rounded. */
function sharesOf(micro: string): string {
  const [whole, frac] = fromMicro(micro).split(".");
  return frac ? `${whole}.${frac.slice(0, 2)}` : whole;
}
