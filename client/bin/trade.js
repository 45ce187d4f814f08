#!/usr/bin/env node
"use strict";
// Thin launcher: the CLI itself is compiled to dist/ (`npm run build` here or in the repository;
// `npm pack` builds it into the package).
const { join } = require("node:path");
let cli;
try {
  cli = require("../dist/cli");
} catch (err) {
  if (err && err.code === "MODULE_NOT_FOUND" && String(err.message).includes(join("dist", "cli"))) {
    process.stderr.write(
      `trade is not built yet: run \`npm run build\` in ${join(__dirname, "..")} (or \`npm start\` in the exchange's repository).\n`,
    );
    process.exit(1);
  }
  throw err;
}
cli.main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
