// The `duplicates` of one file among its owner's live files (GET /files/:id for the owner, finalize) in ONE D1 round
// trip: the exact match and both band probes go out as one batch, each probe joined to `files` there (a band row
// names its file by the owner's ordinal), so candidates come back known live, with what the distances need. The
// owner's GET /files/:id waits for this one read and no other (bench/README.md, `roundtrips`).
import { and, eq, ne, sql, type SQL } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { embeddingBands, files, phashBands } from "../db/schema";
import { liveFileCondition } from "./queries";
import { runBatch, type ShardDb, type Statement } from "../platform/data/db";
import { fileUrl } from "../platform/http/urls";
import { phashDistance, probeLists, similarBy, type Duplicate, type DuplicateSubject, type SimilarSignal } from "../analysis/duplicates";
import { ownerKey } from "../analysis/band-rows";
import { decodeFeatures, embeddingDistance, embeddingProbes, isEmbeddingCode } from "../analysis/embedding";
import { EMBEDDING_MIN_BAND_HITS } from "../analysis/embedding-index";
import { hammingDistance, isPhash } from "../analysis/phash";

type Candidate = { id: string; phash: string | null; embedding: string | null };

/** The file a band row names: the owner's file with that ordinal (files_user_ordinal). */
const fileOfBandRow = (owner: string, ordinal: SQL): SQL => sql`${files.userId} = ${owner} AND ${files.ownerOrdinal} = ${ordinal}`;

/**
 * Live files of `owner` sharing a probed phash band value: one statement per probe list (probeLists), each a
 * primary-key seek per probe (the owner's integer key read by a subquery) then the file by (owner, ordinal)
 * (CROSS JOIN keeps that order, see below).
 */
export function phashCandidateStatements(db: ShardDb, owner: string, phash: string, maxDistance: number, now: number): Statement[] {
  return probeLists(phash, maxDistance).map(({ band, list }) =>
    db.run(sql`
      SELECT ${files.id} AS id, ${files.phash} AS phash, ${files.embedding} AS embedding
      FROM ${phashBands} CROSS JOIN ${files} ON ${fileOfBandRow(owner, sql`${phashBands.ordinal}`)}
      WHERE ${phashBands.owner} = ${ownerKey(owner)} AND ${phashBands.band} = ${sql.raw(String(band))} AND ${phashBands.value} IN (${list})
        AND ${liveFileCondition(now)}`),
  );
}

/** Live files of `owner` sharing >= EMBEDDING_MIN_BAND_HITS bands (within one flip) with `code`, most first, at most
 * `limit`. The 272 probes are one JSON list, a primary-key seek each: D1 refuses a UNION ALL of 16 seeks (too many
 * terms in a compound SELECT), an OR of bands would scan the owner's rows, and CROSS JOIN fixes the order (probes,
 * band rows, files by (owner, ordinal)); left to the planner, it walks all of the owner's band rows. */
export function embeddingCandidateStatement(db: ShardDb, owner: string, code: string, limit: number, now: number): Statement {
  const probes = embeddingProbes(code).flatMap((values, band) => values.map((value) => band * 65_536 + value));
  const hits: SQL = sql`SELECT b.ordinal AS ordinal, COUNT(*) AS hits FROM json_each(${JSON.stringify(probes)}) AS p
    CROSS JOIN ${embeddingBands} AS b ON b.owner = ${ownerKey(owner)} AND b.band = (p.value >> 16) AND b.value = (p.value & 65535)
    GROUP BY b.ordinal HAVING COUNT(*) >= ${sql.raw(String(EMBEDDING_MIN_BAND_HITS))}`;
  return db.run(sql`
    SELECT ${files.id} AS id, ${files.phash} AS phash, ${files.embedding} AS embedding
    FROM (${hits}) AS candidates CROSS JOIN ${files} ON ${fileOfBandRow(owner, sql`candidates.ordinal`)}
    WHERE ${liveFileCondition(now)}
    ORDER BY candidates.hits DESC, ${files.id} LIMIT ${sql.raw(String(limit))}`);
}

/**
 * A file's `duplicates`: exact (same sha256) first, then similar by phash, then by the embedding only, each nearest
 * first; at most ANALYSIS.maxDuplicates. The client's phash hint stands in until analysis has run (the embedding
 * exists only after it); anonymous files have none. One batch through the caller's handle, whatever the candidates.
 */
export async function findDuplicates(db: ShardDb, env: Env, file: DuplicateSubject, now = Date.now()): Promise<Duplicate[]> {
  if (!file.userId) return [];
  const owner = file.userId;
  const limit = ANALYSIS.maxDuplicates;
  const maxPhash = phashDistance(env);
  const hash = file.phash ?? file.clientPhash ?? null;
  const features = decodeFeatures(file.embedding);

  const exact = file.sha256
    ? [db.select({ id: files.id }).from(files).where(and(eq(files.userId, owner), eq(files.sha256, file.sha256), ne(files.id, file.id), liveFileCondition(now))).limit(limit)]
    : [];
  const byPhash = isPhash(hash) ? phashCandidateStatements(db, owner, hash, maxPhash, now) : [];
  const byEmbedding = features && isEmbeddingCode(file.embeddingCode) ? [embeddingCandidateStatement(db, owner, file.embeddingCode, ANALYSIS.embeddingCandidates, now)] : [];
  const results = await runBatch<Candidate>(db, [...exact, ...byPhash, ...byEmbedding]);

  const exactIds = results.slice(0, exact.length).flatMap((r) => r.results.map((row) => row.id));
  const out: Duplicate[] = exactIds.map((id) => ({ fileId: id, url: fileUrl(env, id), distance: 0, match: "exact" }));
  if (out.length >= limit) return out;

  const skip = new Set([file.id, ...exactIds]);
  const candidates = new Map<string, Candidate>();
  for (const result of results.slice(exact.length)) for (const row of result.results) if (!skip.has(row.id)) candidates.set(row.id, row);

  type Similar = { id: string; signal: SimilarSignal; distance: number; distances: { phash: number | null; embedding: number | null } };
  const similar = [...candidates.values()].flatMap((row): Similar[] => {
    const phash = isPhash(hash) && isPhash(row.phash) ? hammingDistance(hash, row.phash) : null;
    const other = features ? decodeFeatures(row.embedding) : null;
    const distances = { phash, embedding: features && other ? embeddingDistance(features, other) : null };
    const signal = similarBy(distances, maxPhash);
    return signal ? [{ signal, distance: distances[signal]!, distances, id: row.id }] : [];
  });
  similar.sort((a, b) => (a.signal === b.signal ? a.distance - b.distance || a.id.localeCompare(b.id) : a.signal === "phash" ? -1 : 1));
  for (const m of similar.slice(0, limit - out.length)) {
    out.push({ fileId: m.id, url: fileUrl(env, m.id), distance: m.distance, match: "similar", signal: m.signal, distances: m.distances });
  }
  return out;
}
