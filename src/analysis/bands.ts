// Multi-index hashing for near-duplicate lookups (pure part): the 64-bit phash in 3 bands of 22 / 21 / 21 bits,
// probed within floor(d / 3) flips each (pigeonhole), then verified by popcount (docs/analysis.md, ./README.md §
// Near-duplicate index). Few bands keep candidates rare (a random 21-bit value matches ~0.5 rows per million) at
// the price of more probes, which are cheap point seeks in one IN list per band.
// Changing BAND_BITS changes the stored rows: existing rows would need re-indexing.
import { phashHalves } from "./phash";

export const BAND_BITS = [22, 21, 21] as const;

/** The band values of a hash: band 0 = the top 22 bits, then 21, then the low 21. */
export function bandValues(hex: string): number[] {
  const [high, low] = phashHalves(hex);
  // 64 bits as a BigInt keeps the shifts readable; three per hash is cheap.
  const all = (BigInt(high) << 32n) | BigInt(low);
  const values: number[] = [];
  let shift = 64;
  for (const bits of BAND_BITS) {
    shift -= bits;
    values.push(Number((all >> BigInt(shift)) & ((1n << BigInt(bits)) - 1n)));
  }
  return values;
}

/** How many bits per band a probe must flip to find every hash within `maxDistance`. */
export function probeRadius(maxDistance: number): number {
  return Math.floor(Math.max(0, maxDistance) / BAND_BITS.length);
}

/** Every value within `radius` bit flips of `value` in a `bits`-wide band (value itself first). */
export function flipProbes(value: number, bits: number, radius: number): number[] {
  const out: number[] = [value];
  const recurse = (current: number, from: number, left: number) => {
    if (left === 0) return;
    for (let bit = from; bit < bits; bit++) {
      const flipped = current ^ (1 << bit);
      out.push(flipped);
      recurse(flipped, bit + 1, left - 1);
    }
  };
  recurse(value, 0, radius);
  return out;
}

/** The probe lists for a query: one list of band values per band. */
export function bandProbes(hex: string, maxDistance: number): number[][] {
  const radius = probeRadius(maxDistance);
  return bandValues(hex).map((value, band) => flipProbes(value, BAND_BITS[band], radius));
}
