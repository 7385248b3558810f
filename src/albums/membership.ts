// Album membership changes that other features trigger (a file deleted, expired or purged leaves every
// album it was in). Statements, not calls, so callers put them in the same D1 batch (one transaction)
// as their own change: `file_count` and `cover_file_id` can never disagree with album_files.
import { sql } from "drizzle-orm";
import type { Db } from "../platform/db";

/**
 * Removes `fileId` from all albums: decrements their counts, clears it as cover, bumps updatedAt, then
 * deletes the rows. The decrement reads album_files before the delete inside the same transaction, so a
 * repeat is a no-op (nothing left to match).
 */
export function detachFileFromAlbumsStatements(db: Db, fileId: string, now: number) {
  return [
    db.run(sql`UPDATE albums SET file_count = MAX(0, file_count - 1), updated_at = ${now},
                 cover_file_id = CASE WHEN cover_file_id = ${fileId} THEN NULL ELSE cover_file_id END
               WHERE id IN (SELECT album_id FROM album_files WHERE file_id = ${fileId})`),
    db.run(sql`DELETE FROM album_files WHERE file_id = ${fileId}`),
  ] as const;
}
