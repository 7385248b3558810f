// tus upload throughput (extensions.md § 1) against the multipart flow, for the same bytes in one run: a 100 MiB
// real PNG sent as a pro user's API key, in 5 MiB pieces, one request at a time on both sides:
//   tus:       POST /upload/tus, then PATCH 5 MiB chunks; the last PATCH completes (hash, finalize) and answers
//   multipart: POST /upload/multipart/init (partSize 5 MiB), PUT parts, POST .../complete, POST /upload/finalize
// Rounds alternate which flow goes first; medians and the median of the per-round ratios are reported. Also
// shown: multipart given the file's sha256 at init, which complete then verifies by reading the object back (the
// work tus's completion always does, to have the hash), and multipart with 3 parts in flight (the web app's way;
// tus sends one chunk at a time by design).
// Both apps run FINALIZE_WAIT_MS=0 (the analysis of a 100 MiB file is refused at once anyway: ANALYSIS.maxBytes).
// Then the round trips one PATCH waits for: PATCHes sent with `x-bench-tally: 1` (bench/roundtrips.ts), and with
// `x-bench-rtt-ms: 100`, which makes every D1-primary and Durable Object call 100 ms long.
// Run: npm run bench -- tus   (--quick: 2 rounds). Port: BENCH_PORT_BASE + 56 (default 8846).
import { createHash, randomBytes } from "node:crypto";
import { benchPort, fetchWithin, fmt, printTable, quick, ratio, startBenchApp, stats, workerdCpuMs, writeSummary } from "./lib/index.mjs";
import { pngOfSize } from "./lib/png.mjs";
import { benchUser } from "./lib/users.mjs";

const MiB = 1024 * 1024;
const PIECE = 5 * MiB;
const ROUNDS = quick ? 2 : 5;
const RTT_MS = 100;
const PORT = benchPort(56);
const WEBHOOK_SECRET = randomBytes(32).toString("base64url");

const source = pngOfSize(100 * MiB, 3000, 7);
const app = await startBenchApp({ port: PORT, vars: { FINALIZE_WAIT_MS: "0", SHARDS_OPEN: "1", BILLING_WEBHOOK_SECRET: WEBHOOK_SECRET } });
const api = `${app.url}/api/v1`;

/** One request, bounded; throws naming it unless the status is `expected`. Answers the response, body and ms. */
async function send(what, url, init, expected) {
  const t0 = performance.now();
  const { res, body } = await fetchWithin(url, init, 120_000);
  const ms = performance.now() - t0;
  if (res.status !== expected) throw new Error(`${what}: ${res.status} ${Buffer.from(body).toString("utf8").slice(0, 300)}`);
  return { res, body, ms, json: () => JSON.parse(Buffer.from(body).toString("utf8")) };
}

const b64 = (s) => Buffer.from(s).toString("base64");
const pieces = (bytes) => Array.from({ length: Math.ceil(bytes.length / PIECE) }, (_, i) => bytes.subarray(i * PIECE, Math.min(bytes.length, (i + 1) * PIECE)));

/** A whole tus upload; `extra` headers go on every PATCH (tally, RTT). Answers ms per step and the PATCH replies. */
async function tusUpload(token, bytes, extra = {}) {
  const auth = { authorization: `Bearer ${token}`, "tus-resumable": "1.0.0" };
  const t0 = performance.now();
  const created = await send("tus creation", `${api}/upload/tus`, { method: "POST", headers: { ...auth, "upload-length": String(bytes.length), "upload-metadata": `filename ${b64("bench.png")},filetype ${b64("image/png")}` } }, 201);
  const url = created.res.headers.get("location");
  const patches = [];
  let offset = 0;
  for (const chunk of pieces(bytes)) {
    const headers = { ...auth, ...extra, "content-type": "application/offset+octet-stream", "upload-offset": String(offset) };
    const r = await send(`PATCH at ${offset}`, url, { method: "PATCH", headers, body: chunk }, 204);
    offset = Number(r.res.headers.get("upload-offset"));
    patches.push({ ms: r.ms, tally: JSON.parse(r.res.headers.get("x-bench-tally") ?? "null"), calls: JSON.parse(r.res.headers.get("x-bench-calls") ?? "null"), fileId: r.res.headers.get("upload-file-id") });
  }
  if (!patches.at(-1).fileId) throw new Error("the last PATCH named no Upload-File-Id");
  return { ms: performance.now() - t0, steps: { create: created.ms, chunk: patches.slice(0, -1).map((p) => p.ms), last: patches.at(-1).ms }, patches };
}

/**
 * A whole multipart upload, `inFlight` parts at a time, then complete and finalize. Answers ms per step. With
 * `sha256` the init names the file's hash and complete verifies it by reading the object back, as tus's completion
 * always does (tus has no field for it; the web app sends none for multipart, so its files get no sha256).
 */
async function multipartUpload(token, bytes, inFlight = 1, sha256 = undefined) {
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, "content-type": "application/json" };
  const t0 = performance.now();
  const initR = await send("multipart init", `${api}/upload/multipart/init`, { method: "POST", headers: json, body: JSON.stringify({ filename: "bench.png", mime: "image/png", totalBytes: bytes.length, partSize: PIECE, sha256 }) }, 201);
  const init = initR.json();
  const chunks = pieces(bytes);
  const parts = [];
  const partMs = [];
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const i = next++;
      const r = await send(`part ${i + 1}`, init.parts[i].url, { method: "PUT", headers: { ...auth, "content-type": "application/octet-stream" }, body: chunks[i] }, 200);
      parts.push({ partNumber: i + 1, etag: r.json().etag });
      partMs.push(r.ms);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  parts.sort((a, b) => a.partNumber - b.partNumber);
  const ids = { uploadId: init.uploadId, fileId: init.fileId, storeKey: init.storeKey };
  const complete = await send("multipart complete", `${api}/upload/multipart/complete`, { method: "POST", headers: json, body: JSON.stringify({ ...ids, parts }) }, 200);
  const finalize = await send("finalize", `${api}/upload/finalize`, { method: "POST", headers: json, body: JSON.stringify({ ...ids, storeEtag: complete.json().storeEtag }) }, 200);
  return { ms: performance.now() - t0, steps: { create: initR.ms, chunk: partMs, last: complete.ms + finalize.ms, complete: complete.ms, finalize: finalize.ms } };
}

/** Runs `upload` and adds the workerd runtime's CPU ms it cost. */
async function measured(upload) {
  const cpu0 = workerdCpuMs(app.processGroup);
  const r = await upload();
  const cpu1 = workerdCpuMs(app.processGroup);
  return { ...r, cpuMs: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null };
}

const sourceSha256 = createHash("sha256").update(source).digest("hex");
const FLOWS = {
  tus: (token) => measured(() => tusUpload(token, source)),
  multipart: (token) => measured(() => multipartUpload(token, source, 1)),
  "multipart + sha256 checked": (token) => measured(() => multipartUpload(token, source, 1, sourceSha256)),
  "multipart, 3 parts in flight": (token) => measured(() => multipartUpload(token, source, 3)),
};

let failed = false;
try {
  const user = await benchUser(app, ["read", "upload"], { plan: "pro", webhookSecret: WEBHOOK_SECRET });
  const results = Object.fromEntries(Object.keys(FLOWS).map((k) => [k, []]));
  for (const name of Object.keys(FLOWS)) await FLOWS[name](user.key); // warm: isolates, DO classes, leases
  const roundRatios = [];
  const hashedRatios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.keys(FLOWS) : Object.keys(FLOWS).reverse();
    const here = {};
    for (const name of order) results[name].push((here[name] = await FLOWS[name](user.key)));
    roundRatios.push(here.multipart.ms / here.tus.ms);
    hashedRatios.push(here["multipart + sha256 checked"].ms / here.tus.ms);
    console.log(`round ${round + 1}/${ROUNDS}: ${order.map((n) => `${n} ${fmt(here[n].ms / 1000)} s`).join(", ")}`);
  }

  const mb = source.length / 1e6;
  const rows = Object.entries(results).map(([flow, runs]) => {
    const s = stats(runs.map((r) => r.ms));
    const cpu = runs.every((r) => r.cpuMs !== null) ? stats(runs.map((r) => r.cpuMs)).median : null;
    return {
      flow,
      seconds: s.median / 1000,
      mbPerSecond: mb / (s.median / 1000),
      create: stats(runs.map((r) => r.steps.create)).median,
      chunk: stats(runs.flatMap((r) => r.steps.chunk)).median,
      last: stats(runs.map((r) => r.steps.last)).median,
      cpuMsPerMiB: cpu === null ? null : cpu / (source.length / MiB),
      min: s.min / 1000,
      max: s.max / 1000,
    };
  });
  const base = rows.find((r) => r.flow === "multipart");
  printTable(rows, [
    { key: "flow", title: `100 MiB (${source.length} bytes) in 5 MiB pieces, ${ROUNDS} rounds` },
    { key: "seconds", title: "median s" },
    { key: "mbPerSecond", title: "MB/s" },
    { key: "ratio", title: "vs multipart", format: (_, r) => ratio(r.mbPerSecond, base.mbPerSecond) },
    { key: "create", title: "create ms" },
    { key: "chunk", title: "chunk/part ms p50" },
    { key: "last", title: "completion ms" },
    { key: "cpuMsPerMiB", title: "workerd CPU ms/MiB" },
    { key: "min", title: "min s" },
    { key: "max", title: "max s" },
  ]);
  const perRound = stats(roundRatios).median;
  const perRoundHashed = stats(hashedRatios).median;
  console.log(`tus / multipart throughput: ${fmt(rows[0].mbPerSecond / base.mbPerSecond)}x (medians), ${fmt(perRound)}x (median of the per-round ratios: ${roundRatios.map((r) => fmt(r)).join(", ")})`);
  console.log(`tus / multipart + sha256 checked: ${fmt(perRoundHashed)}x (median of the per-round ratios: ${hashedRatios.map((r) => fmt(r)).join(", ")})\n`);
  for (const name of ["multipart", "multipart + sha256 checked"]) {
    const m = results[name].map((r) => r.steps);
    console.log(`${name}: complete p50 ${fmt(stats(m.map((s) => s.complete)).median)} ms, finalize p50 ${fmt(stats(m.map((s) => s.finalize)).median)} ms`);
  }
  console.log("");

  // What one PATCH waits for: counted, then with every single-location call 100 ms long.
  const counted = await tusUpload(user.key, source, { "x-bench-tally": "1" });
  const far = await tusUpload(user.key, source, { "x-bench-tally": "1", "x-bench-rtt-ms": String(RTT_MS) });
  const middle = (u) => u.patches.slice(0, -1);
  const tallyRows = [
    ["PATCH (a chunk)", middle(counted)[1], stats(middle(counted).map((p) => p.ms)).median, stats(middle(far).map((p) => p.ms)).median],
    ["last PATCH (completes)", counted.patches.at(-1), counted.patches.at(-1).ms, far.patches.at(-1).ms],
  ].map(([label, p, local, slow]) => {
    const { background = {}, ...t } = p.tally;
    // Not rounded: on this shared 2-core machine a 5 MiB request's own time moves by tens of ms between runs.
    return { label, ...t, local, far: slow, waited: Math.max(0, (slow - local) / RTT_MS), background: JSON.stringify(background) };
  });
  printTable(tallyRows, [
    { key: "label", title: "request" },
    { key: "d1Primary", title: "directory primary" },
    { key: "shardPrimary", title: "shard primary" },
    { key: "shardReplica", title: "shard replica" },
    { key: "durableObject", title: "DO calls" },
    { key: "r2", title: "R2" },
    { key: "cacheRead", title: "cache reads" },
    { key: "local", title: "p50 local ms" },
    { key: "far", title: `p50 with ${RTT_MS} ms RTT` },
    { key: "waited", title: "(far - local) / RTT" },
  ]);
  console.log(`calls of a chunk's PATCH: ${middle(counted)[1].calls.join("; ")}`);
  console.log(`calls of the last PATCH: ${counted.patches.at(-1).calls.join("; ")}\n`);
  writeSummary("tus", { rounds: ROUNDS, bytes: source.length, rows, roundRatios, ratioOfMedians: rows[0].mbPerSecond / base.mbPerSecond, ratioPerRound: perRound, hashedRatios, ratioPerRoundHashed: perRoundHashed, tally: tallyRows });
} catch (err) {
  failed = true;
  console.error(err);
  console.error(app.output.slice(-40).join(""));
} finally {
  await app.stop();
}
process.exit(failed ? 1 : 0);
