// `npm run db:migrate:local` / `npm run db:migrate:remote` (and `npm run dev`): applies to every D1 database in
// wrangler.toml the chain its binding names there: DB (the directory and shard 0) `migrations/`, each SHARD_n
// `migrations-shard/` (docs/sharding.md). One command for every database, locally or on the account.
// `--env production` (db:migrate:remote) takes the databases of [env.production], as wrangler reads them;
// `npm run deploy` applies the same chains itself (scripts/deploy/plan.mjs).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ensureDevVars, offlineEnv, root } from "./lib.mjs";

const isChain = (name) => name === "DB" || /^SHARD_\d+$/.test(name ?? "");

/** The D1 bindings of wrangler.toml's top level, in order: DB first, then SHARD_1, SHARD_2, ... */
export function d1Bindings(toml) {
  const blocks = toml.split(/^\[\[d1_databases\]\]\s*$/m).slice(1);
  return blocks.map((b) => /^binding\s*=\s*"([^"]+)"/m.exec(b)?.[1]).filter(isChain);
}

/** The D1 bindings of a wrangler environment, as wrangler itself resolves it (environments inherit none). */
function envD1Bindings(env) {
  const { unstable_readConfig } = createRequire(import.meta.url)("wrangler");
  return unstable_readConfig({ config: path.join(root, "wrangler.toml"), env }).d1_databases.map((d) => d.binding).filter(isChain);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [where, flag, envName] = process.argv.slice(2);
  if ((where !== "--local" && where !== "--remote") || (flag !== undefined && (flag !== "--env" || !envName))) {
    console.error("usage: node scripts/d1-migrate.mjs --local|--remote [--env NAME]");
    process.exit(2);
  }
  ensureDevVars();
  const env = offlineEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "log" });
  const bindings = envName ? envD1Bindings(envName) : d1Bindings(readFileSync(path.join(root, "wrangler.toml"), "utf8"));
  const envArgs = envName ? ["--env", envName] : [];
  for (const binding of bindings) {
    console.log(`d1 migrations: ${binding} (${where.slice(2)}${envName ? `, env ${envName}` : ""})`);
    const run = spawnSync("wrangler", ["d1", "migrations", "apply", binding, where, ...envArgs], { cwd: root, stdio: "inherit", env });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
}
