// `npm run db:migrate:local` / `npm run db:migrate:remote` (and `npm run dev`): applies to every D1 database in
// wrangler.toml the chain its binding names there: DB (the directory and shard 0) `migrations/`, each SHARD_n
// `migrations-shard/` (docs/sharding.md). One command for every database, locally or on the account.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ensureDevVars, offlineEnv, root } from "./lib.mjs";

/** The D1 bindings of wrangler.toml, in order: DB first, then SHARD_1, SHARD_2, ... */
export function d1Bindings(toml) {
  const blocks = toml.split(/^\[\[d1_databases\]\]\s*$/m).slice(1);
  return blocks.map((b) => /^binding\s*=\s*"([^"]+)"/m.exec(b)?.[1]).filter((name) => name === "DB" || /^SHARD_\d+$/.test(name ?? ""));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const where = process.argv[2];
  if (where !== "--local" && where !== "--remote") {
    console.error("usage: node scripts/d1-migrate.mjs --local|--remote");
    process.exit(2);
  }
  ensureDevVars();
  const env = offlineEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "log" });
  for (const binding of d1Bindings(readFileSync(path.join(root, "wrangler.toml"), "utf8"))) {
    console.log(`d1 migrations: ${binding} (${where.slice(2)})`);
    const run = spawnSync("wrangler", ["d1", "migrations", "apply", binding, where], { cwd: root, stdio: "inherit", env });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
}
