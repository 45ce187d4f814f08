/**
 * TON Connect sign-in in real Chromium, with a wallet injected into the page through TON Connect's
 * JS bridge (`window.tonkeeper.tonconnect`, as the Tonkeeper browser extension does). The wallet's
 * keys stay in the test: the page's bridge hands each connect request over, and the test signs
 * the ton_proof for the domain named by the exchange's tonconnect-manifest.json, as a wallet does.
 * The exchange checks that proof like any other.
 */
import type { Browser, Page } from "playwright-core";
import { launchBrowser, onFailureScreenshot, phone, screenshot, startWebServer, textOf } from "../support/browser";
import { externalAssets } from "../support/page-checks";
import type { TestServer } from "../support/server";
import { TestWallet } from "../support/wallet";

jest.setTimeout(120_000);

interface ConnectRequest {
  manifestUrl: string;
  items: Array<{ name: "ton_addr" } | { name: "ton_proof"; payload: string }>;
}

interface SignedProof {
  timestamp: number;
  domain: { lengthBytes: number; value: string };
  payload: string;
  signature: string;
}

/**
 * Puts the wallet in the page before the app loads. `domainOverride` makes a dishonest wallet
 * that signs for another site than the manifest names.
 */
async function injectWallet(
  page: Page,
  wallet: TestWallet,
  opts: { domainOverride?: string } = {},
): Promise<{ proofs: SignedProof[]; requests: ConnectRequest[] }> {
  const proofs: SignedProof[] = [];
  const requests: ConnectRequest[] = [];
  await page.exposeFunction("pmxTestWalletConnect", async (raw: string) => {
    const req = JSON.parse(raw) as ConnectRequest;
    requests.push(req);
    const manifest = (await (await fetch(req.manifestUrl)).json()) as { url: string };
    const domain = opts.domainOverride ?? new URL(manifest.url).host;
    const items: unknown[] = [
      {
        name: "ton_addr",
        address: wallet.rawAddress,
        network: "-3",
        publicKey: wallet.publicKeyHex,
        walletStateInit: wallet.stateInitBase64(),
      },
    ];
    for (const item of req.items) {
      if (item.name !== "ton_proof") continue;
      const timestamp = Math.floor(Date.now() / 1000);
      const proof: SignedProof = {
        timestamp,
        domain: { lengthBytes: Buffer.byteLength(domain), value: domain },
        payload: item.payload,
        signature: wallet.signProof({ domain, timestamp, payload: item.payload }),
      };
      proofs.push(proof);
      items.push({ name: "ton_proof", proof });
    }
    return JSON.stringify({
      event: "connect",
      id: Date.now(),
      payload: {
        items,
        device: {
          platform: "linux",
          appName: "tonkeeper",
          appVersion: "3.0.0",
          maxProtocolVersion: 2,
          features: ["SendTransaction", { name: "SendTransaction", maxMessages: 4 }],
        },
      },
    });
  });
  await page.addInitScript(() => {
    const g = globalThis as unknown as { pmxTestWalletConnect(raw: string): Promise<string>; tonkeeper: unknown };
    g.tonkeeper = {
      tonconnect: {
        deviceInfo: { platform: "linux", appName: "tonkeeper", appVersion: "3.0.0", maxProtocolVersion: 2, features: ["SendTransaction"] },
        protocolVersion: 2,
        isWalletBrowser: false,
        connect: async (_version: number, message: unknown) => JSON.parse(await g.pmxTestWalletConnect(JSON.stringify(message))),
        restoreConnection: async () => ({ event: "connect_error", id: 0, payload: { code: 0, message: "nothing to restore" } }),
        send: async (request: { id: string }) => ({ error: { code: 400, message: "not supported by the test wallet" }, id: request.id }),
        listen: () => () => undefined,
      },
    };
  });
  return { proofs, requests };
}

/** From the page's own sign-in panel, or (`fromHeader`) the header's. */
async function connectThroughModal(page: Page, fromHeader: boolean): Promise<void> {
  if (fromHeader) await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Connect a TON wallet" }).click();
  const modal = page.locator("#tc-widget-root");
  await modal.getByText("Tonkeeper", { exact: true }).first().click();
  await modal.getByRole("button", { name: "Browser Extension" }).click();
}

describe("TON Connect sign-in with an injected wallet (desktop window)", () => {
  let srv: TestServer & { domain: string };
  let browser: Browser;
  beforeAll(async () => {
    srv = await startWebServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  test("the wallet signs the exchange's proof; the exchange verifies it, the session is the wallet's, and the same proof cannot log in twice", async () => {
    const { page, errors } = await phone(browser, { width: 1280, height: 800 });
    const external = externalAssets(page, srv.url);
    const wallet = TestWallet.random("v4r2", { testnet: true });
    const { proofs, requests } = await injectWallet(page, wallet);
    // The payload the page got from the exchange's challenge is the one the wallet signs.
    const challenges: string[] = [];
    page.on("response", async (r) => {
      if (new URL(r.url()).pathname === "/api/v1/auth/challenge")
        challenges.push(((await r.json()) as { data: { payload: string } }).data.payload);
    });
    await onFailureScreenshot(page, "failed-tonconnect", async () => {
      await page.goto(`${srv.url}/portfolio`);
      await connectThroughModal(page, false);
      await page.getByRole("heading", { name: "Balance" }).waitFor();
      await screenshot(page, "10-tonconnect-signed-in", false);

      // What the wallet was asked: this exchange's manifest, an address and a proof.
      expect(requests).toHaveLength(1);
      expect(requests[0].manifestUrl).toBe(`${srv.url}/tonconnect-manifest.json`);
      expect(requests[0].items.map((i) => i.name)).toEqual(["ton_addr", "ton_proof"]);
      expect(proofs[0].domain.value).toBe(srv.domain);
      expect(challenges).toEqual([proofs[0].payload]);
      const session = await page.evaluate(
        () =>
          JSON.parse((globalThis as unknown as { localStorage: { getItem(k: string): string } }).localStorage.getItem("pmx.session")) as {
            walletAddress: string;
          },
      );
      expect(session.walletAddress).toBe(wallet.rawAddress);
      await page.getByRole("button", { name: `${wallet.friendlyAddress.slice(0, 4)}…${wallet.friendlyAddress.slice(-4)}` }).click();
      await expect(textOf(page, "#account-panel code")).resolves.toBe(
        `${wallet.friendlyAddress.slice(0, 4)}…${wallet.friendlyAddress.slice(-4)}`,
      );

      // The same signed proof sent again is refused: checked by the server, once.
      const replay = await srv.http("POST", "/api/v1/auth/connect", {
        body: { address: wallet.rawAddress, publicKey: wallet.publicKeyHex, proof: proofs[0] },
      });
      expect(replay.status).toBe(401);
      expect(replay.body.error.message).toBe("Proof already used");
      expect(external()).toEqual([]);
      // The SDK's own reach for its bridge and wallet list (blocked offline) may end as "Aborted after attempts".
      expect(errors.filter((e) => !/ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|bridge|Aborted after attempts/i.test(e))).toEqual([]);
    });
    await page.context().close();
  });

  test("a proof signed for another site is refused, and the page says so", async () => {
    const { page } = await phone(browser, { width: 1280, height: 800 });
    await injectWallet(page, TestWallet.random(), { domainOverride: "evil.example" });
    await onFailureScreenshot(page, "failed-tonconnect-refused", async () => {
      await page.goto(`${srv.url}/`);
      await connectThroughModal(page, true);
      await page.getByRole("alert").filter({ hasText: "The exchange refused the sign-in" }).waitFor();
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem("pmx.session"),
        ),
      ).toBeNull();
    });
    await page.context().close();
  });
});
