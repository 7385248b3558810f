// The workspace packages' tests (packages/*/test/**/*.test.mjs): plain Node against a `wrangler dev` each suite
// starts itself, importing the packages as their users do (by name, built: `npm run test:packages` builds first).
import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs reporter without types
import TestWatchdog from "./scripts/test-watchdog.mjs";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.mjs"],
    environment: "node",
    testTimeout: 180_000,
    // Above what a start of wrangler dev may take when every step is slow (two bounded attempts of 150 s).
    hookTimeout: 330_000,
    fileParallelism: false,
    teardownTimeout: 30_000,
    reporters: ["default", new TestWatchdog({ name: "package tests", stallSeconds: 400 })],
  },
});
