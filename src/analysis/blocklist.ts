// Blocklist check (decisions.md § Moderation): a file whose phash is within ANALYSIS.blocklistDistance of a
// banned file's is quarantined and gets a high-priority report. Blocklist entries are indexed in phash_bands
// under owner "blocklist" (indexBlocklistEntry in duplicates.ts), so the check is an indexed lookup.
import { ANALYSIS } from "../config";
import { newId } from "../platform/ids";
import { BLOCKLIST_OWNER, findNearHashes } from "./duplicates";

export type BlocklistMatch = { entryId: string; phash: string; distance: number; reason: string };

/** The nearest blocklist entry within the blocklist distance, with the reason of the report that banned it. */
export async function matchBlocklist(d1: D1Database, phash: string, maxDistance = ANALYSIS.blocklistDistance): Promise<BlocklistMatch | null> {
  const { matches } = await findNearHashes(d1, BLOCKLIST_OWNER, phash, maxDistance);
  const nearest = matches[0];
  if (!nearest) return null;
  const entry = await d1
    .prepare("SELECT r.reason AS reason FROM blocklist b LEFT JOIN reports r ON r.id = b.report_id WHERE b.id = ?1")
    .bind(nearest.ref)
    .first<{ reason: string | null }>();
  // An index row whose entry was removed from the blocklist is stale: not a match.
  if (!entry) return null;
  return { entryId: nearest.ref, phash: nearest.phash, distance: nearest.distance, reason: entry.reason ?? "other" };
}

/**
 * The high-priority report for a blocklist match, aggregated into the file's open report if there is one
 * (reports_open_per_file). Runs in the job's final batch BEFORE the file is marked done, and only while it
 * is not, so a redelivered job does not count the match twice.
 */
export function blocklistReportStatement(d1: D1Database, fileId: string, match: BlocklistMatch, now: number): D1PreparedStatement {
  const details = `Automatic: phash within distance ${match.distance} of blocklist entry ${match.entryId}`;
  return d1
    .prepare(
      `INSERT INTO reports (id, file_id, reason, details, priority, status, report_count, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, 'high', 'pending', 1, ?5, ?5
       WHERE EXISTS (SELECT 1 FROM files WHERE id = ?2 AND analysis <> 'done')
       ON CONFLICT (file_id) WHERE status = 'pending' DO UPDATE SET
         report_count = report_count + 1,
         priority = 'high',
         details = CASE WHEN details = '' THEN excluded.details ELSE details || char(10) || excluded.details END,
         updated_at = excluded.updated_at`,
    )
    .bind(newId("rep"), fileId, match.reason, details, now);
}
