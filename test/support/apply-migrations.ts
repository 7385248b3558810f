import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Setup files run outside per-file storage isolation and may run more than once;
// applyD1Migrations only applies what is missing.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Each further shard (wrangler.toml's SHARD_n) gets the shard chain, migrations-shard/ (docs/sharding.md).
await applyD1Migrations(env.SHARD_1, env.TEST_SHARD_MIGRATIONS);
