// Peak memory and CPU of decoding large images (8-40 MP): our lean decoders (src/analysis/decoders, the job's path
// for images over 5 MP) vs photon's full decode (the job's path below 5 MP), on the same files in the same run.
// Workers isolates have 128 MB; workerd does not enforce or report that locally, so this runs the same TypeScript
// (bundled with esbuild) and photon's Node build in Node, one child process per measurement, and reports the peak
// RSS above a baseline child that only loads the modules and reads the file. Ratios: lean / photon.
// Run: npm run bench -- decode-memory   (--quick: one sample per case). Needs /usr/bin/python3 with PIL.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { fmt, printTable, quick, root, writeSummary } from "./lib/index.mjs";

const PY = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const work = path.join(root, "bench/results/.decode-memory");
mkdirSync(work, { recursive: true });

// Photo-like images (a real photo upscaled, plus noise so they don't compress to nothing), at the sizes the job
// meets: 40 MP (the contract's bound) where the format allows, BMP at 10 MP (uncompressed: the 32 MB file limit),
// lossless WebP at 12 MP (its limit).
const made = spawnSync(PY, ["-c", `
from PIL import Image
import os
out = ${JSON.stringify(work)}
src = Image.open(${JSON.stringify(path.join(root, "test/fixtures/images/wood.jpg"))}).convert("RGB")
def photo(w, h):
    im = src.resize((w, h), Image.BICUBIC)
    return Image.blend(im, Image.effect_noise((w, h), 30).convert("RGB"), 0.12)
def make(name, w, h, save):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        save(photo(w, h), p)
make("photo-40mp.jpg", 8000, 5000, lambda im, p: im.save(p, quality=85))
make("photo-40mp-progressive.jpg", 8000, 5000, lambda im, p: im.save(p, quality=85, progressive=True))
make("photo-40mp.png", 8000, 5000, lambda im, p: im.quantize(24).convert("RGB").save(p))
make("photo-40mp.gif", 8000, 5000, lambda im, p: im.quantize(64).save(p))
make("photo-10mp.bmp", 3650, 2740, lambda im, p: im.save(p))
make("photo-40mp.webp", 8000, 5000, lambda im, p: im.save(p, quality=80))
make("photo-12mp-lossless.webp", 4000, 3000, lambda im, p: im.quantize(256).convert("RGB").save(p, lossless=True, quality=50))
`], { encoding: "utf8" });
if (made.status !== 0) throw new Error(`python could not make the images (python3-pil needed): ${made.stderr}`);
const IMAGES = ["photo-40mp.jpg", "photo-40mp-progressive.jpg", "photo-40mp.png", "photo-40mp.gif", "photo-10mp.bmp", "photo-40mp.webp", "photo-12mp-lossless.webp"];

// Two bundles: our decoders alone (what the lean mode loads) and photon's Node build (loaded lazily by the photon mode).
const bundles = { lean: path.join(work, "lean.mjs"), photon: path.join(work, "photon.mjs") };
for (const [mode, outfile] of Object.entries(bundles)) {
  await build({
    stdin: {
      contents: `export { decodeReduced } from "./src/analysis/decoders/index.ts";
export { parseImageHeader } from "./src/analysis/header.ts";
export const photon = () => ${mode === "photon" ? 'import("@cf-wasm/photon/node")' : "null"};`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
  });
}

const child = path.join(root, "bench/snippets/decode-memory-child.mjs");
function measure(mode, file) {
  const bundle = bundles[mode === "read-photon" || mode === "photon" ? "photon" : "lean"];
  const r = spawnSync(process.execPath, [child, bundle, mode.replace("read-photon", "photon-load"), file], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) return { error: (r.stderr || r.stdout).trim().split("\n").slice(-1)[0] };
  return JSON.parse(r.stdout.trim().split("\n").pop());
}
const samples = quick ? 1 : 3;
const best = (mode, file) => {
  const runs = Array.from({ length: samples }, () => measure(mode, file));
  const ok = runs.filter((r) => !r.error);
  if (!ok.length) return runs[0];
  return { ...ok[0], maxRssKB: Math.min(...ok.map((r) => r.maxRssKB)), cpuMs: Math.min(...ok.map((r) => r.cpuMs)) };
};

const rows = [];
for (const name of IMAGES) {
  const file = path.join(work, name);
  const base = best("read", file);
  const photonBase = best("read-photon", file);
  const lean = best("lean", file);
  const full = best("photon", file);
  const extra = (r, b) => (r.error ? NaN : Math.max(0, r.maxRssKB - b.maxRssKB) / 1024);
  rows.push({
    image: `${name} (${base.width}x${base.height}, ${fmt(statSync(file).size / 2 ** 20)} MB)`,
    leanMB: extra(lean, base),
    photonMB: extra(full, photonBase),
    memRatio: extra(lean, base) / extra(full, photonBase),
    leanMs: lean.cpuMs,
    photonMs: full.error ? NaN : full.cpuMs,
    cpuRatio: lean.cpuMs / full.cpuMs,
    reduced: lean.reduced ?? lean.error,
    photonError: full.error ?? "",
  });
}
console.log();
printTable(rows, [
  { key: "image", title: "image" },
  { key: "reduced", title: "lean output" },
  { key: "leanMB", title: "lean peak MB" },
  { key: "photonMB", title: "photon peak MB" },
  { key: "memRatio", title: "lean / photon memory", format: (v) => `${fmt(v)}x` },
  { key: "leanMs", title: "lean CPU ms" },
  { key: "photonMs", title: "photon CPU ms" },
  { key: "cpuRatio", title: "lean / photon CPU", format: (v) => `${fmt(v)}x` },
  { key: "photonError", title: "photon error" },
], { title: "peak RSS above a child that only loads the same modules (photon initialised for photon) and reads the file (Node, best of samples)" });
writeSummary("decode-memory", { rows });
