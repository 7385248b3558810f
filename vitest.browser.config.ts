// Browser tests (test/browser/*.test.mjs): plain Node environment, Debian's chromium driven by
// playwright-core against a `wrangler dev` the tests start themselves. Run with `npm run test:browser`.
// The workspaces' Node tests (packages/*/test/*.test.mjs, e.g. the imghost CLI against wrangler dev) run here too:
// they need the same one-at-a-time `wrangler dev` per suite, without a browser.
import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs build script without types
import { buildAssets } from "./scripts/build-assets.mjs";
// @ts-expect-error: a plain .mjs reporter without types
import TestWatchdog from "./scripts/test-watchdog.mjs";

buildAssets();

export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.mjs", "packages/*/test/**/*.test.mjs"],
    environment: "node",
    testTimeout: 180_000,
    // Above what a start may take when every step of it is slow (two bounded attempts of the worker, two of
    // chromium): a step that hangs fails on its own bound, with its name, before this fires.
    hookTimeout: 480_000,
    fileParallelism: false,
    teardownTimeout: 30_000,
    // Above the hook timeout: a start that hangs fails on its own bound first; anything else fails here.
    reporters: ["default", new TestWatchdog({ name: "browser tests", stallSeconds: 540 })],
  },
});
