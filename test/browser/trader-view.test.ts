/**
 * The app as a trader reads it, in real headless Chromium against a real exchange: every screen at
 * 320, 390 and 1440 px without sideways scrolling and axe-clean; the market page's numbers equal
 * the API's quote, book and price history of that moment; the ticket's "to win" is what the fill
 * pays at resolution; a ticket without funds says so instead of quoting; history lists match the
 * API; a won position is redeemed from the portfolio; a withdrawal is confirmed before it is sent.
 * With SCREENSHOTS_DIR set (e.g. web/screenshots), the phone and desktop screenshots go there.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { PmxClient, randomKeyPair, toMicro } from "../../client/src";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, expectConserved, fund, SHARE } from "../support/trading";
import { waitFor } from "../support/chain";
import { axeViolations } from "../support/page-checks";

jest.setTimeout(300_000);

const WIDTHS = [320, 390, 1440] as const;
const TITLE = "Will the harbour bridge reopen before the winter festival?";

let browser: Browser;
let srv: TestServer & { domain: string };
let market: string;
let event: string;
let race: string;
let maker: PmxClient;

/** How far the document is wider than the viewport (0: no sideways scrolling). */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return g.document.documentElement.scrollWidth - g.innerWidth;
  });

async function shot(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const dir = process.env.SCREENSHOTS_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
  }
}

/** The session the page keeps, as an SDK client of the same user. */
async function sameUser(page: Page): Promise<PmxClient> {
  const raw = await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("pmx.session"),
  );
  return new PmxClient({ baseUrl: srv.url, domain: srv.domain, session: JSON.parse(raw as string) });
}

async function signIn(page: Page): Promise<PmxClient> {
  // The market page offers the sign-in itself.
  await page.getByRole("button", { name: "Create a sandbox wallet" }).click();
  await page.locator("[data-testid=header-balance]").waitFor();
  return sameUser(page);
}

beforeAll(async () => {
  browser = await launchBrowser();
  srv = await startWebServer({ ADMIN_KEY });
  const res = await srv.http("POST", "/api/v1/admin/events", {
    headers: { "x-admin-key": ADMIN_KEY },
    body: {
      title: `Event for ${TITLE}`,
      category: "Culture",
      markets: [
        {
          title: TITLE,
          ammLiquidity: String(1000 * SHARE),
          rules: "Resolves YES if the harbour authority opens the bridge to traffic before the festival's first day.",
          settlementSources: [{ name: "Harbour authority", url: "https://harbour.example.org/news" }],
          closeTime: new Date(Date.now() + 3 * 24 * 3600_000).toISOString(),
        },
      ],
    },
  });
  expect([200, 201]).toContain(res.status);
  market = res.body.data.markets[0].id;
  event = res.body.data.id;
  // Depth on both sides and a few prints, as a live market has.
  maker = new PmxClient({ baseUrl: srv.url, domain: srv.domain });
  const s = await maker.auth.loginWithKeyPair(randomKeyPair());
  await fund(srv.broker, s.userId, 2000 * SHARE);
  for (const [price, q] of [
    [0.41, 20],
    [0.4, 30],
    [0.38, 50],
  ] as const)
    await maker.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price, quantity: Number(toMicro(q)) });
  for (const [price, q] of [
    [0.45, 15],
    [0.47, 25],
  ] as const)
    await maker.orders.place({
      marketId: market,
      side: "BUY",
      outcome: "NO",
      orderType: "GTC",
      price: 1 - price,
      quantity: Number(toMicro(q)),
    });
  // A race: one winner among three; the maker quotes one outcome at 60-65¢.
  const r = await srv.http("POST", "/api/v1/admin/events", {
    headers: { "x-admin-key": ADMIN_KEY },
    body: {
      title: "Who wins the harbour regatta?",
      category: "Sports",
      mutuallyExclusive: true,
      exhaustive: true,
      markets: [
        { title: "Will the Gulls win the regatta?", outcomeLabel: "Gulls" },
        { title: "Will the Terns win the regatta?", outcomeLabel: "Terns" },
        { title: "Will another crew win the regatta?", outcomeLabel: "Other" },
      ],
    },
  });
  expect(r.status).toBe(201);
  race = r.body.data.id;
  const terns = r.body.data.markets[1].id as string;
  await maker.orders.place({ marketId: terns, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.6, quantity: Number(toMicro(10)) });
  await maker.orders.place({ marketId: terns, side: "BUY", outcome: "NO", orderType: "GTC", price: 0.35, quantity: Number(toMicro(10)) });
  const taker = new PmxClient({ baseUrl: srv.url, domain: srv.domain });
  const t = await taker.auth.loginWithKeyPair(randomKeyPair());
  await fund(srv.broker, t.userId, 500 * SHARE);
  await taker.trade.market({ marketId: market, side: "BUY", outcome: "YES", quantity: toMicro(5) });
});
afterAll(async () => {
  await browser?.close();
  await srv?.stop();
});

test("every screen at 320, 390 and 1440 px: no sideways scrolling, axe-clean; unknown pages and markets in words", async () => {
  for (const width of WIDTHS) {
    const { page, context, errors } = await phone(browser, width > 400 ? { width, height: 900 } : { width });
    const size = width > 400 ? "desktop" : width === 320 ? "small" : "phone";
    await onFailureScreenshot(page, `failed-screens-${width}`, async () => {
      await page.goto(`${srv.url}/markets/${market}`);
      await page.locator("[data-testid=ladder]").waitFor();
      const me = await signIn(page);
      // Something to show: funds, a position, a resting order.
      await fund(srv.broker, me.session!.userId, 50 * SHARE);
      await me.trade.market({ marketId: market, side: "BUY", outcome: "NO", quantity: toMicro(3) });
      await me.orders.place({ marketId: market, side: "BUY", outcome: "YES", orderType: "GTC", price: 0.2, quantity: Number(toMicro(2)) });
      const screens: Array<[string, string, string]> = [
        ["events", "/", "[data-testid=events] li"],
        ["event", `/events/${event}`, ".market-row"],
        ["race", `/events/${race}`, "[data-testid=race] li"],
        ["market", `/markets/${market}`, "[data-testid=ladder]"],
        ["portfolio", "/portfolio", "#balance"],
        ["history", "/portfolio?tab=history", "#transfers"],
        ["wallet", "/wallet", "[data-testid=deposit-address]"],
        ["alerts", "/notifications", "h1"],
        ["not-found", "/markets/mkt_nope", "[data-testid=market-not-found]"],
      ];
      for (const [name, path, ready] of screens) {
        await page.evaluate((to) => {
          const g = globalThis as unknown as {
            history: { pushState(a: null, b: string, c: string): void };
            dispatchEvent(e: unknown): void;
            PopStateEvent: new (t: string) => unknown;
          };
          g.history.pushState(null, "", to);
          g.dispatchEvent(new g.PopStateEvent("popstate"));
        }, path);
        await page.locator(ready).first().waitFor();
        // Settled: fonts and the chart's lazy module.
        await page.waitForLoadState("networkidle");
        expect({ name, width, overflow: await overflow(page) }).toEqual({ name, width, overflow: 0 });
        if (width !== 320) await shot(page, `${name}-${size}`);
        if (width === 390) expect({ name, violations: await axeViolations(page) }).toEqual({ name, violations: [] });
      }
      // The race's rows are the API's outcomes ranked by chance, with the chance in percent.
      const raceApi = await me.events.get(race);
      await page.goto(`${srv.url}/events/${race}`);
      await page.locator("[data-testid=race-chart][data-drawn='1']").waitFor();
      const shown = await page.locator("[data-testid=race] li").evaluateAll((els) => els.map((e) => e.getAttribute("data-market")));
      const expected = [...raceApi.outcomes].sort((a, b) => Number(b.chance ?? -1) - Number(a.chance ?? -1));
      expect(shown).toEqual(expected.map((o) => o.marketId));
      expect(shown[0]).toBe(raceApi.markets[1].id);
      expect(await textOf(page, "[data-testid=race] li:first-child [data-field=chance]")).toBe(
        `${Math.round(Number(expected[0].chance) * 100)}%`,
      );
      // An unknown address typed into the browser: the app's own page, served with status 404.
      const missing = await page.goto(`${srv.url}/no-such-page`);
      expect(missing?.status()).toBe(404);
      await page.locator("[data-testid=not-found]").waitFor();
      expect(await overflow(page)).toBe(0);
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    });
    await context.close();
  }
});

test("a new trader's path: odds, quotes equal to the API's, a dollar buy whose to-win is paid at redemption from the portfolio, history, a confirmed withdrawal", async () => {
  const { page, errors } = await phone(browser, { width: 390 });
  await onFailureScreenshot(page, "failed-trader-path", async () => {
    // Signed out: the tiles are the best prices and say so; the card shows a chance.
    await page.goto(`${srv.url}/`);
    await page.locator("[data-testid=events] li", { hasText: TITLE }).locator("[data-testid=event-chance]").waitFor();
    // The list carries no markets: the card's end date is the event's closeTime, its market's close.
    const listed = (await srv.http("GET", "/api/v1/events?pageSize=100")).body.data.find((e: { id: string }) => e.id === event);
    const market0 = (await srv.http("GET", `/api/v1/markets/${market}`)).body.data;
    expect(listed.closeTime).toBe(market0.closeTime);
    const end = new Date(listed.closeTime);
    const year = end.getUTCFullYear() !== new Date().getUTCFullYear() ? { year: "numeric" as const } : {};
    expect(await textOf(page, `[data-testid=events] li:has-text("${TITLE}") [data-testid=event-ends]`)).toBe(
      `Ends ${end.toLocaleDateString("en-GB", { month: "short", day: "numeric", timeZone: "UTC", ...year })}`,
    );
    await page.goto(`${srv.url}/markets/${market}`);
    await page.locator("[data-testid=ladder] tr.bid").first().waitFor();
    expect(await textOf(page, "[data-testid=buyYesPrice]")).toMatch(/best price now/);
    const me = await signIn(page);

    // No funds yet: the ticket says why and does not quote.
    const ticket = page.getByRole("form", { name: "Order ticket" });
    await ticket.locator("[data-testid=ticket-blocked]", { hasText: "No funds to buy with" }).waitFor();
    await expect(ticket.getByRole("button", { name: "Get quote" }).isDisabled()).resolves.toBe(true);
    await fund(srv.broker, me.session!.userId, 100 * SHARE);
    await page.locator("[data-testid=header-balance]", { hasText: "100.00" }).waitFor({ timeout: 20_000 });
    await expect(ticket.getByRole("button", { name: "Get quote" }).isDisabled()).resolves.toBe(false);

    // Tiles, ladder and chart against the API at this moment (nothing trades meanwhile).
    const quotes = {
      buyYesPrice: await me.markets.quote(market, { side: "BUY", outcome: "YES", quantity: toMicro(10) }),
      buyNoPrice: await me.markets.quote(market, { side: "BUY", outcome: "NO", quantity: toMicro(10) }),
      sellYesPrice: await me.markets.quote(market, { side: "SELL", outcome: "YES", quantity: toMicro(10) }),
    };
    for (const [id, q] of Object.entries(quotes)) {
      await page.locator(`[data-testid=${id}][data-price="${q.estimatedPrice}"]`).waitFor();
      expect(await textOf(page, `[data-testid=${id}]`)).toContain("avg. for 10 shares");
    }
    const book = await me.markets.orderbook(market, "YES");
    expect(await page.locator("[data-testid=ladder] tr.ask").last().getAttribute("data-price")).toBe(book.asks[0].price);
    expect(await page.locator("[data-testid=ladder] tr.bid").first().getAttribute("data-price")).toBe(book.bids[0].price);
    const history = await me.markets.priceHistory(market, { interval: "1D", outcome: "YES" });
    await page.locator(`[data-testid=chart][data-last="${history.candles.at(-1)?.close}"]`).waitFor();
    await page.locator("[data-testid=depth-chart]").waitFor();
    await page.locator("[data-testid=recent-trades]").waitFor();

    // A limit order says where it lands before it is sent.
    await ticket.getByRole("button", { name: "Limit" }).click();
    await ticket.getByLabel("Shares").fill("10");
    await ticket.getByLabel("Limit price (USDT per share)").fill("0.46");
    expect(await textOf(page, "[data-testid=limit-placement]")).toBe("Takes 10 shares from the book at once (best offer 45¢).");
    await ticket.getByLabel("Limit price (USDT per share)").fill("0.30");
    expect(await textOf(page, "[data-testid=limit-placement]")).toBe(
      "Rests on the book at 30¢ (best offer 45¢ now); nothing fills at once.",
    );
    await ticket.getByLabel("Time in force").selectOption("GTD");
    await ticket.getByRole("button", { name: "Review order" }).click();
    await ticket.getByRole("button", { name: "Confirm buy" }).click();
    await expect(textOf(page, "[data-testid=ticket-result]")).resolves.toBe("Order open: BUY 10 YES at 30¢, resting on the book.");
    await page.getByRole("button", { name: "Cancel BUY 10 YES at 30¢" }).click();
    await page.getByText("No open orders in this market.").waitFor();

    // A market buy for $5: the review's to-win is what the shares pay if YES wins.
    await ticket.getByRole("button", { name: "Market" }).click();
    await ticket.getByRole("button", { name: "Dollars" }).click();
    await ticket.getByLabel("Amount ($)").fill("5");
    await ticket.getByRole("button", { name: "Get quote" }).click();
    const toWin = await textOf(page, "[data-testid=to-win]");
    const paying = await textOf(page, "[data-testid=quote-total]");
    expect(Number(paying.replace("$", ""))).toBeLessThanOrEqual(5);
    expect(Number(paying.replace("$", ""))).toBeGreaterThan(4.9);
    await page
      .locator("[data-testid=review]")
      .evaluate((el) => (el as unknown as { scrollIntoView(o: unknown): void }).scrollIntoView({ block: "center" }));
    await shot(page, "ticket-review-phone");
    await ticket.getByRole("button", { name: "Confirm buy" }).click();
    await page.locator("[data-testid=ticket-result]", { hasText: "Bought" }).waitFor();

    // Portfolio history equals the API's lists.
    await page.getByRole("link", { name: "Portfolio" }).click();
    await page.locator("[data-testid=positions] li", { hasText: TITLE }).waitFor();
    await page.getByRole("button", { name: "History" }).click();
    const orders = await me.orders.list({ status: "all" });
    await page
      .locator("[data-testid=order-history] li")
      .nth(orders.items.length - 1)
      .waitFor();
    expect(await page.locator("[data-testid=order-history] li").evaluateAll((els) => els.map((e) => e.getAttribute("data-order")))).toEqual(
      orders.items.map((o) => o.orderId),
    );
    expect(
      await textOf(
        page,
        `[data-testid=order-history] li[data-order="${orders.items.find((o) => o.status === "cancelled")?.orderId}"] [data-field=state]`,
      ),
    ).toBe("cancelled by you");
    const trades = await me.portfolio.trades({ pageSize: 10 });
    expect(await page.locator("[data-testid=trades] li").evaluateAll((els) => els.map((e) => e.getAttribute("data-trade")))).toEqual(
      trades.items.map((t) => t.tradeId),
    );
    const transfers = await me.portfolio.transfers();
    expect(await page.locator("[data-testid=transfers] li").count()).toBe(transfers.items.length);
    await shot(page, "portfolio-history-phone");
    expect(await axeViolations(page)).toEqual([]);

    // Resolved YES: the position is marked won and redeemed from the portfolio for the to-win amount.
    const resolved = await srv.http("POST", `/api/v1/admin/markets/${market}/resolve`, {
      headers: { "x-admin-key": ADMIN_KEY },
      body: { result: "YES" },
    });
    expect(resolved.status).toBe(200);
    await page.getByRole("button", { name: "Positions" }).click();
    const won = page.locator("[data-testid=positions] li[data-won]", { hasText: TITLE });
    await won.waitFor({ timeout: 20_000 });
    await shot(page, "portfolio-won-phone");
    await won.getByRole("button", { name: /^Redeem / }).click();
    await expect(textOf(page, "[data-testid=redeem-result]")).resolves.toBe(`Redeemed: ${toWin} paid into your balance.`);
    // The redeemed position leaves the open list and shows in the history with its realized profit, as the API says.
    await won.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "History" }).click();
    const [closed] = (await me.portfolio.positions({ status: "closed" })).filter((p) => p.marketId === market && p.outcome === "YES");
    expect(BigInt(closed.realizedPnl)).toBeGreaterThan(0n);
    const row = page.locator(`[data-testid=closed-positions] li[data-position="${closed.id}"]`);
    await expect(textOf(page, `[data-testid=closed-positions] li[data-position="${closed.id}"] [data-field=realized]`)).resolves.toBe(
      // Whole cents, the rest dropped (as every dollar amount on the page).
      `+$${(Number(BigInt(closed.realizedPnl) / 10_000n) / 100).toFixed(2)} realized`,
    );
    await row.scrollIntoViewIfNeeded();
    await shot(page, "portfolio-closed-phone");

    // The resolution notice links to the portfolio.
    await page.getByRole("link", { name: /Alerts/ }).click();
    const notice = page.locator("[data-testid=notifications] li[data-type=MARKET_RESOLVED]");
    await notice.getByRole("link", { name: "Redeem in your portfolio" }).waitFor();
    // Which kinds the bot pushes: a switch here is the API's setting.
    await page.getByText("Telegram messages").click();
    await page.getByLabel("On-chain settlement of trades").uncheck();
    await waitFor("the setting saved", async () => (await me.notifications.settings()).push.settlement === false);
    expect(await page.getByLabel("On-chain settlement of trades").isChecked()).toBe(false);
    await shot(page, "notifications-phone");

    // A withdrawal waits for its confirmation, which names the wallet in its friendly form.
    await page.getByRole("link", { name: "Wallet" }).click();
    await page.getByLabel("Amount (USDT)").fill("10");
    await page.getByRole("button", { name: "Withdraw", exact: true }).click();
    const confirm = page.locator("[data-testid=withdraw-confirm]");
    expect(await textOf(page, "[data-testid=withdraw-confirm]")).toMatch(/^Send \$10\.00 to 0Q[A-Za-z0-9_-]{46}\? This cannot be undone\./);
    expect((await me.portfolio.transfers({ type: "withdrawal" })).items).toEqual([]);
    await confirm.getByRole("button", { name: "Confirm: send $10.00" }).click();
    await expect(textOf(page, "[data-testid=withdraw-result]")).resolves.toMatch(
      /^Sent: \$10\.00 to 0Q\w{2}…[\w-]{4} \(tx [0-9a-f]{8}…[0-9a-f]{6}\)$/,
    );
    expect(await overflow(page)).toBe(0);
    await shot(page, "wallet-withdrawn-phone");
    expect(errors).toEqual([]);
    await expectConserved(srv.broker);
  });
  await page.context().close();
});
