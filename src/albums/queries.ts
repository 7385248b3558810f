// Albums in D1. Membership changes and the counters they move are one D1 batch (a transaction), and
// file_count is recounted from album_files inside it, so it can never drift from the truth.
import { and, asc, count, desc, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { runBatch, type ShardDb } from "../platform/data/db";
import { albumFiles, albums, files, owners, type AlbumRow, type Visibility } from "../db/schema";
import { newShardedId } from "../platform/data/shard-ids";
import { isId } from "../platform/data/ids";
import { lookupFollowing, ownerMoving } from "../platform/data/moved-ids";
import { LIST_COLUMNS, liveFileCondition, notAgeRestricted } from "../files/queries";
import { fileMatches } from "../files/text-match";

/** D1 binds at most 100 parameters per statement; album inserts use a few besides the ids. */
const IDS_PER_STATEMENT = 90;

/** ownerMoving: the owner is being moved to another shard (owners.moved_to), their changes wait. */
export type LoadedAlbum = { album: AlbumRow; ownerGoneAt: Date | null; ownerMoving: boolean };

/**
 * The album and its owner's ban / deletion state, the shard's copy (owners): one query on the album's shard. No
 * owners row: an owner who never uploaded and was never banned nor deleted.
 */
export async function loadAlbum(db: ShardDb, id: string): Promise<LoadedAlbum | undefined> {
  if (!isId("alb", id)) return undefined;
  const row = await lookupFollowing(db, id, () =>
    db
      .select({ album: albums, ownerBannedAt: owners.bannedAt, ownerDeletedAt: owners.deletedAt, ownerMovedTo: owners.movedTo })
      .from(albums)
      .leftJoin(owners, eq(owners.userId, albums.userId))
      .where(and(eq(albums.id, id), isNull(albums.deletedAt)))
      .get(),
  );
  return row ? { album: row.album, ownerGoneAt: row.ownerBannedAt ?? row.ownerDeletedAt ?? null, ownerMoving: row.ownerMovedTo !== null } : undefined;
}

/** Inserts the caller's own live files among `fileIds` that are not in the album yet (one statement per chunk). */
function addOwnFilesStatements(db: ShardDb, albumId: string, userId: string, fileIds: string[], now: number) {
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
        .onConflictDoNothing()
        .returning({ fileId: albumFiles.fileId }),
    );
  }
  return statements;
}

/** file_count from album_files itself; updatedAt moves only when the count did. */
function recountStatement(db: ShardDb, albumId: string, now: number) {
  const n = sql`(SELECT COUNT(*) FROM ${albumFiles} WHERE ${albumFiles.albumId} = ${albumId})`;
  return db
    .update(albums)
    .set({ updatedAt: sql`CASE WHEN ${albums.fileCount} = ${n} THEN ${albums.updatedAt} ELSE ${now} END`, fileCount: n })
    .where(eq(albums.id, albumId));
}

export type NewAlbum = {
  title: string;
  description: string;
  visibility: Visibility;
  tags: string[];
  passwordHash: string | null;
  fileIds: string[];
};

export async function createAlbum(db: ShardDb, userId: string, input: NewAlbum, now: number): Promise<AlbumRow> {
  // The owner's row says whether they are moving to another shard (docs/sharding.md § Moving an owner).
  const owner = await db.select({ movedTo: owners.movedTo }).from(owners).where(eq(owners.userId, userId)).get();
  if (owner && owner.movedTo !== null) throw ownerMoving();
  const id = newShardedId("alb", db.$client.shard);
  const at = new Date(now);
  await runBatch(db, [
    db.insert(albums).values({
      id,
      userId,
      title: input.title,
      description: input.description,
      visibility: input.visibility,
      tags: input.tags,
      passwordHash: input.passwordHash,
      createdAt: at,
      updatedAt: at,
    }),
    ...addOwnFilesStatements(db, id, userId, input.fileIds, now),
    // The album is new: its count is simply what went in, and updatedAt stays createdAt.
    db
      .update(albums)
      .set({ fileCount: sql`(SELECT COUNT(*) FROM ${albumFiles} WHERE ${albumFiles.albumId} = ${id})` })
      .where(eq(albums.id, id)),
  ]);
  return (await db.select().from(albums).where(eq(albums.id, id)).get())!;
}

export async function listAlbums(db: ShardDb, userId: string, limit: number, offset: number) {
  // albums_user_created index: (user_id, created_at).
  const where = and(eq(albums.userId, userId), isNull(albums.deletedAt));
  const [rows, total] = await Promise.all([
    db.select().from(albums).where(where).orderBy(desc(albums.createdAt)).limit(limit).offset(offset),
    db.select({ n: count() }).from(albums).where(where).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** What an anonymous visitor (public pages, link previews) sees of an album: safe mode on, not the owner. */
export const ANONYMOUS_SEES = { owner: false, adult: false };

/** Which of an album's files a viewer sees: live ones; private ones only for the owner; age-restricted ones not under safe mode. */
function visibleFilesWhere(albumId: string, opts: { owner: boolean; adult: boolean }, now: number): SQL {
  return and(
    eq(albumFiles.albumId, albumId),
    liveFileCondition(now),
    opts.owner ? undefined : ne(files.visibility, "private"),
    opts.owner || opts.adult ? undefined : notAgeRestricted,
  )!;
}

/** One page of the files a viewer sees in an album, in the order they were added (album_files_album_added). */
/** `match`: only the files the search index finds (files/text-match.ts), for the album page's `?q=`. */
export async function albumFilesPage(db: ShardDb, albumId: string, opts: { owner: boolean; adult: boolean }, limit: number, offset: number, now: number, match?: string | null) {
  const where = and(visibleFilesWhere(albumId, opts, now), match === undefined ? undefined : match === null ? sql`0` : fileMatches(match));
  const [rows, total] = await Promise.all([
    db
      .select(LIST_COLUMNS)
      .from(albumFiles)
      .innerJoin(files, eq(files.id, albumFiles.fileId))
      .where(where)
      .orderBy(asc(albumFiles.addedAt), asc(albumFiles.fileId))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(albumFiles).innerJoin(files, eq(files.id, albumFiles.fileId)).where(where).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/**
 * The album's face for a viewer: its chosen cover when the viewer sees that file in the album, else the
 * first file the viewer sees, else undefined. A cover is never a file the album would not show them.
 */
export async function visibleCover(db: ShardDb, album: Pick<AlbumRow, "id" | "coverFileId">, opts: { owner: boolean; adult: boolean }, now: number) {
  const order = [asc(albumFiles.addedAt), asc(albumFiles.fileId)];
  if (album.coverFileId) order.unshift(sql`CASE WHEN ${files.id} = ${album.coverFileId} THEN 0 ELSE 1 END`);
  return db
    // Link previews: oEmbed states the thumbnail's size when there is one; a refused bomb is nobody's preview.
    .select({ ...LIST_COLUMNS, thumbKey: files.thumbKey, analysis: files.analysis, analysisError: files.analysisError, analysisFailure: files.analysisFailure })
    .from(albumFiles)
    .innerJoin(files, eq(files.id, albumFiles.fileId))
    .where(visibleFilesWhere(album.id, opts, now))
    .orderBy(...order)
    .limit(1)
    .get();
}

export type AlbumPatch = {
  title?: string;
  description?: string;
  visibility?: Visibility;
  tags?: string[];
  /** A new hash, or null to remove the password. */
  passwordHash?: string | null;
  /** A file id (must be in the album) or null. */
  coverFileId?: string | null;
};

export type PatchOutcome = { ok: true; album: AlbumRow } | { ok: false; reason: "missing" | "cover_not_in_album" };

/** Only the listed fields, in one UPDATE; a cover is set only while that file is in the album (checked in the same statement). */
export async function updateAlbum(db: ShardDb, albumId: string, patch: AlbumPatch, now: number): Promise<PatchOutcome> {
  const set: Partial<typeof albums.$inferInsert> = { updatedAt: new Date(now) };
  if (patch.title !== undefined) set.title = patch.title;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.visibility !== undefined) set.visibility = patch.visibility;
  if (patch.tags !== undefined) set.tags = patch.tags;
  if (patch.passwordHash !== undefined) set.passwordHash = patch.passwordHash;
  if (patch.coverFileId !== undefined) set.coverFileId = patch.coverFileId;
  const coverCheck =
    typeof patch.coverFileId === "string"
      ? sql`EXISTS (SELECT 1 FROM album_files WHERE album_id = ${albumId} AND file_id = ${patch.coverFileId})`
      : undefined;
  const updated = await db
    .update(albums)
    .set(set)
    .where(and(eq(albums.id, albumId), isNull(albums.deletedAt), coverCheck))
    .returning()
    .get();
  if (updated) return { ok: true, album: updated };
  return { ok: false, reason: coverCheck ? "cover_not_in_album" : "missing" };
}

/** Deletes the album and its membership rows; the files themselves stay. */
export async function deleteAlbum(db: ShardDb, albumId: string): Promise<boolean> {
  const [, removed] = await runBatch(db, [db.delete(albumFiles).where(eq(albumFiles.albumId, albumId)), db.delete(albums).where(eq(albums.id, albumId)).returning({ id: albums.id })]);
  return removed.results.length === 1;
}

/** Adds the caller's own live files; returns how many were new to the album. */
export async function addFilesToAlbum(db: ShardDb, albumId: string, userId: string, fileIds: string[], now: number): Promise<number> {
  const inserts = addOwnFilesStatements(db, albumId, userId, fileIds, now);
  const results = await runBatch(db, [...inserts, recountStatement(db, albumId, now)]);
  // Rows, not `changes`: D1's `changes` counts the search index's trigger writes too (migration 0019).
  return results.slice(0, inserts.length).reduce((n, r) => n + r.results.length, 0);
}

/**
 * An upload's file joining the album its creator named (extensions.md § 8), as statements for finalize's own batch
 * on the owner's shard: the file goes in once it is live, and only while the album is still the owner's (one
 * deleted since the upload started is not joined). Repeating them changes nothing.
 */
export function joinAlbumStatements(db: ShardDb, albumId: string, userId: string, fileId: string, now: number) {
  const albumIsTheirs = sql`EXISTS (SELECT 1 FROM ${albums} WHERE ${albums.id} = ${albumId} AND ${albums.userId} = ${userId} AND ${albums.deletedAt} IS NULL)`;
  return [
    db
      .insert(albumFiles)
      .select(sql`SELECT ${albumId}, ${files.id}, ${now} FROM ${files} WHERE ${files.id} = ${fileId} AND ${files.userId} = ${userId} AND ${liveFileCondition(now)} AND ${albumIsTheirs}`)
      .onConflictDoNothing(),
    recountStatement(db, albumId, now),
  ];
}

/** Removes one file; clears it as cover. False when it was not in the album. */
export async function removeFileFromAlbum(db: ShardDb, albumId: string, fileId: string, now: number): Promise<boolean> {
  const [removed] = await runBatch(db, [
    db.delete(albumFiles).where(and(eq(albumFiles.albumId, albumId), eq(albumFiles.fileId, fileId))).returning({ fileId: albumFiles.fileId }),
    db.update(albums).set({ coverFileId: null }).where(and(eq(albums.id, albumId), eq(albums.coverFileId, fileId))),
    recountStatement(db, albumId, now),
  ]);
  return removed.results.length === 1;
}
