// HTTP load generator for benchmarks against a local worker (loopback only). Uses `wrk` when it is installed
// (Debian package "wrk"; much less client overhead) and a built-in Node fetch loop otherwise, or when a fixed
// request count is asked for (wrk only runs for a duration). Both report the same shape:
//   { tool, requests, seconds, rps, latencyMs: { p50, p90, p99, mean, max }, errors: { network, status, timeout }, bytesRead,
//     cpuMsPerRequest }   (cpuMsPerRequest: only with `worker`, the workerd runtime's CPU per request)
import { spawnSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stats } from "./report.mjs";
import { workerdCpuMs } from "./workerd-procs.mjs";

let wrkPath;
/** Path of the wrk binary, or null when it is not installed (or BENCH_LOAD=node forces the Node loop). */
export function findWrk() {
  if (process.env.BENCH_LOAD === "node") return null;
  if (wrkPath !== undefined) return wrkPath;
  const r = spawnSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" });
  wrkPath = r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
  return wrkPath;
}

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!(host === "localhost" || host.startsWith("127.") || host === "[::1]")) {
    throw new Error(`load() only targets this machine (loopback), not ${host}`);
  }
}

function toBytes(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new Error("load(): body must be a string, Uint8Array or ArrayBuffer");
}

/**
 * @param {object} o
 * @param {string} o.url
 * @param {string} [o.method] default GET
 * @param {Record<string,string>} [o.headers]
 * @param {string|Uint8Array|ArrayBuffer} [o.body] sent with every request
 * @param {number} [o.connections] concurrent connections (default 10)
 * @param {number} [o.durationSeconds] run for this long (default 10 unless requests is given)
 * @param {number} [o.requests] send exactly this many requests (Node loop)
 * @param {number} [o.timeoutSeconds] per-request timeout (default 10)
 * @param {"wrk"|"node"} [o.tool] force a tool
 * @param {{ processGroup: number }} [o.worker] a startWorker() result: also report the CPU time its workerd
 *   runtime spent per request (cpuMsPerRequest; includes local dev's fixed per-request overhead, ~1-2 ms here)
 */
export async function load(o) {
  assertLoopback(o.url);
  const tool = o.tool ?? (o.requests === undefined && findWrk() ? "wrk" : "node");
  if (tool === "wrk" && !findWrk()) throw new Error("wrk is not installed (apt-get install -y wrk)");
  if (tool === "wrk" && o.requests !== undefined) throw new Error("wrk runs for a duration; use tool: 'node' for a request count");
  const cpu0 = o.worker ? workerdCpuMs(o.worker.processGroup) : null;
  const result = tool === "wrk" ? await loadWithWrk(o) : await loadWithNode(o);
  const cpu1 = o.worker ? workerdCpuMs(o.worker.processGroup) : null;
  result.cpuMsPerRequest = cpu0 !== null && cpu1 !== null && result.requests ? (cpu1 - cpu0) / result.requests : null;
  return result;
}

const luaString = (s) => {
  let eq = "=";
  while (s.includes(`]${eq}]`)) eq += "=";
  return `[${eq}[${s}]${eq}]`;
};

function loadWithWrk({ url, method = "GET", headers = {}, body, connections = 10, durationSeconds = 10, timeoutSeconds = 10 }) {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-wrk-"));
  const lua = [`wrk.method = ${luaString(method)}`];
  for (const [k, v] of Object.entries(headers)) lua.push(`wrk.headers[ ${luaString(k)} ] = ${luaString(String(v))}`);
  const bytes = toBytes(body);
  if (bytes) {
    const bodyFile = path.join(dir, "body.bin");
    writeFileSync(bodyFile, bytes);
    lua.push(`local f = assert(io.open(${luaString(bodyFile)}, "rb")); wrk.body = f:read("*a"); f:close()`);
  }
  // Report through done() as one JSON line: exact percentiles, microseconds.
  lua.push(`done = function(s, latency, requests)
  io.write(string.format('\\n__WRK_JSON__{"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"mean":%f,"max":%d}\\n',
  s.requests, s.duration, s.bytes, s.errors.connect, s.errors.read, s.errors.write, s.errors.status, s.errors.timeout,
  latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end`);
  const script = path.join(dir, "script.lua");
  writeFileSync(script, lua.join("\n") + "\n");
  const threads = Math.max(1, Math.min(2, connections));
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${durationSeconds}s`, "--timeout", `${timeoutSeconds}s`, "-s", script, url];
  return new Promise((resolve, reject) => {
    const child = spawn(findWrk(), args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (err) => {
      rmSync(dir, { recursive: true, force: true });
      reject(err);
    });
    child.on("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      const m = /__WRK_JSON__(\{.*\})/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`wrk failed (${code}):\n${out}`));
      const r = JSON.parse(m[1]);
      const seconds = r.duration_us / 1e6;
      resolve({
        tool: "wrk",
        connections,
        requests: r.requests,
        seconds,
        rps: r.requests / seconds,
        latencyMs: { p50: r.p50 / 1000, p90: r.p90 / 1000, p99: r.p99 / 1000, mean: r.mean / 1000, max: r.max / 1000 },
        errors: { network: r.connect + r.read + r.write, status: r.status, timeout: r.timeout },
        bytesRead: r.bytes,
      });
    });
  });
}

async function loadWithNode({ url, method = "GET", headers = {}, body, connections = 10, durationSeconds, requests, timeoutSeconds = 10 }) {
  const bytes = toBytes(body);
  const deadline = requests === undefined ? performance.now() + (durationSeconds ?? 10) * 1000 : Infinity;
  let remaining = requests ?? Infinity;
  const latencies = [];
  const errors = { network: 0, status: 0, timeout: 0 };
  let bytesRead = 0;

  async function worker() {
    while (remaining > 0 && performance.now() < deadline) {
      remaining--;
      const t0 = performance.now();
      try {
        const res = await fetch(url, { method, headers, body: bytes ?? undefined, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
        const buf = await res.arrayBuffer();
        bytesRead += buf.byteLength;
        if (res.status >= 400) errors.status++;
        latencies.push(performance.now() - t0);
      } catch (err) {
        if (err?.name === "TimeoutError") errors.timeout++;
        else errors.network++;
      }
    }
  }
  const start = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - start) / 1000;
  const s = stats(latencies);
  const done = latencies.length;
  return {
    tool: "node",
    connections,
    requests: done,
    seconds,
    rps: done / seconds,
    latencyMs: { p50: s.median, p90: s.p90, p99: s.p99, mean: s.mean, max: s.max },
    errors,
    bytesRead,
  };
}
