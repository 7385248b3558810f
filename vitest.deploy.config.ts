// `npm run test:deploy`: the deploy's planning (scripts/deploy/) as plain Node code, against committed samples of
// wrangler's output and a local stand-in of the Cloudflare API (test/deploy/fake-cloudflare-api.mjs). Nothing
// here reaches Cloudflare.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/deploy/**/*.test.mjs"],
    environment: "node",
    // The end-to-end file runs the real wrangler (a few seconds a command) several times.
    testTimeout: 120_000,
    fileParallelism: false,
  },
});
