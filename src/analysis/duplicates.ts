// The near-duplicate index (phash_bands) and the `duplicates` of a file (decisions.md § Uploads):
// `exact` = same content hash (sha256) among the owner's live files; `similar` = phash within PHASH_DISTANCE
// (signal "phash"), or else the NSFW model's features within ANALYSIS.embeddingDistance (signal "embedding",
// embedding.ts: crops and small rotations that phash misses). Lookups are indexed point seeks (bands.ts,
// embedding-index.ts): no scan of the owner's files, whatever their number. A file's duplicates are looked up
// in files/duplicate-lookup.ts; the blocklist uses findNearHashes here.
import { and, eq, ne, sql, type SQL } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { phashBands, type FileRow } from "../db/schema";
import { runBatch, type Db, type Statement } from "../platform/db";
import { bandProbes, bandValues } from "./bands";
import { hammingDistance, isPhash } from "./phash";

export type SimilarSignal = "phash" | "embedding";

/**
 * `distance`: of the signal that matched (phash: Hamming distance of 64 bits; embedding: cosine distance in
 * thousandths); `distances`: each signal's, null when one of the two files lacks it (files analysed before the
 * embedding existed have none).
 */
export type Duplicate =
  | { fileId: string; url: string; distance: 0; match: "exact" }
  | { fileId: string; url: string; distance: number; match: "similar"; signal: SimilarSignal; distances: { phash: number | null; embedding: number | null } };

export type NearHash = { ref: string; phash: string; distance: number };

/** Owner value of blocklist rows in phash_bands (user ids start with `usr_`, so they never collide). */
export const BLOCKLIST_OWNER = "blocklist";

/** PHASH_DISTANCE, default 8, clamped to 0..32 (larger radii make lookups probe too many values). */
export function phashDistance(env: Pick<Env, "PHASH_DISTANCE">): number {
  const n = Number.parseInt(env.PHASH_DISTANCE ?? "", 10);
  return Number.isFinite(n) ? Math.min(32, Math.max(0, n)) : ANALYSIS.defaultPhashDistance;
}

/**
 * Statements that (re)index `ref`'s phash under `owner`: old rows of that ref go, the three band rows are
 * upserted. Idempotent; meant for a D1 batch with the caller's other writes.
 */
export function indexStatements(db: Db, owner: string, ref: string, phash: string): Statement[] {
  return [
    db.delete(phashBands).where(and(eq(phashBands.ref, ref), eq(phashBands.owner, owner), ne(phashBands.phash, phash))),
    db
      .insert(phashBands)
      .values(bandValues(phash).map((value, band) => ({ owner, band, value, ref, phash })))
      .onConflictDoNothing(),
  ];
}

/** Statement that removes `ref` from the index (a purged file, a lifted blocklist entry). */
export function unindexStatement(db: Db, ref: string): Statement {
  return db.delete(phashBands).where(eq(phashBands.ref, ref));
}

/**
 * Blocklist entries are indexed like files, under owner "blocklist". The moderation feature calls this
 * when it adds an entry (ban_file), so analysis finds it with an indexed lookup.
 */
export async function indexBlocklistEntry(db: Db, entryId: string, phash: string): Promise<void> {
  if (!isPhash(phash)) throw new Error("not a phash");
  await runBatch(db, indexStatements(db, BLOCKLIST_OWNER, entryId, phash));
}

const MAX_VALUES_PER_STATEMENT = 1_000;

/**
 * The probes of a lookup as SQL `IN` lists, per band, at most 1,000 values each. The values are integers
 * computed here, so they are inlined (`sql.raw`) rather than bound: D1 allows 100 bound parameters per
 * statement, and a band has up to ~250 probes. Shared by findNearHashes and the file duplicate lookup.
 */
export function probeLists(phash: string, maxDistance: number): { band: number; list: SQL }[] {
  return bandProbes(phash, maxDistance).flatMap((values, band) =>
    Array.from({ length: Math.ceil(values.length / MAX_VALUES_PER_STATEMENT) }, (_, i) => ({
      band,
      list: sql.raw(values.slice(i * MAX_VALUES_PER_STATEMENT, (i + 1) * MAX_VALUES_PER_STATEMENT).join(",")),
    })),
  );
}

export type NearHashLookup = { matches: NearHash[]; candidates: number; rowsRead: number; statements: number };

/**
 * Every indexed hash of `owner` within `maxDistance` of `phash`, nearest first. One D1 round trip: a batch
 * of `SELECT ... WHERE owner = ? AND band = ? AND value IN (...)` (primary-key index seeks), through the
 * handle given (a request's session reads from the nearest replica), one statement per probe list.
 */
export async function findNearHashes(db: Db, owner: string, phash: string, maxDistance: number): Promise<NearHashLookup> {
  if (!isPhash(phash)) return { matches: [], candidates: 0, rowsRead: 0, statements: 0 };
  const statements: Statement[] = probeLists(phash, maxDistance).map(({ band, list }) =>
    db
      .select({ ref: phashBands.ref, phash: phashBands.phash })
      .from(phashBands)
      .where(and(eq(phashBands.owner, owner), eq(phashBands.band, band), sql`${phashBands.value} IN (${list})`)),
  );
  // runBatch, not db.batch: the lookup reports D1's rows_read (the benchmark's cost figure).
  const results = await runBatch<{ ref: string; phash: string }>(db, statements);
  const seen = new Map<string, NearHash>();
  let candidates = 0;
  let rowsRead = 0;
  for (const result of results) {
    rowsRead += result.meta?.rows_read ?? 0;
    for (const row of result.results) {
      candidates++;
      if (seen.has(row.ref)) continue;
      const distance = hammingDistance(phash, row.phash);
      if (distance <= maxDistance) seen.set(row.ref, { ref: row.ref, phash: row.phash, distance });
    }
  }
  const matches = [...seen.values()].sort((a, b) => a.distance - b.distance || a.ref.localeCompare(b.ref));
  return { matches, candidates, rowsRead, statements: statements.length };
}

/**
 * Which signal makes two files `similar`, given each signal's distance (null: not known for both): phash within
 * PHASH_DISTANCE first (the contract's meaning of similar), else the embedding within ANALYSIS.embeddingDistance.
 * The benchmark (bench/snippets/near-duplicates.mjs) decides pairs with this same function.
 */
export function similarBy(distances: { phash: number | null; embedding: number | null }, maxPhash: number, maxEmbedding = ANALYSIS.embeddingDistance): SimilarSignal | null {
  if (distances.phash !== null && distances.phash <= maxPhash) return "phash";
  if (distances.embedding !== null && distances.embedding <= maxEmbedding) return "embedding";
  return null;
}

export type DuplicateSubject = Pick<FileRow, "id" | "userId" | "sha256" | "phash"> & Partial<Pick<FileRow, "clientPhash" | "embedding" | "embeddingCode">>;
