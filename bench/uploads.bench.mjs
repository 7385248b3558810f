// Direct upload throughput: PUT /api/v1/upload/direct/<fileId> (auth, D1 lookups, magic-byte sniff, the body
// piped through a FixedLengthStream into R2 with R2's SHA-256 check, conditional state change) against the
// bench worker's bare `PUT /__bench/r2/<key>` route, which only does BUCKET.put(key, request.body), and the
// same bare put given `sha256` (R2's check, which the app relies on instead of hashing the body itself). Same
// worker, same run, interleaved rounds; printed as ratios. Bodies of 1 MB, 4 MiB and 16 MB.
// Run: npm run bench -- uploads   (--quick: fewer requests). Port: BENCH_PORT_BASE + 10 (default 8800).
import { createHash, randomBytes } from "node:crypto";
import { benchPort, fmt, printTable, quick, ratio, startBenchApp, stats, workerdCpuMs, writeSummary } from "./lib/index.mjs";

// BENCH_CONCURRENCY=1: one PUT at a time (latency-bound, as the issue 39 table measured "sequential").
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY) > 0 ? Number(process.env.BENCH_CONCURRENCY) : 4;
// BENCH_ROUNDS=<n>: more interleaved rounds, for a ratio that two rounds cannot tell from its neighbours.
const ROUNDS = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : 2;
const SIZES = [
  { label: "1 MB", bytes: 1_000_000, requests: quick ? 16 : 80 },
  { label: "4 MiB", bytes: 4 * 1024 * 1024, requests: quick ? 8 : 40 },
  { label: "16 MB", bytes: 16_000_000, requests: quick ? 4 : 20 },
];

/** Random bytes behind a PNG signature: passes the route's magic-byte check, does not compress. */
function pngLike(n) {
  const b = randomBytes(n);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
  return b;
}

async function expectStatus(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function signup(api) {
  const id = randomBytes(6).toString("hex");
  const res = await fetch(`${api}/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `bench-${id}@example.com`, password: "bench password 123", username: `bench${id}`, ageConfirmed: true }),
  });
  return (await expectStatus(res, 201, "signup")).session.access_token;
}

async function presign(api, token, body, sha256) {
  const res = await fetch(`${api}/upload/presign`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ filename: "bench.png", mime: "image/png", bytes: body.length, sha256 }),
  });
  return (await expectStatus(res, 201, "presign")).fileId;
}

/** `n` requests, `CONCURRENCY` at a time; wall time, latency and the workerd runtime's CPU per request. */
async function timed(worker, n, send) {
  const latencies = [];
  let next = 0;
  let errors = 0;
  const cpu0 = workerdCpuMs(worker.processGroup);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        if (!(await send(i))) errors += 1;
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = workerdCpuMs(worker.processGroup);
  return { seconds, latencies, errors, cpuMs: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null };
}

function merge(parts, n, bytes) {
  const seconds = parts.reduce((s, p) => s + p.seconds, 0);
  const cpu = parts.every((p) => p.cpuMs !== null) ? parts.reduce((s, p) => s + p.cpuMs, 0) : null;
  const lat = stats(parts.flatMap((p) => p.latencies));
  return {
    requests: n,
    seconds,
    rps: n / seconds,
    mbPerSecond: (n * bytes) / 1e6 / seconds,
    p50: lat.median,
    p90: lat.p90,
    cpuMsPerRequest: cpu === null ? null : cpu / n,
    errorCount: parts.reduce((s, p) => s + p.errors, 0),
  };
}

// --against <commit> (scripts/bench.mjs): that commit's app beside this one, every round on both (bench:interleaves-against).
const againstRoot = process.env.BENCH_AGAINST_ROOT;
const apps = [await startBenchApp({ port: benchPort(10) })];
const results = [];
let failed = false;
try {
  if (againstRoot) apps.push(await startBenchApp({ port: benchPort(11), appRoot: againstRoot }));
  const tokens = [];
  for (const app of apps) tokens.push(await signup(`${app.url}/api/v1`));
  for (const app of apps) results.push({ rows: [], ratios: [] });
  for (const size of SIZES) {
    const body = pngLike(size.bytes);
    const sha256 = createHash("sha256").update(body).digest("hex");
    const per = Math.ceil(size.requests / ROUNDS);
    const total = per * ROUNDS;
    // Per app: one presigned file per PUT (a file takes its bytes once); presigning is not timed.
    const sides = [];
    for (const [k, app] of apps.entries()) {
      const api = `${app.url}/api/v1`;
      const token = tokens[k];
      const fileIds = [];
      for (let i = 0; i < total + 1; i++) fileIds.push(await presign(api, token, body, sha256));
      const bareAt = (query) => (i) =>
        fetch(`${app.url}/__bench/r2/upload-${size.bytes}-${i}${query}`, { method: "PUT", body, headers: { "content-type": "application/octet-stream" } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status === 201;
        });
      let used = 0;
      const direct = () => {
        const fileId = fileIds[used++];
        return fetch(`${api}/upload/direct/${fileId}`, { method: "PUT", body, headers: { "content-type": "image/png", authorization: `Bearer ${token}` } }).then(async (r) => {
          const text = await r.text();
          if (r.status !== 200) console.error(`\n  PUT ${fileId}: ${r.status} ${text.slice(0, 200)}`);
          return r.status === 200;
        });
      };
      // The same put with R2's SHA-256 check, as the app asks for it: how much of the gap is R2's own check
      // (in production done by R2, off the worker; locally the R2 simulator runs in the same workerd process).
      const side = { app, bare: bareAt(""), bareSha: bareAt(`?sha256=${sha256}`), direct, parts: { bare: [], sha: [], direct: [] } };
      if (!(await side.bare(-1)) || !(await side.bareSha(-2)) || !(await direct())) throw new Error("warm-up PUT failed");
      sides.push(side);
    }

    process.stdout.write(`  ${size.label}: ${total} PUTs per route${apps.length > 1 ? " and app" : ""}, ${CONCURRENCY} at a time ...`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of sides) {
        side.parts.bare.push(await timed(side.app, per, (i) => side.bare(round * per + i)));
        side.parts.sha.push(await timed(side.app, per, (i) => side.bareSha(total + round * per + i)));
        side.parts.direct.push(await timed(side.app, per, () => side.direct()));
      }
    }
    process.stdout.write(" done\n");
    for (const [k, side] of sides.entries()) {
      const b = { label: `${size.label}  bare BUCKET.put (baseline)`, ...merge(side.parts.bare, total, size.bytes) };
      const h = { label: `${size.label}  bare BUCKET.put with sha256`, ...merge(side.parts.sha, total, size.bytes) };
      const d = { label: `${size.label}  PUT /upload/direct (app)`, ...merge(side.parts.direct, total, size.bytes) };
      for (const r of [b, h, d]) r.base = b;
      results[k].rows.push(b, h, d);
      results[k].ratios.push({ size: size.label, throughput: d.mbPerSecond / b.mbPerSecond, cpu: d.cpuMsPerRequest && b.cpuMsPerRequest ? d.cpuMsPerRequest / b.cpuMsPerRequest : null });
      if (b.errorCount || d.errorCount) failed = true;
    }
  }
} finally {
  for (const app of apps) await app.stop();
}
const { rows, ratios } = results[0];

console.log();
printTable(rows, [
  { key: "label", title: "route (bench worker, local wrangler dev)" },
  { key: "mbPerSecond", title: "MB/s" },
  { key: "rps", title: "req/s" },
  { key: "p50", title: "p50 ms" },
  { key: "p90", title: "p90 ms" },
  { key: "cpuMsPerRequest", title: "CPU ms/req" },
  { key: "requests", title: "requests" },
  { key: "errorCount", title: "errors" },
  { key: "mbPerSecond", title: "throughput vs bare", format: (v, row) => ratio(v, row.base.mbPerSecond) },
  { key: "cpuMsPerRequest", title: "CPU vs bare", format: (v, row) => ratio(v, row.base.cpuMsPerRequest) },
]);
for (const r of ratios) {
  console.log(`direct upload, ${r.size}: ${fmt(r.throughput)}x the bare put's throughput, ${r.cpu === null ? "-" : fmt(r.cpu) + "x"} its CPU per request`);
}
console.log(`\n${CONCURRENCY} concurrent requests, ${ROUNDS} interleaved rounds per route. The app route also verifies (sniff; length and
SHA-256 by R2) and does 3-4 D1 queries; both routes pay local dev's proxy and the local R2 simulator's disk writes.
Shared 2-core machine: compare the ratios, not the absolute figures.\n`);

writeSummary("uploads", {
  baseline: "PUT /__bench/r2/<key> (BUCKET.put(key, request.body))",
  concurrency: CONCURRENCY,
  rounds: ROUNDS,
  rows: rows.map(({ base, ...r }) => r),
  ratios,
  against: results[1] ? { root: againstRoot, rows: results[1].rows.map(({ base, ...r }) => r), ratios: results[1].ratios } : undefined,
});
if (failed) {
  console.error("some requests failed");
  process.exit(1);
}
