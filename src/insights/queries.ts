// Insights' reads: small functions over a shard's or the directory's handle (extensions.md § 10).
import { and, between, desc, eq, gte, inArray, sql } from "drizzle-orm";
import { INSIGHTS } from "../config";
import { fileDays, files, ownerDays, owners, serviceDays } from "../db/schema";
import type { DirectoryDb, ShardDb } from "../platform/data/db";
import { DAY_MS, type DayRange } from "./range";

export type Referrer = { host: string; views: number };

/** A file's own row, if `userId` owns it: stats are the owner's alone. */
export function ownedFile(db: ShardDb, id: string, userId: string) {
  return db
    .select({ id: files.id, title: files.title })
    .from(files)
    .where(and(eq(files.id, id), eq(files.userId, userId)))
    .get();
}

export function fileDayRows(db: ShardDb, fileId: string, r: DayRange) {
  return db
    .select({ day: fileDays.day, views: fileDays.views, downloads: fileDays.downloads })
    .from(fileDays)
    .where(and(eq(fileDays.fileId, fileId), between(fileDays.day, r.from, r.to)))
    .orderBy(fileDays.day);
}

/** The top referring hosts of some file-days, summed over their JSON maps. */
async function topReferrers(db: ShardDb, where: ReturnType<typeof sql>): Promise<Referrer[]> {
  const rows = await db.all<{ host: string; views: number }>(sql`
    SELECT j.key AS host, SUM(j.value) AS views FROM ${fileDays}, json_each(${fileDays.referrers}) AS j
    WHERE ${where} GROUP BY j.key ORDER BY views DESC, host LIMIT ${INSIGHTS.top}`);
  return rows.map((r) => ({ host: r.host, views: Number(r.views) }));
}

export const fileReferrers = (db: ShardDb, fileId: string, r: DayRange) =>
  topReferrers(db, sql`${fileDays.fileId} = ${fileId} AND ${fileDays.day} BETWEEN ${r.from} AND ${r.to}`);

export const accountReferrers = (db: ShardDb, userId: string, r: DayRange) =>
  topReferrers(db, sql`${fileDays.userId} = ${userId} AND ${fileDays.day} BETWEEN ${r.from} AND ${r.to}`);

export function accountViewRows(db: ShardDb, userId: string, r: DayRange) {
  return db
    .select({ day: fileDays.day, views: sql<number>`SUM(${fileDays.views})`, downloads: sql<number>`SUM(${fileDays.downloads})` })
    .from(fileDays)
    .where(and(eq(fileDays.userId, userId), between(fileDays.day, r.from, r.to)))
    .groupBy(fileDays.day);
}

export function ownerDayRows(db: ShardDb, userId: string, r: DayRange) {
  return db
    .select({ day: ownerDays.day, uploads: ownerDays.uploads, storageBytes: ownerDays.storageBytes })
    .from(ownerDays)
    .where(and(eq(ownerDays.userId, userId), between(ownerDays.day, r.from, r.to)));
}

/** Today's live figures: files finalized since midnight, and the storage used now. */
export async function ownerToday(db: ShardDb, userId: string, today: number) {
  const [uploads, storage] = await Promise.all([
    db
      .select({ n: sql<number>`COUNT(*)` })
      .from(files)
      .where(and(eq(files.userId, userId), gte(files.createdAt, new Date(today * DAY_MS)), eq(files.state, "finalized")))
      .get(),
    db.select({ used: owners.storageUsed }).from(owners).where(eq(owners.userId, userId)).get(),
  ]);
  return { uploads: uploads?.n ?? 0, storageBytes: storage?.used ?? 0 };
}

export async function topFiles(db: ShardDb, userId: string, r: DayRange) {
  const top = await db
    .select({ id: fileDays.fileId, views: sql<number>`SUM(${fileDays.views})`.as("views") })
    .from(fileDays)
    .where(and(eq(fileDays.userId, userId), between(fileDays.day, r.from, r.to)))
    .groupBy(fileDays.fileId)
    .orderBy(desc(sql`views`), fileDays.fileId)
    .limit(INSIGHTS.top);
  if (top.length === 0) return [];
  const titles = new Map(
    (await db.select({ id: files.id, title: files.title }).from(files).where(and(inArray(files.id, top.map((t) => t.id)), eq(files.userId, userId)))).map((f) => [f.id, f.title]),
  );
  return top.filter((t) => titles.has(t.id) && t.views > 0).map((t) => ({ id: t.id, title: titles.get(t.id)!, views: Number(t.views) }));
}

export function serviceDayRows(db: DirectoryDb, r: DayRange) {
  return db.select().from(serviceDays).where(between(serviceDays.day, r.from, r.to));
}
