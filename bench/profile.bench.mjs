// Where the worker's CPU goes: V8 CPU profiles of the app under load (wrangler dev's inspector), for an anonymous
// short-link hit, an anonymous API read and a 4 MiB direct PUT, summarized as self time per source file and per
// function in ms per request, and saved as bench/results/profile-<case>.cpuprofile (open them in DevTools).
// Only the app's isolate is sampled: the local R2 and cache simulators run in workerd's other workers.
// With --against <commit> (npm run bench -- profile --against ef79e88) the same cases profile that commit's app.
// Run: npm run bench -- profile   (--quick: 2 s per case). Port: BENCH_PORT_BASE + 60 (default 8850).
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { benchPort, fmt, load, quick, resultsDir, startBenchApp, workerdCpuMs, writeSummary } from "./lib/index.mjs";
import { makePng } from "./lib/png.mjs";
import { startProfile, summarizeProfile } from "./lib/profile.mjs";

const seconds = quick ? 2 : 6;
const PUTS = quick ? 10 : 30;

async function json(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const post = (url, body, headers = {}) => fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

const app = await startBenchApp({ port: benchPort(60) });
const api = `${app.url}/api/v1`;
const results = {};
try {
  const id = randomBytes(6).toString("hex");
  const signup = await json(await post(`${api}/auth/signup`, { email: `prof-${id}@example.com`, password: "bench password 123", username: `prof${id}`, ageConfirmed: true }), 201, "signup");
  const auth = { authorization: `Bearer ${signup.session.access_token}` };
  const presign = async (body) => json(await post(`${api}/upload/presign`, { filename: "p.png", mime: "image/png", bytes: body.length, sha256: createHash("sha256").update(body).digest("hex"), visibility: "public" }, auth), 201, "presign");

  const png = makePng(580, 580, 7);
  const pre = await presign(png);
  const put = await fetch(`${api}/upload/direct/${pre.fileId}`, { method: "PUT", body: png, headers: { "content-type": "image/png", ...auth } });
  await json(put, 200, "PUT");
  await json(await post(`${api}/upload/finalize`, { uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag"), width: 580, height: 580 }, auth), 200, "finalize");
  for (let i = 0; i < 60; i++) {
    const file = await json(await fetch(`${api}/files/${pre.fileId}`, { headers: auth }), 200, "GET file");
    if (file.analysis !== "pending") break;
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Profiles `work` (which returns how many requests it made) and keeps the summary and the raw profile. */
  async function profiled(name, work) {
    const profiler = await startProfile(app.inspectorPort);
    const cpu0 = workerdCpuMs(app.processGroup);
    const requests = await work();
    const cpu1 = workerdCpuMs(app.processGroup);
    const profile = await profiler.stop();
    writeFileSync(path.join(resultsDir, `profile-${name}${process.env.BENCH_APP_ROOT ? "-against" : ""}.cpuprofile`), JSON.stringify(profile));
    // workerd's CPU (all its threads: the simulators' too) per request, while profiling (the profiler's cost included).
    const cpu = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / requests : undefined;
    const summary = summarizeProfile(profile, app.entry, requests, cpu);
    results[name] = summary;
    console.log(`\n${name}: ${requests} requests, ${summary.busySamples} busy samples, workerd CPU ${fmt(cpu)} ms per request while profiled`);
    const line = (f) => `  ${(100 * f.share).toFixed(1).padStart(5)} %  ${fmt(f.msPerRequest, 3).padStart(6)} ms  ${f.name}`;
    for (const f of summary.files.slice(0, 16)) console.log(line(f));
    console.log("  top functions:");
    for (const f of summary.functions.slice(0, 16)) console.log(line(f));
  }

  for (const [name, url] of [
    ["short-link", `${app.url}/i/${pre.fileId}`],
    ["api-read", `${api}/files/${pre.fileId}`],
  ]) {
    for (let i = 0; i < 3; i++) await (await fetch(url)).arrayBuffer(); // warm: records and byte entries filled
    await profiled(name, async () => (await load({ url, connections: 8, durationSeconds: seconds, worker: app })).requests);
  }

  const body = makePng(1183, 1183, 9); // ~4 MiB
  const ids = [];
  for (let i = 0; i < PUTS; i++) ids.push((await presign(body)).fileId);
  await profiled("direct-put-4mib", async () => {
    for (const fileId of ids) await json(await fetch(`${api}/upload/direct/${fileId}`, { method: "PUT", body, headers: { "content-type": "image/png", ...auth } }), 200, "PUT");
    return ids.length;
  });
} finally {
  await app.stop();
}
writeSummary("profile", { seconds, cases: results });
