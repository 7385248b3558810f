// bench/wrangler.bench.toml is wrangler.toml with the bench entry (bench/worker.ts) as main, its own name,
// and relative paths re-pointed from bench/. It is generated, so it cannot drift from the real bindings:
//   node bench/lib/bench-config.mjs          check (exit 1 when bench/wrangler.bench.toml is stale)
//   node bench/lib/bench-config.mjs --write  regenerate it
// startWorker() uses benchConfigPath(), which falls back to a fresh copy under bench/results/ (git-ignored)
// with a warning when the committed file is stale, so a benchmark always runs with the current bindings.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./paths.mjs";

export const BENCH_CONFIG = path.join(root, "bench", "wrangler.bench.toml");
const BENCH_ENTRY = path.join(root, "bench", "worker.ts");

/** The bench config text for a file written in directory `dir`, derived from the current wrangler.toml. */
export function renderBenchConfig(dir = path.dirname(BENCH_CONFIG)) {
  const source = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  const rel = (p) => path.relative(dir, path.resolve(root, p)).split(path.sep).join("/");
  let seenName = false;
  const body = source
    .split("\n")
    .map((line) => {
      const m = /^(\s*)(name|main|migrations_dir|directory|cwd|watch_dir)(\s*=\s*)"([^"]*)"(.*)$/.exec(line);
      if (!m) return line;
      const [, indent, key, eq, value, rest] = m;
      if (key === "name" && !seenName && indent === "") {
        seenName = true;
        return `${indent}name = "${value}-bench"${rest}`;
      }
      if (key === "main") return `${indent}main = "${rel(BENCH_ENTRY)}"${rest}`;
      // build.cwd stays as it is: wrangler resolves it against its own working directory (the repository root,
      // where the benches start it), not against the config file's directory.
      if (key === "cwd") return line;
      if (key === "migrations_dir" || key === "directory" || key === "watch_dir") return `${indent}${key}${eq}"${rel(value)}"${rest}`;
      return line;
    })
    .join("\n");
  return (
    "# GENERATED from wrangler.toml by bench/lib/bench-config.mjs (--write); benchmarks only, never deployed.\n" +
    "# Same bindings as production; the entry adds bare /__bench/ baseline routes in front of the real app.\n" +
    body
  );
}

/** Path of an up-to-date bench config: the committed one, or (stale) a regenerated copy under bench/results/. */
export function benchConfigPath() {
  const expected = renderBenchConfig();
  if (existsSync(BENCH_CONFIG) && readFileSync(BENCH_CONFIG, "utf8") === expected) return BENCH_CONFIG;
  const dir = path.join(root, "bench", "results", ".config");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "wrangler.bench.toml");
  writeFileSync(file, renderBenchConfig(dir));
  console.warn("warning: bench/wrangler.bench.toml differs from wrangler.toml; using a regenerated copy. Update it: node bench/lib/bench-config.mjs --write");
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const expected = renderBenchConfig();
  if (process.argv.includes("--write")) {
    writeFileSync(BENCH_CONFIG, expected);
    console.log(`wrote ${path.relative(root, BENCH_CONFIG)}`);
  } else if (!existsSync(BENCH_CONFIG) || readFileSync(BENCH_CONFIG, "utf8") !== expected) {
    console.error("bench/wrangler.bench.toml is stale; run: node bench/lib/bench-config.mjs --write");
    process.exit(1);
  } else {
    console.log("bench/wrangler.bench.toml is up to date");
  }
}
