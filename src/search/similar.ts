// GET /files/:id/similar: the owner's files nearest this one on the near-duplicate signals (the phash and embedding
// band indexes, files/duplicate-lookup.ts), kept up to SEARCH's bounds, looser than `duplicates`. One batch of
// probes (each a primary-key seek, so the shard's size does not count), then one read of the kept files' rows.
import { SEARCH, ANALYSIS } from "../config";
import type { FileRow } from "../db/schema";
import { runBatch, type ShardDb } from "../platform/data/db";
import { embeddingCandidateStatement, phashCandidateStatements } from "../files/duplicate-lookup";
import { listPageQuery } from "../files/queries";
import { phashDistance } from "../analysis/duplicates";
import { decodeFeatures, embeddingDistance, isEmbeddingCode } from "../analysis/embedding";
import { hammingDistance, isPhash } from "../analysis/phash";

type Candidate = { id: string; phash: string | null; embedding: string | null };

/**
 * A candidate's distance: the nearer signal's distance over that signal's `duplicates` bound, so 1 is as far as a
 * near copy goes and SEARCH's bounds (about 1.2-1.5) are the furthest kept. Null: neither signal is near enough.
 */
export function similarity(distances: { phash: number | null; embedding: number | null }, maxPhash: number): number | null {
  const byPhash = distances.phash !== null && distances.phash <= SEARCH.similarPhashDistance ? distances.phash / Math.max(1, maxPhash) : Infinity;
  const byEmbedding =
    distances.embedding !== null && distances.embedding <= SEARCH.similarEmbeddingDistance ? distances.embedding / ANALYSIS.embeddingDistance : Infinity;
  const d = Math.min(byPhash, byEmbedding);
  return Number.isFinite(d) ? Math.round(d * 1000) / 1000 : null;
}

/** The owner's live files like `file`, nearest first, with their distance; the file itself and anonymous files have none. */
export async function similarFiles(env: Env, db: ShardDb, file: FileRow, now: number) {
  if (!file.userId) return [];
  const hash = file.phash ?? file.clientPhash ?? null;
  const features = decodeFeatures(file.embedding);
  const maxPhash = phashDistance(env);
  const statements = [
    ...(isPhash(hash) ? phashCandidateStatements(db, file.userId, hash, maxPhash, now) : []),
    ...(features && isEmbeddingCode(file.embeddingCode) ? [embeddingCandidateStatement(db, file.userId, file.embeddingCode, ANALYSIS.embeddingCandidates, now)] : []),
  ];
  if (statements.length === 0) return [];
  const candidates = new Map<string, Candidate>();
  for (const result of await runBatch<Candidate>(db, statements)) for (const row of result.results) if (row.id !== file.id) candidates.set(row.id, row);
  const near = [...candidates.values()].flatMap((row) => {
    const other = features ? decodeFeatures(row.embedding) : null;
    const distances = { phash: isPhash(hash) && isPhash(row.phash) ? hammingDistance(hash, row.phash) : null, embedding: features && other ? embeddingDistance(features, other) : null };
    const distance = similarity(distances, maxPhash);
    return distance === null ? [] : [{ id: row.id, distance }];
  });
  near.sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id));
  const kept = near.slice(0, SEARCH.similarLimit);
  if (kept.length === 0) return [];
  const list = { limit: kept.length, offset: 0, sort: "created", order: "desc", excludeNsfw: false, ids: kept.map((k) => k.id) } as const;
  const rows = new Map((await listPageQuery(db, file.userId, list, now)).map((r) => [r.id, r]));
  return kept.flatMap((k) => (rows.has(k.id) ? [{ row: rows.get(k.id)!, distance: k.distance }] : []));
}
