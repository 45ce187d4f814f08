/** Checks run on pages of the web app: accessibility (axe-core) and where assets come from. */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";

let axeSource: string | null = null;
const AXE_SOURCE = () => (axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>;
}

/**
 * axe-core's WCAG 2.1 A/AA rules (labels, names, contrast, landmarks, …) on the page as it is.
 * TON Connect's own dialog (#tc-widget-root) is a third party's and is left out. Returns one line
 * per violation (empty when there is none).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated by the test (as DevTools would), not added as an inline <script>, which the page's CSP refuses.
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(AXE_SOURCE());
  const result = await page.evaluate(
    () =>
      (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<AxeResult> } }).axe.run(
        { exclude: [["#tc-widget-root"]] },
        { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] },
      ) as Promise<AxeResult>,
  );
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
}

/**
 * Scripts, styles, images, fonts and documents the page fetched from anywhere but the exchange:
 * the app loads nothing from a CDN. (TON Connect's bridge connections to wallets are its
 * protocol, not assets, and are not counted.)
 */
export function externalAssets(page: Page, origin: string): () => string[] {
  const seen: string[] = [];
  page.on("request", (r) => {
    if (!["script", "stylesheet", "image", "font", "document", "manifest"].includes(r.resourceType())) return;
    const url = r.url();
    if (url.startsWith("data:") || url.startsWith("blob:")) return;
    if (new URL(url).origin !== origin) seen.push(`${r.resourceType()} ${url}`);
  });
  return () => [...seen];
}
