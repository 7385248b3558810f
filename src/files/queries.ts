// Reads and writes of files rows for the files API. Every change is one conditional statement or one
// D1 batch (a transaction): no read-modify-write races.
import { and, asc, count, desc, eq, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { runBatch, type ShardDb } from "../platform/data/db";
import { files, type FileRow, type Visibility } from "../db/schema";
import { detachFileFromAlbumsStatements } from "./album-membership";
import { FILE_RANK, fileMatches } from "./text-match";

/**
 * Finalized and not deleted, banned, hidden, quarantined, purged or expired (by `now`).
 * The unary `+` keeps SQLite from driving a query by files_state_created or files_deleted (which span every
 * user's files): these are filters on rows already found by id or by a (user_id, ...) index.
 */
export function liveFileCondition(now: number): SQL {
  return and(
    sql`+${files.state} = 'finalized'`,
    sql`+${files.deletedAt} IS NULL`,
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
  sort: "created" | "views" | "size" | "relevance";
  order: "asc" | "desc";
  visibility?: Visibility;
  excludeNsfw: boolean;
  /** The search index's MATCH for the typed words (text-match.ts); null: words were typed but none searchable. */
  match?: string | null;
  /** Only these files (the search's colour order: src/search/colour.ts picks and orders them). */
  ids?: string[];
  /** A tag the file must carry (exact). */
  tag?: string;
};

// Each sort walks its own (user_id, column) index: files_user_created, files_user_views, files_user_bytes.
const SORT_COLUMN = { created: files.createdAt, views: files.viewCount, size: files.bytes } as const;

export const LIST_COLUMNS = {
  id: files.id,
  title: files.title,
  /** For the pages' alt attributes (not in the API's list item). */
  alt: files.alt,
  mime: files.mime,
  bytes: files.bytes,
  width: files.width,
  height: files.height,
  placeholder: files.placeholder,
  dominantColor: files.dominantColor,
  viewCount: files.viewCount,
  visibility: files.visibility,
  createdAt: files.createdAt,
  ageRestricted: sql<number>`COALESCE(${files.ageRestrictedOverride}, ${files.ageRestricted})`.mapWith(Boolean),
};

/** `byOwner` false: the owner is a filter (`+`), not the index to walk, for rows found by the search index first. */
export function listWhere(userId: string, q: ListQuery, now: number, byOwner = true) {
  return and(
    byOwner ? eq(files.userId, userId) : sql`+${files.userId} = ${userId}`,
    liveFileCondition(now),
    q.visibility ? eq(files.visibility, q.visibility) : undefined,
    q.excludeNsfw ? notAgeRestricted : undefined,
    q.match === null ? sql`0` : q.match !== undefined ? fileMatches(q.match) : undefined,
    q.ids ? sql`${files.id} IN (SELECT value FROM json_each(${JSON.stringify(q.ids)}))` : undefined,
    q.tag ? sql`EXISTS (SELECT 1 FROM json_each(${files.tags}) WHERE value = ${q.tag})` : undefined,
  );
}

/** The page query on its own (tests check its plan uses the index). */
export function listPageQuery(db: ShardDb, userId: string, q: ListQuery, now: number) {
  if (q.sort === "relevance" && q.match) return rankedPageQuery(db, userId, { ...q, match: q.match }, now);
  const column = SORT_COLUMN[q.sort === "relevance" ? "created" : q.sort];
  return db
    .select(LIST_COLUMNS)
    .from(files)
    .where(listWhere(userId, q, now))
    .orderBy(q.order === "asc" ? asc(column) : desc(column))
    .limit(q.limit)
    .offset(q.offset);
}

/**
 * One page of the hits that pass `where`, as `page(r, score, at)`: the owner's entries of files_user_created walked
 * (covering: every filter is in it) and each probed in the hits (`+rowid`), not a random table read per hit, which
 * grew with the shard (bench/README.md § search). Ranked by bm25, newest first among equals.
 */
export function rankedPage(where: SQL | undefined, match: string, limit: number, offset: number): SQL {
  // MATERIALIZED: the match runs once (flattened, SQLite ran it again for each of the owner's rows).
  return sql`(WITH hits AS MATERIALIZED (SELECT rowid AS r, ${FILE_RANK} AS score FROM files_fts WHERE files_fts MATCH ${match})
    SELECT files.rowid AS r, hits.score AS score, files.created_at AS at FROM files JOIN hits ON hits.r = +files.rowid
    WHERE ${where} ORDER BY hits.score, files.created_at DESC LIMIT ${limit} OFFSET ${offset}) AS page`;
}

/** By bm25 over the owner's index entries (text-match.ts): the page's rowids first, then their rows. */
function rankedPageQuery(db: ShardDb, userId: string, q: ListQuery & { match: string }, now: number) {
  return db
    .select(LIST_COLUMNS)
    .from(files)
    .innerJoin(rankedPage(listWhere(userId, { ...q, match: undefined }, now), q.match, q.limit, q.offset), sql`page.r = ${files}.rowid`)
    .orderBy(sql`page.score`, sql`page.at DESC`);
}

/**
 * How many of the caller's files the list's filters keep. Without a search or tag filter it reads
 * files_user_created alone: that index carries every column the filters read, so the count touches no files row
 * (an owner's rows lie across the whole table; reading each was most of a list's time: bench/README.md § fill).
 */
export function listCountQuery(db: ShardDb, userId: string, q: ListQuery, now: number) {
  return db.select({ n: count() }).from(files).where(listWhere(userId, q, now));
}

/**
 * The caller's live files, one page of them, and how many there are in all: one D1 batch (one round trip).
 * The one read batch not through runBatch: its rows need drizzle's mapping (column names, dates), which
 * runBatch's raw results do not have; it binds no raw SQL, the reason runBatch exists.
 */
export async function listOwnFiles(db: ShardDb, userId: string, q: ListQuery, now: number) {
  const [rows, total] = await db.batch([listPageQuery(db, userId, q, now), listCountQuery(db, userId, q, now)]);
  return { rows, total: total[0]?.n ?? 0 };
}

export type FileCounts = Pick<FileRow, "viewCount" | "downloadCount">;

/**
 * A file's view and download counts as D1 holds them. The counter shards write them there (serving/view-counter.ts)
 * without forgetting the file's edge-cached access record, whose copy stays as it was for the record's life.
 */
export function fileCounts(db: ShardDb, fileId: string): Promise<FileCounts | undefined> {
  return db.select({ viewCount: files.viewCount, downloadCount: files.downloadCount }).from(files).where(eq(files.id, fileId)).get();
}

export type FilePatch = {
  title?: string;
  description?: string;
  alt?: string;
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
export async function updateFile(db: ShardDb, fileId: string, patch: FilePatch, now: number): Promise<FileRow | undefined> {
  const set: Partial<typeof files.$inferInsert> = { updatedAt: new Date(now) };
  if (patch.title !== undefined) set.title = patch.title;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.alt !== undefined) set.alt = patch.alt;
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
export async function softDeleteFile(db: ShardDb, fileId: string, now: number): Promise<boolean> {
  const [marked] = await runBatch(db, [
    db
      .update(files)
      .set({ deletedAt: new Date(now), updatedAt: new Date(now) })
      .where(and(eq(files.id, fileId), isNull(files.deletedAt))),
    ...detachFileFromAlbumsStatements(db, fileId, now),
  ]);
  return marked.meta.changes === 1;
}
