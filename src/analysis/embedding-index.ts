// The embedding code's band index (embedding_bands): the same multi-index rows as phash_bands (bands.ts), one
// row per (owner, band, value, ref), looked up with one IN list per band, all index seeks. What differs is
// what a hit means: the code's bands are short (16 of 16 bits) and probed within one bit flip, so a shared
// band only makes a candidate. Candidates sharing at least EMBEDDING_MIN_BAND_HITS bands, most shared first,
// are then decided by the cosine of their stored features (duplicates.ts).
import { embeddingBandValues, embeddingProbes, isEmbeddingCode } from "./embedding";

/**
 * Measured on the benchmark corpus (bench/near-duplicates.bench.mjs) with one-flip probes: every near copy
 * shares at least 3 of the 16 bands with its original; ~2 % of unrelated pairs share 2 or more.
 */
export const EMBEDDING_MIN_BAND_HITS = 2;

/**
 * Statements that (re)index `ref`'s code under `owner`: its old rows go, the 16 band rows are inserted.
 * Idempotent (a redelivered job writes the same rows); meant for the job's D1 batch, which is a transaction.
 */
export function indexEmbeddingStatements(d1: D1Database, owner: string, ref: string, code: string): D1PreparedStatement[] {
  if (!isEmbeddingCode(code)) throw new Error("not an embedding code");
  return [
    d1.prepare("DELETE FROM embedding_bands WHERE ref = ?1").bind(ref),
    ...embeddingBandValues(code).map((value, band) =>
      d1.prepare("INSERT OR IGNORE INTO embedding_bands (owner, band, value, ref) VALUES (?1, ?2, ?3, ?4)").bind(owner, band, value, ref),
    ),
  ];
}

/** Statement that removes `ref` from the embedding index (a purged file). */
export function unindexEmbeddingStatement(d1: D1Database, ref: string): D1PreparedStatement {
  return d1.prepare("DELETE FROM embedding_bands WHERE ref = ?1").bind(ref);
}

/** How many bands of two codes are within one flip: the band hits a lookup from `a` counts for `b`. */
export function sharedBands(a: string, b: string): number {
  const bv = embeddingBandValues(b);
  return embeddingBandValues(a).filter((v, band) => {
    const x = v ^ bv[band];
    return (x & (x - 1)) === 0; // 0 or 1 bit differs
  }).length;
}

export type EmbeddingCandidate = { ref: string; bandHits: number };

/**
 * The band-index statements of a lookup (16, one per band, 17 probe values inlined each: integers computed
 * here), for the caller's D1 batch, and how to read their results: refs sharing at least
 * EMBEDDING_MIN_BAND_HITS bands, most shared first, at most `limit`.
 */
export function embeddingLookup(d1: D1Database, owner: string, code: string, limit: number) {
  const statements = isEmbeddingCode(code)
    ? embeddingProbes(code).map((values, band) => d1.prepare(`SELECT ref FROM embedding_bands WHERE owner = ?1 AND band = ?2 AND value IN (${values.join(",")})`).bind(owner, band))
    : [];
  const read = (results: D1Result<{ ref: string }>[]): { candidates: EmbeddingCandidate[]; rowsRead: number } => {
    const hits = new Map<string, number>();
    let rowsRead = 0;
    for (const result of results) {
      rowsRead += result.meta?.rows_read ?? 0;
      // One row per band at most: a ref has one value per band, and the probes of a band are distinct.
      for (const row of result.results) hits.set(row.ref, (hits.get(row.ref) ?? 0) + 1);
    }
    const candidates = [...hits]
      .filter(([, n]) => n >= EMBEDDING_MIN_BAND_HITS)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([ref, bandHits]) => ({ ref, bandHits }));
    return { candidates, rowsRead };
  };
  return { statements, read };
}
