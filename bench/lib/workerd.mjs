// Times code INSIDE workerd (the Workers runtime), not in Node: V8 flags, WebCrypto (BoringSSL) and the
// runtime's restrictions are the ones production runs with. A "snippet" module exports async functions
// (the cases); inWorkerd() generates a tiny worker that imports it (bundled by wrangler like a deploy),
// starts it with `wrangler dev`, and measure() asks the worker to run a case and time it in-process.
//
// Timing, two ways per sample (each sample = one request running the case `inner` times back to back,
// `inner` calibrated so a sample lasts at least minSampleMs):
// - cpuMsPerOp: CPU time of the workerd process running the worker (all threads, /proc schedstat, ns; not
//   wrangler dev's forwarding proxy) over the request / inner.
//   Not inflated when other work competes for the cores; includes the request's own small overhead.
// - msPerOp: wall time measured inside the isolate with performance.now() / inner. Local workerd advances
//   the clock during execution (production freezes it between I/O), with 1 ms resolution.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root, startWorker } from "./worker.mjs";
import { workerdCpuMs } from "./workerd-procs.mjs";
import { stats } from "./report.mjs";

const HARNESS = `
const cases = Object.fromEntries(Object.entries(snippet).filter(([, v]) => typeof v === "function"));

async function sample(fn, params, inner) {
  const t0 = performance.now();
  for (let i = 0; i < inner; i++) await fn(params);
  return performance.now() - t0;
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/cases") return Response.json(Object.keys(cases));
    if (url.pathname === "/call") {
      // Runs a case once and returns its result (for probes, e.g. "does the runtime refuse X?").
      const { name, params = {} } = await request.json();
      if (!cases[name]) return Response.json({ error: "unknown case " + name }, { status: 404 });
      try {
        const result = await cases[name](params);
        return Response.json({ name, result: result instanceof Uint8Array ? { bytes: result.length } : result ?? null });
      } catch (err) {
        return Response.json({ error: String(err && err.stack || err) }, { status: 500 });
      }
    }
    if (url.pathname !== "/run") return new Response("inWorkerd harness");
    const { name, params = {}, samples = 10, warmup = 1, minSampleMs = 20, inner: fixedInner, maxInner = 1e6 } = await request.json();
    const fn = cases[name];
    if (!fn) return Response.json({ error: "unknown case " + name, cases: Object.keys(cases) }, { status: 404 });
    try {
      for (let i = 0; i < warmup; i++) await fn(params);
      let inner = fixedInner ?? 1;
      if (!fixedInner) {
        // Grow the batch until one batch is long enough to time with a 1 ms clock.
        while (inner < maxInner && (await sample(fn, params, inner)) < minSampleMs) inner *= 4;
      }
      const msPerOp = [];
      for (let i = 0; i < samples; i++) msPerOp.push((await sample(fn, params, inner)) / inner);
      return Response.json({ name, params, inner, msPerOp });
    } catch (err) {
      return Response.json({ error: String(err && err.stack || err) }, { status: 500 });
    }
  },
};
`;

/**
 * @param {object} o
 * @param {string} o.module snippet module path (repo-relative or absolute); its exported functions are the cases
 * @param {number} o.port port for the harness worker
 * @param {string} [o.compatibilityDate] default: the project's (2026-10-01)
 * @param {string[]} [o.compatibilityFlags] default ["nodejs_compat"]
 * @returns {Promise<{ url: string, cases: string[], measure: Function, calibrate: Function, sample: Function, call: Function, stop: () => Promise<void> }>}
 */
export async function inWorkerd({ module, port, compatibilityDate = "2026-10-01", compatibilityFlags = ["nodejs_compat"] }) {
  const modulePath = path.resolve(root, module);
  const name = path.basename(modulePath).replace(/\W+/g, "-");
  // Generated files live under bench/results/ (git-ignored) so the bundler resolves the repo's node_modules.
  const dir = path.join(root, "bench", "results", ".workerd", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "entry.js"), `import * as snippet from ${JSON.stringify(modulePath)};\n${HARNESS}`);
  writeFileSync(
    path.join(dir, "wrangler.toml"),
    [
      `name = "bench-${name}"`,
      `main = "entry.js"`,
      `compatibility_date = ${JSON.stringify(compatibilityDate)}`,
      `compatibility_flags = ${JSON.stringify(compatibilityFlags)}`,
      "",
    ].join("\n"),
  );
  const worker = await startWorker({ config: path.join(dir, "wrangler.toml"), port, migrate: false });
  const cases = await (await fetch(`${worker.url}/cases`)).json();

  async function run(caseName, body) {
    const res = await fetch(`${worker.url}/run`, { method: "POST", body: JSON.stringify({ name: caseName, ...body }) });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`inWorkerd ${caseName}: HTTP ${res.status}: ${text.slice(0, 300)}`);
    }
    if (!res.ok) throw new Error(`inWorkerd ${caseName}: ${json.error}`);
    return json;
  }

  /** Warms case `name` up and returns the batch size (`inner`) that makes one sample last >= minSampleMs. */
  async function calibrate(caseName, { params = {}, warmup = 1, minSampleMs = 20 } = {}) {
    return (await run(caseName, { params, samples: 1, warmup, minSampleMs })).inner;
  }

  /** One sample: one request running the case `inner` times. Returns per-operation CPU ms (null without /proc) and wall ms. */
  async function sample(caseName, { params = {}, inner }) {
    const before = workerdCpuMs(worker.processGroup);
    const r = await run(caseName, { params, samples: 1, warmup: 0, inner });
    const after = workerdCpuMs(worker.processGroup);
    return { cpuMsPerOp: before !== null && after !== null ? (after - before) / inner : null, msPerOp: r.msPerOp[0] };
  }

  /**
   * Runs case `name` inside workerd: calibrate, then `samples` samples. Returns, per sample, wall ms per
   * operation inside the isolate (msPerOp, stats) and workerd CPU ms per operation (cpuMsPerOp, cpuStats;
   * null without /proc). To compare cases under changing machine load, interleave calibrate()/sample() instead.
   * @param {string} caseName
   * @param {{ params?: object, samples?: number, warmup?: number, minSampleMs?: number, inner?: number }} [opts]
   */
  async function measure(caseName, { params = {}, samples = 10, warmup = 1, minSampleMs = 20, inner } = {}) {
    const t0 = performance.now();
    const n = inner ?? (await calibrate(caseName, { params, warmup, minSampleMs }));
    const taken = [];
    for (let i = 0; i < samples; i++) taken.push(await sample(caseName, { params, inner: n }));
    return summarize(caseName, params, n, taken, performance.now() - t0);
  }

  /** Runs case `name` once inside workerd and returns its (JSON) result. */
  async function call(caseName, params = {}) {
    const res = await fetch(`${worker.url}/call`, { method: "POST", body: JSON.stringify({ name: caseName, params }) });
    const body = await res.json();
    if (!res.ok) throw new Error(`inWorkerd ${caseName}: ${body.error}`);
    return body.result;
  }

  return { url: worker.url, cases, measure, calibrate, sample, call, stop: worker.stop };
}

/** Statistics of samples taken with sample(): { name, params, inner, msPerOp, cpuMsPerOp, stats, cpuStats }. */
export function summarize(name, params, inner, taken, wallMs) {
  const msPerOp = taken.map((t) => t.msPerOp);
  const cpu = taken.every((t) => t.cpuMsPerOp !== null) ? taken.map((t) => t.cpuMsPerOp) : null;
  return { name, params, inner, msPerOp, cpuMsPerOp: cpu, stats: stats(msPerOp), cpuStats: cpu ? stats(cpu) : null, wallMs };
}
