// Starts `wrangler dev` for a benchmark: a given wrangler config on a given port, local state in a fresh
// temporary --persist-to directory (so runs never touch .wrangler/state or each other), D1 migrations
// applied there first when the config has a D1 database. Returns once the worker answers HTTP.
//
// The worker is bundled ONCE up front (`wrangler deploy --dry-run --outdir`, the deploy bundler) and served
// with `wrangler dev --no-bundle`: wrangler dev otherwise watches the sources and restarts the worker in the
// middle of a measurement whenever anyone edits a file under src/.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { within } from "./bounded.mjs";
import { hookExit, killGroup, run, running, spawnGroup } from "./processes.mjs";
import { appRoot, root } from "./paths.mjs";
import { d1Bindings } from "../../scripts/d1-migrate.mjs";
import { appVars, failure, hasD1, portFree, prebuild, requiredSecrets, waitUntilAnswering, wranglerEnv } from "./wrangler.mjs";

export { appVars, root, wranglerEnv };

/** The bound on one start attempt, all its steps together. */
const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * @param {object} opts
 * @param {string} opts.config wrangler config file (relative to the repo root or absolute)
 * @param {number} opts.port port to listen on (127.0.0.1)
 * @param {Record<string,string>} [opts.vars] extra vars (--var); the config's required secrets get random values unless given
 * @param {boolean} [opts.migrate] apply D1 migrations to the temp state first (default: when the config has D1)
 * @param {number} [opts.inspectorPort] devtools port (default port + 1000, so parallel runs do not fight over 9229)
 * @param {number} [opts.timeoutMs] the bound on one attempt, all its steps together: bundling, migrating, the first
 *   answer (default 120 s; the attempt is given up 30 s after that whatever its steps do, so two attempts end
 *   within a browser suite's hook, which names no step if it fires)
 * @param {number} [opts.attempts] tries before giving up (default 2): a step that hangs or fails starts over afresh
 * @param {boolean} [opts.quiet] hide wrangler's output unless it fails (default true)
 * @param {boolean} [opts.bundle] prebuild once and serve with --no-bundle (default true); false: plain `wrangler dev` (reloads on edits)
 * @param {string} [opts.persistTo] an existing state directory the caller owns (kept at stop): a worker started again
 *   on it finds the D1 rows, R2 objects and Durable Objects of the one before (pass migrate: false to skip re-applying)
 * @returns {Promise<{ url: string, persistTo: string, output: string[], processGroup: number, stop: () => Promise<void>, kill: () => Promise<void> }>}
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

/**
 * One attempt, with a line every 30 s while it lasts saying which step it is in, and a backstop: whatever a step
 * does with its own bound, the attempt ends 30 s after its bound, its processes killed, naming the step it was in.
 */
async function startOnce(opts) {
  // children: its process groups still running; dirs: its temp dirs; abandoned: its steps must stop at the next.
  const progress = { started: Date.now(), steps: [], step: "waiting for the port", children: new Set(), dirs: [], abandoned: false };
  const say = () => `${progress.step} after ${((Date.now() - progress.started) / 1000).toFixed(0)} s (done: ${progress.steps.join(", ") || "nothing"})`;
  const watchdog = setInterval(() => console.error(`startWorker: port ${opts.port}: still ${say()}`), 30_000);
  watchdog.unref();
  const attempt = startSteps(opts, progress);
  // A failed attempt leaves no temp dir (its error is reported below). One given up on may still start a worker
  // later: that worker is stopped, not left serving.
  attempt.then(
    (w) => progress.abandoned && w.stop().catch((err) => console.error(`startWorker: port ${opts.port}: stopping a late start: ${err.message}`)),
    () => removeDirs(progress.dirs),
  );
  const bound = (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 30_000;
  let where;
  try {
    return await within(`the start on port ${opts.port}`, attempt, bound, () => {
      where = say();
      progress.abandoned = true;
      for (const child of progress.children) killGroup(child, "SIGKILL");
      removeDirs(progress.dirs);
    });
  } catch (err) {
    throw where ? new Error(`${err.message}; it was still ${where}`) : err;
  } finally {
    clearInterval(watchdog);
  }
}

function removeDirs(dirs) {
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      console.error(`startWorker: could not remove ${dir}: ${err.message}`);
    }
  }
}

async function startSteps({ config, port, vars = {}, migrate, inspectorPort, timeoutMs = DEFAULT_TIMEOUT_MS, quiet = true, bundle = true, persistTo: givenState }, progress) {
  const { started, steps, children, dirs } = progress;
  /** Between steps: an attempt given up on starts nothing more (its port may be the next attempt's by now). */
  const next = (step) => {
    if (progress.abandoned) throw new Error(`given up before ${step}`);
    progress.step = step;
    return Date.now();
  };
  /** What is left of this attempt's bound for the next step (at least 1 s, so a step can report it overran). */
  const left = () => Math.max(1000, started + timeoutMs - Date.now());
  const stepDone = (name, since) => steps.push(`${name} ${((Date.now() - since) / 1000).toFixed(1)} s`);
  const deadline = Date.now() + 10_000; // a worker stopped just before may still be letting go of it
  while (!(await portFree(port))) {
    if (Date.now() > deadline) throw new Error(`port ${port} is taken by another process`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const configPath = path.resolve(appRoot, config);
  const env = wranglerEnv();
  let since = next("bundling");
  let entry = null;
  if (bundle) {
    const outdir = mkdtempSync(path.join(tmpdir(), "bench-build-"));
    dirs.push(outdir);
    entry = await prebuild(configPath, outdir, env, left(), children);
    stepDone("bundle", since);
  }
  const persistTo = givenState ?? mkdtempSync(path.join(tmpdir(), "bench-wrangler-"));
  if (!givenState) dirs.push(persistTo);

  if (migrate ?? hasD1(configPath)) {
    // Every D1 database of the config, each with its chain (DB migrations/, SHARD_n migrations-shard/).
    since = next("applying the D1 migrations");
    for (const binding of d1Bindings(readFileSync(configPath, "utf8"))) {
      const args = ["d1", "migrations", "apply", binding, "--local", "-c", configPath, "--persist-to", persistTo];
      // CI=true: no interactive "apply these migrations?" prompt
      const bound = left();
      const m = await run("wrangler", args, { env: { ...env, CI: "true" }, timeoutMs: bound, children });
      if (m.status !== 0) throw failure(`D1 migrations (${binding})`, m, bound);
    }
    stepDone("migrations", since);
  }

  // Required secrets ([secrets] required = [...]) get random local values unless given.
  const secrets = Object.fromEntries(requiredSecrets(configPath).map((name) => [name, randomBytes(32).toString("base64url")]));
  const allVars = { ...secrets, ...vars };
  const args = ["dev", ...(entry ? [entry, "--no-bundle"] : []), "-c", configPath, "--ip", "127.0.0.1", "--port", String(port), "--persist-to", persistTo];
  args.push("--inspector-port", String(inspectorPort ?? port + 1000), "--show-interactive-dev-session=false");
  for (const [k, v] of Object.entries(allVars)) args.push("--var", `${k}:${v}`);

  since = next("waiting for wrangler dev's first answer");
  const child = spawnGroup("wrangler", args, { env, children });
  const output = [];
  const keep = (chunk) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
    if (!quiet) process.stderr.write(chunk);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let spawnError;
  const exited = new Promise((resolve) => {
    child.once("exit", resolve);
    child.once("error", (err) => resolve((spawnError = err)));
  });
  // Why waiting for an answer is pointless, if it is: wrangler is gone (an exit code, or a signal: a killed process
  // has no exit code), never started, or this attempt was given up on (the answer could be the next attempt's).
  const gone = () =>
    spawnError ? `could not be started: ${spawnError.message}`
    : child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode}) before answering`
    : progress.abandoned ? "was given up on before it answered"
    : null;

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(url, gone, output, left());
    stepDone("first answer", since);
  } catch (err) {
    killGroup(child, "SIGKILL");
    // Its port is free again before anyone starts over (bounded: an exit that never comes must not hang us).
    await within(`wrangler dev's exit after SIGKILL`, exited, 10_000).catch((e) => console.error(`startWorker: ${e.message}`));
    running.delete(child);
    throw err;
  }

  let stopped;
  async function stop() {
    stopped ??= (async () => {
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
      await within(`wrangler dev's exit after SIGTERM`, exited, 15_000).catch((e) => console.error(`startWorker: ${e.message}`));
      clearTimeout(timer);
      running.delete(child);
      removeDirs(dirs);
    })();
    return stopped;
  }
  /** A worker that dies: SIGKILL to wrangler and its workerd at once, no chance to flush anything. */
  async function kill() {
    stopped ??= (async () => {
      killGroup(child, "SIGKILL");
      await within(`wrangler dev's exit after SIGKILL`, exited, 15_000);
      running.delete(child);
      removeDirs(dirs);
    })();
    return stopped;
  }
  // A slow start is worth a line: the next hang is then easier to place.
  if (Date.now() - started > 30_000) console.error(`startWorker: port ${port} answered after ${((Date.now() - started) / 1000).toFixed(1)} s (${steps.join(", ")})`);
  return { url, persistTo, output, processGroup: child.pid, entry, inspectorPort: inspectorPort ?? port + 1000, stop, kill };
}

/**
 * The real app plus the /__bench/ baseline routes (bench/worker.ts, bench/wrangler.bench.toml) on `port`,
 * with the app's public addresses pointed at that port and fresh local D1 (migrated), R2, DOs and queues.
 * Rate limits are scaled x1000 (RATE_LIMIT_MULTIPLIER) so load does not turn into 429s; pass
 * vars: { RATE_LIMIT_MULTIPLIER: "off" } or "1" to measure the limiter itself.
 */
export async function startBenchApp({ port, vars = {}, ...rest }) {
  const { benchConfigPath } = await import("./bench-config.mjs");
  // Another commit's app (--against): its own committed bench config, entry and baseline routes.
  const config = appRoot === root ? benchConfigPath() : path.join(appRoot, "bench", "wrangler.bench.toml");
  // BENCH_VARS='{"NAME":"value"}' overrides vars for an A/B run of one setting.
  const extra = process.env.BENCH_VARS ? JSON.parse(process.env.BENCH_VARS) : {};
  return startWorker({ config, port, vars: { ...appVars(port), RATE_LIMIT_MULTIPLIER: "1000", ...vars, ...extra }, ...rest });
}
