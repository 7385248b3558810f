// Runs a tool from node_modules/.bin with the offline-hygiene environment wrangler needs here:
// no metrics, no request.cf fetch, no banner/update check. Also makes sure a local .dev.vars exists.
import { spawnSync } from "node:child_process";
import { ensureDevVars, offlineEnv } from "./lib.mjs";

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error("usage: node scripts/with-env.mjs <command> [args...]");
  process.exit(2);
}
ensureDevVars();
const result = spawnSync(cmd, args, { stdio: "inherit", env: offlineEnv(), shell: false });
if (result.error) {
  console.error(result.error.message);
  process.exit(1);
}
process.exit(result.status ?? 1);
