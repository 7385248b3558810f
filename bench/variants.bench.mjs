// Variants by URL (src/serving/variants.ts): what a phone saves and what a variant costs once cached.
//   bytes      a 12 MP JPEG (test/fixtures/images/large/wood-12mp.jpg, 4096 x 3072) as stored vs its 640 px WebP
//              (and a few other ladder steps for context); the ratio is original / variant.
//   latency    the short link's variant `?w=640` (Accept: image/webp) on an edge-cache hit vs the original short
//              link on an edge-cache hit, under the same load, same worker, same run; and what making a variant
//              (a cache miss: R2 read + the Images binding, locally sharp behind miniflare) takes, one at a time.
// Run: npm run bench -- variants   (--quick: 2 s per case). Port: BENCH_PORT_BASE + 50 (default 8840).
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { benchPort, fmt, load, printTable, quick, ratio, startBenchApp, stats, writeSummary } from "./lib/index.mjs";

const seconds = quick ? 2 : 8;
const connections = 8;
const WEBP = "image/webp,*/*;q=0.8";

async function expectJson(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function get(url, headers = {}) {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return { ms: performance.now() - started, bytes: body.byteLength, type: res.headers.get("content-type"), variant: res.headers.get("x-variant"), fallback: res.headers.get("x-variant-fallback") };
}

const photo = readFileSync(new URL("../test/fixtures/images/large/wood-12mp.jpg", import.meta.url));
const app = await startBenchApp({ port: benchPort(50) });
const api = `${app.url}/api/v1`;
const sizes = [];
const rows = [];
const misses = [];
let failed = false;
try {
  const id = randomBytes(6).toString("hex");
  const session = await expectJson(
    await fetch(`${api}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `variants-${id}@example.com`, password: "bench password 123", username: `var${id}`, ageConfirmed: true }),
    }),
    201,
    "signup",
  );
  const auth = { authorization: `Bearer ${session.session.access_token}` };
  const sha256 = createHash("sha256").update(photo).digest("hex");
  const pre = await expectJson(
    await fetch(`${api}/upload/presign`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ filename: "wood.jpg", mime: "image/jpeg", bytes: photo.length, sha256, visibility: "public" }),
    }),
    201,
    "presign",
  );
  const put = await fetch(`${api}/upload/direct/${pre.fileId}`, { method: "PUT", body: photo, headers: { "content-type": "image/jpeg", ...auth } });
  await expectJson(put, 200, "direct PUT");
  await expectJson(
    await fetch(`${api}/upload/finalize`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag") }),
    }),
    200,
    "finalize",
  );
  let file;
  for (let i = 0; i < 120; i++) {
    file = await expectJson(await fetch(`${api}/files/${pre.fileId}`, { headers: auth }), 200, "GET file");
    if (file.analysis !== "pending") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`  file ${pre.fileId}: ${photo.length} bytes, ${file.width} x ${file.height}, analysis ${file.analysis}, placeholder ${file.placeholder ? "yes" : "no"}`);
  const readHeaders = file.ageRestricted ? auth : {};
  const short = `${app.url}/i/${pre.fileId}`;

  // Bytes: the original, then ladder steps (each made once: a cache miss, timed, then read again from the cache).
  const original = await get(short, readHeaders);
  sizes.push({ label: "original (as stored)", type: original.type, bytes: original.bytes, ratio: 1 });
  for (const [w, accept] of [[640, WEBP], [640, "image/avif,image/webp,*/*"], [320, WEBP], [1024, WEBP], [2048, WEBP]]) {
    const made = await get(`${short}?w=${w}`, { ...readHeaders, accept });
    if (made.fallback) throw new Error(`w=${w} fell back: ${made.fallback}`);
    misses.push({ label: `make ?w=${w} ${made.type}`, ms: made.ms });
    sizes.push({ label: `?w=${w} (${made.variant})`, type: made.type, bytes: made.bytes, ratio: original.bytes / made.bytes });
  }

  // Latency on cache hits, same load: the original short link vs the 640 px WebP variant.
  const cases = [
    ["original short link, edge-cache hit", { url: short, headers: readHeaders }],
    ["?w=640 WebP variant, edge-cache hit", { url: `${short}?w=640`, headers: { ...readHeaders, accept: WEBP } }],
  ];
  for (const [, opts] of cases) await get(opts.url, opts.headers); // warm
  for (const [label, opts] of cases) {
    process.stdout.write(`  ${label} ...`);
    const r = await load({ ...opts, connections, durationSeconds: seconds, worker: app });
    process.stdout.write(` ${fmt(r.rps)} req/s (${r.tool})\n`);
    const errorCount = r.errors.network + r.errors.status + r.errors.timeout;
    if (errorCount) failed = true;
    rows.push({ label, ...r, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errorCount, mbPerSecond: r.bytesRead ? r.bytesRead / 1e6 / r.seconds : null });
  }
  // Single requests, one at a time (no queueing behind other connections): p50 of 30 each.
  for (const [label, opts] of cases) {
    const times = [];
    for (let i = 0; i < 30; i++) times.push((await get(opts.url, opts.headers)).ms);
    const row = rows.find((r) => r.label === label);
    row.singleP50 = stats(times).median;
  }
} catch (err) {
  failed = true;
  console.error(err);
} finally {
  await app.stop();
}

console.log();
printTable(sizes, [
  { key: "label", title: "12 MP JPEG (4096 x 3072)" },
  { key: "type", title: "type" },
  { key: "bytes", title: "bytes" },
  { key: "ratio", title: "original / this", format: (v) => `${v.toFixed(1)}x` },
]);
console.log();
const base = rows[0];
printTable(rows, [
  { key: "label", title: "cache hit (bench worker, local wrangler dev)" },
  { key: "rps", title: "req/s" },
  { key: "p50", title: "p50 ms (8 conn)" },
  { key: "p99", title: "p99 ms" },
  { key: "singleP50", title: "p50 ms (1 conn)" },
  { key: "cpuMsPerRequest", title: "CPU ms/req" },
  { key: "p50", title: "p50 vs original", format: (v) => (base ? ratio(v, base.p50) : "") },
  { key: "errorCount", title: "errors" },
]);
console.log();
printTable(misses, [
  { key: "label", title: "cache miss: making the variant (one request)" },
  { key: "ms", title: "ms" },
]);
writeSummary("variants", { sizes, hits: rows.map(({ label, rps, p50, p99, singleP50, cpuMsPerRequest, errorCount }) => ({ label, rps, p50, p99, singleP50, cpuMsPerRequest, errorCount })), misses });
process.exit(failed ? 1 : 0);
