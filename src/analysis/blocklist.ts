// Blocklist check (decisions.md § Moderation): a file whose phash is within ANALYSIS.blocklistDistance of a
// banned file's is quarantined and gets a high-priority report. Blocklist entries are indexed in phash_bands
// under owner "blocklist" (indexBlocklistEntry in duplicates.ts), so the check is an indexed lookup.
import { eq, sql } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { blocklist, reports } from "../db/schema";
import type { Db, Statement } from "../platform/db";
import { newId } from "../platform/ids";
import { BLOCKLIST_OWNER, findNearHashes } from "./duplicates";

export type BlocklistMatch = { entryId: string; phash: string; distance: number; reason: string };

/** The nearest blocklist entry within the blocklist distance, with the reason of the report that banned it. */
export async function matchBlocklist(db: Db, phash: string, maxDistance = ANALYSIS.blocklistDistance): Promise<BlocklistMatch | null> {
  const { matches } = await findNearHashes(db, BLOCKLIST_OWNER, phash, maxDistance);
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
 * The high-priority report for a blocklist match, aggregated into the file's open report if there is one
 * (reports_open_per_file). Runs in the job's final batch BEFORE the file is marked done, and only while it
 * is not, so a redelivered job does not count the match twice. `await` it to run it alone.
 *
 * Raw SQL: the row is inserted only if the file is not yet done (INSERT ... SELECT ... WHERE EXISTS), which
 * drizzle's insert builder can express only by selecting every one of the report's 16 columns as a constant.
 */
export function blocklistReportStatement(db: Db, fileId: string, match: BlocklistMatch, now: number) {
  const details = `Automatic: phash within distance ${match.distance} of blocklist entry ${match.entryId}`;
  return db.run(sql`INSERT INTO reports (id, file_id, reason, details, priority, status, report_count, created_at, updated_at)
    SELECT ${newId("rep")}, ${fileId}, ${match.reason}, ${details}, 'high', 'pending', 1, ${now}, ${now}
    WHERE EXISTS (SELECT 1 FROM files WHERE id = ${fileId} AND analysis <> 'done')
    ON CONFLICT (file_id) WHERE status = 'pending' DO UPDATE SET
      report_count = report_count + 1,
      priority = 'high',
      details = CASE WHEN details = '' THEN excluded.details ELSE details || char(10) || excluded.details END,
      updated_at = excluded.updated_at`) satisfies Statement;
}
