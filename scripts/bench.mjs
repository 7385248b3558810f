// `npm run bench [-- name ...] [-- --quick] [-- --against <commit>]`: runs every bench/*.bench.mjs (or the named
// ones) one after another, each in its own Node process, then writes bench/results/run-<time>.json with all their
// summaries. --against: each bench again, right after, against <commit>'s app (scripts/bench/against.mjs).
// Benchmarks are not part of `npm test`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { againstWorktree, compareRuns } from "./bench/against.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const benchDir = path.join(root, "bench");
const resultsDir = path.join(benchDir, "results");

const argv = process.argv.slice(2);
const againstAt = argv.indexOf("--against");
const againstRev = againstAt >= 0 ? argv[againstAt + 1] : undefined;
if (againstAt >= 0 && !againstRev) {
  console.error("--against needs a commit");
  process.exit(2);
}
const args = againstAt >= 0 ? argv.filter((_, i) => i !== againstAt && i !== againstAt + 1) : argv;
const flags = args.filter((a) => a.startsWith("--"));
const names = args.filter((a) => !a.startsWith("--")).map((a) => path.basename(a).replace(/\.bench\.mjs$/, ""));

const all = readdirSync(benchDir)
  .filter((f) => f.endsWith(".bench.mjs"))
  .map((f) => f.replace(/\.bench\.mjs$/, ""))
  .sort();
if (flags.includes("--list")) {
  console.log(all.join("\n"));
  process.exit(0);
}
const unknown = names.filter((n) => !all.includes(n));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}
const selected = names.length ? names : all;

// node_modules/.bin first: its Node 22 runs the benches and wrangler.
const env = { ...process.env, PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}` };
const against = againstRev ? againstWorktree(root, againstRev) : undefined;
const run = { at: new Date().toISOString(), flags, against: against && { rev: againstRev, sha: against.sha }, benchmarks: {} };
let failed = 0;

/** One bench in its own process; `appRoot`: another checkout's app (--against). */
function runBench(name, label, appRoot) {
  console.log(`\n=== ${name}${label ? ` (${label})` : ""} ===`);
  const started = Date.now();
  const benchEnv = appRoot ? { ...env, BENCH_APP_ROOT: appRoot } : env;
  const r = spawnSync(process.execPath, [path.join(benchDir, `${name}.bench.mjs`), ...flags], { cwd: root, env: benchEnv, stdio: "inherit" });
  const seconds = (Date.now() - started) / 1000;
  const summaryFile = path.join(resultsDir, `${name}.json`);
  const ok = r.status === 0;
  if (!ok) failed++;
  let summary = null;
  if (ok && existsSync(summaryFile)) summary = JSON.parse(readFileSync(summaryFile, "utf8"));
  console.log(`=== ${name}: ${ok ? "done" : `FAILED (exit ${r.status ?? r.signal})`} in ${seconds.toFixed(1)} s`);
  return { ok, exitCode: r.status, seconds, summary };
}

for (const name of selected) {
  run.benchmarks[name] = runBench(name);
  if (!against) continue;
  const label = againstRev.slice(0, 12);
  const other = runBench(name, `against ${label}`, against.dir);
  run.benchmarks[name].against = other;
  run.benchmarks[name].comparison = compareRuns(name, run.benchmarks[name].summary, other.summary, label);
}
mkdirSync(resultsDir, { recursive: true });
const file = path.join(resultsDir, `run-${run.at.replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify(run, null, 2) + "\n");
console.log(`\nrun summary: ${path.relative(root, file)}`);
process.exit(failed ? 1 : 0);
