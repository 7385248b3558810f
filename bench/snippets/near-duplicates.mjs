// Cases for bench/near-duplicates.bench.mjs, run inside workerd by inWorkerd(): each image goes through what the
// analysis job derives for matching (decode as the job does, phash, the NSFW model's features, their stored
// form and code), then every pair is decided with the lookup's own rules (duplicates.ts similarBy,
// embedding-index.ts sharedBands / EMBEDDING_MIN_BAND_HITS).
import { ANALYSIS } from "../../src/config/index.ts";
import { similarBy } from "../../src/analysis/duplicates.ts";
import { decodeFeatures, embeddingCode, embeddingDistance, encodeFeatures } from "../../src/analysis/embedding.ts";
import { EMBEDDING_MIN_BAND_HITS, sharedBands } from "../../src/analysis/embedding-index.ts";
import { decodeImage } from "../../src/analysis/imaging.ts";
import { classifyNsfw } from "../../src/analysis/nsfw.ts";
import { hammingDistance, phashFromLuma } from "../../src/analysis/phash.ts";

/** name -> { family, kind, phash, features (as stored, decoded), code } */
const images = new Map();

function bytesOf(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Analyses one image (base64) and keeps what matching needs. `kind`: "original" or the variant's name. */
export async function add({ name, family, kind, b64 }) {
  const t0 = performance.now();
  const d = await decodeImage(bytesOf(b64), { orientation: null, thumbnailMaxSide: 0, thumbnailJpegQuality: 80, nsfwSize: ANALYSIS.nsfwInputSize });
  const phash = phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight);
  const r = await classifyNsfw(d.nsfwInput);
  images.set(name, { family, kind, phash, features: decodeFeatures(encodeFeatures(r.features)), code: embeddingCode(r.features, r.featureCenter) });
  return { ms: performance.now() - t0, width: d.width, height: d.height };
}

function pairOf(a, b, maxPhash, maxEmbedding) {
  const distances = { phash: hammingDistance(a.phash, b.phash), embedding: embeddingDistance(a.features, b.features) };
  const hits = sharedBands(a.code, b.code);
  // The lookup only sees embedding candidates sharing enough code bands.
  const embedding = hits >= EMBEDDING_MIN_BAND_HITS ? distances.embedding : null;
  return { distances, hits, phashOnly: similarBy({ phash: distances.phash, embedding: null }, maxPhash), combined: similarBy({ phash: distances.phash, embedding }, maxPhash, maxEmbedding) };
}

/**
 * Every original-variant pair (positives) and every pair of images of different families (unrelated), decided
 * by phash alone and by phash + embedding at each `thresholds` value. Returns counts per variant kind and the
 * distance extremes that place the threshold.
 */
export function evaluate({ maxPhash, thresholds }) {
  const list = [...images.entries()].map(([name, v]) => ({ name, ...v }));
  const originals = new Map(list.filter((i) => i.kind === "original").map((i) => [i.family, i]));
  const byKind = {};
  const positives = [];
  for (const v of list) {
    if (v.kind === "original" || v.kind === "related") continue;
    const p = pairOf(originals.get(v.family), v, maxPhash, ANALYSIS.embeddingDistance);
    positives.push({ name: v.name, kind: v.kind, ...p });
  }
  const unrelated = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      if (list[i].family === list[j].family) continue;
      unrelated.push({ a: list[i].name, b: list[j].name, ...pairOf(list[i], list[j], maxPhash, ANALYSIS.embeddingDistance) });
    }
  }
  for (const p of positives) {
    const k = (byKind[p.kind] ??= { n: 0, phash: 0, combined: 0, embeddingOnly: 0, minHits: 99, maxEmbedding: 0, maxPhash: 0, missed: [] });
    k.n++;
    if (p.phashOnly) k.phash++;
    if (p.combined) k.combined++;
    else k.missed.push(p.name);
    if (p.combined === "embedding") k.embeddingOnly++;
    k.minHits = Math.min(k.minHits, p.hits);
    k.maxEmbedding = Math.max(k.maxEmbedding, p.distances.embedding);
    k.maxPhash = Math.max(k.maxPhash, p.distances.phash);
  }
  const sweep = thresholds.map((t) => ({
    threshold: t,
    found: positives.filter((p) => p.distances.phash <= maxPhash || (p.hits >= EMBEDDING_MIN_BAND_HITS && p.distances.embedding <= t)).length,
    falsePositives: unrelated.filter((u) => u.distances.phash <= maxPhash || (u.hits >= EMBEDDING_MIN_BAND_HITS && u.distances.embedding <= t)).length,
  }));
  const nearestUnrelated = [...unrelated].sort((x, y) => x.distances.embedding - y.distances.embedding).slice(0, 5);
  return {
    embeddingDistance: ANALYSIS.embeddingDistance,
    minBandHits: EMBEDDING_MIN_BAND_HITS,
    images: list.length,
    positives: positives.length,
    unrelated: unrelated.length,
    byKind,
    falsePositives: { phash: unrelated.filter((u) => u.phashOnly).length, combined: unrelated.filter((u) => u.combined).length },
    unrelatedMinPhash: Math.min(...unrelated.map((u) => u.distances.phash)),
    unrelatedMinEmbedding: Math.min(...unrelated.map((u) => u.distances.embedding)),
    unrelatedWithBandHits: unrelated.filter((u) => u.hits >= EMBEDDING_MIN_BAND_HITS).length,
    nearestUnrelated: nearestUnrelated.map((u) => ({ a: u.a, b: u.b, embedding: u.distances.embedding, phash: u.distances.phash, hits: u.hits })),
    sweep,
  };
}
