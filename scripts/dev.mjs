// `npm run dev`: local secrets if missing, local D1 migrations, then wrangler dev on :8787 with local
// D1/R2/Durable Objects/Queues state under .wrangler/.
import { spawnSync, spawn } from "node:child_process";
import { ensureDevVars, offlineEnv, root } from "./lib.mjs";

ensureDevVars();
const env = offlineEnv({ WRANGLER_LOG: process.env.WRANGLER_LOG ?? "log" });
const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], { cwd: root, stdio: "inherit", env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const extra = process.argv.slice(2);
const dev = spawn("wrangler", ["dev", "--port", "8787", "--ip", "127.0.0.1", "--test-scheduled", ...extra], { cwd: root, stdio: "inherit", env });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));
