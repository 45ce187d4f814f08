/**
 * `npm run contract:sdk`: writes the SDK's generated modules from the contract into
 * client/src/generated/ (models.ts: the REST shapes; routes.ts: every route's method, path and
 * types; socket.ts: the Socket.IO payloads), so the
 * SDK package carries them and imports nothing from outside client/. Run by `npm run build`
 * before the SDK compiles; a test regenerates them and compares with the committed files.
 * Usage: node dist/scripts/contract-sdk.js [out-dir]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SCHEMAS } from "../contract/models";
import { ROUTES } from "../contract/routes";
import { SOCKET_SCHEMAS } from "../contract/events";
import { sdkModels, sdkRoutes, sdkSocket } from "../contract/sdk";
import type { JsonSchema } from "../contract/schema";

/** Where the generated module goes inside the SDK. */
export const SDK_GENERATED_DIR = "client/src/generated";

/** The generated modules of the SDK by file name, made from the contract now. */
export function sdkModules(): Record<string, string> {
  return {
    "models.ts": sdkModels(SCHEMAS as unknown as Record<string, JsonSchema>, ROUTES),
    "socket.ts": sdkSocket(SOCKET_SCHEMAS as unknown as Record<string, JsonSchema>),
    "routes.ts": sdkRoutes(ROUTES),
  };
}

/** Writes one module if its text changed (an unchanged file keeps its time: the web build and tsc -b skip it); says whether it wrote. */
function writeIfChanged(file: string, text: string): boolean {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return false;
  writeFileSync(file, text);
  return true;
}

/** Writes every generated module into `dir`; answers the models file (the first) and the files it wrote. */
export function writeSdkModels(dir: string): { file: string; written: boolean; files: string[] } {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const [name, text] of Object.entries(sdkModules())) if (writeIfChanged(join(dir, name), text)) files.push(join(dir, name));
  const file = join(dir, "models.ts");
  return { file, written: files.includes(file), files };
}

if (require.main === module) {
  // From the repository root (npm scripts run there), unless told otherwise. Quiet on stdout:
  // `npm run --silent admin-key` builds first and prints only the key.
  const { files } = writeSdkModels(resolve(process.argv[2] ?? SDK_GENERATED_DIR));
  for (const file of files) console.error(`contract:sdk wrote ${file}`);
}
