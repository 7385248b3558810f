// Starts `wrangler dev` for a benchmark: a given wrangler config on a given port, local state in a fresh
// temporary --persist-to directory (so runs never touch .wrangler/state or each other), D1 migrations
// applied there first when the config has a D1 database. Returns once the worker answers HTTP.
//
// The worker is bundled ONCE up front (`wrangler deploy --dry-run --outdir`, the deploy bundler) and served
// with `wrangler dev --no-bundle`: wrangler dev otherwise watches the sources and restarts the worker in the
// middle of a measurement whenever anyone edits a file under src/.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "node_modules", ".bin");

/** The environment wrangler needs here: no metrics, no request.cf fetch, no banner; node_modules/.bin first so its Node 22 runs it. */
export function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_LOG: process.env.WRANGLER_LOG ?? "warn",
    ...extra,
  };
}

/** The public-address vars of the app for a worker listening on `port` (all four surfaces as path prefixes). */
export function appVars(port) {
  const origin = `http://127.0.0.1:${port}`;
  return { BASE_URL: `${origin}/api/v1`, IMAGE_URL: `${origin}/i`, CDN_URL: `${origin}/cdn`, SITE_URL: origin };
}

const running = new Set();
let exitHooked = false;
function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const child of running) killGroup(child, "SIGKILL");
  };
  process.on("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

// wrangler runs workerd as its own child: signal the whole process group that we created (detached). Also when
// wrangler itself has exited: a child it left behind may still hold our pipes open, and then "close" never comes.
function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Runs a command to its end, asynchronously (so the caller's timers, a test hook's timeout among them, still
 * fire) and bounded: after timeoutMs its whole process group is killed and the result says so.
 * @returns {Promise<{ status: number | null, stdout: string, stderr: string, timedOut: boolean }>}
 */
function run(cmd, args, { env, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    let timedOut = false;
    let settled = false;
    const settle = (status) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(child);
      resolve({ status, stdout, stderr, timedOut });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGKILL");
      // Killed, it is over, whether or not something outside the group still holds the pipes.
      setTimeout(() => settle(child.exitCode), 5000).unref();
    }, timeoutMs);
    child.once("close", settle);
  });
}

function failure(step, r, timeoutMs) {
  const why = r.timedOut ? `did not end within ${timeoutMs} ms` : `failed (exit ${r.status})`;
  return new Error(`${step} ${why}:\n${r.stdout}\n${r.stderr}`);
}

/** Bundles the config's worker like a deploy would, into a temp dir; returns the entry file's path. */
async function prebuild(configPath, env, timeoutMs) {
  const outdir = mkdtempSync(path.join(tmpdir(), "bench-build-"));
  const b = await run("wrangler", ["deploy", "--dry-run", "--outdir", outdir, "-c", configPath], { env, timeoutMs });
  if (b.status !== 0) {
    rmSync(outdir, { recursive: true, force: true });
    throw failure(`bundling ${configPath}`, b, timeoutMs);
  }
  const main = /^\s*main\s*=\s*"([^"]+)"/m.exec(readFileSync(configPath, "utf8"))?.[1];
  const byMain = main && path.join(outdir, path.basename(main).replace(/\.[cm]?[jt]sx?$/, "") + ".js");
  const scripts = readdirSync(outdir).filter((f) => /\.m?js$/.test(f));
  const entry = byMain && existsSync(byMain) ? byMain : scripts.length === 1 ? path.join(outdir, scripts[0]) : null;
  if (!entry) throw new Error(`cannot find the bundled entry in ${outdir}: ${scripts.join(", ")}`);
  return { outdir, entry };
}

function requiredSecrets(configPath) {
  const text = readFileSync(configPath, "utf8");
  const section = /^\[secrets\]\s*$([\s\S]*?)(?=^\[)/m.exec(text + "\n[")?.[1] ?? "";
  const list = /^\s*required\s*=\s*\[([^\]]*)\]/m.exec(section)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

function hasD1(configPath) {
  try {
    return /\[\[\s*d1_databases\s*\]\]/.test(readFileSync(configPath, "utf8"));
  } catch {
    return false;
  }
}

async function waitUntilAnswering(url, child, output, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}) before answering:\n${output.join("")}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs} ms:\n${output.join("")}`);
}

/**
 * @param {object} opts
 * @param {string} opts.config wrangler config file (relative to the repo root or absolute)
 * @param {number} opts.port port to listen on (127.0.0.1)
 * @param {Record<string,string>} [opts.vars] extra vars (--var); the config's required secrets get random values unless given
 * @param {boolean} [opts.migrate] apply D1 migrations to the temp state first (default: when the config has D1)
 * @param {number} [opts.inspectorPort] devtools port (default port + 1000, so parallel runs do not fight over 9229)
 * @param {number} [opts.timeoutMs] the bound on one attempt, all its steps together: bundling, migrating, the first
 *   answer (default 120 s; two attempts then end within a browser suite's hook, which names no step if it fires)
 * @param {number} [opts.attempts] tries before giving up (default 2): a step that hangs or fails starts over afresh
 * @param {boolean} [opts.quiet] hide wrangler's output unless it fails (default true)
 * @param {boolean} [opts.bundle] prebuild once and serve with --no-bundle (default true); false: plain `wrangler dev` (reloads on edits)
 * @returns {Promise<{ url: string, persistTo: string, output: string[], processGroup: number, stop: () => Promise<void> }>}
 */
export async function startWorker({ attempts = 2, ...opts }) {
  if (!opts.config || !opts.port) throw new Error("startWorker needs { config, port }");
  hookExit();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (attempt >= attempts) throw err;
      // One hung or failed start (seen once in CI: a browser suite's start outlived its 240 s hook) must not
      // fail the run; say why and start again with fresh state.
      console.error(`startWorker: attempt ${attempt} of ${attempts} failed, starting again: ${err.message.slice(0, 4000)}`);
    }
  }
}

/** Whether nothing listens on 127.0.0.1:port (else the first answer awaited below could be another server's). */
function portFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** One attempt, with a line every 30 s while it lasts saying which step it is in: a hang then has a name. */
async function startOnce(opts) {
  const progress = { started: Date.now(), steps: [], step: "waiting for the port" };
  const say = () => `${progress.step} after ${((Date.now() - progress.started) / 1000).toFixed(0)} s (done: ${progress.steps.join(", ") || "nothing"})`;
  const watchdog = setInterval(() => console.error(`startWorker: port ${opts.port}: still ${say()}`), 30_000);
  watchdog.unref();
  try {
    return await startSteps(opts, progress);
  } finally {
    clearInterval(watchdog);
  }
}

async function startSteps({ config, port, vars = {}, migrate, inspectorPort, timeoutMs = 120_000, quiet = true, bundle = true }, progress) {
  const { started, steps } = progress;
  /** What is left of this attempt's bound for the next step (at least 1 s, so a step can report it overran). */
  const left = () => Math.max(1000, started + timeoutMs - Date.now());
  const stepDone = (name, since) => steps.push(`${name} ${((Date.now() - since) / 1000).toFixed(1)} s`);
  const deadline = Date.now() + 10_000; // a worker stopped just before may still be letting go of it
  while (!(await portFree(port))) {
    if (Date.now() > deadline) throw new Error(`port ${port} is taken by another process`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const configPath = path.resolve(root, config);
  const env = wranglerEnv();
  let since = Date.now();
  progress.step = "bundling";
  const built = bundle ? await prebuild(configPath, env, left()) : null;
  if (built) stepDone("bundle", since);
  const persistTo = mkdtempSync(path.join(tmpdir(), "bench-wrangler-"));
  const cleanup = () => {
    rmSync(persistTo, { recursive: true, force: true });
    if (built) rmSync(built.outdir, { recursive: true, force: true });
  };

  if (migrate ?? hasD1(configPath)) {
    const args = ["d1", "migrations", "apply", "DB", "--local", "-c", configPath, "--persist-to", persistTo];
    // CI=true: no interactive "apply these migrations?" prompt
    since = Date.now();
    progress.step = "applying the D1 migrations";
    const bound = left();
    const m = await run("wrangler", args, { env: { ...env, CI: "true" }, timeoutMs: bound });
    if (m.status !== 0) {
      cleanup();
      throw failure("D1 migrations", m, bound);
    }
    stepDone("migrations", since);
  }

  // Required secrets ([secrets] required = [...]) get random local values unless given.
  const secrets = Object.fromEntries(requiredSecrets(configPath).map((name) => [name, randomBytes(32).toString("base64url")]));
  const allVars = { ...secrets, ...vars };
  const args = ["dev", ...(built ? [built.entry, "--no-bundle"] : []), "-c", configPath, "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo];
  args.push("--inspector-port", String(inspectorPort ?? port + 1000), "--show-interactive-dev-session=false");
  for (const [k, v] of Object.entries(allVars)) args.push("--var", `${k}:${v}`);

  const child = spawn("wrangler", args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  const output = [];
  const keep = (chunk) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
    if (!quiet) process.stderr.write(chunk);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", resolve));

  const url = `http://127.0.0.1:${port}`;
  try {
    since = Date.now();
    progress.step = "waiting for wrangler dev's first answer";
    await waitUntilAnswering(url, child, output, left());
    stepDone("first answer", since);
  } catch (err) {
    killGroup(child, "SIGKILL");
    await exited; // its port is free again before anyone starts over
    running.delete(child);
    cleanup();
    throw err;
  }

  let stopped;
  async function stop() {
    stopped ??= (async () => {
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
      running.delete(child);
      cleanup();
    })();
    return stopped;
  }
  // A slow start is worth a line: the next hang is then easier to place.
  if (Date.now() - started > 30_000) console.error(`startWorker: port ${port} answered after ${((Date.now() - started) / 1000).toFixed(1)} s (${steps.join(", ")})`);
  return { url, persistTo, output, processGroup: child.pid, stop };
}

/**
 * The workerd processes of a worker started by startWorker (its processGroup). wrangler dev runs two: a
 * proxy on the public port (`--socket-addr=entry=127.0.0.1:<port>`) that forwards each request to the
 * runtime that runs the user worker (`entry=127.0.0.1:0`, with the inspector). `role` tells them apart.
 */
export function workerdProcesses(processGroup) {
  const found = [];
  if (!existsSync("/proc/self/stat")) return found;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const pgrp = Number(stat.slice(close + 2).split(" ")[2]);
      if (pgrp !== processGroup || comm !== "workerd") continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const socket = cmdline.find((a) => a.startsWith("--socket-addr=entry="));
      found.push({ pid: Number(pid), role: socket && !socket.endsWith(":0") ? "proxy" : "runtime" });
    } catch {
      /* process ended while reading */
    }
  }
  // A single workerd (other wrangler versions) does both.
  if (found.length === 1) found[0].role = "runtime";
  return found;
}

/**
 * CPU time (ms, all threads, from /proc/<pid>/task/<tid>/schedstat in ns) used so far by the workerd of a
 * worker started by startWorker. which: "runtime" (default: the process running the user worker, where the
 * measured code runs), "proxy" (wrangler dev's forwarding proxy) or "all". null where /proc is unavailable.
 * CPU time, unlike wall time, is not inflated when other work competes for the machine's cores.
 */
export function workerdCpuMs(processGroup, which = "runtime") {
  if (!existsSync("/proc/self/schedstat")) return null;
  let ns = 0;
  let found = false;
  for (const { pid, role } of workerdProcesses(processGroup)) {
    if (which !== "all" && role !== which) continue;
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      }
      found = true;
    } catch {
      /* process or thread ended while reading */
    }
  }
  return found ? ns / 1e6 : null;
}

/**
 * The real app plus the /__bench/ baseline routes (bench/worker.ts, bench/wrangler.bench.toml) on `port`,
 * with the app's public addresses pointed at that port and fresh local D1 (migrated), R2, DOs and queues.
 * Rate limits are scaled x1000 (RATE_LIMIT_MULTIPLIER) so load does not turn into 429s; pass
 * vars: { RATE_LIMIT_MULTIPLIER: "off" } or "1" to measure the limiter itself.
 */
export async function startBenchApp({ port, vars = {}, ...rest }) {
  const { benchConfigPath } = await import("./bench-config.mjs");
  // BENCH_VARS='{"NAME":"value"}' overrides vars for an A/B run of one setting.
  const extra = process.env.BENCH_VARS ? JSON.parse(process.env.BENCH_VARS) : {};
  return startWorker({ config: benchConfigPath(), port, vars: { ...appVars(port), RATE_LIMIT_MULTIPLIER: "1000", ...vars, ...extra }, ...rest });
}
