declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Empty at the start of a test file (vitest.config.ts): for applying migrations step by step. */
    MIGRATION_TEST_DB: D1Database;
  }
}
