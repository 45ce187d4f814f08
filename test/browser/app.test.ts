/**
 * The web app in real headless Chromium (Debian's, through playwright-core) against a real
 * exchange serving the built app (npm run build): the whole path of a new visitor on the sandbox
 * chain, errors in words with the 429 countdown, and the first-load and market-page figures.
 * Screenshots of every screen go to test-artifacts/browser/.
 */
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { PmxClient, randomKeyPair, toMicro } from "../../client/src";
import { ARTIFACTS, launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import { waitFor } from "../support/chain";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { axeViolations, externalAssets } from "../support/page-checks";
import { until } from "../support/until";

jest.setTimeout(180_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/** Figures the README quotes: printed and kept in test-artifacts/browser/metrics.json. */
const metrics: Record<string, unknown> = {};
afterAll(() => {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, "metrics.json"), JSON.stringify(metrics, null, 2));
});

async function loginMaker(srv: TestServer & { domain: string }, amount: number): Promise<PmxClient> {
  const c = new PmxClient({ baseUrl: srv.url, domain: srv.domain });
  const s = await c.auth.loginWithKeyPair(randomKeyPair());
  await fund(srv.broker, s.userId, amount);
  return c;
}

/** The page's localStorage, typed for callbacks that run in the browser (the test's types are Node's). */
type WithStorage = { localStorage: { getItem(k: string): string | null } };

const ladderRow = (page: Page, price: string) => page.locator(`[data-testid=ladder] tr[data-price="${price}"]`);

describe("errors from the API in words", () => {
  let srv: TestServer & { domain: string };
  let market: string;
  beforeAll(async () => {
    // One faucet call per minute, so the second one is a 429.
    srv = await startWebServer({ ADMIN_KEY, RATE_LIMIT_FAUCET: "1" });
    market = await createMarket(srv, "Will errors read well?", String(100 * SHARE));
  });
  afterAll(() => srv?.stop());

  test("a 429 shows the server's Retry-After counting down; refusals and bad input are sentences", async () => {
    const { page, errors } = await phone(browser);
    await onFailureScreenshot(page, "failed-errors", async () => {
      await page.goto(`${srv.url}/wallet`);
      await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
      await page.getByRole("button", { name: "Get test USDT" }).click();
      await page.locator("[data-testid=faucet-result]").waitFor();
      await page.getByRole("button", { name: "Get test USDT" }).click();
      const alert = page.locator("#faucet [role=alert]");
      await alert.waitFor();
      const first = /Too many requests\. Try again in (\d+) s\./.exec(await textOf(page, "#faucet [role=alert]"));
      expect(first).not.toBeNull();
      const left = Number((first as RegExpExecArray)[1]);
      expect(left).toBeGreaterThan(1);
      expect(left).toBeLessThanOrEqual(120);
      await waitFor("the countdown to go down", async () => {
        const m = /Try again in (\d+) s\./.exec(await textOf(page, "#faucet [role=alert]"));
        return m !== null && Number(m[1]) < left;
      });
      await screenshot(page, "08-rate-limited", false);

      // Refused by the exchange: said in words, with the code and request id to quote.
      await page.locator("[data-testid=header-balance]", { hasText: "100.00" }).waitFor({ timeout: 20_000 });
      await page.goto(`${srv.url}/markets/${market}`);
      const ticket = page.getByRole("form", { name: "Order ticket" });
      await ticket.getByRole("button", { name: "Limit" }).click();
      await ticket.getByLabel("Shares").fill("1000");
      await ticket.getByLabel("Limit price (USDT per share)").fill("0.50");
      await ticket.getByRole("button", { name: "Review order" }).click();
      // More than the balance: said before anything is sent, and the confirm button waits.
      await expect(textOf(page, "[data-testid=ticket-blocked]")).resolves.toBe("This costs $500.00; you have $100.00 available. Add funds");
      await expect(ticket.getByRole("button", { name: "Confirm buy" }).isDisabled()).resolves.toBe(true);
      // Refused by the exchange (nothing on the book to fill a fill-or-kill): its sentence, code and request id.
      await ticket.getByLabel("Shares").fill("1");
      await ticket.getByLabel("Limit price (USDT per share)").fill("0.01");
      await ticket.getByLabel("Time in force").selectOption("FOK");
      await ticket.getByRole("button", { name: "Review order" }).click();
      await ticket.getByRole("button", { name: "Confirm buy" }).click();
      await expect(textOf(page, "form[aria-label='Order ticket'] [role=alert]")).resolves.toMatch(
        /^Fill-or-kill: the book could not fill the whole order at your price, so nothing was done\.\s*FOK_NOT_FILLED, request req_[\w-]+$/,
      );
      // Bad input is caught before anything is sent.
      await ticket.getByLabel("Limit price (USDT per share)").fill("0.555");
      await ticket.getByRole("button", { name: "Review order" }).click();
      await expect(textOf(page, "form[aria-label='Order ticket'] [role=alert]")).resolves.toBe('price "0.555" is not on the 0.01 grid');
      await ticket.getByRole("button", { name: "Market" }).click();
      await ticket.getByLabel("Shares").fill("0.00001");
      await ticket.getByRole("button", { name: "Get quote" }).click();
      await expect(textOf(page, "form[aria-label='Order ticket'] [role=alert]")).resolves.toBe(
        "Quantity must be more than 0, in steps of 0.0001 share.",
      );
      expect(errors.filter((e) => !/status of (400|429)/.test(e))).toEqual([]);
    });
    await page.context().close();
  });
});

/** Presses Tab until the focused element has this accessible name (as its label or text); fails after 60 presses. */
async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const d = (
        globalThis as unknown as {
          document: {
            activeElement: {
              id?: string;
              textContent: string | null;
              getAttribute(a: string): string | null;
              labels?: Array<{ textContent: string | null }>;
            } | null;
          };
        }
      ).document;
      const el = d.activeElement;
      if (!el) return "";
      return (el.getAttribute("aria-label") ?? el.labels?.[0]?.textContent ?? el.textContent ?? "").replace(/\s+/g, " ").trim();
    });
    if (typeof name === "string" ? focused === name : name.test(focused)) return;
  }
  throw new Error(`could not reach "${String(name)}" with the Tab key`);
}

describe("with the keyboard only", () => {
  let srv: TestServer & { domain: string };
  beforeAll(async () => {
    srv = await startWebServer({ ADMIN_KEY });
    await createMarket(srv, "Can it be traded with keys?", String(100 * SHARE));
    // Two pages of events (12 a page) for the pager.
    for (let i = 0; i < 12; i++) await createMarket(srv, `Filler question ${i}?`);
  });
  afterAll(() => srv?.stop());

  test("skip link, search, event, market, sign-in, faucet and a limit order, all with Tab and Enter", async () => {
    const { page, errors } = await phone(browser);
    await onFailureScreenshot(page, "failed-keyboard", async () => {
      await page.goto(`${srv.url}/`);
      await page.keyboard.press("Tab");
      expect(await page.evaluate("document.activeElement.textContent")).toBe("Skip to content");
      await page.getByText("Page 1 of 2").waitFor();
      await tabTo(page, "Next");
      await page.keyboard.press("Enter");
      await page.waitForURL(/page=2/);
      await page.getByText("Page 2 of 2").waitFor();
      expect(await page.locator("[data-testid=events] li").count()).toBe(1);
      await tabTo(page, "Search events");
      await page.keyboard.type("keys");
      await page.keyboard.press("Enter");
      await page.waitForURL(/q=keys/);
      // Each new page is awaited before tabbing through it (its content arrives after the navigation).
      await page.getByRole("link", { name: "Event for Can it be traded with keys?" }).waitFor();
      await tabTo(page, "Event for Can it be traded with keys?");
      await page.keyboard.press("Enter");
      await page.getByRole("link", { name: "Can it be traded with keys?" }).waitFor();
      await tabTo(page, "Can it be traded with keys?");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Can it be traded with keys?" }).waitFor();
      await tabTo(page, "Create a sandbox wallet");
      await page.keyboard.press("Enter");
      await page.getByRole("form", { name: "Order ticket" }).waitFor();
      await tabTo(page, "Wallet");
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Get test USDT" }).waitFor();
      await tabTo(page, "Get test USDT");
      await page.keyboard.press("Enter");
      await page.locator("[data-testid=header-balance]", { hasText: "100.00" }).waitFor({ timeout: 20_000 });
      await page.goBack();
      await page.locator("[data-testid=ladder]").waitFor();
      await tabTo(page, "Limit");
      await page.keyboard.press("Enter");
      await tabTo(page, "Shares");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("4");
      await tabTo(page, "Limit price (USDT per share)");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("0.25");
      await page.keyboard.press("Enter");
      await page.locator("[data-testid=review]").waitFor();
      await tabTo(page, "Confirm buy");
      await page.keyboard.press("Enter");
      await expect(textOf(page, "[data-testid=ticket-result]")).resolves.toBe("Order open: BUY 4 YES at 25¢, resting on the book.");
      await page.getByRole("button", { name: "Cancel BUY 4 YES at 25¢" }).waitFor();
      await tabTo(page, "Cancel BUY 4 YES at 25¢");
      await page.keyboard.press("Enter");
      await page.getByText("No open orders in this market.").waitFor();
      // The system's dark scheme is followed as it changes, and passes the same checks.
      await page.emulateMedia({ colorScheme: "dark" });
      await page.waitForFunction("document.documentElement.dataset.scheme === 'dark'");
      await screenshot(page, "11-market-dark", false);
      expect(await axeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    });
    await page.context().close();
  });
});

describe("API documentation", () => {
  let srv: TestServer & { domain: string };
  beforeAll(async () => {
    srv = await startWebServer();
  });
  afterAll(() => srv?.stop());

  test("/docs renders Swagger UI over the served OpenAPI document, from the exchange only", async () => {
    const { page, errors } = await phone(browser, { width: 1280, height: 900 });
    const external = externalAssets(page, srv.url);
    await page.goto(`${srv.url}/docs`);
    await page.locator(".swagger-ui .opblock-summary-path", { hasText: "/auth/connect" }).first().waitFor();
    expect(await page.locator(".swagger-ui .opblock").count()).toBeGreaterThan(20);
    await screenshot(page, "12-docs", false);
    expect(external()).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe("how fast: the first load's size and the market page's time to interactive", () => {
  let srv: TestServer & { domain: string };
  let market: string;
  let b: PmxClient;
  beforeAll(async () => {
    srv = await startWebServer({ ADMIN_KEY });
    market = await createMarket(srv, "Will the page be quick?", String(1000 * SHARE));
    // Some depth and a few prints, as a live market has.
    const a = await loginMaker(srv, 1000 * SHARE);
    b = await loginMaker(srv, 1000 * SHARE);
    for (let i = 0; i < 8; i++)
      await a.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "GTC",
        price: (30 + i) / 100,
        quantity: Number(toMicro(5 + i)),
      });
    for (let i = 0; i < 8; i++)
      await a.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "GTC",
        price: (40 + i) / 100,
        quantity: Number(toMicro(5 + i)),
      });
    for (let i = 0; i < 3; i++)
      await b.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "FOK", price: 0.6, quantity: Number(toMicro(2)) });
  });
  afterAll(() => srv?.stop());

  test("first load under 250 KB gzipped as the browser fetched it; the market page interactive (figures printed)", async () => {
    // What a first visit transfers: the page and everything loaded before the app was up, cold cache.
    const { page, context } = await phone(browser);
    await page.goto(`${srv.url}/`, { waitUntil: "networkidle" });
    const loaded = await page.evaluate(() => {
      const perf = (
        globalThis as unknown as {
          performance: {
            getEntriesByType(t: string): Array<{ name: string; initiatorType?: string; encodedBodySize: number; decodedBodySize: number }>;
          };
        }
      ).performance;
      const entries = [
        ...perf.getEntriesByType("navigation"),
        ...perf
          .getEntriesByType("resource")
          .filter((e) => ["script", "link", "css", "img", "other"].includes(e.initiatorType ?? "") && !e.name.includes("/api/")),
      ];
      return entries.map((e) => ({ name: e.name, encoded: e.encodedBodySize, decoded: e.decodedBodySize }));
    });
    const firstLoad = loaded.reduce((n, e) => n + e.encoded, 0);
    expect(firstLoad).toBeGreaterThan(0);
    expect(firstLoad).toBeLessThanOrEqual(250 * 1024);
    await context.close();

    // The market page, from navigation start to prices, book, chart section and ticket on screen.
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { page: p, context: c } = await phone(browser);
      await p.goto(`${srv.url}/markets/${market}`);
      await p.locator("[data-testid=ladder] tr.bid").first().waitFor();
      runs.push(
        await p.evaluate(() =>
          Math.round(
            (
              globalThis as unknown as { performance: { getEntriesByName(n: string): Array<{ startTime: number }> } }
            ).performance.getEntriesByName("pmx:market-interactive")[0].startTime,
          ),
        ),
      );
      if (i === 0) {
        await screenshot(p, "09-market-cold", false);
        await p.locator("#book").scrollIntoViewIfNeeded();
        await screenshot(p, "09-market-book", false);
      }
      await c.close();
    }
    // Signed in: the tiles ask the router's quotes too. Interactive as above, quoted when all four tiles
    // show a quote; every API request of the first 3 s counted (a duplicate is one asked twice).
    const trader = await loginMaker(srv, 100 * SHARE);
    const signedIn: Array<{ interactive: number; quoted: number; requests: number; duplicates: string[] }> = [];
    for (let i = 0; i < 5; i++) {
      const { page: p, context: c } = await phone(browser);
      await c.addInitScript(
        (s: string) =>
          (globalThis as unknown as WithStorage & { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(
            "pmx.session",
            s,
          ),
        JSON.stringify(trader.session),
      );
      const asked: string[] = [];
      p.on("request", (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith("/api/")) asked.push(`${r.method()} ${u.pathname}${u.search} ${r.postData() ?? ""}`);
      });
      await p.goto(`${srv.url}/markets/${market}`);
      await p.locator("[data-testid=ladder] tr.bid").first().waitFor();
      await p.waitForFunction(() =>
        ["buyYesPrice", "buyNoPrice", "sellYesPrice", "sellNoPrice"].every((k) =>
          (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document
            .querySelector(`[data-testid=${k}]`)
            ?.getAttribute("data-price"),
        ),
      );
      const quoted = await p.evaluate(() => Math.round((globalThis as unknown as { performance: { now(): number } }).performance.now()));
      const interactive = await p.evaluate(() =>
        Math.round(
          (
            globalThis as unknown as { performance: { getEntriesByName(n: string): Array<{ startTime: number }> } }
          ).performance.getEntriesByName("pmx:market-interactive")[0].startTime,
        ),
      );
      await p.waitForTimeout(Math.max(0, 3000 - quoted));
      signedIn.push({ interactive, quoted, requests: asked.length, duplicates: asked.filter((a, k) => asked.indexOf(a) !== k) });
      await c.close();
    }
    const { page: wide, context: wideContext } = await phone(browser, { width: 1280, height: 900 });
    await wide.goto(`${srv.url}/markets/${market}`);
    await wide.locator("[data-testid=ladder] tr.bid").first().waitFor();
    await wide.locator("[data-testid=chart][data-points]:not([data-points='0'])").waitFor();
    await screenshot(wide, "09-market-desktop", false);
    await wideContext.close();
    const sorted = [...runs].sort((x, y) => x - y);
    metrics.firstLoadTransferredBytes = firstLoad;
    metrics.firstLoadFiles = loaded.map((e) => `${new URL(e.name).pathname} ${e.encoded} B`);
    metrics.marketInteractiveMs = {
      runs,
      median: sorted[2],
      max: sorted[4],
      note: "navigation start to market, book and ticket rendered; cold cache, embedded server in the test process",
    };
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[2];
    metrics.marketSignedIn = {
      runs: signedIn,
      interactiveMedian: median(signedIn.map((r) => r.interactive)),
      quotedMedian: median(signedIn.map((r) => r.quoted)),
      note: "signed in: interactive as above; quoted: all four tiles show the router's quote; API requests of the first 3 s",
    };
    console.log(
      `signed in: interactive ${signedIn.map((r) => r.interactive).join(", ")} ms (median ${median(signedIn.map((r) => r.interactive))}), tiles quoted ${signedIn.map((r) => r.quoted).join(", ")} ms (median ${median(signedIn.map((r) => r.quoted))}); API requests ${signedIn.map((r) => r.requests).join(", ")}; duplicates ${JSON.stringify(signedIn[0].duplicates)}`,
    );
    console.log(
      `first load: ${(firstLoad / 1024).toFixed(1)} KB transferred (gzip) in ${loaded.length} files; market page interactive in ${runs.join(", ")} ms (median ${sorted[2]} ms)`,
    );
  });

  test("recent trades: two trades made over the API appear as two rows without a reload, as GET /markets/:id/trades lists them", async () => {
    const { page, context, errors } = await phone(browser);
    // The page is signed in as the trader, so the rows also say they were theirs (the user channel's trades).
    await context.addInitScript(
      (s: string) =>
        (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem("pmx.session", s),
      JSON.stringify(b.session),
    );
    await onFailureScreenshot(page, "failed-recent-trades", async () => {
      await page.goto(`${srv.url}/markets/${market}`);
      // The first page: the executions listed (the buys of YES a moment ago), one row each.
      await page.locator("[data-testid=recent-trades] tbody tr.listed").first().waitFor();
      await page.evaluate(() => ((globalThis as unknown as { pmxStayed: boolean }).pmxStayed = true));
      const before = await page.locator("[data-testid=recent-trades] tbody tr").count();
      expect(before).toBe((await b.markets.trades(market, { limit: 12 })).items.length);
      // A buy of NO takes the best YES bid; a buy of YES takes the best YES ask.
      const no = await b.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "FOK",
        price: 0.63,
        quantity: Number(toMicro(3)),
      });
      const yes = await b.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "FOK",
        price: 0.6,
        quantity: Number(toMicro(1)),
      });
      expect([no.status, yes.status]).toEqual(["filled", "filled"]);
      const fresh = page.locator("[data-testid=recent-trades] tbody tr.fresh");
      await page.locator("[data-testid=recent-trades] tbody tr.fresh >> nth=1").waitFor({ timeout: 20_000 });
      expect(await fresh.count()).toBe(2);
      // Each row as the API lists the execution, newest first, the user's own marked.
      // The list is written just behind the trades (prints are recorded in batches).
      const ids = [await fresh.nth(0).getAttribute("data-trade-id"), await fresh.nth(1).getAttribute("data-trade-id")];
      const listed = await until("both trades listed", async () => {
        const items = (await b.markets.trades(market, { limit: 2 })).items;
        return items.every((t) => ids.includes(t.tradeId)) && items;
      });
      for (let i = 0; i < 2; i++) {
        const row = fresh.nth(i);
        const t = listed[i];
        expect(await row.getAttribute("data-trade-id")).toBe(t.tradeId);
        expect([await row.getAttribute("data-side"), await row.getAttribute("data-outcome")]).toEqual([t.side, t.outcome]);
        expect(await row.getAttribute("data-price")).toBe(t.price);
        expect(await row.getAttribute("data-shares")).toBe(t.quantity);
        expect(await row.locator("[data-testid=recent-price]").innerText()).toBe(`${Math.round(Number(t.price) * 100)}¢`);
      }
      expect([listed[0].outcome, listed[1].outcome]).toEqual(["YES", "NO"]);
      expect(listed[1].quantity).toBe(no.filledQuantity);
      expect(await fresh.nth(0).locator("[data-testid=recent-trade]").innerText()).toBe("Buy YES");
      expect((await fresh.nth(0).locator("[data-testid=recent-mine]").innerText()).trim()).toBe("you bought YES");
      expect((await fresh.nth(1).locator("[data-testid=recent-mine]").innerText()).trim()).toBe("you bought NO");
      expect(await page.locator("[data-testid=recent-trades] tbody tr").count()).toBe(Math.min(12, before + 2));
      expect(await page.evaluate(() => (globalThis as unknown as { pmxStayed?: boolean }).pmxStayed)).toBe(true);
      await page.locator("#recent").scrollIntoViewIfNeeded();
      await screenshot(page, "09-market-recent-trades", false);
    });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe("a new visitor on the sandbox chain, in a phone-sized window", () => {
  let srv: TestServer & { domain: string };
  let market: string;
  let maker: PmxClient;
  let taker: PmxClient;

  beforeAll(async () => {
    srv = await startWebServer({ ADMIN_KEY });
    market = await createMarket(srv, "Will the web app ship this week?", String(1000 * SHARE));
    maker = await loginMaker(srv, 1000 * SHARE);
    taker = await loginMaker(srv, 1000 * SHARE);
  });
  afterAll(() => srv?.stop());

  test("creates a sandbox wallet, signs in, takes faucet funds, buys YES on the book, on the AMM and routed, watches other traders live, cancels, redeems after the operator resolves, withdraws", async () => {
    const { page, errors } = await phone(browser);
    const external = externalAssets(page, srv.url);
    await onFailureScreenshot(page, "failed-visitor", async () => {
      // Events browser: search, category, into the event and its market.
      await page.goto(`${srv.url}/`);
      await page.getByLabel("Search events").fill("web app");
      await page.getByLabel("Search events").press("Enter");
      await page.getByRole("button", { name: "Culture" }).click();
      await page.waitForURL(/category=Culture/);
      const eventLink = page.getByRole("link", { name: "Event for Will the web app ship this week?" });
      await eventLink.waitFor();
      expect(await page.locator("[data-testid=events] li").count()).toBe(1);
      await screenshot(page, "01-events");
      expect(await axeViolations(page)).toEqual([]);
      await eventLink.click();
      await page.getByRole("link", { name: "Will the web app ship this week?" }).click();
      await page.getByRole("heading", { name: "Will the web app ship this week?" }).waitFor();
      await page.locator("[data-testid=ladder]").waitFor();
      // The page stays this document from here on: every change below arrives live.
      await page.evaluate(() => ((globalThis as unknown as { pmxSamePage: boolean }).pmxSamePage = true));

      // Sign in with a new sandbox wallet, made in one click.
      await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
      await page.getByRole("form", { name: "Order ticket" }).waitFor();
      expect(
        await page.evaluate(() =>
          /^[0-9a-f]{64}$/.test((globalThis as unknown as WithStorage).localStorage.getItem("pmx.sandboxKey") ?? ""),
        ),
      ).toBe(true);

      // Faucet: test USDT to the deposit address, credited through the real deposit path.
      await page.getByRole("link", { name: "Wallet" }).click();
      const address = await textOf(page, "[data-testid=deposit-address]");
      expect(address).toMatch(/^0Q[A-Za-z0-9_-]{46}$/);
      await page.locator("[data-testid=deposit-qr]").waitFor();
      await page.getByRole("button", { name: "Get test USDT" }).click();
      await page.locator("[data-testid=faucet-result]").waitFor();
      await page.locator("[data-testid=header-balance]", { hasText: "100.00" }).waitFor({ timeout: 20_000 });
      await screenshot(page, "02-wallet");
      expect(await axeViolations(page)).toEqual([]);
      await page.goBack();
      await page.getByRole("form", { name: "Order ticket" }).waitFor();

      // Buy YES on the book: another trader's BUY NO at 0.60 shows as a YES ask at 0.40, live.
      await maker.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "GTC",
        price: 0.6,
        quantity: Number(toMicro(5)),
      });
      await ladderRow(page, "0.40").waitFor();
      const ticket = page.getByRole("form", { name: "Order ticket" });
      await ticket.getByRole("button", { name: "Limit" }).click();
      await ticket.getByLabel("Shares").fill("5");
      await ticket.getByLabel("Limit price (USDT per share)").fill("0.40");
      await ticket.getByLabel("Time in force").selectOption("FOK");
      await ticket.getByRole("button", { name: "Review order" }).click();
      await ticket.getByRole("button", { name: "Confirm buy" }).click();
      await expect(textOf(page, "[data-testid=ticket-result]")).resolves.toMatch(/^Filled: BUY 5 YES at 40¢, average 40¢/);
      await ladderRow(page, "0.40").waitFor({ state: "detached" });

      // Buy YES on the AMM, with the AMM's own quote shown before confirming.
      await ticket.getByRole("button", { name: "AMM" }).click();
      await ticket.getByLabel("Shares").fill("10");
      await ticket.getByRole("button", { name: "Get quote" }).click();
      await expect(textOf(page, "[data-testid=quote-venue]")).resolves.toBe("AMM");
      const quoted = await textOf(page, "[data-testid=quote-price]");
      await ticket.getByRole("button", { name: "Confirm buy" }).click();
      await page.locator("[data-testid=ticket-result]", { hasText: "Bought" }).waitFor();
      expect(await textOf(page, "[data-testid=ticket-result]")).toMatch(new RegExp(`^Bought 10 YES at ${quoted} average \\(AMM\\)`));

      // A market order with its quote first: the router takes a cheaper book offer, then the AMM.
      await maker.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "GTC",
        price: 0.55,
        quantity: Number(toMicro(2)),
      });
      await ladderRow(page, "0.45").waitFor();
      // The Buy YES tile is the router's quote for 10 shares, as the API gives it now.
      const tileQuote = await taker.markets.quote(market, { side: "BUY", outcome: "YES", quantity: toMicro(10) });
      await page.locator(`[data-testid=buyYesPrice][data-price="${tileQuote.estimatedPrice}"]`).waitFor();
      await ticket.getByRole("button", { name: "Market" }).click();
      await ticket.getByLabel("Shares").fill("10");
      await ticket.getByRole("button", { name: "Get quote" }).click();
      await expect(textOf(page, "[data-testid=quote-venue]")).resolves.toBe("HYBRID");
      await ticket.getByRole("button", { name: "Confirm buy" }).click();
      await page.locator("[data-testid=ticket-result]", { hasText: "(HYBRID)" }).waitFor();
      await ladderRow(page, "0.45").waitFor({ state: "detached" });

      // Another trader's order appears in the ladder, and the chart moves, without a reload.
      await maker.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "YES",
        orderType: "GTC",
        price: 0.33,
        quantity: Number(toMicro(7)),
      });
      await expect(ladderRow(page, "0.33").textContent()).resolves.toMatch(/33¢\s*7\s*1/);
      // A third trader sells YES into that bid (BUY NO at 0.67): a book trade at 0.33, so the chart's last price moves from 0.45.
      const chart = page.locator("[data-testid=chart]");
      // The market order printed twice (its book leg at 0.45 and its AMM leg at the pool's average, above it).
      await waitFor("the market order's prints in the chart", async () => Number(await chart.getAttribute("data-last")) >= 0.45);
      const updates = Number(await chart.getAttribute("data-updates"));
      await taker.orders.place({
        marketId: market,
        side: "BUY",
        outcome: "NO",
        orderType: "FOK",
        price: 0.67,
        quantity: Number(toMicro(7)),
      });
      await ladderRow(page, "0.33").waitFor({ state: "detached" });
      await waitFor(
        "the chart to move",
        async () => Number(await chart.getAttribute("data-updates")) > updates && (await chart.getAttribute("data-last")) === "0.33",
        15_000,
        100,
      );
      // The chart's intervals.
      await page.getByRole("group", { name: "Chart interval" }).getByRole("button", { name: "1H" }).click();
      await page.locator("[data-testid=chart][data-interval='1H'][data-last='0.33']").waitFor();
      await page.getByRole("group", { name: "Chart interval" }).getByRole("button", { name: "MAX" }).click();
      await page.locator("[data-testid=chart][data-interval='MAX'][data-last='0.33']").waitFor();
      await screenshot(page, "03-market");
      await page.locator("#book").scrollIntoViewIfNeeded();
      await screenshot(page, "03-market-book", false);
      expect(await axeViolations(page)).toEqual([]);

      // Cancel an order: a resting limit order, then its Cancel button.
      await ticket.getByRole("button", { name: "Limit" }).click();
      await ticket.getByLabel("Shares").fill("3");
      await ticket.getByLabel("Limit price (USDT per share)").fill("0.20");
      await ticket.getByLabel("Time in force").selectOption("GTC");
      await ticket.getByRole("button", { name: "Review order" }).click();
      await ticket.getByRole("button", { name: "Confirm buy" }).click();
      await expect(textOf(page, "[data-testid=ticket-result]")).resolves.toBe("Order open: BUY 3 YES at 20¢, resting on the book.");
      await ladderRow(page, "0.20").waitFor();
      await page.getByRole("button", { name: "Cancel BUY 3 YES at 20¢" }).click();
      await page.getByText("No open orders in this market.").waitFor();
      await ladderRow(page, "0.20").waitFor({ state: "detached" });

      // Portfolio: the position with its PnL, and both trades settling on chain.
      await page.getByRole("link", { name: "Portfolio" }).click();
      const yesRow = page.locator("[data-testid=positions] li", { hasText: "Will the web app ship this week?" });
      await expect(yesRow.locator("[data-field=shares]").textContent()).resolves.toBe("25");
      await page.getByRole("button", { name: "History" }).click();
      await page.locator("[data-testid=trades] li").nth(2).waitFor();
      await waitFor(
        "the three trades settled",
        async () => (await page.locator("[data-testid=settlement]", { hasText: "settled on chain" }).count()) === 3,
        20_000,
        200,
      );
      await screenshot(page, "04-portfolio");
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, "04-portfolio-top", false);
      expect(await axeViolations(page)).toEqual([]);

      // The operator resolves the market while the user looks at it; the page shows it and redeems.
      await page.getByRole("button", { name: "Positions" }).click();
      await yesRow.getByRole("link").click();
      await page.getByRole("form", { name: "Order ticket" }).waitFor();
      const resolved = await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, {
        headers: { "x-admin-key": ADMIN_KEY },
        body: { result: "YES" },
      });
      expect(resolved.status).toBe(200);
      await page.locator("[data-testid=market-status]", { hasText: "Resolved YES" }).waitFor({ timeout: 20_000 });
      await page.getByRole("button", { name: "Redeem 25 YES" }).click();
      await expect(textOf(page, "[data-testid=redeem-result]")).resolves.toBe("Redeemed: $25.00 paid into your balance.");
      await screenshot(page, "05-redeem");

      // Notifications: the unread badge, the list, marking read.
      const badge = page.locator("[data-testid=unread-badge]");
      await badge.waitFor();
      expect(Number(await badge.textContent())).toBeGreaterThan(0);
      await page.getByRole("link", { name: /Alerts/ }).click();
      await page.locator("[data-testid=notifications] li", { hasText: "Market resolved: YES" }).waitFor();
      await page.locator("[data-testid=notifications] li", { hasText: "Deposit credited" }).waitFor();
      await screenshot(page, "06-notifications");
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole("button", { name: "Mark all as read" }).click();
      await badge.waitFor({ state: "detached" });

      // Withdraw to the signed-in wallet.
      const balanceBefore = Number(await textOf(page, "[data-testid=header-balance]"));
      await page.getByRole("link", { name: "Wallet" }).click();
      await page.getByLabel("Amount (USDT)").fill("20");
      await page.getByRole("button", { name: "Withdraw", exact: true }).click();
      await page.getByRole("button", { name: "Confirm: send $20.00" }).click();
      await expect(textOf(page, "[data-testid=withdraw-result]")).resolves.toMatch(/^Sent: .*\(tx [0-9a-f]{8}…[0-9a-f]{6}\)$/);
      await page.locator("[data-testid=header-balance]", { hasText: (balanceBefore - 20).toFixed(2) }).waitFor();
      await screenshot(page, "07-withdraw");

      expect(await page.evaluate(() => (globalThis as unknown as { pmxSamePage?: boolean }).pmxSamePage)).toBe(true);
      expect(external()).toEqual([]);
      expect(errors).toEqual([]);
      await expectConserved(srv.broker);
    });
    await page.context().close();
  });
});
