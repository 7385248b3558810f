// What each hot request waits for: per request type, the calls made before the response (D1 on the primary,
// D1 on a replica, Durable Object calls, R2 calls, cache reads; counted by bench/roundtrips.ts), the local
// latency, and the latency with every primary/DO round trip made RTT ms long (a viewer far from D1's primary
// and the Durable Objects). (latency with RTT - local latency) / RTT is how many of those round trips the
// response waited for in sequence.
// Run: npm run bench -- roundtrips   (--quick: 3 samples). Port BENCH_PORT_BASE + 40 (default 8830+).
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { benchPort, fmt, printTable, quick, root, startBenchApp, stats, writeSummary } from "./lib/index.mjs";
import { benchUser, readJson } from "./lib/users.mjs";

const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 100);
const samples = quick ? 3 : 7;
const showCalls = process.argv.includes("--calls"); // print what each request called

// New owners (and anonymous uploads) go to shard 1 (SHARD_1) alone, so the directory's round trips (database DB)
// and the owner's shard's are counted apart.
const app = await startBenchApp({ port: benchPort(42), vars: { FINALIZE_WAIT_MS: "0", SHARDS_OPEN: "1" } });
const api = `${app.url}/api/v1`;
const photo = readFileSync(path.join(root, "test/fixtures/images/wood.jpg"));
const sha256 = createHash("sha256").update(photo).digest("hex");

/** One request with counted bindings; `rtt` injects the round-trip time. */
async function timed(url, init = {}, rtt = 0) {
  const headers = { ...init.headers, "x-bench-tally": "1", ...(rtt ? { "x-bench-rtt-ms": String(rtt) } : {}) };
  const started = performance.now();
  const res = await fetch(url, { ...init, headers });
  const body = await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status >= 400) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${Buffer.from(body).toString().slice(0, 200)}`);
  const calls = JSON.parse(res.headers.get("x-bench-calls") ?? "[]");
  return { ms, tally: JSON.parse(res.headers.get("x-bench-tally") ?? "{}"), calls, body, etag: res.headers.get("etag") };
}

const bearer = (token) => ({ authorization: `Bearer ${token}` });

/** presign -> PUT -> finalize, each step timed (a fresh upload every time). */
async function upload(token, rtt = 0) {
  const pre = await timed(`${api}/upload/presign`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ filename: "wood.jpg", mime: "image/jpeg", bytes: photo.byteLength, sha256 }),
  }, rtt);
  const p = JSON.parse(Buffer.from(pre.body).toString());
  const put = await timed(`${api}/upload/direct/${p.fileId}`, { method: "PUT", headers: { ...bearer(token), "content-type": "image/jpeg" }, body: photo }, rtt);
  const etag = put.etag ?? "";
  const fin = await timed(`${api}/upload/finalize`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ uploadId: p.uploadId, fileId: p.fileId, storeKey: p.storeKey, storeEtag: etag }),
  }, rtt);
  return { fileId: p.fileId, steps: { presign: pre, "PUT (1 direct upload)": put, finalize: fin } };
}

const rows = [];
try {
  const user = await benchUser(app, ["read", "upload"]);
  const { fileId } = await upload(user.access);
  // The thumbnail exists once the analysis has run.
  for (let i = 0; i < 120; i++) {
    const f = await readJson(await fetch(`${api}/files/${fileId}`, { headers: bearer(user.access) }));
    if (f.analysis !== "pending") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const image = `${app.url}/i/${fileId}`;
  const forget = () => fetch(`${app.url}/__bench/forget/${fileId}`, { method: "POST" }).then((r) => r.arrayBuffer());
  const cases = [
    ["image view, edge-cache miss", image, {}, forget],
    ["image view, edge-cache hit", image, {}],
    ["thumbnail, edge-cache hit", `${image}/thumb`, {}],
    ["GET /files/:id anonymous", `${api}/files/${fileId}`, {}],
    ["GET /files/:id session", `${api}/files/${fileId}`, { headers: bearer(user.access) }],
    ["GET /files/:id API key", `${api}/files/${fileId}`, { headers: bearer(user.key) }],
    ["GET /files session", `${api}/files?limit=20`, { headers: bearer(user.access) }],
  ];
  const measure = async (label, run, before) => {
    const local = [];
    const far = [];
    let counted;
    await run(0); // warm: isolate, leases, the records after a first miss
    for (let i = 0; i < samples; i++) {
      if (before) await before();
      local.push((await run(0)).ms);
      if (before) await before();
      counted = await run(RTT_MS);
      far.push(counted.ms);
    }
    rows.push(row(label, counted, local, far));
  };
  // The tally of a run with RTT: a call the response did not wait for cannot settle within it.
  const row = (label, counted, local, far) => {
    const p50 = stats(local).median;
    const p50far = stats(far).median;
    const { background = {}, ...tally } = counted.tally;
    const behind = (background.d1Primary ?? 0) + (background.shardPrimary ?? 0) + (background.durableObject ?? 0);
    if (showCalls) console.log(`${label}:\n  ${counted.calls.join("\n  ")}`);
    return { label, ...tally, behind, p50, p50far, waited: Math.max(0, Math.round((p50far - p50) / RTT_MS)) };
  };
  for (const [label, url, init, before] of cases) await measure(label, (rtt) => timed(url, init, rtt), before);

  // Uploads: each sample is a whole upload, each step reported on its own.
  const steps = new Map();
  await upload(user.access);
  for (let i = 0; i < samples; i++) {
    for (const rtt of [0, RTT_MS]) {
      const u = await upload(user.access, rtt);
      for (const [step, r] of Object.entries(u.steps)) {
        if (!steps.has(step)) steps.set(step, { local: [], far: [] });
        steps.get(step)[rtt ? "far" : "local"].push(r.ms);
        if (rtt) steps.get(step).counted = r;
      }
    }
  }
  for (const [step, s] of steps) rows.push(row(step, s.counted, s.local, s.far));
} catch (err) {
  await new Promise((r) => setTimeout(r, 1000)); // wrangler flushes its log a little later
  console.error(app.output.slice(-40).join(""));
  throw err;
} finally {
  await app.stop();
}

console.log();
printTable(rows, [
  { key: "label", title: "request" },
  { key: "d1Primary", title: "directory primary" },
  { key: "d1Replica", title: "directory replica" },
  { key: "shardPrimary", title: "shard primary" },
  { key: "shardReplica", title: "shard replica" },
  { key: "durableObject", title: "DO calls" },
  { key: "r2", title: "R2 calls" },
  { key: "cacheRead", title: "cache reads" },
  { key: "behind", title: "primary/DO in background" },
  { key: "p50", title: "p50 ms local", format: (v) => fmt(v) },
  { key: "p50far", title: `p50 ms, ${RTT_MS} ms RTT`, format: (v) => fmt(v) },
  { key: "waited", title: "round trips waited" },
]);
console.log(`Calls that settled before the response was returned, in the run with RTT; "in background": D1 primary or
Durable Object calls started before the response but not waited for (view counts, lease refills).
Directory: database DB; shard: SHARD_1, the owner's (new owners go there in this run). Replica: sessions the
Sessions API may send to the nearest replica (locally everything is the primary).
${RTT_MS} ms RTT: each D1 query on the primary and each Durable Object call waits ${RTT_MS} ms first;
round trips waited = (p50 with RTT - p50 local) / RTT, rounded. ${samples} samples per row, local wrangler dev.\n`);
writeSummary("roundtrips", { rttMs: RTT_MS, samples, rows });
