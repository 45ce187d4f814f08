/**
 * How a market ends, in real headless Chromium against a real exchange: its rules, settlement
 * sources and close time on the page (phone and desktop, no sideways scrolling, axe-clean); a
 * trading pause as a banner with the ticket disabled; the operator's proposal arriving live; a
 * holder disputing from the page while a non-holder has no Dispute button; an amended SPLIT result.
 */
import type { Browser, Page } from "playwright-core";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import { waitFor } from "../support/chain";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, expectConserved, SHARE } from "../support/trading";
import { axeViolations } from "../support/page-checks";

jest.setTimeout(240_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const TITLE = "Will the bridge open before the end of the month?";
const RULES =
  "Resolves YES if the city's transport office announces that the bridge is open to public traffic before the close time. " +
  "A partial opening (one lane, pedestrians only) does not count.\n" +
  "Ambiguous announcements are read against the sources below; an identifier like " +
  "BRIDGE-OPENING-NOTICE-2026-000000000000000000000000000000000000000000000000000000000000 must not widen the page.";
const SOURCES = [
  { name: "City transport office", url: "https://transport.example.org/news" },
  {
    name: "The official register of public works and their opening dates, with a long name that wraps",
    url: "https://register.example.org/public-works/bridges/opening-dates/2026/the-bridge-over-the-river/very/long/path?with=a&query=string",
  },
];

/** How far the document is wider than the viewport (0: no sideways scrolling). */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return g.document.documentElement.scrollWidth - g.innerWidth;
  });

const admin = (srv: TestServer, path: string, body: unknown) =>
  srv.http("POST", `/api/v1/admin${path}`, { headers: { "x-admin-key": ADMIN_KEY }, body });

describe("how a market ends, on the market page", () => {
  let srv: TestServer & { domain: string };
  let market: string;

  beforeAll(async () => {
    // A window long enough to dispute in; the operator finalizes.
    srv = await startWebServer({ ADMIN_KEY, RESOLUTION_DISPUTE_WINDOW_MS: String(20 * 60_000) });
    const res = await admin(srv, "/events", {
      title: `Event for ${TITLE}`,
      category: "Culture",
      markets: [
        {
          title: TITLE,
          ammLiquidity: String(1000 * SHARE),
          rules: RULES,
          settlementSources: SOURCES,
          // Within the hour: the countdown shows seconds.
          closeTime: new Date(Date.now() + 50 * 60_000).toISOString(),
        },
      ],
    });
    expect([200, 201]).toContain(res.status);
    market = res.body.data.markets[0].id;
  });
  afterAll(() => srv?.stop());

  test("rules, sources and close time at 320, 390 and 1440 px; market rows show the close date", async () => {
    for (const width of [320, 390, 1440]) {
      const { page, context, errors } = await phone(browser, width > 400 ? { width, height: 900 } : { width });
      await onFailureScreenshot(page, `failed-rules-${width}`, async () => {
        // Event list items carry no markets (the list's API shape), so the close date shows on the event's market rows.
        await page.goto(`${srv.url}/`);
        const card = page.locator("[data-testid=events] li", { hasText: TITLE });
        await card.getByRole("link").click();
        await expect(
          page.locator("li.market-row", { hasText: TITLE }).locator("[data-testid=market-closes]").textContent(),
        ).resolves.toMatch(/^Closes \d{1,2} [A-Z][a-z]{2}$/);
        await page.getByRole("link", { name: TITLE }).click();
        const rules = page.locator("#rules");
        await rules.waitFor();
        expect(await textOf(page, "#rules .rules-text")).toBe(RULES.replace(/\s+/g, " "));
        const links = rules.locator("[data-testid=sources] a");
        expect(await links.count()).toBe(2);
        for (let i = 0; i < 2; i++) {
          const link = links.nth(i);
          expect(await link.textContent()).toBe(SOURCES[i].name);
          expect(await link.getAttribute("href")).toBe(SOURCES[i].url);
          expect(await link.getAttribute("target")).toBe("_blank");
          expect((await link.getAttribute("rel"))?.split(" ")).toContain("noopener");
        }
        expect(await textOf(page, "[data-testid=close-time]")).toMatch(/^Closes .+ \(in \d+ min \d\d s\)$/);
        const first = await textOf(page, "[data-testid=close-countdown]");
        await waitFor("the close countdown to tick", async () => (await textOf(page, "[data-testid=close-countdown]")) !== first);
        await page.locator("[data-testid=ladder]").waitFor();
        expect(await overflow(page)).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        if (width === 320) {
          await page.locator("#rules").scrollIntoViewIfNeeded();
          await screenshot(page, "lifecycle-rules-320", false);
        }
        if (width === 1440) await screenshot(page, "lifecycle-rules-desktop");
        expect(errors).toEqual([]);
      });
      await context.close();
    }
  });

  test("a pause disables the ticket; the proposal arrives live; a holder disputes, a non-holder cannot; SPLIT is shown as such", async () => {
    const holder = await phone(browser);
    const other = await phone(browser, { width: 1440, height: 900 });
    const page = holder.page;
    await onFailureScreenshot(page, "failed-lifecycle-holder", async () => {
      await onFailureScreenshot(other.page, "failed-lifecycle-other", async () => {
        // The holder: a sandbox wallet, faucet funds, 10 YES from the AMM.
        await page.goto(`${srv.url}/markets/${market}`);
        await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
        await page.getByRole("link", { name: "Wallet" }).click();
        await page.getByRole("button", { name: "Get test USDT" }).click();
        await page.locator("[data-testid=header-balance]", { hasText: "100.00" }).waitFor({ timeout: 20_000 });
        await page.goBack();
        const ticket = page.getByRole("form", { name: "Order ticket" });
        await ticket.getByRole("button", { name: "AMM" }).click();
        await ticket.getByLabel("Shares").fill("10");
        await ticket.getByRole("button", { name: "Get quote" }).click();
        await ticket.getByRole("button", { name: "Confirm buy" }).click();
        await page.locator("[data-testid=ticket-result]", { hasText: "Bought 10 YES" }).waitFor();
        await page.evaluate(() => ((globalThis as unknown as { pmxSamePage: boolean }).pmxSamePage = true));

        // Someone without a position, on a desktop.
        await other.page.goto(`${srv.url}/markets/${market}`);
        await other.page.getByRole("button", { name: "Create a sandbox wallet" }).click();
        await other.page.getByRole("form", { name: "Order ticket" }).waitFor();

        // The operator pauses the market: the banner and a disabled ticket, with why.
        const paused = await admin(srv, `/markets/${market}/trading-mode`, { mode: "cancel_only", reason: "Checking the data feed" });
        expect(paused.status).toBe(200);
        await page.locator("[data-testid=mode-banner][data-mode=cancel_only]").waitFor({ timeout: 30_000 });
        expect(await textOf(page, "[data-testid=mode-banner]")).toBe("Trading paused: cancel only");
        expect(await textOf(page, "[data-testid=ticket-paused]")).toMatch(/^Trading is paused: cancel only\./);
        await expect(ticket.getByRole("button", { name: "Get quote" }).isDisabled()).resolves.toBe(true);
        await expect(ticket.getByLabel("Shares").isDisabled()).resolves.toBe(true);
        expect(await overflow(page)).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        await page.evaluate("window.scrollTo(0, 0)");
        await screenshot(page, "lifecycle-paused-phone", false);
        await other.page.locator("[data-testid=ticket-paused]").waitFor({ timeout: 30_000 });
        expect(await overflow(other.page)).toBe(0);
        await screenshot(other.page, "lifecycle-paused-desktop", false);
        expect((await admin(srv, `/markets/${market}/trading-mode`, { mode: "normal", reason: "Feed checked" })).status).toBe(200);
        await page.locator("[data-testid=mode-banner]").waitFor({ state: "detached", timeout: 30_000 });
        await expect(ticket.getByRole("button", { name: "Get quote" }).isDisabled()).resolves.toBe(false);

        // The operator proposes YES: both pages show it without a reload.
        const proposed = await admin(srv, `/markets/${market}/propose`, {
          result: "YES",
          note: "The office announced the opening on its news page.",
        });
        expect(proposed.status).toBe(200);
        for (const p of [page, other.page]) {
          await expect(p.locator("[data-testid=proposed-result]").textContent({ timeout: 20_000 })).resolves.toBe("YES");
          await expect(textOf(p, "[data-testid=proposal-note]")).resolves.toBe("The office announced the opening on its news page.");
          await expect(textOf(p, "[data-testid=dispute-window]")).resolves.toMatch(/^Dispute window ends .+ \(in \d+ min \d\d s\)$/);
          await expect(textOf(p, "[data-testid=dispute-count]")).resolves.toBe("No disputes.");
          await p.locator("[data-testid=close-time]", { hasText: /^Closed \(before its close time, / }).waitFor();
          await expect(textOf(p, "[data-testid=proposal-badge]")).resolves.toBe("YES proposed");
        }
        expect(await other.page.getByRole("button", { name: "Dispute" }).count()).toBe(0);

        // The holder disputes: the form checks the reason's length first.
        await page.getByRole("button", { name: "Dispute" }).click();
        const form = page.getByRole("form", { name: "Dispute the proposed result" });
        await form.getByLabel("Why is the proposed result wrong?").fill("too short");
        await form.getByRole("button", { name: "Send dispute" }).click();
        await expect(textOf(page, "form.dispute [role=alert]")).resolves.toBe("Please give a reason of 10 to 1000 characters (now 9).");
        await form
          .getByLabel("Why is the proposed result wrong?")
          .fill("Only the pedestrian lane opened; the rules exclude a partial opening.");
        await form.getByRole("button", { name: "Send dispute" }).click();
        await expect(textOf(page, "[data-testid=disputed]")).resolves.toBe("Disputed");
        for (const p of [page, other.page])
          await p.locator("[data-testid=dispute-count]", { hasText: /^1 dispute/ }).waitFor({ timeout: 20_000 });
        expect(await overflow(page)).toBe(0);
        expect(await overflow(other.page)).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        expect(await axeViolations(other.page)).toEqual([]);
        await page.locator("#resolution").scrollIntoViewIfNeeded();
        await screenshot(page, "lifecycle-disputed-phone", false);
        await screenshot(other.page, "lifecycle-proposal-desktop");

        // The operator amends the result to SPLIT: shown as such, live.
        const before = Number(await textOf(page, "[data-testid=header-balance]"));
        expect((await admin(srv, `/markets/${market}/finalize`, { result: "SPLIT" })).status).toBe(200);
        await page.locator("[data-testid=market-status]", { hasText: "Resolved SPLIT" }).waitFor({ timeout: 20_000 });
        // The exchange credits a SPLIT itself: 10 YES at 0.50 each are back in the balance.
        await page.locator("[data-testid=redeem-state]", { hasText: "each YES and each NO share pays 50¢" }).waitFor();
        await page.locator("[data-testid=header-balance]", { hasText: (before + 5).toFixed(2) }).waitFor({ timeout: 20_000 });
        await other.page.locator("[data-testid=market-status]", { hasText: "Resolved SPLIT" }).waitFor({ timeout: 20_000 });
        await expect(textOf(page, "#resolution")).resolves.toMatch(/amended to SPLIT \(each YES and each NO share pays 50¢\)/);
        await screenshot(page, "lifecycle-split-phone");
        expect(await page.evaluate(() => (globalThis as unknown as { pmxSamePage?: boolean }).pmxSamePage)).toBe(true);
        expect(holder.errors).toEqual([]);
        expect(other.errors).toEqual([]);
        await expectConserved(srv.broker);
      });
    });
    await holder.context.close();
    await other.context.close();
  });
});
