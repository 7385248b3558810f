// Fails when worker-configuration.d.ts is stale: regenerates it in place (the header and import paths
// depend on the output path), compares with the committed text and puts the committed file back.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { offlineEnv, root } from "./lib.mjs";

const file = path.join(root, "worker-configuration.d.ts");
const committed = readFileSync(file, "utf8");
const r = spawnSync("wrangler", ["types", "--strict-vars=false"], { cwd: root, stdio: ["ignore", "ignore", "inherit"], env: offlineEnv() });
const fresh = readFileSync(file, "utf8");
writeFileSync(file, committed);
if (r.status !== 0) process.exit(r.status ?? 1);
if (fresh.replace(/\r\n/g, "\n") !== committed.replace(/\r\n/g, "\n")) {
  console.error("worker-configuration.d.ts is stale: run `npm run types` and commit the result.");
  process.exit(1);
}
console.log("worker-configuration.d.ts is up to date.");
