// `npm run db:generate [-- --name x]`: drizzle-kit for each chain (docs/sharding.md): database DB's from
// src/db/schema.ts into migrations/ (drizzle.config.ts), the shards' from src/db/shard-only-schema.ts into
// migrations-shard/ (drizzle.shard.config.ts). The arguments go to both.
import { spawnSync } from "node:child_process";
import { root } from "./lib.mjs";

for (const config of ["drizzle.config.ts", "drizzle.shard.config.ts"]) {
  const run = spawnSync("drizzle-kit", ["generate", "--config", config, ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
