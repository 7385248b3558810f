#!/usr/bin/env node
// The `imghost` command (package.json "bin"): plain JavaScript, so it runs straight after `npm install`, no build.
import { main } from "../src/main.js";

// `imghost ls --json | head -1`: the reader went away; that ends the command quietly, as it does for cat.
process.stdout.on("error", (err) => {
  if (/** @type {NodeJS.ErrnoException} */ (err).code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv);
