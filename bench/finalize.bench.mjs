// Finalize's latency end to end (presign -> PUT -> finalize) for a 1 MP and a 12 MP JPEG, with finalize
// waiting for the analysis (FINALIZE_WAIT_MS=10000, as deployed) against the same app answering at once
// (FINALIZE_WAIT_MS=0), both through wrangler dev in this run, samples alternating between them. For the
// app that does not wait, "until analysed" is what a client following the contract then waits: it polls
// GET /files/:id (every 100 ms here) until `analysis` is no longer pending.
// Run: npm run bench -- finalize   (--quick: 3 samples per case). Ports BENCH_PORT_BASE + 44/45 (default 8834/8835).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { benchPort, fmt, printTable, quick, ratio, root, startBenchApp, stats, writeSummary } from "./lib/index.mjs";
import { benchUser, readJson } from "./lib/users.mjs";

const samples = quick ? 3 : 10;
const POLL_MS = 100;

// 12 MP: the committed photo fixture; 1 MP: the same photo made smaller here (with sharp, which wrangler's
// local Images binding already brings).
const large = readFileSync(path.join(root, "test/fixtures/images/large/wood-12mp.jpg"));
const { default: sharp } = await import("sharp");
const small = await sharp(large).resize(1152, 864).jpeg({ quality: 90 }).toBuffer();
const IMAGES = [
  ["1 MP JPEG (1152x864)", small],
  ["12 MP JPEG (4096x3072)", large],
];

const bearer = (token) => ({ authorization: `Bearer ${token}` });

/** One whole upload; returns the end-to-end ms, finalize's own ms, its `analysis`, and when the analysis was there. */
async function upload(app, token, bytes) {
  const api = `${app.url}/api/v1`;
  const started = performance.now();
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const pre = await readJson(
    await fetch(`${api}/upload/presign`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ filename: "photo.jpg", mime: "image/jpeg", bytes: bytes.byteLength, sha256 }),
    }),
  );
  if (!pre.fileId) throw new Error(`presign: ${JSON.stringify(pre)}`);
  const put = await fetch(`${api}/upload/direct/${pre.fileId}`, { method: "PUT", headers: { ...bearer(token), "content-type": "image/jpeg" }, body: bytes });
  await put.arrayBuffer();
  if (put.status !== 200) throw new Error(`PUT: ${put.status}`);
  const finStarted = performance.now();
  const fin = await readJson(
    await fetch(`${api}/upload/finalize`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ uploadId: pre.uploadId, fileId: pre.fileId, storeKey: pre.storeKey, storeEtag: put.headers.get("etag") }),
    }),
  );
  const done = performance.now();
  if (!fin.analysis) throw new Error(`finalize: ${JSON.stringify(fin)}`);
  let analysed = fin.analysis === "pending" ? null : done;
  for (let i = 0; analysed === null && i < 600; i++) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const f = await readJson(await fetch(`${api}/files/${pre.fileId}`, { headers: bearer(token) }));
    if (f.analysis !== "pending") analysed = performance.now();
  }
  return { total: done - started, finalize: done - finStarted, analysis: fin.analysis, score: fin.nsfwScore, untilAnalysed: (analysed ?? NaN) - started };
}

const waiting = await startBenchApp({ port: benchPort(44), vars: { FINALIZE_WAIT_MS: "10000" } });
let answering;
const rows = [];
try {
  answering = await startBenchApp({ port: benchPort(45), vars: { FINALIZE_WAIT_MS: "0" } });
  const users = { waiting: await benchUser(waiting, ["read", "upload"]), answering: await benchUser(answering, ["read", "upload"]) };
  // Warm-up: isolate start, the consumer's first photon and model load.
  for (const [app, user] of [[waiting, users.waiting], [answering, users.answering]]) await upload(app, user.access, IMAGES[0][1]);

  for (const [label, bytes] of IMAGES) {
    const runs = { waiting: [], answering: [] };
    for (let i = 0; i < samples; i++) {
      runs.waiting.push(await upload(waiting, users.waiting.access, bytes));
      runs.answering.push(await upload(answering, users.answering.access, bytes));
    }
    const summary = (name, list) => {
      const total = stats(list.map((r) => r.total));
      const until = stats(list.map((r) => r.untilAnalysed));
      const doneInResponse = list.filter((r) => r.analysis === "done").length;
      return { label, mode: name, p50: total.median, p99: total.p99, until50: until.median, until99: until.p99, fin50: stats(list.map((r) => r.finalize)).median, done: `${doneInResponse}/${list.length}` };
    };
    const w = summary("waits (10 s bound)", runs.waiting);
    const a = summary("answers at once", runs.answering);
    rows.push({ ...w, vs: ratio(w.p50, a.p50) }, { ...a, vs: "1x" });
    console.log(`  ${label}: waiting p50 ${fmt(w.p50)} ms, at once p50 ${fmt(a.p50)} ms (analysed after ${fmt(a.until50)} ms)`);
  }
} finally {
  await Promise.all([waiting.stop(), answering?.stop()]);
}

console.log();
printTable(rows, [
  { key: "label", title: "image" },
  { key: "mode", title: "finalize" },
  { key: "p50", title: "presign+PUT+finalize p50 ms", format: (v) => fmt(v) },
  { key: "p99", title: "p99 ms", format: (v) => fmt(v) },
  { key: "fin50", title: "finalize alone p50 ms", format: (v) => fmt(v) },
  { key: "vs", title: "p50 vs at once" },
  { key: "done", title: "analysis in the response" },
  { key: "until50", title: "until analysed p50 ms", format: (v) => fmt(v) },
  { key: "until99", title: "until analysed p99 ms", format: (v) => fmt(v) },
]);
console.log(`${samples} uploads per row, alternating between the two apps; "until analysed": from presign until the response
(waiting) or until GET /files/:id shows the analysis (polling every ${POLL_MS} ms). Local wrangler dev, shared 2-core machine.\n`);
writeSummary("finalize", { samples, pollMs: POLL_MS, rows });
