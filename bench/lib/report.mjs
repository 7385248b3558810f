// Statistics, console tables and the JSON summary every benchmark writes under bench/results/ (git-ignored).
import { mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { root } from "./paths.mjs";

export const resultsDir = path.join(root, "bench", "results");

/** Summary statistics of a list of numbers (any unit). */
export function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  if (n === 0) return { n: 0, min: NaN, median: NaN, mean: NaN, p90: NaN, p99: NaN, max: NaN, stddev: NaN };
  const q = (p) => {
    const i = (n - 1) * p;
    const lo = Math.floor(i);
    return v[lo] + (v[Math.min(lo + 1, n - 1)] - v[lo]) * (i - lo);
  };
  const mean = v.reduce((s, x) => s + x, 0) / n;
  const stddev = Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
  return { n, min: v[0], median: q(0.5), mean, p90: q(0.9), p99: q(0.99), max: v[n - 1], stddev };
}

/** A number with sensible significant digits: 0.00123 -> "0.00123", 12.345 -> "12.3", 123456 -> "123,456". */
export function fmt(x, digits = 3) {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString("en-US");
  if (a === 0) return "0";
  return Number(x.toPrecision(digits)).toString();
}

/** "6.02x" style ratio of value to baseline. */
export function ratio(value, baseline) {
  if (!baseline || !Number.isFinite(value)) return "-";
  const r = value / baseline;
  return r >= 100 ? `${Math.round(r).toLocaleString("en-US")}x` : `${fmt(r, 3)}x`;
}

/**
 * Prints an aligned table. columns: [{ key, title, align?: "left"|"right", format?: (v,row)=>string }].
 * Numbers are right-aligned and formatted with fmt() unless a format is given.
 */
export function printTable(rows, columns, { title } = {}) {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const v = row[c.key];
      if (c.format) return c.format(v, row);
      return typeof v === "number" ? fmt(v) : String(v ?? "-");
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i].length)));
  const align = (s, i) => {
    const right = columns[i].align ? columns[i].align === "right" : typeof rows[0]?.[columns[i].key] === "number";
    return right ? s.padStart(widths[i]) : s.padEnd(widths[i]);
  };
  const lines = [];
  if (title) lines.push(title);
  lines.push(columns.map((c, i) => align(c.title, i)).join("  "));
  lines.push(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of cells) lines.push(r.map(align).join("  "));
  console.log(lines.join("\n") + "\n");
}

/** What machine and code a result came from, for the JSON summary. */
export function environment() {
  let commit = null;
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    /* not a git checkout */
  }
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    loadavg: os.loadavg().map((x) => Number(x.toFixed(2))),
    commit,
  };
}

/** Writes bench/results/<name>.json (latest) and bench/results/<name>-<timestamp>.json; returns the latter's path. */
export function writeSummary(name, data) {
  mkdirSync(resultsDir, { recursive: true });
  const at = new Date().toISOString();
  const body = JSON.stringify({ name, at, environment: environment(), ...data }, null, 2) + "\n";
  const stamped = path.join(resultsDir, `${name}-${at.replace(/[:.]/g, "-")}.json`);
  writeFileSync(stamped, body);
  writeFileSync(path.join(resultsDir, `${name}.json`), body);
  console.log(`summary: ${path.relative(root, stamped)}`);
  return stamped;
}

/** True when the run should be short (`npm run bench -- --quick` or BENCH_QUICK=1): fewer samples, for smoke checks. */
export const quick = process.env.BENCH_QUICK === "1" || process.argv.includes("--quick");

/** Ports for benchmark servers: BENCH_PORT_BASE (default 8790) + offset, so parallel work can move them. */
export function benchPort(offset = 0) {
  return Number(process.env.BENCH_PORT_BASE ?? 8790) + offset;
}

/** The median of the rounds' own ratios: each round measured a read next to its baseline, so a slow round cancels. */
export const medianRatio = (rounds, baseRounds) => {
  if (!rounds?.length || rounds.length !== baseRounds?.length) return null;
  const each = rounds.map((v, i) => v / baseRounds[i]).sort((a, b) => a - b);
  return each.length % 2 ? each[(each.length - 1) / 2] : (each[each.length / 2 - 1] + each[each.length / 2]) / 2;
};
