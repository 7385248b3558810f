// Where the view counters' counts land in D1 (serving/view-counter.ts): per kind, the absolute write of a count,
// the read of current counts, and the owner's move fence that holds a write (docs/sharding.md § Moving an owner).
import { and, eq, inArray, sql } from "drizzle-orm";
import { albums, files, owners } from "../db/schema";
import type { ShardDb, Statement } from "../platform/data/db";

export function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

export type CounterKind = "file_view" | "file_download" | "album_view";

/**
 * Where each kind lands in D1: the statement that sets a key's count to at least `value` (never lowering it),
 * and the read of the current counts of some keys.
 */
type Target = {
  raise(db: ShardDb, id: string, value: number): Statement;
  read(db: ShardDb, ids: string[]): Promise<{ id: string; value: number }[]>;
  /** Which of `ids` have a row here, and whether its owner is being moved (owners.moved_to). */
  fences(db: ShardDb, ids: string[]): Promise<{ id: string; moving: number | null }[]>;
};

/**
 * While the owner is being moved (their owners row fenced), a count is not written: the move may have copied the
 * row already and would delete this copy of it. It waits, held, until the row is gone from here (then it follows
 * moved_files) or the fence is lifted.
 */
const notMoving = (table: typeof files | typeof albums) =>
  sql`NOT EXISTS (SELECT 1 FROM ${owners} WHERE ${owners.userId} = ${table.userId} AND ${owners.movedTo} IS NOT NULL)`;
const fencesOf = (table: typeof files | typeof albums) => (db: ShardDb, ids: string[]) =>
  db.select({ id: table.id, moving: owners.movedTo }).from(table).leftJoin(owners, eq(owners.userId, table.userId)).where(inArray(table.id, ids));

export const TARGETS: Record<CounterKind, Target> = {
  file_view: {
    raise: (db, id, value) => db.update(files).set({ viewCount: sql`MAX(${files.viewCount}, ${value})` }).where(and(eq(files.id, id), notMoving(files))),
    read: (db, ids) => db.select({ id: files.id, value: files.viewCount }).from(files).where(inArray(files.id, ids)),
    fences: fencesOf(files),
  },
  file_download: {
    raise: (db, id, value) => db.update(files).set({ downloadCount: sql`MAX(${files.downloadCount}, ${value})` }).where(and(eq(files.id, id), notMoving(files))),
    read: (db, ids) => db.select({ id: files.id, value: files.downloadCount }).from(files).where(inArray(files.id, ids)),
    fences: fencesOf(files),
  },
  album_view: {
    raise: (db, id, value) => db.update(albums).set({ viewCount: sql`MAX(${albums.viewCount}, ${value})` }).where(and(eq(albums.id, id), notMoving(albums))),
    read: (db, ids) => db.select({ id: albums.id, value: albums.viewCount }).from(albums).where(inArray(albums.id, ids)),
    fences: fencesOf(albums),
  },
};

export const KINDS = Object.keys(TARGETS) as CounterKind[];

