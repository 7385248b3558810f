// Runs the project's own wrangler (node_modules, the version the config and the output readers were checked
// against) for `npm run deploy`. Never through a shell: arguments and secrets are passed as they are.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { offlineEnv, root } from "../lib.mjs";

// The package exports no bin path: found beside its package.json.
const bin = path.join(path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");

/** wrangler's environment: no metrics or banner, every `logger.log` line printed (list commands use it). */
export function wranglerEnv(extra = {}) {
  return offlineEnv({ WRANGLER_LOG: "log", ...extra });
}

/** Runs wrangler and keeps its output (for the list commands). stdin is closed: wrangler never prompts. */
export function capture(args, env = wranglerEnv()) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs wrangler with its output on the terminal. `input` (a secret) goes to its stdin and nowhere else; without
 * it stdin is closed, so wrangler runs non-interactively (no confirmation prompts: the deploy asked once).
 * @returns {number} the exit status
 */
export function run(args, { input, env = wranglerEnv() } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, input, stdio: [input === undefined ? "ignore" : "pipe", "inherit", "inherit"] });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

/**
 * Carries out one step of the plan. A secret step generates its value here (32 random bytes as base64url: 43
 * characters, over every secret's 32-character minimum) and hands it to `wrangler secret put` on stdin only.
 */
export function runStep(step, env) {
  const input = step.kind === "secret" ? randomBytes(32).toString("base64url") : undefined;
  return run(step.args, { input, env });
}

/** The text a failed capture leaves for the operator: wrangler's own error, without the log-file line. */
export function failure(args, r) {
  const said = (r.stderr || r.stdout).trim().split("\n").filter((l) => !/Logs were written to/.test(l)).join("\n");
  return `wrangler ${args.join(" ")} failed (exit ${r.status}):\n${said}`;
}
