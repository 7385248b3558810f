// Near-duplicate recall and false positives of `duplicates`' similar matches: phash alone (PHASH_DISTANCE) vs
// phash + the embedding signal (src/analysis/embedding.ts), decided exactly as the lookup decides.
// Corpus: the real photos in test/fixtures/images/photos (28, see generate.mjs there), the photo-like fixtures
// (cubes.jpg, wood.jpg, pixels.webp, truchet.png, licorice.gif), and the large fixtures as "related" images of
// their scenes (neither positives nor unrelated). Each original gets 13 variants made here with sharp
// (test/fixtures/images/photos/variants.mjs: crops of 5-15 %, rotations of 1-5 degrees, resize, JPEG q30,
// brightness, watermark). Positives: every original-variant pair; unrelated: every pair of images of different
// scenes, variants included. Every image runs through the job's own steps inside workerd.
// Run: npm run bench -- near-duplicates   (--quick: the first 8 photos). Port: 8840.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { makeVariant, VARIANTS } from "../test/fixtures/images/photos/variants.mjs";
import { benchPort, fmt, inWorkerd, printTable, quick, root, writeSummary } from "./lib/index.mjs";

const FIXTURES = path.join(root, "test/fixtures/images");
const PHOTOS = path.join(FIXTURES, "photos");
const work = path.join(root, "bench/results/.near-duplicates");
mkdirSync(work, { recursive: true });
const MAX_PHASH = 8; // PHASH_DISTANCE's default
const THRESHOLDS = [10, 15, 19, 20, 23, 25, 27, 30, 33, 35, 37, 40];

// name -> { file, family, kind }
const corpus = [];
let photos = readdirSync(PHOTOS).filter((f) => f.endsWith(".jpg")).sort();
if (quick) photos = photos.slice(0, 8);
for (const f of photos) corpus.push({ name: `photos/${f}`, file: path.join(PHOTOS, f), family: `photo:${f}`, kind: "original" });
const FIXTURE_ORIGINALS = { "cubes.jpg": "gnome:adwaita", "wood.jpg": "gnome:wood", "pixels.webp": "gnome:pixels", "truchet.png": "gnome:truchet", "licorice.gif": "gnome:licorice" };
const RELATED = { "adwaita-7mp-progressive.jpg": "gnome:adwaita", "wood-12mp.jpg": "gnome:wood", "wood-16mp.webp": "gnome:wood", "truchet-6mp.gif": "gnome:truchet" };
if (!quick) {
  for (const [f, family] of Object.entries(FIXTURE_ORIGINALS)) corpus.push({ name: `fixtures/${f}`, file: path.join(FIXTURES, f), family, kind: "original" });
  for (const [f, family] of Object.entries(RELATED)) corpus.push({ name: `large/${f}`, file: path.join(FIXTURES, "large", f), family, kind: "related" });
}
for (const o of corpus.filter((c) => c.kind === "original")) {
  for (const kind of Object.keys(VARIANTS)) {
    const file = path.join(work, `${o.name.replace(/[/.]/g, "_")}--${kind}.jpg`);
    if (!existsSync(file)) writeFileSync(file, await (await makeVariant(sharp, o.file, kind)).toBuffer());
    corpus.push({ name: `${o.name}--${kind}`, file, family: o.family, kind });
  }
}

const worker = await inWorkerd({ module: "bench/snippets/near-duplicates.mjs", port: benchPort(52) });
let result;
const perImageMs = [];
try {
  for (const c of corpus) {
    const r = await worker.call("add", { name: c.name, family: c.family, kind: c.kind, b64: readFileSync(c.file).toString("base64") });
    perImageMs.push(r.ms);
  }
  result = await worker.call("evaluate", { maxPhash: MAX_PHASH, thresholds: THRESHOLDS });
} finally {
  await worker.stop();
}

const hardKinds = Object.keys(VARIANTS).filter((k) => VARIANTS[k].hard);
const pct = (n, d) => (d ? `${fmt((100 * n) / d, 3)} %` : "-");
const rows = Object.keys(VARIANTS).map((kind) => {
  const k = result.byKind[kind];
  return { kind, about: VARIANTS[kind].about, n: k.n, phash: `${k.phash}/${k.n}`, combined: `${k.combined}/${k.n}`, byEmbedding: k.embeddingOnly, maxPhash: k.maxPhash, maxEmbedding: k.maxEmbedding, minHits: k.minHits };
});
const sum = (kinds, key) => kinds.reduce((s, kind) => s + result.byKind[kind][key], 0);
const hardN = sum(hardKinds, "n");
const allKinds = Object.keys(VARIANTS);
const allN = sum(allKinds, "n");
const totals = {
  hard: { n: hardN, phash: sum(hardKinds, "phash"), combined: sum(hardKinds, "combined") },
  all: { n: allN, phash: sum(allKinds, "phash"), combined: sum(allKinds, "combined") },
  unrelated: result.unrelated,
  falsePositives: result.falsePositives,
};

console.log(`corpus: ${result.images} images (${photos.length} photos${quick ? "" : " + 5 fixtures + 4 large related"}, ${Object.keys(VARIANTS).length} variants each), ${result.positives} original-variant pairs, ${result.unrelated} unrelated pairs`);
console.log(`thresholds: phash <= ${MAX_PHASH}; embedding: cosine distance <= ${result.embeddingDistance} thousandths among candidates sharing >= ${result.minBandHits} code bands\n`);
printTable(rows, [
  { key: "kind", title: "variant" },
  { key: "phash", title: "phash alone", align: "right" },
  { key: "combined", title: "phash + embedding", align: "right" },
  { key: "byEmbedding", title: "by embedding", format: (v) => String(v) },
  { key: "maxPhash", title: "max phash dist", format: (v) => String(v) },
  { key: "maxEmbedding", title: "max emb dist", format: (v) => String(v) },
  { key: "minHits", title: "min code bands", format: (v) => String(v) },
  { key: "about", title: "what" },
], { title: "Found (recall) per variant" });
printTable(
  [
    { what: "crops + rotations", phash: `${totals.hard.phash}/${hardN} (${pct(totals.hard.phash, hardN)})`, combined: `${totals.hard.combined}/${hardN} (${pct(totals.hard.combined, hardN)})` },
    { what: "all variants", phash: `${totals.all.phash}/${allN} (${pct(totals.all.phash, allN)})`, combined: `${totals.all.combined}/${allN} (${pct(totals.all.combined, allN)})` },
    { what: `false positives among ${result.unrelated} unrelated pairs`, phash: `${result.falsePositives.phash} (${pct(result.falsePositives.phash, result.unrelated)})`, combined: `${result.falsePositives.combined} (${pct(result.falsePositives.combined, result.unrelated)})` },
  ],
  [
    { key: "what", title: "" },
    { key: "phash", title: "phash alone", align: "right" },
    { key: "combined", title: "phash + embedding", align: "right" },
  ],
  { title: "Summary" },
);
printTable(
  result.sweep.map((s) => ({ threshold: s.threshold, found: `${s.found}/${result.positives}`, fp: s.falsePositives })),
  [
    { key: "threshold", title: "embedding threshold", format: (v) => String(v) },
    { key: "found", title: "found", align: "right" },
    { key: "fp", title: "false positives", format: (v) => String(v) },
  ],
  { title: "Embedding threshold sweep (phash <= 8 or embedding <= threshold)" },
);
console.log(`unrelated pairs: nearest embedding distance ${result.unrelatedMinEmbedding}, nearest phash distance ${result.unrelatedMinPhash}; ${result.unrelatedWithBandHits} share >= 2 code bands (lookup candidates)`);
console.log("nearest unrelated by embedding:", result.nearestUnrelated.map((u) => `${u.a} ~ ${u.b}: ${u.embedding} (phash ${u.phash}, bands ${u.hits})`).join("; "));
const missed = hardKinds.flatMap((k) => result.byKind[k].missed);
if (missed.length) console.log("crops/rotations missed:", missed.join(", "));
const otherMissed = Object.keys(VARIANTS).filter((k) => !VARIANTS[k].hard).flatMap((k) => result.byKind[k].missed);
if (otherMissed.length) console.log("other variants missed:", otherMissed.join(", "));
const sorted = [...perImageMs].sort((a, b) => a - b);
console.log(`analysis per image in workerd (decode + phash + model + code): p50 ${fmt(sorted[sorted.length >> 1])} ms`);

writeSummary("near-duplicates", { missed, corpus: { images: result.images, positives: result.positives, unrelated: result.unrelated }, byKind: result.byKind, totals, sweep: result.sweep, nearestUnrelated: result.nearestUnrelated });
// The issue's goal is about photos: a crop of the tiled-pattern render (truchet.png) is reported above but
// does not fail the run; a missed crop or rotation of a photo, or any false positive, does.
const photosMissed = missed.filter((name) => name.startsWith("photos/"));
const goalMet = photosMissed.length === 0 && result.falsePositives.combined === 0;
console.log(
  goalMet
    ? `goal met on the photos: every crop and rotation found, no false positive${missed.length ? ` (missed outside the photos: ${missed.length})` : ""}`
    : `GOAL NOT MET: ${photosMissed.length} crops/rotations of photos missed, ${result.falsePositives.combined} false positives`,
);
process.exit(goalMet ? 0 : 1);
