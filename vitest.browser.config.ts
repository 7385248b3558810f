// Browser tests (test/browser/*.test.mjs): plain Node environment, Debian's chromium driven by
// playwright-core against a `wrangler dev` the tests start themselves. Run with `npm run test:browser`.
import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs build script without types
import { buildAssets } from "./scripts/build-assets.mjs";

buildAssets();

export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.mjs"],
    environment: "node",
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
