#!/usr/bin/env node
"use strict";
// Thin launcher: the CLI itself is compiled to dist/ (npm run build).
require("../dist/cli")
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
