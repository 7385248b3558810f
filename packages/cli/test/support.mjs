// For the CLI's tests: the real bin run as a child process with its own HOME and config folder, bounded in time,
// and the API calls a test makes itself (an API key to revoke, what the server holds).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makePng } from "../../../bench/lib/png.mjs";
import { boundedFetch } from "../../../test/browser/support.mjs";

export const BIN = fileURLToPath(new URL("../bin/imghost.js", import.meta.url));

/**
 * Runs `imghost ...args` with HOME and XDG_CONFIG_HOME in `home`, no colours, and no browser; ends it if it runs
 * past `timeoutMs`. `input` is written to its stdin (then closed); without it stdin is closed at once.
 * @returns {Promise<{ code: number | null; stdout: string; stderr: string }>}
 */
export function imghost(args, { home, env = {}, cwd, input, timeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      NO_COLOR: "1",
      BROWSER: "none",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(input ?? "");
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`imghost ${args.join(" ")} ran past ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on("error", (err) => (clearTimeout(timer), reject(err)));
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

/** The settings file the CLI writes under `home` on Linux (env-paths: $XDG_CONFIG_HOME/imghost). */
export const configPath = (home) => path.join(home, ".config", "imghost", "config.json");

/** Writes distinct small PNGs (each its own size and pixels) into `dir` as `names`; returns their paths. */
export function writePngs(dir, names, seed = 1) {
  mkdirSync(dir, { recursive: true });
  return names.map((name, i) => {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, makePng(40 + 7 * i + seed, 30 + 3 * i, seed * 101 + i));
    return file;
  });
}

/** `METHOD {base}{p}` with a Bearer token; answers `{ status, body }` (body: JSON or null). */
export async function api(base, token, method, p, body) {
  const res = await boundedFetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** A new API key of the session's user, then revoked: `{ id, key }`. */
export async function revokedKey(base, access) {
  const created = await api(base, access, "POST", "/keys", { name: "cli test, revoked", permissions: ["read", "upload"] });
  if (created.status !== 201) throw new Error(`creating a key: ${created.status} ${JSON.stringify(created.body)}`);
  const revoked = await api(base, access, "DELETE", `/keys/${created.body.id}`);
  if (revoked.status !== 200) throw new Error(`revoking a key: ${revoked.status} ${JSON.stringify(revoked.body)}`);
  return { id: created.body.id, key: created.body.key };
}

/** The JSON objects of a --json output, one a line; fails on any other line. */
export function jsonLines(stdout) {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}
