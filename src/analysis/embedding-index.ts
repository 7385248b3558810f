// The embedding code's band index (embedding_bands): the same multi-index rows as phash_bands (bands.ts), one
// row per (owner, band, value, ref), looked up with one IN list per band, all index seeks. What differs is
// what a hit means: the code's bands are short (16 of 16 bits) and probed within one bit flip, so a shared
// band only makes a candidate. Candidates sharing at least EMBEDDING_MIN_BAND_HITS bands, most shared first,
// are then decided by the cosine of their stored features (duplicates.ts).
import { and, eq, sql } from "drizzle-orm";
import { embeddingBands } from "../db/schema";
import type { Db, Statement } from "../platform/db";
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
export function indexEmbeddingStatements(db: Db, owner: string, ref: string, code: string): Statement[] {
  if (!isEmbeddingCode(code)) throw new Error("not an embedding code");
  return [
    unindexEmbeddingStatement(db, ref),
    db
      .insert(embeddingBands)
      .values(embeddingBandValues(code).map((value, band) => ({ owner, band, value, ref })))
      .onConflictDoNothing(),
  ];
}

/** Statement that removes `ref` from the embedding index (a purged file). */
export function unindexEmbeddingStatement(db: Db, ref: string): Statement {
  return db.delete(embeddingBands).where(eq(embeddingBands.ref, ref));
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
export function embeddingLookup(db: Db, owner: string, code: string, limit: number) {
  // The probes are inlined (`sql.raw` of integers computed here), as in findNearHashes.
  const statements: Statement[] = isEmbeddingCode(code)
    ? embeddingProbes(code).map((values, band) =>
        db
          .select({ ref: embeddingBands.ref })
          .from(embeddingBands)
          .where(and(eq(embeddingBands.owner, owner), eq(embeddingBands.band, band), sql`${embeddingBands.value} IN (${sql.raw(values.join(","))})`)),
      )
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
