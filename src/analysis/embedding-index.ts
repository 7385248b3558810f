// The embedding code's band index (embedding_bands): the same multi-index rows as phash_bands (bands.ts), one
// row per (owner, band, value, ordinal) written by band-rows.ts, looked up with one probe list driving primary-key
// seeks (files/duplicate-lookup.ts). What differs is what a hit means: the code's bands are short (16 of 16 bits)
// and probed within one bit flip, so a shared band only makes a candidate. Candidates sharing at least
// EMBEDDING_MIN_BAND_HITS bands, most shared first, are then decided by the cosine of their stored features
// (files/duplicate-lookup.ts).
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
