/**
 * Writes web/public/tonconnect-wallets.json, the wallet list the app's TON Connect dialog shows,
 * from the list built into @tonconnect/sdk, with each wallet's icon replaced by a lettered icon
 * served by the exchange (web/public/wallet-icons/): the page loads nothing from other hosts.
 * Run after updating @tonconnect/ui: node web/scripts/tonconnect-wallets.mjs
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const sdk = readFileSync(join(dirname(require.resolve("@tonconnect/sdk")), "../esm/index.mjs"), "utf8");
const start = sdk.indexOf("[", sdk.indexOf("const FALLBACK_WALLETS_LIST = ["));
let end = start;
for (let depth = 0; end < sdk.length; end++) {
  if (sdk[end] === "[") depth++;
  else if (sdk[end] === "]" && --depth === 0) break;
}
// The list is a plain array literal of strings, numbers and objects.
const list = Function(`"use strict"; return (${sdk.slice(start, end + 1)});`)();

const out = join(here, "../public");
const icons = join(out, "wallet-icons");
rmSync(icons, { recursive: true, force: true });
mkdirSync(icons, { recursive: true });
const hue = (s) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
for (const w of list) {
  const letters = escape(
    w.name
      .replace(/[^A-Za-z0-9 ]/g, "")
      .split(/\s+/)
      .filter(Boolean)
      .map((p) => p[0])
      .join("")
      .slice(0, 2)
      .toUpperCase() || "W",
  );
  const file = `${w.app_name.replace(/[^A-Za-z0-9._-]/g, "_")}.svg`;
  writeFileSync(
    join(icons, file),
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="22" fill="hsl(${hue(w.app_name)} 55% 32%)"/><text x="48" y="60" font-family="system-ui,sans-serif" font-size="38" font-weight="700" fill="#fff" text-anchor="middle">${letters}</text></svg>\n`,
  );
  w.image = `/wallet-icons/${file}`;
}
writeFileSync(join(out, "tonconnect-wallets.json"), JSON.stringify(list, null, 1) + "\n");

// Stand-ins for the three pictures @tonconnect/ui itself links (the build points it here: vite.config.mts).
writeFileSync(
  join(icons, "ui-ton.svg"),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><circle cx="24" cy="24" r="24" fill="#0098ea"/><path d="M15 16h18L24 34z" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/><path d="M24 16v18" stroke="#fff" stroke-width="3"/></svg>\n',
);
writeFileSync(
  join(icons, "ui-telegram.svg"),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><circle cx="24" cy="24" r="24" fill="#2aabee"/><path d="M11 23.5l23-9-4 20-7-5-4 4 1-6 9-8-12 7z" fill="#fff"/></svg>\n',
);
writeFileSync(
  join(icons, "ui-walletconnect.svg"),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" rx="12" fill="#3b99fc"/><path d="M13 19c6-6 16-6 22 0l-3 3c-4-4-12-4-16 0zm-2 4l3 3 5-5 5 5 5-5 5 5 3-3-8-8-5 5-5-5z" fill="#fff"/></svg>\n',
);
console.log(`${list.length} wallets written`);
