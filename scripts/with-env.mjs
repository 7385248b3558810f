// Runs a tool from node_modules/.bin with the offline-hygiene environment wrangler needs here:
// no metrics, no request.cf fetch, no banner/update check. Also makes sure a local .dev.vars exists.
import { spawnSync } from "node:child_process";
import { ensureDevVars, offlineEnv } from "./lib.mjs";

// `--verbose` first: let wrangler print its normal output (deploy summaries), not just warnings.
let argv = process.argv.slice(2);
const verbose = argv[0] === "--verbose";
if (verbose) argv = argv.slice(1);
const [cmd, ...args] = argv;
if (!cmd) {
  console.error("usage: node scripts/with-env.mjs <command> [args...]");
  process.exit(2);
}
ensureDevVars();
const result = spawnSync(cmd, args, { stdio: "inherit", env: offlineEnv(verbose ? { WRANGLER_LOG: "log" } : {}), shell: false });
if (result.error) {
  console.error(result.error.message);
  process.exit(1);
}
process.exit(result.status ?? 1);
