// `npm run bench [-- name ...] [-- --quick]`: runs every bench/*.bench.mjs (or the named ones) one after
// another, each in its own Node process, then writes bench/results/run-<time>.json with all their summaries.
// Benchmarks are not part of `npm test`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const benchDir = path.join(root, "bench");
const resultsDir = path.join(benchDir, "results");

const args = process.argv.slice(2);
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
const run = { at: new Date().toISOString(), flags, benchmarks: {} };
let failed = 0;
for (const name of selected) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, [path.join(benchDir, `${name}.bench.mjs`), ...flags], { cwd: root, env, stdio: "inherit" });
  const seconds = (Date.now() - started) / 1000;
  const summaryFile = path.join(resultsDir, `${name}.json`);
  const ok = r.status === 0;
  if (!ok) failed++;
  let summary = null;
  if (ok && existsSync(summaryFile)) summary = JSON.parse(readFileSync(summaryFile, "utf8"));
  run.benchmarks[name] = { ok, exitCode: r.status, seconds, summary };
  console.log(`=== ${name}: ${ok ? "done" : `FAILED (exit ${r.status ?? r.signal})`} in ${seconds.toFixed(1)} s`);
}
mkdirSync(resultsDir, { recursive: true });
const file = path.join(resultsDir, `run-${run.at.replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify(run, null, 2) + "\n");
console.log(`\nrun summary: ${path.relative(root, file)}`);
process.exit(failed ? 1 : 0);
