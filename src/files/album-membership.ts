// Album membership changes that other features trigger (a file deleted, expired, purged or banned leaves
// every album it was in; an upload that names an album joins it), and the insert and recount albums/ uses too. Statements, not calls, so callers put them in the same D1 batch (one transaction)
// as their own change: `file_count` and `cover_file_id` can never disagree with album_files.
// (Query builders, not db.run(sql``): drizzle 0.45 cannot batch raw statements that carry parameters.)
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { runBatch, type ShardDb } from "../platform/db";
import { albumFiles, albums, files } from "../db/schema";
import { liveFileCondition } from "./live";

/** D1 binds at most 100 parameters per statement; album inserts use a few besides the ids. */
const IDS_PER_STATEMENT = 90;

/** Inserts the caller's own live files among `fileIds` that are not in the album yet (one statement per chunk). */
export function addOwnFilesStatements(db: ShardDb, albumId: string, userId: string, fileIds: string[], now: number) {
  const unique = [...new Set(fileIds)];
  const statements = [];
  for (let i = 0; i < unique.length; i += IDS_PER_STATEMENT) {
    const chunk = unique.slice(i, i + IDS_PER_STATEMENT);
    statements.push(
      db
        .insert(albumFiles)
        .select(
          sql`SELECT ${albumId}, ${files.id}, ${now} FROM ${files}
              WHERE ${files.id} IN (${sql.join(chunk.map((id) => sql`${id}`), sql`, `)})
                AND ${files.userId} = ${userId} AND ${liveFileCondition(now)}`,
        )
        .onConflictDoNothing(),
    );
  }
  return statements;
}

/** file_count from album_files itself; updatedAt moves only when the count did. */
export function recountStatement(db: ShardDb, albumId: string, now: number) {
  const n = sql`(SELECT COUNT(*) FROM ${albumFiles} WHERE ${albumFiles.albumId} = ${albumId})`;
  return db
    .update(albums)
    .set({ updatedAt: sql`CASE WHEN ${albums.fileCount} = ${n} THEN ${albums.updatedAt} ELSE ${now} END`, fileCount: n })
    .where(eq(albums.id, albumId));
}

/** Whether `albumId` is one of the user's own albums (not deleted): where an upload may be filed. */
export async function isOwnAlbum(db: ShardDb, albumId: string, userId: string): Promise<boolean> {
  const row = await db.select({ id: albums.id }).from(albums).where(and(eq(albums.id, albumId), eq(albums.userId, userId), isNull(albums.deletedAt))).get();
  return row !== undefined;
}

/** Files a just-uploaded file in one of its owner's albums (uploads that name `albumId`). */
export async function addUploadToAlbum(db: ShardDb, albumId: string, userId: string, fileId: string, now: number): Promise<void> {
  await runBatch(db, [...addOwnFilesStatements(db, albumId, userId, [fileId], now), recountStatement(db, albumId, now)]);
}

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
