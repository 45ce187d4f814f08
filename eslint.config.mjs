// One lint configuration for the server, the SDK, the web app, tests and benches.
// Formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

// ---------------------------------------------------------------------------------------------
// Imports go downwards only (ARCHITECTURE.md, "Layers"), type imports included:
//   engine < lib < models < contract < cores < mixins < gateway < services < server.ts
// A core imports no other core; nothing imports a barrel of its own folder. Written with the
// built-in no-restricted-imports, one entry per folder and depth (a specifier is matched as
// written, so the number of "../" that reaches the repository root is part of each pattern).
const CORES = ["trading", "ledger", "chain", "auth", "catalog", "notifier"];
const LAYERS = [["engine"], ["lib"], ["models"], ["contract"], CORES, ["mixins"], ["gateway"], ["services"]];
const SERVER = LAYERS.flat();
const ROOT_MODULES = ["server", "moleculer\\.config"];
const SOURCE = "{ts,tsx,mts,cts,js,mjs,cjs}";
const MAX_DEPTH = 5;

/** Folders or modules by name: the name, then a path inside it or the end. */
const names = (list) => `(?:${list.join("|")})(?:/|$)`;
/** A specifier written in a file `depth` folders below the root that climbs to the root, then `tail`. */
const fromRoot = (depth, tail) => `^(?:\\./)?${depth === 0 ? "\\./" : `(?:\\.\\./){${depth}}`}${tail}`;
/** `.`, `./` or `./index`: the barrel of the importing file's own folder. */
const OWN_BARREL = {
  regex: "^\\.(?:/index(?:\\.[cm]?[jt]sx?)?)?/?$",
  message: "import the file itself: the barrel of your own folder re-exports you (a cycle)",
};

/** What each area may not import: [a regex of the path from the root, why]. */
function forbidden(area) {
  const outside = ["scripts", "bench", "test", "client", "web"];
  if (area === "root") return [[names(outside), "server.ts and moleculer.config.ts import server code only"]];
  if (area === "scripts") return [[names(["bench", "test", "client", "web"]), "scripts/ import server code and scripts/ only"]];
  if (area === "bench") return [["(?:client|web)(?:/|$)|test/(?!support/)", "bench/ imports server code, scripts/ and test/support/ only"]];
  if (area === "test") return [];
  if (area === "client") return [["(?!client/)", "client/ is the SDK package: it imports nothing outside client/"]];
  if (area === "web")
    return [["(?!client/src/|contract/web-routes$)", "web/ imports the SDK (client/src/) and contract/web-routes.ts only"]];
  const rank = LAYERS.findIndex((l) => l.includes(area));
  const above = LAYERS.slice(rank + 1).flat();
  const out = [];
  if (above.length) out.push([names(above), `${area}/ is below ${above.join(", ")}`]);
  out.push([names(ROOT_MODULES), `${area}/ is below server.ts and moleculer.config.ts`]);
  if (CORES.includes(area))
    out.push([names(CORES.filter((c) => c !== area)), "a core imports no other core (share through models/, lib/ or engine/)"]);
  out.push([names(outside), "server code imports no scripts, benches, tests, SDK or web app"]);
  return out;
}

function layerRules(area, depth, files) {
  const patterns = [OWN_BARREL];
  if (area !== "root")
    patterns.push({
      regex: fromRoot(depth, `${area}(?:/index(?:\\.ts)?)?/?$`),
      message: `import the file itself, not the ${area}/ barrel`,
    });
  for (const [tail, why] of forbidden(area))
    patterns.push({ regex: fromRoot(depth, `(?:${tail})`), message: `${why} (ARCHITECTURE.md, Layers)` });
  if (SERVER.includes(area) || area === "root")
    patterns.push({ regex: "^@pmx/", message: "server code does not import the SDK (ARCHITECTURE.md, Layers)" });
  // The framework stays in the shells, mixins and gateway: cores get ports (lib/ holds Moleculer's error and metric glue).
  if (["engine", "models", "contract", ...CORES].includes(area))
    patterns.push({
      regex: "^moleculer(?:-[a-z-]+)?(?:/|$)",
      message: `${area}/ is framework-free: no Moleculer import (ARCHITECTURE.md, Layers)`,
    });
  return { files, rules: { "no-restricted-imports": ["error", { patterns }] } };
}

const AREAS = [...SERVER, "scripts", "bench", "test", "client", "web"];
const layerConfigs = [
  layerRules("root", 0, [`*.${SOURCE}`]),
  ...AREAS.flatMap((area) =>
    Array.from({ length: MAX_DEPTH }, (_, i) => layerRules(area, i + 1, [`${area}/${"*/".repeat(i)}*.${SOURCE}`])),
  ),
  // Compiled by the gateway and by the app alike: it imports nothing.
  {
    files: ["contract/web-routes.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: ".", message: "contract/web-routes.ts imports nothing: the web app compiles it too" }] },
      ],
    },
  },
];

export default tseslint.config(
  {
    ignores: ["**/node_modules/**", "dist/**", "dist-bench/**", "client/dist/**", "coverage/**", "data/**", "test-artifacts/**", ".tmp/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        queueMicrotask: "readonly",
        URL: "readonly",
        fetch: "readonly",
        performance: "readonly",
        structuredClone: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        AbortController: "readonly",
        __dirname: "readonly",
        require: "readonly",
        module: "writable",
      },
    },
    rules: {
      // Unused names are errors, except the ones a signature needs (`_x`).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests load built modules from dist/ and untyped packages at run time, and read HTTP answers loosely (their assertions check them).
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
  { files: ["**/*.js", "**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  // Declarations name classes only for their types.
  { files: ["**/*.d.ts"], rules: { "@typescript-eslint/no-unused-vars": "off" } },
  ...layerConfigs,
  prettier,
);
