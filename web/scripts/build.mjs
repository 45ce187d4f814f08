/**
 * `npm run build`'s web step: builds the app with Vite (web/vite.config.mts) unless dist/web is
 * newer than everything it is made from, so that `npm start` with nothing changed starts at once.
 * `npm run build:web` always builds.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const report = join(root, "dist/web/build-report.json");
const inputs = [
  "web/index.html",
  "web/docs",
  "web/src",
  "web/public",
  "web/vite.config.mts",
  "client/src",
  "contract/web-routes.ts",
  "package-lock.json",
];

function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

const built = existsSync(report) ? statSync(report).mtimeMs : 0;
const changed = inputs
  .map((p) => join(root, p))
  .filter(existsSync)
  .some((p) => newest(p) > built);
// Silent when up to date, and the build's report goes to stderr: `npm run --silent admin-key`
// (which builds first) prints only the key on stdout.
if (!changed) process.exit(0);
const r = spawnSync(
  process.execPath,
  [join(root, "node_modules/vite/bin/vite.js"), "build", "--config", join(root, "web/vite.config.mts")],
  { cwd: root, stdio: "inherit" },
);
process.exit(r.status ?? 1);
