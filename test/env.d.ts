declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    TEST_SHARD_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Empty at the start of a test file (vitest.config.ts): for applying migrations step by step. */
    MIGRATION_TEST_DB: D1Database;
    /** scripts/owner-state-resync.sql, the SQL run once after the deploy of migration 0010. */
    OWNER_STATE_RESYNC: string;
  }
}
