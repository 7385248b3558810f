import { readFileSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs build script without types
import { buildAssets } from "./scripts/build-assets.mjs";
// @ts-expect-error: a plain .mjs reporter without types
import TestWatchdog from "./scripts/test-watchdog.mjs";

export default defineConfig(async () => {
  // wrangler.toml [assets] serves dist/site: build it (and src/pages/assets.gen.ts) before the pool starts.
  buildAssets();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  const shardMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations-shard"));
  // The one-off SQL run after the deploy of migration 0010 (test/db/migration-0010.test.ts runs it).
  const ownerStateResync = readFileSync(path.join(import.meta.dirname, "scripts/owner-state-resync.sql"), "utf8");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // The analysis queue as wrangler.toml has it, but batched for up to 1 s (production: 0, at once).
          // Delivered at once, the analyses a test file's uploads start are still running when the pool ends
          // that file's isolate, and the full suite stalled there (after test/uploads/multipart.test.ts).
          queueConsumers: {
            "image-jobs": { maxBatchSize: 4, maxBatchTimeout: 1, maxRetries: 5, deadLetterQueue: "image-jobs-dlq" },
            "image-jobs-dlq": { maxBatchSize: 10, maxBatchTimeout: 1 },
          },
          // wrangler.toml's EMAIL (simulated: nothing leaves the machine), but accepting only MAIL_FROM's sender, as
          // Email Sending accepts only onboarded domains: test/mail/delivery.test.ts makes sends throw with another.
          email: { send_email: [{ name: "EMAIL", allowed_sender_addresses: ["noreply@example.com"] }] },
          // A second, empty database: test/db/migration-0007.test.ts applies migrations to it one by one.
          d1Databases: { MIGRATION_TEST_DB: "migration-test" },
          bindings: {
            TEST_MIGRATIONS: migrations,
            TEST_SHARD_MIGRATIONS: shardMigrations,
            OWNER_STATE_RESYNC: ownerStateResync,
            ENVIRONMENT: "test",
            JWT_SECRET: "test-secret-for-vitest-only-0123456789abcdef",
            ADMIN_EMAILS: "root@example.com",
            // Other suites sign up many users from one IP; test/limits sets real limits per file (see there).
            RATE_LIMIT_MULTIPLIER: "1000",
            BILLING_WEBHOOK_SECRET: "test-webhook-secret-for-vitest-only",
            TOTP_ENCRYPTION_SECRET: "test-totp-sealing-secret-for-vitest-only-0123456789",
            SIGNED_URL_SECRET: "test-signed-link-secret-for-vitest-only-0123456789",
            // Finalize answers at once (analysis "pending") unless a test asks for the wait: most suites upload
            // many files and don't need their analysis. test/uploads/finalize-wait.test.ts sets its own.
            FINALIZE_WAIT_MS: "0",
            // Byte links decide from D1 on every view, so tests may change rows directly and see the result;
            // test/serving/access-records.test.ts turns the edge-cached access records on and tests them.
            ACCESS_RECORD_SECONDS: "0",
            // One counter call per hit, sent at once: counting tests read the count right after their requests.
            // test/serving/view-coalesce.test.ts turns the gathering on and tests it.
            VIEW_COALESCE_MS: "0",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      setupFiles: ["./test/support/apply-migrations.ts"],
      // No on-disk module cache. With it, each new file's runtime is sent, in ONE WebSocket message, the code of
      // every module of its import graph that the run has transformed so far (vitest's fetchWarmModules; the
      // pool inlines the cached files). That message grows along the run, and past workerd's 32 MiB limit the
      // runtime closes the socket (1009 "Message is too large"): every file after it failed, or the run stopped.
      // Measured: 15.3 MB at the start, 34.5 MB after test/analysis/job.test.ts transformed the large fixtures.
      // Without the cache each module comes in a message of its own (the largest: a 5.7 MB fixture).
      fsModuleCache: false,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      teardownTimeout: 30_000,
      // A stall outside every test (the pool between files, a file's setup, the exit) fails the run within
      // minutes, naming each file in flight and its step (scripts/test-watchdog.mjs). Above the longest
      // test's or hook's own timeout (180 s), so a slow one fails on its timeout first.
      reporters: ["default", new TestWatchdog({ name: "workerd tests", stallSeconds: 240 })],
    },
  };
});
