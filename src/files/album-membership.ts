// Album membership changes that other features trigger (a file deleted, expired, purged or banned leaves
// every album it was in). Statements, not calls, so callers put them in the same D1 batch (one transaction)
// as their own change: `file_count` and `cover_file_id` can never disagree with album_files.
// (Query builders, not db.run(sql``): drizzle 0.45 cannot batch raw statements that carry parameters.)
import { eq, inArray, sql } from "drizzle-orm";
import type { ShardDb } from "../platform/data/db";
import { albumFiles, albums } from "../db/schema";

/**
 * Removes `fileId` from all albums: decrements their counts, clears it as cover, bumps updatedAt, then
 * deletes the rows. The decrement reads album_files before the delete inside the same transaction, so a
 * repeat is a no-op (nothing left to match).
 */
export function detachFileFromAlbumsStatements(db: ShardDb, fileId: string, now: number) {
  return [
    db
      .update(albums)
      .set({
        fileCount: sql`MAX(0, ${albums.fileCount} - 1)`,
        updatedAt: new Date(now),
        coverFileId: sql`CASE WHEN ${albums.coverFileId} = ${fileId} THEN NULL ELSE ${albums.coverFileId} END`,
      })
      .where(inArray(albums.id, db.select({ id: albumFiles.albumId }).from(albumFiles).where(eq(albumFiles.fileId, fileId)))),
    db.delete(albumFiles).where(eq(albumFiles.fileId, fileId)),
  ] as const;
}
