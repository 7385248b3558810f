// The image-analysis job's costs (src/analysis), each against a baseline measured in the same run:
//   1. phash per image inside workerd (decode + our PIL-compatible grayscale/Lanczos/DCT) vs the Python
//      reference (Pillow + scipy, test/fixtures/images/reference_phash.py) on the same files: ratio, and
//      agreement of the hashes;
//   1b. the reduced decode path (our lean decoders) vs photon's full decode on the large fixtures: CPU, phash
//      distance, photon wasm memory;
//   2. near-duplicate band lookup (findNearBlocklistHashes: the blocklist's band index in D1, the same probes and
//      seeks as an owner's) p50/p99 with 100k and 1M hashes in one index (the worst case: one owner holding them
//      all), to show the cost does not grow with the table;
//   (NSFW inference and model load, WASM vs CPU backend, are in nsfw.bench.mjs.)
//   4. bundle size (raw / gzip, by part) and startup CPU from `wrangler deploy --dry-run` / `wrangler check
//      startup`, against the same bundle with tfjs and photon stubbed out.
// Run: npm run bench -- analysis   (--quick: 10k / 100k hashes, fewer samples). Ports 8810-8812.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { benchHash } from "./lib/bench-hash.mjs";
import { benchPort, fmt, inWorkerd, printTable, quick, ratio, root, startBenchApp, stats, wranglerEnv, writeSummary } from "./lib/index.mjs";

const PY = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const FIXTURES = path.join(root, "test/fixtures/images");
const work = path.join(root, "bench/results/.analysis");
mkdirSync(work, { recursive: true });
const summary = {};
let failed = false;

// ---------------------------------------------------------------------------------------------------------
// Images: committed fixtures plus two larger photo-like JPEGs made here (1080p and 12 MP).
const made = spawnSync(PY, ["-c", `
from PIL import Image, ImageFilter
import random
src = Image.open(${JSON.stringify(path.join(FIXTURES, "cubes.jpg"))}).convert("RGB")
random.seed(1)
for name, size in (("photo-1080p.jpg", (1920, 1080)), ("photo-12mp.jpg", (4000, 3000))):
    im = src.resize(size, Image.BICUBIC)
    noise = Image.effect_noise(size, 24).convert("RGB")
    Image.blend(im, noise, 0.15).save(${JSON.stringify(work)} + "/" + name, quality=90)
`], { encoding: "utf8" });
if (made.status !== 0) throw new Error(`python could not make the large images (python3-pil needed): ${made.stderr}`);
const IMAGES = [
  ["cubes.jpg", path.join(FIXTURES, "cubes.jpg")],
  ["truchet.png", path.join(FIXTURES, "truchet.png")],
  ["pixels.webp", path.join(FIXTURES, "pixels.webp")],
  ["licorice.gif", path.join(FIXTURES, "licorice.gif")],
  ["photo-1080p.jpg", path.join(work, "photo-1080p.jpg")],
  ["photo-12mp.jpg", path.join(work, "photo-12mp.jpg")],
];

// ---------------------------------------------------------------------------------------------------------
// 1: phash inside workerd, Python reference in the same run
{
  const repeat = quick ? 3 : 10;
  const ref = spawnSync(PY, [path.join(FIXTURES, "reference_phash.py"), "--json", "--time", String(repeat), ...IMAGES.map(([, p]) => p)], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (ref.status !== 0) throw new Error(`reference_phash.py failed: ${ref.stderr}`);
  const reference = JSON.parse(ref.stdout);

  const worker = await inWorkerd({ module: "bench/snippets/analysis.mjs", port: benchPort(20) });
  const rows = [];
  try {
    const photonLoad = await worker.call("photonLoadOnce");
    summary.firstUse = { photonMs: photonLoad.ms };
    for (const [name, file] of IMAGES) {
      const loaded = await worker.call("load", { name, b64: readFileSync(file).toString("base64") });
      const samples = quick ? 3 : 8;
      const full = await worker.measure("phashFromBytes", { params: { name }, samples, minSampleMs: 50 });
      const only = await worker.measure("phashOnly", { params: { name }, samples, minSampleMs: 20 });
      const derive = await worker.measure("decodeAndDerive", { params: { name }, samples: quick ? 2 : 5, minSampleMs: 50 });
      const py = reference.msPerImage[path.basename(file)];
      const expected = reference.hashes[path.basename(file)];
      const distance = hamming(loaded.phash, expected);
      if (distance > 2) failed = true;
      const metric = (r) => (r.cpuStats ?? r.stats).median;
      rows.push({
        image: `${name} (${loaded.width}x${loaded.height})`,
        python: py,
        workerd: metric(full),
        ratio: metric(full) / py,
        tsOnly: metric(only),
        decodeDerive: metric(derive),
        distance,
      });
    }
  } finally {
    await worker.stop();
  }
  console.log();
  printTable(rows, [
    { key: "image", title: "image" },
    { key: "python", title: "Python ms (Pillow+scipy)" },
    { key: "workerd", title: "workerd CPU ms (decode+TS)" },
    { key: "ratio", title: "workerd / Python", format: (v) => `${fmt(v)}x` },
    { key: "tsOnly", title: "TS resize+DCT ms" },
    { key: "decodeDerive", title: "decode+thumb+nsfw-input ms" },
    { key: "distance", title: "Hamming vs reference" },
  ], { title: `phash per image: bytes -> hash (median of samples; workerd = CPU of the workerd process); photon's first use in an isolate ${fmt(summary.firstUse.photonMs)} ms (wall)` });
  summary.phash = rows;
}

// ---------------------------------------------------------------------------------------------------------
// 1b: the reduced decode path (lean decoders, images over ANALYSIS.maxDecodePixels) vs photon's full decode of the
// same large images, same isolate: CPU per decode (+ thumbnail + NSFW input), phash distance to the Python
// reference, and photon's wasm memory (the full decode is what a 128 MB isolate cannot afford). Reduced runs first
// because wasm memory only grows.
{
  const LARGE = path.join(FIXTURES, "large");
  const reference = JSON.parse(readFileSync(path.join(LARGE, "expected-phash.json"), "utf8")).hashes;
  const names = Object.keys(reference).sort();
  const worker = await inWorkerd({ module: "bench/snippets/analysis.mjs", port: benchPort(22) });
  const rows = [];
  try {
    const base = await worker.call("photonMemory");
    for (const name of names) await worker.call("load", { name, b64: readFileSync(path.join(LARGE, name)).toString("base64") });
    const afterLoad = await worker.call("photonMemory");
    const samples = quick ? 2 : 5;
    for (const name of names) {
      const reduced = await worker.measure("decodePath", { params: { name, path: "reduced" }, samples, minSampleMs: 50 });
      const out = await worker.call("decodePath", { name, path: "reduced" });
      rows.push({ image: name, reducedMs: (reduced.cpuStats ?? reduced.stats).median, reduced: out.reduced, distanceReduced: hamming(out.phash, reference[name]) });
    }
    const afterReduced = await worker.call("photonMemory");
    for (const row of rows) {
      const full = await worker.measure("decodePath", { params: { name: row.image, path: "full" }, samples, minSampleMs: 50 });
      const out = await worker.call("decodePath", { name: row.image, path: "full" });
      Object.assign(row, { fullMs: (full.cpuStats ?? full.stats).median, distanceFull: hamming(out.phash, reference[row.image]), photonMB: (await worker.call("photonMemory")) / 2 ** 20 });
      row.ratio = row.reducedMs / row.fullMs;
      if (row.distanceReduced > 2) failed = true;
    }
    summary.reducedPath = { rows, photonMB: { start: base / 2 ** 20, afterLoad: afterLoad / 2 ** 20, afterReducedPath: afterReduced / 2 ** 20 } };
    console.log();
    printTable(rows, [
      { key: "image", title: "image" },
      { key: "reduced", title: "reduced to" },
      { key: "reducedMs", title: "reduced path CPU ms" },
      { key: "fullMs", title: "photon full CPU ms" },
      { key: "ratio", title: "reduced / full", format: (v) => `${fmt(v)}x` },
      { key: "distanceReduced", title: "Hamming (reduced)" },
      { key: "distanceFull", title: "Hamming (full)" },
      { key: "photonMB", title: "photon wasm MB after full" },
    ], { title: `decode + thumbnail + NSFW input of large images; photon wasm memory: ${fmt(base / 2 ** 20)} MB at start, ${fmt(afterLoad / 2 ** 20)} MB after the load step, ${fmt(afterReduced / 2 ** 20)} MB after every image on the reduced path` });
  } finally {
    await worker.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------
// 2: band lookup in a local D1 with 100k and 1M hashes in one index (the blocklist's; the same seeks as an owner's)
{
  const sizes = quick ? [10_000, 100_000] : [100_000, 1_000_000];
  const app = await startBenchApp({ port: benchPort(21) });
  const rows = [];
  try {
    const post = async (p, body) => {
      const res = await fetch(`${app.url}/__bench/analysis/${p}`, { method: "POST", body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    let held = 0;
    for (const size of sizes) {
      const t0 = Date.now();
      for (let start = held; start < size; start += 20_000) await post("seed", { start, count: Math.min(20_000, size - start), seed: 1 });
      process.stdout.write(`  seeded ${size.toLocaleString("en-US")} hashes (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
      held = size;
      // Queries: half near a stored hash (a few bits flipped: real duplicates), half unrelated random hashes.
      const n = quick ? 60 : 300;
      const queries = [];
      for (let i = 0; i < n; i++) {
        const stored = benchHash(Math.floor(Math.random() * size), 1);
        queries.push(i % 2 ? flip(stored, 1 + (i % 6)) : benchHash(10_000_000 + Math.floor(Math.random() * 1e6), 7));
      }
      await post("lookup", { phashes: queries.slice(0, 10), distance: 8 }); // warm up
      const client = [];
      const server = [];
      let candidates = 0;
      let rowsRead = 0;
      let matches = 0;
      for (const q of queries) {
        const t = performance.now();
        const { results } = await post("lookup", { phashes: [q], distance: 8 });
        client.push(performance.now() - t);
        server.push(results[0].ms);
        candidates += results[0].candidates;
        rowsRead += results[0].rowsRead;
        matches += results[0].matches;
      }
      const s = stats(server);
      const c = stats(client);
      rows.push({ hashes: size, rows: size * 3, p50: s.median, p99: s.p99, clientP50: c.median, clientP99: c.p99, candidates: candidates / n, rowsRead: rowsRead / n, matches: matches / n });
    }
  } finally {
    await app.stop();
  }
  for (const r of rows) r.vsSmallest = r.p50 / rows[0].p50;
  console.log();
  printTable(rows, [
    { key: "hashes", title: "hashes (one index)" },
    { key: "rows", title: "band rows" },
    { key: "p50", title: "lookup p50 ms (in worker)" },
    { key: "p99", title: "p99 ms" },
    { key: "vsSmallest", title: "p50 vs smallest", format: (v) => `${fmt(v)}x` },
    { key: "clientP50", title: "HTTP p50 ms" },
    { key: "clientP99", title: "HTTP p99 ms" },
    { key: "candidates", title: "candidate rows / lookup" },
    { key: "rowsRead", title: "D1 rows_read / lookup" },
    { key: "matches", title: "matches / lookup" },
  ], { title: "near-duplicate lookup, distance 8: 3 statements (one per band, IN list of 232-254 probes) in one D1 batch" });
  summary.lookup = rows;
}

// ---------------------------------------------------------------------------------------------------------
// 4: bundle size and startup, with and without the analysis libraries (stubbed by --alias)
{
  const stub = path.join(work, "stub.js");
  // The names src/analysis/tfjs-wasm.ts imports; its .wasm import is stubbed by this JS too (only used at run time).
  writeFileSync(stub, 'export default {};\nexport class BackendWasm {}\nexport const version = "stub";\n');
  const aliases = [
    ...["@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu", "@tensorflow/tfjs-layers", "@cf-wasm/photon"],
    ...["dist/backend_wasm.js", "dist/register_all_kernels.js", "dist/version.js", "wasm-out/tfjs-backend-wasm-simd.wasm"].map((f) => `@tensorflow/tfjs-backend-wasm/${f}`),
  ].flatMap((m) => ["--alias", `${m}:${stub}`]);
  const variants = [
    ["without tfjs + photon (stubbed)", aliases],
    ["full worker", []],
  ];
  const rows = [];
  for (const [label, extra] of variants) {
    const outdir = mkdtempSync(path.join(tmpdir(), "bench-analysis-bundle-"));
    try {
      const build = spawnSync("wrangler", ["deploy", "--dry-run", "--outdir", outdir, "--metafile", path.join(outdir, "meta.json"), ...extra], { cwd: root, env: wranglerEnv(), encoding: "utf8" });
      if (build.status !== 0) throw new Error(`bundle failed: ${build.stderr || build.stdout}`);
      const files = readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "meta.json" && f !== "README.md");
      let raw = 0;
      let gz = 0;
      const parts = {};
      for (const f of files) {
        const bytes = readFileSync(path.join(outdir, f));
        raw += bytes.length;
        gz += gzipSync(bytes, { level: 9 }).length;
        parts[f.replace(/^[0-9a-f]{40}-/, "")] = bytes.length;
      }
      const meta = JSON.parse(readFileSync(path.join(outdir, "meta.json"), "utf8"));
      const main = Object.values(meta.outputs).sort((a, b) => Object.keys(b.inputs ?? {}).length - Object.keys(a.inputs ?? {}).length)[0];
      const byPackage = {};
      for (const [input, info] of Object.entries(main?.inputs ?? {})) {
        const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
        const key = m ? m[1] : input.startsWith("src/") ? "src/" + input.split("/")[1] : "other";
        byPackage[key] = (byPackage[key] ?? 0) + info.bytesInOutput;
      }
      // Startup: the same bundle (one file, as `wrangler check startup --worker` wants it), profiled.
      const bundleFile = path.join(outdir, "worker.bundle");
      const one = spawnSync("wrangler", ["deploy", "--dry-run", "--outfile", bundleFile, ...extra], { cwd: root, env: wranglerEnv(), encoding: "utf8" });
      if (one.status !== 0) throw new Error(`bundle (outfile) failed: ${one.stderr || one.stdout}`);
      const startup = [];
      for (let i = 0; i < (quick ? 2 : 5); i++) startup.push(startupMs(bundleFile));
      const s = stats(startup.filter((x) => x !== null));
      rows.push({ label, raw, gz, parts, byPackage, startup: s.median, startupMin: s.min });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }
  console.log();
  printTable(rows, [
    { key: "label", title: "bundle" },
    { key: "raw", title: "upload bytes", format: (v) => (v / 1e6).toFixed(2) + " MB" },
    { key: "gz", title: "gzip", format: (v) => (v / 1e6).toFixed(2) + " MB" },
    { key: "startup", title: "startup CPU ms (check startup, median)" },
    { key: "startupMin", title: "min" },
    { key: "startupRatio", title: "vs stubbed", format: (_v, r) => ratio(r.startup, rows[0].startup) },
  ], { title: "wrangler deploy --dry-run: bundle; wrangler check startup: startup CPU profile" });
  const full = rows.at(-1);
  const top = Object.entries(full.byPackage).sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log("  full worker: " + Object.entries(full.parts).map(([f, b]) => `${f} ${(b / 1e6).toFixed(2)} MB`).join(", "));
  console.log("  index.js by package: " + top.map(([k, b]) => `${k} ${(b / 1e6).toFixed(2)} MB`).join(", "));
  summary.bundle = rows;
}

writeSummary("analysis", summary);
process.exit(failed ? 1 : 0);

// ---------------------------------------------------------------------------------------------------------

/** CPU time of the startup profile `wrangler check startup` records (sum of non-idle sample intervals). */
function startupMs(bundleFile) {
  const file = path.join(work, `startup-${process.pid}.cpuprofile`);
  const r = spawnSync("wrangler", ["check", "startup", "--outfile", file, "--worker", bundleFile], { cwd: root, env: wranglerEnv(), encoding: "utf8" });
  if (r.status !== 0 || !existsSync(file)) {
    console.error(`  wrangler check startup failed: ${(r.stderr || r.stdout).slice(-400)}`);
    return null;
  }
  const profile = JSON.parse(readFileSync(file, "utf8"));
  rmSync(file, { force: true });
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let us = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id) && i > 0) us += profile.timeDeltas[i];
  });
  return us / 1000;
}

function hamming(a, b) {
  let x = BigInt("0x" + a) ^ BigInt("0x" + b);
  let n = 0;
  while (x) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}

function flip(hex, bits) {
  let v = BigInt("0x" + hex);
  const used = new Set();
  while (used.size < bits) used.add(Math.floor(Math.random() * 63)); // keep the top (DC) bit
  for (const b of used) v ^= 1n << BigInt(b);
  return v.toString(16).padStart(16, "0");
}

