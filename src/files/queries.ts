// Reads and writes of files rows for the files API. Every change is one conditional statement or one
// D1 batch (a transaction): no read-modify-write races.
import { and, asc, count, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../platform/db";
import { files, type FileRow, type Visibility } from "../db/schema";
import { detachFileFromAlbumsStatements } from "../albums/membership";

/** Finalized and not deleted, banned, hidden, quarantined, purged or expired (by `now`). */
export function liveFileCondition(now: number): SQL {
  return and(
    eq(files.state, "finalized"),
    isNull(files.deletedAt),
    isNull(files.bannedAt),
    isNull(files.hiddenAt),
    isNull(files.quarantinedAt),
    isNull(files.purgedAt),
    or(isNull(files.expiresAt), gt(files.expiresAt, new Date(now))),
  )!;
}

/** Not age-restricted once a moderator's override is taken into account. */
export const notAgeRestricted: SQL = sql`COALESCE(${files.ageRestrictedOverride}, ${files.ageRestricted}) = 0`;

export type ListQuery = {
  limit: number;
  offset: number;
  sort: "created" | "views" | "size";
  order: "asc" | "desc";
  visibility?: Visibility;
  excludeNsfw: boolean;
};

// Each sort walks its own (user_id, column) index: files_user_created, files_user_views, files_user_bytes.
const SORT_COLUMN = { created: files.createdAt, views: files.viewCount, size: files.bytes } as const;

export const LIST_COLUMNS = {
  id: files.id,
  title: files.title,
  mime: files.mime,
  bytes: files.bytes,
  width: files.width,
  height: files.height,
  viewCount: files.viewCount,
  createdAt: files.createdAt,
};

/** The caller's live files, one page of them, and how many there are in all. */
export async function listOwnFiles(db: Db, userId: string, q: ListQuery, now: number) {
  const where = and(
    eq(files.userId, userId),
    liveFileCondition(now),
    q.visibility ? eq(files.visibility, q.visibility) : undefined,
    q.excludeNsfw ? notAgeRestricted : undefined,
  );
  const column = SORT_COLUMN[q.sort];
  const [rows, total] = await Promise.all([
    db
      .select(LIST_COLUMNS)
      .from(files)
      .where(where)
      .orderBy(q.order === "asc" ? asc(column) : desc(column))
      .limit(q.limit)
      .offset(q.offset),
    db.select({ n: count() }).from(files).where(where).get(),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export type FilePatch = {
  title?: string;
  description?: string;
  visibility?: Visibility;
  hotlinkPolicy?: FileRow["hotlinkPolicy"];
  hotlinkDomains?: string[];
  tags?: string[];
  /** Seconds from now; null removes the expiry. */
  expiresIn?: number | null;
};

/**
 * Applies exactly the whitelisted fields of a PATCH (never the request object itself: no mass assignment),
 * only while the file is still live. Returns the updated row, or undefined when it stopped being live.
 */
export async function updateFile(db: Db, fileId: string, patch: FilePatch, now: number): Promise<FileRow | undefined> {
  const set: Partial<typeof files.$inferInsert> = { updatedAt: new Date(now) };
  if (patch.title !== undefined) set.title = patch.title;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.visibility !== undefined) set.visibility = patch.visibility;
  if (patch.hotlinkPolicy !== undefined) set.hotlinkPolicy = patch.hotlinkPolicy;
  if (patch.hotlinkDomains !== undefined) set.hotlinkDomains = patch.hotlinkDomains;
  if (patch.tags !== undefined) set.tags = patch.tags;
  if (patch.expiresIn !== undefined) set.expiresAt = patch.expiresIn === null ? null : new Date(now + patch.expiresIn * 1000);
  return db.update(files).set(set).where(and(eq(files.id, fileId), liveFileCondition(now))).returning().get();
}

/**
 * Soft delete: marks the file deleted (reads give 410 at once) and takes it out of its albums, in one
 * transaction. The objects stay until the purge job's retention window has passed (jobs/purge.ts), which
 * also gives the quota back. False when the file was already deleted.
 */
export async function softDeleteFile(db: Db, fileId: string, now: number): Promise<boolean> {
  const [marked] = await db.batch([
    db.run(sql`UPDATE files SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${fileId} AND deleted_at IS NULL`),
    ...detachFileFromAlbumsStatements(db, fileId, now),
  ]);
  return marked.meta.changes === 1;
}
