// The second near-duplicate signal (pure part): the NSFW model's features (nsfw.ts featuresOf), which survive crops
// and small rotations that defeat phash, stored quantised (decided by cosine distance) and indexed by a 256-bit
// random-hyperplane code (embedding-index.ts). The code only finds candidates: on the benchmark its Hamming distances
// for copies overlap those of unrelated photos, whatever the seed (docs/analysis.md § Near duplicates that survive a
// crop or a small rotation).
import { flipProbes } from "./bands";

export const EMBEDDING_BITS = 256;
export const EMBEDDING_BAND_BITS = 16;
export const EMBEDDING_BANDS = EMBEDDING_BITS / EMBEDDING_BAND_BITS;
/** The projection's seed. Changing it (or the features) changes every code: stored rows would need re-indexing. */
const PROJECTION_SEED = 0x5eed_e3b1;

const CODE_PATTERN = /^[0-9a-f]{64}$/;
export const isEmbeddingCode = (v: unknown): v is string => typeof v === "string" && CODE_PATTERN.test(v);

/** mulberry32: a small seeded PRNG, enough for a fixed projection (it only has to be the same everywhere). */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const projections = new Map<number, Float32Array>();

/** EMBEDDING_BITS x dim standard normal values (Box-Muller), made once per isolate: 384 KB for 384 features. */
function projection(dim: number): Float32Array {
  let p = projections.get(dim);
  if (!p) {
    const random = mulberry32(PROJECTION_SEED);
    p = new Float32Array(EMBEDDING_BITS * dim);
    for (let i = 0; i < p.length; i++) p[i] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    projections.set(dim, p);
  }
  return p;
}

/**
 * The 256-bit code (64 hex digits) of `features` centred on `center` (their expected value: without centring
 * every projection of these mostly-positive features would lean the same way and most bits would agree).
 */
export function embeddingCode(features: ArrayLike<number>, center: ArrayLike<number>): string {
  const dim = features.length;
  const p = projection(dim);
  const centred = new Float64Array(dim);
  for (let i = 0; i < dim; i++) centred[i] = features[i] - center[i];
  let hex = "";
  for (let nibble = 0; nibble < EMBEDDING_BITS / 4; nibble++) {
    let v = 0;
    for (let b = 0; b < 4; b++) {
      const row = (nibble * 4 + b) * dim;
      let s = 0;
      for (let i = 0; i < dim; i++) s += p[row + i] * centred[i];
      v = (v << 1) | (s > 0 ? 1 : 0);
    }
    hex += v.toString(16);
  }
  return hex;
}

/** The 16 band values (16 bits each, most significant first) of a code. */
export function embeddingBandValues(code: string): number[] {
  return Array.from({ length: EMBEDDING_BANDS }, (_, band) => parseInt(code.slice(band * 4, band * 4 + 4), 16));
}

/** Per band: the code's value and every value one bit flip away (17 probes per band, 272 in all). */
export function embeddingProbes(code: string, radius = 1): number[][] {
  return embeddingBandValues(code).map((value) => flipProbes(value, EMBEDDING_BAND_BITS, radius));
}

/**
 * Features as stored: each divided by the largest magnitude and rounded to a signed byte, base64. Cosine
 * distance ignores the scale, and the rounding moves it by about 0.001 (the threshold is 0.030).
 */
export function encodeFeatures(features: ArrayLike<number>): string {
  let max = 0;
  for (let i = 0; i < features.length; i++) max = Math.max(max, Math.abs(features[i]));
  const bytes = new Uint8Array(features.length);
  for (let i = 0; i < features.length; i++) bytes[i] = max > 0 ? Math.round((127 * features[i]) / max) & 0xff : 0;
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Stored features back as signed bytes; null for anything that is not a stored value. */
export function decodeFeatures(text: string | null | undefined): Int8Array | null {
  if (!text) return null;
  try {
    const binary = atob(text);
    const out = new Int8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = (binary.charCodeAt(i) << 24) >> 24;
    return out.length > 0 ? out : null;
  } catch {
    return null;
  }
}

/** 1000 x (1 - cosine similarity), rounded: 0 for the same direction; null if the lengths differ or one is all zeros. */
export function embeddingDistance(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  if (a.length !== b.length || a.length === 0) return null;
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  if (aa === 0 || bb === 0) return null;
  return Math.max(0, Math.round(1000 * (1 - dot / Math.sqrt(aa * bb))));
}
