// `npm run dev`: local secrets if missing, local D1 migrations, then wrangler dev on :8787 (or `--port N`,
// or PORT=N, with the four public URLs following it) with local D1/R2/Durable Objects/Queues state under .wrangler/.
import { spawnSync, spawn } from "node:child_process";
import { ensureDevVars, offlineEnv, root } from "./lib.mjs";
import { devArgs } from "./dev-args.mjs";

ensureDevVars();
const env = offlineEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "log" });
// Every local database gets its chain: DB migrations/, each SHARD_n migrations-shard/ (scripts/d1-migrate.mjs).
const migrate = spawnSync(process.execPath, ["scripts/d1-migrate.mjs", "--local"], { cwd: root, stdio: "inherit", env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const { port, rest, vars } = devArgs(process.argv.slice(2), process.env);
const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
const dev = spawn("wrangler", ["dev", "--port", String(port), "--ip", "127.0.0.1", "--test-scheduled", ...varArgs, ...rest], { cwd: root, stdio: "inherit", env });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));
