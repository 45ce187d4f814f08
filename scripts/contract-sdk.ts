/**
 * `npm run contract:sdk`: writes the SDK's generated models (client/src/generated/models.ts) from
 * the contract, so the SDK package carries them and imports nothing from outside client/. Run by
 * `npm run build` before the SDK compiles; a test regenerates and compares with the committed file.
 * Usage: node dist/scripts/contract-sdk.js [out-dir]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SCHEMAS } from "../contract/models";
import { ROUTES } from "../contract/routes";
import { sdkModels } from "../contract/sdk";
import type { JsonSchema } from "../contract/schema";

/** Where the generated module goes inside the SDK. */
export const SDK_GENERATED_DIR = "client/src/generated";

/** Writes the module if its text changed (an unchanged file keeps its time: the web build and tsc -b skip it); says whether it wrote. */
export function writeSdkModels(dir: string): { file: string; written: boolean } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "models.ts");
  const text = sdkModels(SCHEMAS as unknown as Record<string, JsonSchema>, ROUTES);
  if (existsSync(file) && readFileSync(file, "utf8") === text) return { file, written: false };
  writeFileSync(file, text);
  return { file, written: true };
}

if (require.main === module) {
  // From the repository root (npm scripts run there), unless told otherwise. Quiet on stdout:
  // `npm run --silent admin-key` builds first and prints only the key.
  const { file, written } = writeSdkModels(resolve(process.argv[2] ?? SDK_GENERATED_DIR));
  if (written) console.error(`contract:sdk wrote ${file}`);
}
