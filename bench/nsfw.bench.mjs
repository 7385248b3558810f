// NSFW inference (src/analysis/nsfw.ts: nsfwjs MobileNetV2, 224x224) inside workerd on tfjs's WASM backend
// (src/analysis/tfjs-wasm.ts) against the CPU backend, the baseline, in the same run: CPU ms per image and
// the model's first load in a fresh isolate, as ratios, plus the scores both give (they must agree within
// 0.01). Two isolates, one per backend (loadNsfwModel({ only: "cpu" }) for the baseline), so neither pays
// for moving the weights between backends. Inference cost does not depend on the image (the input is always
// 224x224); several fixtures show that and compare scores.
// Run: npm run bench -- nsfw   (--quick: fewer samples). Ports 8813-8814.
import { readFileSync } from "node:fs";
import path from "node:path";
import { benchPort, fmt, inWorkerd, printTable, quick, root, writeSummary } from "./lib/index.mjs";

const FIXTURES = path.join(root, "test/fixtures/images");
const IMAGES = ["cubes.jpg", "cubes-resized.jpg", "truchet.png", "pixels.webp", "licorice.gif", "wide.jpg"];
const GOAL = { wasmMs: 100, speedup: 15, scoreDiff: 0.01 };
let failed = false;

/** Loads the model first in a fresh isolate, then times inference per image. */
async function measureBackend(backend, port, samples) {
  const worker = await inWorkerd({ module: "bench/snippets/nsfw.mjs", port });
  try {
    // One run, right after start: the isolate has not imported tfjs yet (sample() gives the workerd CPU).
    const params = backend === "cpu" ? { only: "cpu" } : {};
    const load = await worker.sample("loadModel", { params, inner: 1 });
    const model = await worker.call("loadModel", params);
    const images = {};
    for (const name of IMAGES) {
      await worker.call("image", { name, b64: readFileSync(path.join(FIXTURES, name)).toString("base64") });
      const m = await worker.measure("nsfw", { params: { name }, samples, minSampleMs: 50 });
      images[name] = { cpuMs: (m.cpuStats ?? m.stats).median, wallMs: m.stats.median, ...(await worker.call("nsfw", { name })) };
    }
    return { backend: model.backend, wasmError: model.wasmError, loadCpuMs: load.cpuMsPerOp, loadWallMs: load.msPerOp, images };
  } finally {
    await worker.stop();
  }
}

const wasm = await measureBackend("wasm", benchPort(23), quick ? 3 : 8);
const cpu = await measureBackend("cpu", benchPort(24), quick ? 2 : 3);
if (wasm.backend !== "wasm") {
  console.error(`the WASM isolate ran on ${wasm.backend}: ${wasm.wasmError}`);
  failed = true;
}

const rows = IMAGES.map((name) => {
  const w = wasm.images[name];
  const c = cpu.images[name];
  const diff = Math.abs(w.score - c.score);
  if (diff > GOAL.scoreDiff) failed = true;
  return { image: name, wasm: w.cpuMs, cpu: c.cpuMs, speedup: c.cpuMs / w.cpuMs, wasmWall: w.wallMs, cpuWall: c.wallMs, wasmScore: w.score, cpuScore: c.score, diff };
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perImage = { wasmMs: median(rows.map((r) => r.wasm)), cpuMs: median(rows.map((r) => r.cpu)) };
perImage.speedup = perImage.cpuMs / perImage.wasmMs;
const load = { wasmCpuMs: wasm.loadCpuMs, cpuCpuMs: cpu.loadCpuMs, ratio: cpu.loadCpuMs / wasm.loadCpuMs, wasmWallMs: wasm.loadWallMs, cpuWallMs: cpu.loadWallMs };
const maxDiff = Math.max(...rows.map((r) => r.diff));

console.log();
printTable(rows, [
  { key: "image", title: "image" },
  { key: "wasm", title: "WASM CPU ms" },
  { key: "cpu", title: "CPU backend CPU ms (baseline)" },
  { key: "speedup", title: "CPU / WASM", format: (v) => `${fmt(v)}x` },
  { key: "wasmWall", title: "WASM wall ms" },
  { key: "cpuWall", title: "CPU wall ms" },
  { key: "wasmScore", title: "score WASM", format: (v) => v.toFixed(5) },
  { key: "cpuScore", title: "score CPU", format: (v) => v.toFixed(5) },
  { key: "diff", title: "|diff|", format: (v) => v.toExponential(1) },
], { title: "NSFW inference per image (MobileNetV2 224x224), median of samples; CPU = workerd process CPU" });
printTable([
  { what: "per image (median over images)", wasm: perImage.wasmMs, cpu: perImage.cpuMs, ratio: perImage.speedup },
  { what: "model load, fresh isolate (CPU ms)", wasm: load.wasmCpuMs, cpu: load.cpuCpuMs, ratio: load.ratio },
  { what: "model load, fresh isolate (wall ms)", wasm: load.wasmWallMs, cpu: load.cpuWallMs, ratio: load.cpuWallMs / load.wasmWallMs },
], [
  { key: "what", title: "" },
  { key: "wasm", title: "WASM" },
  { key: "cpu", title: "CPU backend" },
  { key: "ratio", title: "CPU / WASM", format: (v) => `${fmt(v)}x` },
], { title: "summary (WASM load includes one warm-up inference)" });
const goals = [
  [`WASM per image <= ${GOAL.wasmMs} ms CPU`, perImage.wasmMs <= GOAL.wasmMs],
  [`>= ${GOAL.speedup}x faster than the CPU backend`, perImage.speedup >= GOAL.speedup],
  [`scores within ${GOAL.scoreDiff} (max |diff| ${maxDiff.toExponential(1)})`, maxDiff <= GOAL.scoreDiff],
];
for (const [goal, ok] of goals) console.log(`  ${ok ? "ok  " : "MISS"} ${goal}`);

writeSummary("nsfw", { rows, perImage, load, maxDiff, goals: Object.fromEntries(goals), wasmError: wasm.wasmError });
process.exit(failed ? 1 : 0);
