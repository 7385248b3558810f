// The read side under load: GET /api/v1/files/<id> against the static JSON baseline, and the short link
// {image_url}/<id> (a 1 MB image) against the bench worker's bare `GET /__bench/r2/<key>` (BUCKET.get,
// streamed back), all measured in the same run on the same worker and printed as ratios.
//   short link            the normal path: the bytes' edge-cache entry, which carries the file's access record
//                         (src/serving/byte-entries.ts), and the owner's record (caches.default), hotlink check,
//                         views gathered and counted after the response
//   short link, Range 0-  the same checks but the bytes straight from R2 (ranges bypass the edge cache)
//   short link, 304       If-None-Match: answered from the access records alone, no R2, no bytes
//   CDN link              {cdn_url}/uploads/<date>/<id>/<name>: as the short link, path checked against storeKey
//   bare cache hit        baseline C: caches.default.match of the same 1 MB object (the local cache simulator's cost)
//   3 cache lookups       baseline D: two small JSON records, then baseline C: the lookups a byte link's hit made
//                         before its entries carried the file's record (it now makes one for an owner's first files)
//   1 record lookup       baseline E: one file-sized JSON record from caches.default, then static JSON: the local
//                         floor of any read decided at the edge (the API read and the 304 each make this one lookup)
// Run: npm run bench -- serving   (3 interleaved rounds of 4 s per case; --quick: one round of 2 s). Port: BENCH_PORT_BASE + 40 (default 8830);
// --against <commit>: that commit's app on BENCH_PORT_BASE + 41, interleaved case by case (bench:interleaves-against).
import { createHash, randomBytes } from "node:crypto";
import { benchPort, fmt, load, medianRatio, printTable, quick, ratio, startBenchApp, writeSummary } from "./lib/index.mjs";
import { makePng } from "./lib/png.mjs";

// Interleaved rounds: every case runs once per round, so a burst of load from elsewhere on the machine falls on
// all of them rather than on one; each row adds its rounds up.
// BENCH_ROUNDS=<n>: more rounds, for a ratio three rounds cannot tell from its neighbours. BENCH_CASES=<regex>: only
// the cases whose label matches (their baselines too, e.g. "files/:id" runs A, E and the API read).
const rounds = Number(process.env.BENCH_ROUNDS) > 0 ? Number(process.env.BENCH_ROUNDS) : quick ? 1 : 3;
const only = process.env.BENCH_CASES ? new RegExp(process.env.BENCH_CASES) : null;
const seconds = quick ? 2 : 4;
const connections = 8;

/** One row from its rounds: throughput and CPU over all requests, latency the median round's. */
function merge(results) {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const secs = results.reduce((n, r) => n + r.seconds, 0);
  const bytesRead = results.reduce((n, r) => n + (r.bytesRead ?? 0), 0);
  const cpu = results.every((r) => r.cpuMsPerRequest !== null) ? results.reduce((n, r) => n + r.cpuMsPerRequest * r.requests, 0) / requests : null;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const errors = { network: 0, status: 0, timeout: 0 };
  for (const r of results) for (const k of Object.keys(errors)) errors[k] += r.errors[k];
  return {
    tool: results[0].tool,
    requests,
    seconds: secs,
    rps: requests / secs,
    bytesRead,
    cpuMsPerRequest: cpu,
    latencyMs: { p50: median(results.map((r) => r.latencyMs.p50)), p99: median(results.map((r) => r.latencyMs.p99)) },
    errors,
    roundsRps: results.map((r) => r.rps),
  };
}

async function expectJson(res, status, what) {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A user and one finalized ~1 MB image through the real upload flow, analysed; the cases to measure on `app`. */
async function seed(app) {
  const api = `${app.url}/api/v1`;
  const id = randomBytes(6).toString("hex");
  const post = (path, body, headers = {}) => fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const session = await expectJson(await post("/auth/signup", { email: `serve-${id}@example.com`, password: "bench password 123", username: `serve${id}`, ageConfirmed: true }), 201, "signup");
  const auth = { authorization: `Bearer ${session.session.access_token}` };
  const png = makePng(580, 580, 3);
  const sha256 = createHash("sha256").update(png).digest("hex");
  const pre = await expectJson(await post("/upload/presign", { filename: "bench.png", mime: "image/png", bytes: png.length, sha256, visibility: "public" }, auth), 201, "presign");
  const put = await fetch(`${api}/upload/direct/${pre.fileId}`, { method: "PUT", body: png, headers: { "content-type": "image/png", ...auth } });
  await expectJson(put, 200, "direct PUT");
  const fin = await expectJson(await post("/upload/finalize", { uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag"), width: 580, height: 580 }, auth), 200, "finalize");
  await expectJson(await fetch(`${app.url}/__bench/r2/serving-1mb`, { method: "PUT", body: png, headers: { "content-length": String(png.length) } }), 201, "bare R2 seed");

  // Let the analysis job (queue consumer) finish so it does not compete with the measurements.
  let file;
  let polls = 0;
  for (let i = 0; i < 60; i++) {
    polls++;
    file = await expectJson(await fetch(`${api}/files/${pre.fileId}`, { headers: auth }), 200, "GET file");
    if (file.analysis !== "pending") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`  ${app.url}: file ${pre.fileId}, ${png.length} bytes, analysis ${file.analysis}, ageRestricted ${file.ageRestricted}`);
  // Public reads are anonymous; if the analysis flagged the image, read as its owner instead.
  const fileHeaders = file.ageRestricted ? auth : {};
  const shortUrl = `${app.url}/i/${pre.fileId}`;
  const etag = (await fetch(shortUrl, { method: "HEAD" })).headers.get("etag");
  // A read and its baseline run next to each other in a round (A, E, the reads decided from a record; then B, C, D, the
  // byte links), so that a change of load between cases falls on both alike.
  const all = [
    ["static JSON (baseline A)", { url: `${app.url}/__bench/json` }, "A"],
    ["bare 1 record lookup + static JSON (baseline E)", { url: `${app.url}/__bench/json1` }, "A"],
    [`GET /api/v1/files/:id${file.ageRestricted ? " (owner)" : ""}`, { url: `${api}/files/${pre.fileId}`, headers: fileHeaders }, "A"],
    ["short link, If-None-Match (304)", { url: shortUrl, headers: { "if-none-match": etag } }, "A"],
    // The API's middleware chain alone, no lookup: a path no route has, answered 404 after auth and the rate limit.
    ["the API chain alone: GET /api/v1/<no route> (404)", { url: `${api}/no-such-route`, status: 404 }, "A"],
    ["bare R2 get 1 MB (baseline B)", { url: `${app.url}/__bench/r2/serving-1mb` }, "B"],
    ["bare cache hit 1 MB (baseline C)", { url: `${app.url}/__bench/cache/serving-1mb` }, "C"],
    ["bare 3 cache lookups: 2 records + 1 MB (baseline D)", { url: `${app.url}/__bench/cache3/serving-1mb` }, "D"],
    ["short link {image_url}/:id", { url: shortUrl }, "B"],
    ["short link, Range: bytes=0- (R2)", { url: shortUrl, headers: { range: "bytes=0-" } }, "B"],
    ["CDN link", { url: `${app.url}${new URL(fin.cdnUrl).pathname}` }, "B"],
  ];
  const baseline = (label) => /^(bare|static)/.test(label);
  // A baseline runs when a read measured against it does (E's rows are against A).
  const wanted = (label, base) => !only || only.test(label) || (baseline(label) && all.some(([l, , b]) => b === base && !baseline(l) && only.test(l)));
  const cases = all.filter(([label, , base]) => wanted(label, base));
  for (const [, opts] of cases) {
    const r = await fetch(opts.url, { headers: opts.headers });
    await r.arrayBuffer();
    if (r.status !== (opts.status ?? r.status) || (!opts.status && r.status >= 400)) throw new Error(`warm-up ${opts.url}: ${r.status}`);
  }
  return { app, api, auth, fileId: pre.fileId, polls, cases };
}

function rowsOf(seeded, byCase) {
  return seeded.cases.map(([label, opts, base], i) => {
    const r = merge(byCase[i]);
    const errorCount = r.errors.network + (opts.status ? 0 : r.errors.status) + r.errors.timeout; // a case's own status is no error
    return { label, base, ...r, p50: r.latencyMs.p50, p99: r.latencyMs.p99, errorCount, mbPerSecond: r.bytesRead ? r.bytesRead / 1e6 / r.seconds : null };
  });
}

// --against <commit> (scripts/bench.mjs): that commit's app runs beside this one, and every case of a round runs on
// both back to back, so a burst of load elsewhere falls on both alike.
const againstRoot = process.env.BENCH_AGAINST_ROOT;
const apps = [await startBenchApp({ port: benchPort(40) })];
let rows = [];
let againstRows;
let failed = false;
let viewCheck;
try {
  if (againstRoot) apps.push(await startBenchApp({ port: benchPort(41), appRoot: againstRoot }));
  const seeded = [];
  for (const app of apps) seeded.push(await seed(app));
  const byCase = seeded.map((s) => s.cases.map(() => []));
  for (let round = 1; round <= rounds; round++) {
    for (const i of seeded[0].cases.keys()) {
      // Which app goes first alternates by round: the second of two back-to-back runs tends to do a little better.
      const order = round % 2 ? [...seeded.keys()] : [...seeded.keys()].reverse();
      for (const k of order) {
        const s = seeded[k];
        const [label, opts] = s.cases[i];
        process.stdout.write(`  round ${round}/${rounds}${k ? " (against)" : ""}: ${label} ...`);
        const r = await load({ ...opts, connections, durationSeconds: seconds, worker: s.app });
        process.stdout.write(` ${fmt(r.rps)} req/s (${r.tool})\n`);
        byCase[k][i].push(r);
      }
    }
  }
  rows = rowsOf(seeded[0], byCase[0]);
  if (againstRoot) againstRows = rowsOf(seeded[1], byCase[1]);
  failed = [...rows, ...(againstRows ?? [])].some((r) => r.errorCount > 0);
  // Views are counted after the response, aggregated per shard and flushed in batches: check the load was
  // counted. Client-side count: every completed GET of /files/:id, the short link, the Range-from-0 and CDN
  // cases (not the 304s) plus the warm-up and polling reads; wrk stops mid-flight, so the server may count a
  // few more requests than the client saw complete.
  const { api, auth, fileId, polls } = seeded[0];
  const viewCases = rows.filter((r) => !r.label.startsWith("static") && !r.label.startsWith("bare") && !r.label.includes("304") && !r.label.includes("(404)"));
  const expected = viewCases.reduce((n, r) => n + r.requests, 0) + viewCases.length + polls; // + each one's warm-up
  await new Promise((r) => setTimeout(r, 7000));
  // With a bookmark the owner's read comes from D1, not from the access record (whose viewCount may lag 30 s).
  const bookmark = (await fetch(`${api}/account`, { headers: auth })).headers.get("x-d1-bookmark") ?? "";
  const after = await expectJson(await fetch(`${api}/files/${fileId}`, { headers: { ...auth, "x-d1-bookmark": bookmark } }), 200, "GET file after");
  console.log(`  viewCount after the run: ${after.viewCount}; completed counted requests seen by the client: ${expected}`);
  viewCheck = { counted: after.viewCount, clientCompleted: expected };
} finally {
  for (const app of apps) await app.stop();
}

const baseOf = { A: rows.find((r) => r.base === "A"), B: rows.find((r) => r.base === "B" && r.label.startsWith("bare")), C: rows.find((r) => r.base === "C"), D: rows.find((r) => r.base === "D"), E: rows.find((r) => r.label.includes("(baseline E)")) };
console.log();
printTable(rows, [
  { key: "label", title: "route (bench worker, local wrangler dev)" },
  { key: "rps", title: "req/s" },
  { key: "mbPerSecond", title: "MB/s" },
  { key: "p50", title: "p50 ms" },
  { key: "p99", title: "p99 ms" },
  { key: "cpuMsPerRequest", title: "CPU ms/req" },
  { key: "errorCount", title: "errors" },
  { key: "base", title: "vs" },
  { key: "rps", title: "throughput vs baseline", format: (v, row) => ratio(v, baseOf[row.base].rps) },
  { key: "p50", title: "p50 vs baseline", format: (v, row) => ratio(v, baseOf[row.base].p50) },
  { key: "cpuMsPerRequest", title: "CPU vs baseline", format: (v, row) => ratio(v, baseOf[row.base].cpuMsPerRequest) },
  // Byte links against a bare edge-cache hit too: locally the cache is simulated in the same process, so its
  // own cost shows in every cached read (baseline C).
  { key: "rps", title: "throughput vs bare cache hit (C)", format: (v, row) => (row.base === "B" && baseOf.C ? ratio(v, baseOf.C.rps) : "") },
  // ... and against three lookups done bare (D), the path's lookups before byte entries (one now, for an owner's first files).
  { key: "rps", title: "vs 3 bare lookups (D)", format: (v, row) => (/^(short link \{|CDN link)/.test(row.label) && baseOf.D ? ratio(v, baseOf.D.rps) : "") },
  // ... and reads decided from one record against one bare lookup (E): what the API's chain and handler cost.
  { key: "rps", title: "vs 1 bare lookup (E)", format: (v, row) => (row.base === "A" && !/baseline [AE]\)/.test(row.label) && baseOf.E ? ratio(v, baseOf.E.rps) : "") },
  // ... and the median of each round's own ratio to E (measured next to it), which a slow round does not pull.
  { key: "roundsRps", title: "vs E, median of rounds", format: (v, row) => (row.base === "A" && !/baseline [AE]\)/.test(row.label) && baseOf.E ? `${medianRatio(v, baseOf.E.roundsRps)?.toFixed(3) ?? "-"}x` : "") },
]);
console.log(`${connections} connections, ${rounds} interleaved rounds of ${seconds} s per case, load generator: ${rows[0]?.tool}. Baseline A: static JSON route;
baseline B: bare BUCKET.get of the same 1 MB object; baseline C: bare caches.default.match of it; baseline D: two small
record lookups, then C (a byte link hit's lookups before its entry carried the file's record); baseline E: one file-sized
record lookup, then A (the floor of a read decided at the edge). CPU ms/req: the workerd runtime process, including local dev's own
per-request overhead. Shared 2-core machine: compare ratios, not absolutes.\n`);

writeSummary("serving", { against: againstRows ? { root: againstRoot, rows: againstRows } : undefined, baselines: { A: "GET /__bench/json", B: "GET /__bench/r2/<key> (1 MB)", C: "GET /__bench/cache/<key> (1 MB)", D: "GET /__bench/cache3/<key> (2 records + 1 MB)", E: "GET /__bench/json1 (1 record + static JSON)" }, connections, rounds, seconds, rows, viewCheck });
if (failed) {
  console.error("some requests failed");
  process.exit(1);
}
