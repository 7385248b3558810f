// GET /search's reads: the owner's hits in the files and albums indexes (migration 0019), ranked by bm25, each
// page with its total in one batch. Files: the page's rowids from the owner's index entries (files/queries.ts
// rankedPage), then those rows. Albums (few an owner): the hits first, then their rows by rowid (the unary `+`
// keeps SQLite from walking the owner's rows and running the match once per row).
import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import { albums, files } from "../db/schema";
import type { ShardDb } from "../platform/data/db";
import { LIST_COLUMNS, liveFileCondition, rankedPage } from "../files/queries";
import { fileMatches } from "../files/text-match";

export type Page = { limit: number; offset: number };

const albumHits = (match: string) => sql`(SELECT rowid AS r, bm25(albums_fts, 3.0, 1.0) AS score FROM albums_fts WHERE albums_fts MATCH ${match}) AS hits`;

/** The titles of the albums a file is in, for its snippet. */
const albumTitles = sql<string | null>`(SELECT group_concat(a.title, ' · ') FROM album_files af JOIN albums a ON a.id = af.album_id
  WHERE af.file_id = ${files.id} AND a.deleted_at IS NULL)`;

/** The owner's live files the match finds, best first, with what their snippets are cut from. Age-restricted ones too. */
export function fileHitsQuery(db: ShardDb, userId: string, match: string, page: Page, now: number) {
  return db
    .select({ ...LIST_COLUMNS, alt: files.alt, description: files.description, tags: files.tags, filename: files.filename, albumTitles })
    .from(files)
    .innerJoin(rankedPage(and(eq(files.userId, userId), liveFileCondition(now)), match, page.limit, page.offset), sql`page.r = ${files}.rowid`)
    .orderBy(sql`page.score`, sql`page.at DESC`);
}

/** The owner's entries of files_user_created (covering) kept by the match's list of rowids. */
export function fileHitsCount(db: ShardDb, userId: string, match: string, now: number, wanted = true) {
  return db
    .select({ n: count() })
    .from(files)
    .where(and(eq(files.userId, userId), liveFileCondition(now), fileMatches(match), wanted ? undefined : sql`0`));
}

export function albumHitsQuery(db: ShardDb, userId: string, match: string, page: Page) {
  return db
    .select({ id: albums.id, title: albums.title, description: albums.description, fileCount: albums.fileCount })
    .from(albums)
    .innerJoin(albumHits(match), sql`hits.r = ${albums}.rowid`)
    .where(and(sql`+${albums.userId} = ${userId}`, isNull(albums.deletedAt)))
    .orderBy(sql`hits.score`, desc(albums.createdAt))
    .limit(page.limit)
    .offset(page.offset);
}

export function albumHitsCount(db: ShardDb, userId: string, match: string, wanted = true) {
  return db
    .select({ n: count() })
    .from(albums)
    .innerJoin(albumHits(match), sql`hits.r = ${albums}.rowid`)
    .where(and(sql`+${albums.userId} = ${userId}`, isNull(albums.deletedAt), wanted ? undefined : sql`0`));
}

export type SearchType = "files" | "albums" | "all";

/** Both lists and their totals in one round trip; a type not asked for is read as empty. */
export async function searchOwner(db: ShardDb, userId: string, match: string, type: SearchType, page: Page, now: number) {
  const wantFiles = type !== "albums";
  const wantAlbums = type !== "files";
  const none = { limit: 0, offset: 0 };
  const [fileRows, fileTotal, albumRows, albumTotal] = await db.batch([
    fileHitsQuery(db, userId, match, wantFiles ? page : none, now),
    fileHitsCount(db, userId, match, now, wantFiles),
    albumHitsQuery(db, userId, match, wantAlbums ? page : none),
    albumHitsCount(db, userId, match, wantAlbums),
  ]);
  return { fileRows, fileTotal: fileTotal[0]?.n ?? 0, albumRows, albumTotal: albumTotal[0]?.n ?? 0 };
}
