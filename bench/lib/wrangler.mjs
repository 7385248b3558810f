// What startWorker asks of wrangler and of the machine, one step each: the environment wrangler runs in, the
// deploy bundle, the config's secrets and D1, a free port, and the first answer of `wrangler dev`.
import { createServer } from "node:net";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fetchWithin } from "./bounded.mjs";
import { run } from "./processes.mjs";
import { root } from "./paths.mjs";

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
  // wrangler.toml's top level (and so the bench config) says production; a local run is development.
  return { ENVIRONMENT: "development", BASE_URL: `${origin}/api/v1`, IMAGE_URL: `${origin}/i`, CDN_URL: `${origin}/cdn`, SITE_URL: origin };
}

export function failure(step, r, timeoutMs) {
  const why = r.timedOut ? `did not end within ${timeoutMs} ms` : `failed (exit ${r.status})`;
  return new Error(`${step} ${why}:\n${r.stdout}\n${r.stderr}`);
}

/** Bundles the config's worker like a deploy would, into `outdir`; returns the entry file's path. */
export async function prebuild(configPath, outdir, env, timeoutMs, children, cwd) {
  const b = await run("wrangler", ["deploy", "--dry-run", "--outdir", outdir, "-c", configPath], { env, timeoutMs, children, cwd });
  if (b.status !== 0) throw failure(`bundling ${configPath}`, b, timeoutMs);
  const main = /^\s*main\s*=\s*"([^"]+)"/m.exec(readFileSync(configPath, "utf8"))?.[1];
  const byMain = main && path.join(outdir, path.basename(main).replace(/\.[cm]?[jt]sx?$/, "") + ".js");
  const scripts = readdirSync(outdir).filter((f) => /\.m?js$/.test(f));
  const entry = byMain && existsSync(byMain) ? byMain : scripts.length === 1 ? path.join(outdir, scripts[0]) : null;
  if (!entry) throw new Error(`cannot find the bundled entry in ${outdir}: ${scripts.join(", ")}`);
  return entry;
}

export function requiredSecrets(configPath) {
  const text = readFileSync(configPath, "utf8");
  const section = /^\[secrets\]\s*$([\s\S]*?)(?=^\[)/m.exec(text + "\n[")?.[1] ?? "";
  const list = /^\s*required\s*=\s*\[([^\]]*)\]/m.exec(section)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

export function hasD1(configPath) {
  try {
    return /\[\[\s*d1_databases\s*\]\]/.test(readFileSync(configPath, "utf8"));
  } catch {
    return false;
  }
}

export async function waitUntilAnswering(url, gone, output, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const why = gone();
    if (why) throw new Error(`wrangler dev ${why}:\n${output.join("")}`);
    try {
      await fetchWithin(url, {}, 2000);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs} ms:\n${output.join("")}`);
}

/** Whether nothing listens on 127.0.0.1:port (else the first answer awaited below could be another server's). */
export function portFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
