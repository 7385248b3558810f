// `npm run bench -- <names> --against <commit>`: the same benches, the same harness (this checkout's bench/*.mjs),
// run back to back against this checkout's app and against the app of <commit>, checked out in a worktree under
// the system's temp directory (node_modules linked from here). Each figure is a ratio to a bare baseline of its own
// worker, measured in its own run; the table puts the two side by side, so a regression is one number.
import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { medianRatio } from "../../bench/lib/report.mjs";

const git = (root, ...args) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" }).trim();

/** A worktree of `rev` (made once per commit, reused after), with this checkout's node_modules. */
export function againstWorktree(root, rev) {
  const sha = git(root, "rev-parse", "--verify", `${rev}^{commit}`);
  const dir = path.join(tmpdir(), `imghost-bench-${sha.slice(0, 12)}`);
  if (!existsSync(path.join(dir, ".git"))) git(root, "worktree", "add", "--detach", "--force", dir, sha);
  if (!existsSync(path.join(dir, "node_modules"))) symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  return { sha, dir };
}

const ratio = (a, b) => (a && b ? a / b : null);
const fmt = (v, digits = 2) => (v === null || v === undefined ? "-" : v.toFixed(digits));

/** The figures a bench's summary says, as [measure, value] pairs; a bench without a comparator says none. */
function figures(name, summary) {
  if (!summary) return [];
  if (name === "serving") {
    const rows = summary.rows ?? [];
    const find = (test) => rows.find(test);
    const base = { A: find((r) => r.base === "A"), B: find((r) => r.base === "B" && r.label.startsWith("bare")), E: find((r) => r.label.includes("(baseline E)")) };
    const out = [];
    for (const r of rows) {
      if (r.label.startsWith("bare") || r.label.startsWith("static")) continue;
      out.push([`${r.label} vs baseline ${r.base}`, ratio(r.rps, base[r.base]?.rps)]);
      if (r.base === "A" && base.E) out.push([`${r.label} vs baseline E`, ratio(r.rps, base.E.rps)]);
      if (r.base === "A" && base.E) out.push([`${r.label} vs baseline E, median of rounds`, medianRatio(r.roundsRps, base.E.roundsRps)]);
      out.push([`${r.label}: CPU ms over baseline ${r.base}`, r.cpuMsPerRequest - base[r.base]?.cpuMsPerRequest, "ms"]);
    }
    return out;
  }
  if (name === "uploads") {
    return (summary.ratios ?? []).flatMap((r) => [
      [`direct PUT ${r.size} vs bare put`, r.throughput],
      [`direct PUT ${r.size}: CPU vs bare`, r.cpu],
    ]);
  }
  if (name === "profile") {
    return Object.entries(summary.cases ?? {}).flatMap(([c, r]) => [[`${c}: workerd CPU per request while profiled`, r.cpuMsPerRequest, "ms"], ...r.files.slice(0, 8).map((f) => [`${c}: ${f.name}`, 100 * f.share, "% of samples"])]);
  }
  return [];
}

/** Prints (and returns) HEAD's and the other commit's figures side by side. */
export function compareRuns(name, head, against, label) {
  const a = figures(name, head);
  const b = new Map(figures(name, against).map(([k, v]) => [k, v]));
  if (a.length === 0) return [];
  const rows = a.map(([measure, value, unit]) => ({ measure, head: value, against: b.get(measure) ?? null, unit }));
  const width = Math.max(...rows.map((r) => r.measure.length));
  console.log(`\n${name}: this checkout vs ${label}`);
  console.log(`${"measure".padEnd(width)}  ${"HEAD".padStart(7)}  ${label.padStart(12)}`);
  for (const r of rows) console.log(`${r.measure.padEnd(width)}  ${fmt(r.head).padStart(7)}  ${fmt(r.against).padStart(12)}${r.unit ? ` ${r.unit}` : "x"}`);
  return rows;
}
