// The cron's insights work (extensions.md § 10): each owner's day (uploads, storage at its end) once the day is
// over, the service's days as every shard's sums, and the prune of rows older than INSIGHTS.keepDays.
import { sql } from "drizzle-orm";
import { INSIGHTS } from "../config";
import { fileDays, files, ownerDays, owners, reports, serviceDays, users } from "../db/schema";
import { directoryDb, shardDb, type DirectoryDb, type ShardDb } from "../platform/data/db";
import { allShards } from "../platform/data/shards";
import { DAY_MS, dayOf } from "./range";

/** Rows deleted per table and run: a run's work stays bounded; the next run goes on. */
const PRUNE_ROWS = 5_000;

/**
 * Yesterday's row for every owner with storage or uploads, written once (the first run after midnight: storage
 * then is the day's end, within a cron period). Existing rows are kept, so a later run changes nothing.
 */
export async function rollOwnerDays(db: ShardDb, now: number): Promise<number> {
  const day = dayOf(now) - 1;
  const done = await db.get<{ n: number } | undefined>(sql`SELECT 1 AS n FROM ${ownerDays} WHERE ${ownerDays.day} = ${day} LIMIT 1`);
  if (done) return 0;
  const [start, end] = [day * DAY_MS, (day + 1) * DAY_MS];
  const res = await db.run(sql`
    INSERT INTO owner_days (user_id, day, uploads, storage_bytes)
    SELECT o.user_id, ${day}, (SELECT COUNT(*) FROM ${files} f WHERE f.user_id = o.user_id AND f.created_at >= ${start}
      AND f.created_at < ${end} AND f.state = 'finalized') AS n, o.storage_used
    FROM ${owners} o WHERE o.moved_to IS NULL AND (o.storage_used > 0 OR n > 0)
    ON CONFLICT (user_id, day) DO NOTHING`);
  return res.meta.changes;
}

/** Deletes file and owner days older than the kept ones, at most PRUNE_ROWS of each a run. */
export async function pruneDays(db: ShardDb, now: number): Promise<{ fileDays: number; ownerDays: number }> {
  const oldest = dayOf(now) - INSIGHTS.keepDays + 1;
  const [f, o] = await Promise.all([
    db.run(sql`DELETE FROM ${fileDays} WHERE (file_id, day) IN (SELECT file_id, day FROM ${fileDays} WHERE day < ${oldest} LIMIT ${PRUNE_ROWS})`),
    db.run(sql`DELETE FROM ${ownerDays} WHERE (user_id, day) IN (SELECT user_id, day FROM ${ownerDays} WHERE day < ${oldest} LIMIT ${PRUNE_ROWS})`),
  ]);
  return { fileDays: f.meta.changes, ownerDays: o.meta.changes };
}

type ShardDay = { uploads: number; uploadBytes: number; views: number; storageBytes: number };

async function shardDay(db: ShardDb, day: number): Promise<ShardDay> {
  const [start, end] = [day * DAY_MS, (day + 1) * DAY_MS];
  const row = await db.get<ShardDay>(sql`SELECT
    (SELECT COUNT(*) FROM ${files} WHERE state = 'finalized' AND created_at >= ${start} AND created_at < ${end}) AS uploads,
    (SELECT COALESCE(SUM(bytes), 0) FROM ${files} WHERE state = 'finalized' AND created_at >= ${start} AND created_at < ${end}) AS uploadBytes,
    (SELECT COALESCE(SUM(views), 0) FROM ${fileDays} WHERE day = ${day}) AS views,
    (SELECT COALESCE(SUM(storage_used), 0) FROM ${owners} WHERE moved_to IS NULL) AS storageBytes`);
  return row;
}

async function directoryDay(db: DirectoryDb, day: number) {
  const [start, end] = [day * DAY_MS, (day + 1) * DAY_MS];
  return db.get<{ signups: number; reports: number }>(sql`SELECT
    (SELECT COUNT(*) FROM ${users} WHERE created_at >= ${start} AND created_at < ${end}) AS signups,
    (SELECT COUNT(*) FROM ${reports} WHERE created_at >= ${start} AND created_at < ${end}) AS reports`);
}

/**
 * Today's and yesterday's service rows, as absolute sums over every shard. Yesterday's storage is kept as the last
 * run of that day wrote it (its end); its other figures are recounted, so late counts still land.
 */
export async function rollServiceDays(env: Env, now: number): Promise<number> {
  const today = dayOf(now);
  const dir = directoryDb(env);
  for (const day of [today - 1, today]) {
    const sums: ShardDay = { uploads: 0, uploadBytes: 0, views: 0, storageBytes: 0 };
    for (const n of allShards(env)) {
      const s = await shardDay(shardDb(env, n), day);
      for (const k of Object.keys(sums) as (keyof ShardDay)[]) sums[k] += Number(s[k]);
    }
    const d = await directoryDay(dir, day);
    const row = { day, ...sums, signups: d.signups, reports: d.reports };
    const set = day === today ? row : { ...row, storageBytes: sql`${serviceDays.storageBytes}` };
    await dir.insert(serviceDays).values(row).onConflictDoUpdate({ target: serviceDays.day, set });
  }
  return 2;
}

/** Every shard's owner days and prune, then the service's days. */
export async function rollInsights(env: Env, now: number) {
  const counts = { ownerDays: 0, prunedFileDays: 0, prunedOwnerDays: 0, serviceDays: 0 };
  for (const n of allShards(env)) {
    const db = shardDb(env, n);
    counts.ownerDays += await rollOwnerDays(db, now);
    const pruned = await pruneDays(db, now);
    counts.prunedFileDays += pruned.fileDays;
    counts.prunedOwnerDays += pruned.ownerDays;
  }
  counts.serviceDays = await rollServiceDays(env, now);
  return counts;
}
