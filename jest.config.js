/** Jest: TypeScript through SWC (no type-check at test time; `npm run typecheck` does that). */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }] },
  // A ceiling, not a pace: tests wait on conditions; this only bounds a stuck one (loaded CI machines run 3-4x slower).
  testTimeout: 120_000,
  // The web app's modules import the SDK as @pmx/client (web/vite.config.mts); unit tests of them too.
  moduleNameMapper: { "^@pmx/client/(.*)$": "<rootDir>/client/src/$1" },
};
