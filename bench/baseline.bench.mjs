// Platform floor on the bench worker (bench/worker.ts): what a bare response, a bare D1 query and a bare R2
// put/get cost under load here, and the app's full middleware stack on a cached route, against the static
// JSON baseline measured in the same run. Later benchmarks compare feature routes with these bare routes.
// Run: npm run bench -- baseline   (--quick: 2 s per case)
import { randomBytes } from "node:crypto";
import { benchPort, fmt, load, printTable, quick, ratio, startBenchApp, writeSummary } from "./lib/index.mjs";

const seconds = quick ? 2 : 8;
const connections = 8;
const body = randomBytes(100 * 1024); // 100 KiB object

const app = await startBenchApp({ port: benchPort(2) });
const rows = [];
try {
  // Seed the object the GET case reads, and warm the routes up.
  const seeded = await fetch(`${app.url}/__bench/r2/read-me`, { method: "PUT", body, headers: { "content-length": String(body.length) } });
  if (seeded.status !== 201) throw new Error(`seeding R2 failed: ${seeded.status} ${await seeded.text()}`);
  for (const p of ["/__bench/json", "/__bench/d1", "/__bench/r2/read-me", "/api/v1/openapi.json"]) {
    const r = await fetch(app.url + p);
    if (!r.ok) throw new Error(`warm-up ${p}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }

  const cases = [
    ["static JSON (baseline)", { url: `${app.url}/__bench/json` }],
    ["D1 SELECT 1", { url: `${app.url}/__bench/d1` }],
    ["R2 get 100 KiB", { url: `${app.url}/__bench/r2/read-me` }],
    ["R2 put 100 KiB", { url: `${app.url}/__bench/r2/written`, method: "PUT", body, headers: { "content-type": "application/octet-stream" } }],
    ["app: GET /api/v1/openapi.json", { url: `${app.url}/api/v1/openapi.json` }],
  ];
  for (const [label, opts] of cases) {
    process.stdout.write(`  ${label} ...`);
    const r = await load({ ...opts, connections, durationSeconds: seconds, worker: app });
    process.stdout.write(` ${fmt(r.rps)} req/s (${r.tool})\n`);
    rows.push({ label, ...r, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errorCount: r.errors.network + r.errors.status + r.errors.timeout });
  }
} finally {
  await app.stop();
}

const base = rows[0];
console.log();
printTable(rows, [
  { key: "label", title: "route (bench worker, local workerd)" },
  { key: "rps", title: "req/s" },
  { key: "p50", title: "p50 ms" },
  { key: "p99", title: "p99 ms" },
  { key: "cpuMsPerRequest", title: "CPU ms/req" },
  { key: "requests", title: "requests" },
  { key: "errorCount", title: "errors" },
  { key: "rps", title: "throughput vs baseline", format: (v) => ratio(v, base.rps) },
  { key: "p50", title: "p50 vs baseline", format: (v) => ratio(v, base.p50) },
  { key: "cpuMsPerRequest", title: "CPU vs baseline", format: (v) => ratio(v, base.cpuMsPerRequest) },
]);
console.log(`${connections} connections, ${seconds} s per case, load generator: ${base.tool}. CPU ms/req: the workerd runtime process
(not wrangler dev's proxy), including local dev's own per-request overhead. Shared 2-core machine: compare ratios, not absolutes.\n`);

writeSummary("baseline", { baseline: "static JSON", connections, seconds, rows });
const errors = rows.reduce((n, r) => n + r.errorCount, 0);
if (errors) {
  console.error(`${errors} failed requests`);
  process.exit(1);
}
