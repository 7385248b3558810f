// The embedding code's band index (embedding_bands): phash_bands' row layout (bands.ts, band-rows.ts), but a hit only
// makes a candidate: the 16-bit bands are probed within one flip, and candidates sharing EMBEDDING_MIN_BAND_HITS
// bands, most shared first, are decided by the cosine of their stored features (files/duplicate-lookup.ts; why:
// docs/analysis.md § Near duplicates that survive a crop or a small rotation).
import { embeddingBandValues } from "./embedding";

/**
 * Measured on the benchmark corpus (bench/near-duplicates.bench.mjs) with one-flip probes: every near copy
 * shares at least 3 of the 16 bands with its original; ~2 % of unrelated pairs share 2 or more.
 */
export const EMBEDDING_MIN_BAND_HITS = 2;

/** How many bands of two codes are within one flip: the band hits a lookup from `a` counts for `b`. */
export function sharedBands(a: string, b: string): number {
  const bv = embeddingBandValues(b);
  return embeddingBandValues(a).filter((v, band) => {
    const x = v ^ bv[band];
    return (x & (x - 1)) === 0; // 0 or 1 bit differs
  }).length;
}
