// Blocklist check (decisions.md § Moderation): a file whose phash is within ANALYSIS.blocklistDistance of a
// banned file's is quarantined and gets a high-priority report. Blocklist entries are indexed in blocklist_bands
// (the same bands as an owner's files, bands.ts, but global: a table of its own), so the check is an indexed lookup.
import { and, eq, sql } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { blocklist, blocklistBands, reports } from "../db/schema";
import { runBatch, type DirectoryDb, type Statement } from "../platform/data/db";
import { newId } from "../platform/data/ids";
import { bandValues } from "./bands";
import { probeLists } from "./duplicates";
import { hammingDistance, isPhash } from "./phash";

export type BlocklistMatch = { entryId: string; phash: string; distance: number; reason: string };

/** Statements that index a blocklist entry's phash (idempotent; for the batch that adds the entry). */
export function indexBlocklistEntryStatements(db: DirectoryDb, entryId: string, phash: string): Statement[] {
  if (!isPhash(phash)) throw new Error("not a phash");
  return [db.insert(blocklistBands).values(bandValues(phash).map((value, band) => ({ band, value, entry: entryId, phash }))).onConflictDoNothing()];
}

/** Statement that removes an entry's index rows, by their keys (recomputed from the entry's phash). */
export function unindexBlocklistEntryStatement(db: DirectoryDb, entryId: string, phash: string): Statement {
  const pairs = sql.raw(bandValues(phash).map((value, band) => `(${band},${value})`).join(","));
  return db.delete(blocklistBands).where(and(eq(blocklistBands.entry, entryId), sql`(${blocklistBands.band}, ${blocklistBands.value}) IN (VALUES ${pairs})`));
}

/** Indexes an entry on its own (tests; the moderation feature puts the statements in its resolution's batch). */
export async function indexBlocklistEntry(db: DirectoryDb, entryId: string, phash: string): Promise<void> {
  await runBatch(db, indexBlocklistEntryStatements(db, entryId, phash));
}

export type NearHash = { ref: string; phash: string; distance: number };
export type NearHashLookup = { matches: NearHash[]; candidates: number; rowsRead: number; statements: number };

/**
 * Every indexed blocklist hash within `maxDistance` of `phash`, nearest first. One D1 round trip: a batch of
 * `SELECT ... WHERE band = ? AND value IN (...)` (primary-key seeks), one statement per probe list.
 */
export async function findNearBlocklistHashes(db: DirectoryDb, phash: string, maxDistance: number): Promise<NearHashLookup> {
  if (!isPhash(phash)) return { matches: [], candidates: 0, rowsRead: 0, statements: 0 };
  const statements: Statement[] = probeLists(phash, maxDistance).map(({ band, list }) =>
    db
      .select({ entry: blocklistBands.entry, phash: blocklistBands.phash })
      .from(blocklistBands)
      .where(and(eq(blocklistBands.band, band), sql`${blocklistBands.value} IN (${list})`)),
  );
  // runBatch, not db.batch: the lookup reports D1's rows_read (the benchmark's cost figure).
  const results = await runBatch<{ entry: string; phash: string }>(db, statements);
  const seen = new Map<string, NearHash>();
  let candidates = 0;
  let rowsRead = 0;
  for (const result of results) {
    rowsRead += result.meta?.rows_read ?? 0;
    for (const row of result.results) {
      candidates++;
      if (seen.has(row.entry)) continue;
      const distance = hammingDistance(phash, row.phash);
      if (distance <= maxDistance) seen.set(row.entry, { ref: row.entry, phash: row.phash, distance });
    }
  }
  const matches = [...seen.values()].sort((a, b) => a.distance - b.distance || a.ref.localeCompare(b.ref));
  return { matches, candidates, rowsRead, statements: statements.length };
}

/** The nearest blocklist entry within the blocklist distance, with the reason of the report that banned it. */
export async function matchBlocklist(db: DirectoryDb, phash: string, maxDistance = ANALYSIS.blocklistDistance): Promise<BlocklistMatch | null> {
  const { matches } = await findNearBlocklistHashes(db, phash, maxDistance);
  const nearest = matches[0];
  if (!nearest) return null;
  const entry = await db
    .select({ reason: reports.reason })
    .from(blocklist)
    .leftJoin(reports, eq(reports.id, blocklist.reportId))
    .where(eq(blocklist.id, nearest.ref))
    .get();
  // An index row whose entry was removed from the blocklist is stale: not a match.
  if (!entry) return null;
  return { entryId: nearest.ref, phash: nearest.phash, distance: nearest.distance, reason: entry.reason ?? "other" };
}

/**
 * The high-priority report for a blocklist match found by the analysis job, aggregated into the file's open report
 * (reports_open_per_file). The directory's alone: filed before the shard's batch marks the file done (job-steps.ts
 * recordResult), so a redelivered job files it again, which counts once (reportStatement). `await runBatch` it.
 */
export function blocklistReportStatement(db: DirectoryDb, fileId: string, match: BlocklistMatch, now: number) {
  return reportStatement(db, fileId, match, now);
}

/**
 * The same report, filed by the finalize that matched the client's phash hint: once, by the request whose
 * transition finalized the file, before the analysis is queued, so nothing of the file (a shard's) needs
 * checking and the statement is the directory's alone.
 */
export function finalizeBlocklistReportStatement(db: DirectoryDb, fileId: string, match: BlocklistMatch, now: number) {
  return reportStatement(db, fileId, match, now);
}

function reportStatement(db: DirectoryDb, fileId: string, match: BlocklistMatch, now: number) {
  const details = `Automatic: phash within distance ${match.distance} of blocklist entry ${match.entryId}`;
  return db.run(sql`INSERT INTO reports (id, file_id, reason, details, priority, status, report_count, created_at, updated_at)
    SELECT ${newId("rep")}, ${fileId}, ${match.reason}, ${details}, 'high', 'pending', 1, ${now}, ${now}
    WHERE true
    ON CONFLICT (file_id) WHERE status = 'pending' DO UPDATE SET
      report_count = report_count + (instr(details, excluded.details) = 0),
      priority = 'high',
      details = CASE WHEN instr(details, excluded.details) > 0 THEN details WHEN details = '' THEN excluded.details ELSE details || char(10) || excluded.details END,
      updated_at = excluded.updated_at`) satisfies Statement;
}
