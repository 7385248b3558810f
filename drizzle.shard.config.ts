import { defineConfig } from "drizzle-kit";

// The chain of the shard databases SHARD_1, SHARD_2, ... (docs/sharding.md): owner tables only. Database DB
// (the directory and shard 0) has its own chain, drizzle.config.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/shard-only-schema.ts",
  out: "./migrations-shard",
});
