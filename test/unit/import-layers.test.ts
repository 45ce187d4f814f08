/**
 * `npm run lint` holds imports to the layers (ARCHITECTURE.md, Layers): each case is linted with
 * the repository's own eslint.config.mjs, as a file at the path it names, and must be refused by
 * no-restricted-imports (upwards, across cores, out of the SDK or web app, a barrel of the file's
 * own folder) or pass. ESLint runs in a child process: its configuration is an ES module.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "../..");

interface Case {
  file: string;
  code: string;
}

/** The messages of no-restricted-imports per case, from one ESLint run over all of them. */
function lint(cases: Case[]): string[][] {
  const script = `
    import { ESLint } from "eslint";
    const cases = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const c of cases) {
      const [r] = await eslint.lintText(c.code, { filePath: c.file });
      out.push(r.messages.filter((m) => m.ruleId === "no-restricted-imports" || m.fatal).map((m) => m.message));
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(cases)], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`eslint run failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[][];
}

const refused: Array<[string, Case, RegExp]> = [
  [
    "a core importing another core (type only)",
    { file: "trading/x.ts", code: 'import type { LedgerCode } from "../ledger/ledger";\n' },
    /no other core/,
  ],
  ["a core re-exporting another core", { file: "trading/x.ts", code: 'export * from "../chain/tx";\n' }, /no other core/],
  [
    "the contract importing a core",
    { file: "contract/x.ts", code: 'import type { PlaceView } from "../trading/order-views";\n' },
    /contract\/ is below/,
  ],
  ["models importing the contract", { file: "models/x.ts", code: 'export type { Model } from "../contract";\n' }, /models\/ is below/],
  ["lib importing broker glue", { file: "lib/x.ts", code: 'import { defineService } from "../mixins/service";\n' }, /lib\/ is below/],
  ["engine importing lib", { file: "engine/x.ts", code: 'import { configOf } from "../lib/config";\n' }, /engine\/ is below/],
  ["a mixin importing the gateway", { file: "mixins/x.ts", code: 'import "../gateway/socket";\n' }, /mixins\/ is below/],
  ["the gateway importing a service", { file: "gateway/x.ts", code: 'import Api from "../services/api.service";\n' }, /gateway\/ is below/],
  ["a service importing server.ts", { file: "services/x.ts", code: 'import { main } from "../server";\n' }, /below server.ts/],
  [
    "a core importing a test helper",
    { file: "ledger/x.ts", code: 'import { until } from "../test/support/until";\n' },
    /no scripts, benches, tests/,
  ],
  ["a core importing Moleculer", { file: "chain/x.ts", code: 'import type { Service } from "moleculer";\n' }, /framework-free/],
  ["a file importing its own folder's barrel", { file: "contract/x.ts", code: 'import { ROUTES } from "./index";\n' }, /own folder/],
  [
    "a file importing its own folder's barrel by name",
    { file: "contract/x.ts", code: 'import { ROUTES } from "../contract";\n' },
    /contract\/ barrel/,
  ],
  [
    "the web app importing server code",
    { file: "web/src/x.ts", code: 'import { configOf } from "../../lib/config";\n' },
    /web\/ imports the SDK/,
  ],
  [
    "the web app importing the contract",
    { file: "web/src/pages/x.tsx", code: 'import { ROUTES } from "../../../contract/routes";\n' },
    /web\/ imports the SDK/,
  ],
  [
    "the SDK importing the contract",
    { file: "client/src/x.ts", code: 'import { SCHEMAS } from "../../contract/models";\n' },
    /nothing outside client/,
  ],
  ["the page routes importing anything", { file: "contract/web-routes.ts", code: 'import { ID } from "./schema";\n' }, /imports nothing/],
];

const allowed: Array<[string, Case]> = [
  [
    "a core importing downwards and its own folder",
    {
      file: "trading/x.ts",
      code: 'import type { OrderDoc } from "../models/trading";\nimport type { Model } from "../contract";\nimport { LOT } from "../engine/money";\nimport { checkOrder } from "../lib/order-rules";\nimport type { PlaceCommand } from "./market-actor";\n',
    },
  ],
  [
    "a service importing every layer below it",
    {
      file: "services/x.ts",
      code: 'import { call } from "../contract";\nimport { OrderDesk } from "../trading/order-desk";\nimport { Ledger } from "../ledger/ledger";\nimport { defineService } from "../mixins/service";\nimport { envelope } from "../gateway/envelope";\n',
    },
  ],
  [
    "the web app importing the SDK and the page routes",
    {
      file: "web/src/x.ts",
      code: 'import { pathFor } from "../../contract/web-routes";\nimport { ApiClient } from "@pmx/client/client";\nimport { formatUsdt } from "../../client/src/money";\n',
    },
  ],
  ["the web app's own folder named like a server one", { file: "web/src/lib/x.ts", code: 'import { y } from "../lib/y";\n' }],
  ["a bench importing a test oracle", { file: "bench/x.ts", code: 'import { ReferenceBook } from "../test/support/reference-book";\n' }],
  [
    "a test importing anything",
    { file: "test/unit/x.test.ts", code: 'import { SERVICE_SCHEMAS } from "../../services";\nimport { call } from "../../contract";\n' },
  ],
];

describe("npm run lint's layer rule", () => {
  const results = lint([...refused.map(([, c]) => c), ...allowed.map(([, c]) => c)]);

  test.each(refused.map(([name, , why], i) => [name, why, i] as const))("refuses %s", (_name, why, i) => {
    expect(results[i]).toEqual([expect.stringMatching(why)]);
  });

  test.each(allowed.map(([name], i) => [name, refused.length + i] as const))("lets pass %s", (_name, i) => {
    expect(results[i]).toEqual([]);
  });
});
