// The view counter's per-day counts (extensions.md § 10): a counter shard keeps each file's whole day (views,
// downloads, referring hosts) in its SQLite until two days after, and its flush writes the day's absolute totals
// to file_days in the same D1 batch as the file's counts. A repeated flush writes the same numbers again.
import { sql } from "drizzle-orm";
import { INSIGHTS } from "../config";
import { files, owners } from "../db/schema";
import type { ShardDb, Statement } from "../platform/data/db";
import type { CounterKind } from "./view-counter-targets";

const DAY_MS = 86_400_000;
export const DIRECT = "(direct)";
export const OTHER = "(other)";

export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

type DayRow = { id: string; day: number; views: number; downloads: number; refs: string; hits: number; written: number };

/** A request's Referer reduced to its host: never the path, the query or anything else. */
export function referrerHost(referer: string | undefined | null): string {
  if (!referer) return DIRECT;
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host && host.length <= 100 ? host : DIRECT;
  } catch {
    return DIRECT;
  }
}

const validHost = (host: string) => host === DIRECT || host === OTHER || /^[a-z0-9.:[\]-]{1,100}$/.test(host);

export function createDayTable(store: SqlStorage) {
  store.exec(
    `CREATE TABLE IF NOT EXISTS days (
       id TEXT NOT NULL, day INTEGER NOT NULL, views INTEGER NOT NULL DEFAULT 0, downloads INTEGER NOT NULL DEFAULT 0,
       refs TEXT NOT NULL DEFAULT '{}', hits INTEGER NOT NULL DEFAULT 0, written INTEGER NOT NULL DEFAULT 0,
       PRIMARY KEY (id, day))`,
  );
}

/** Adds `n` hits of a file to today's row (stored with the hit, before the RPC answers). */
export function countDay(store: SqlStorage, kind: CounterKind, id: string, n: number, host: string | undefined, now: number) {
  if (kind === "album_view") return;
  const day = dayOf(now);
  const row = store.exec<DayRow>("SELECT refs FROM days WHERE id = ? AND day = ?", id, day).toArray()[0];
  const refs: Record<string, number> = row ? JSON.parse(row.refs) : {};
  if (kind === "file_view") {
    let h = host && validHost(host) ? host : DIRECT;
    if (!(h in refs) && Object.keys(refs).length >= INSIGHTS.hostsPerFileDay) h = OTHER;
    refs[h] = (refs[h] ?? 0) + n;
  }
  const [views, downloads] = kind === "file_view" ? [n, 0] : [0, n];
  store.exec(
    `INSERT INTO days (id, day, views, downloads, refs, hits) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id, day) DO UPDATE SET views = views + excluded.views, downloads = downloads + excluded.downloads,
       refs = excluded.refs, hits = hits + excluded.hits`,
    id,
    day,
    views,
    downloads,
    JSON.stringify(refs),
    n,
  );
}

export type DaySnapshot = { id: string; day: number; hits: number };

/**
 * The statements writing the unwritten days of `ids` (absolute values: a repeat writes the same numbers; MAX keeps a
 * higher value already there), and what they snapshot. Nothing is written while the owner is fenced (as for counts).
 */
export function dayStatements(store: SqlStorage, db: ShardDb, ids: string[]): { statements: Statement[]; rows: DaySnapshot[] } {
  const rows = [...new Set(ids)].flatMap((id) => store.exec<DayRow>("SELECT * FROM days WHERE id = ? AND hits > written", id).toArray());
  const statements = rows.map((r) =>
    db.run(sql`INSERT INTO file_days (file_id, day, user_id, views, downloads, referrers)
      SELECT ${files.id}, ${r.day}, ${files.userId}, ${r.views}, ${r.downloads}, ${r.refs} FROM ${files}
      WHERE ${files.id} = ${r.id} AND ${files.userId} IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ${owners} WHERE ${owners.userId} = ${files.userId} AND ${owners.movedTo} IS NOT NULL)
      ON CONFLICT (file_id, day) DO UPDATE SET
        referrers = CASE WHEN excluded.views >= file_days.views THEN excluded.referrers ELSE file_days.referrers END,
        views = MAX(file_days.views, excluded.views), downloads = MAX(file_days.downloads, excluded.downloads)`),
  );
  return { statements, rows: rows.map((r) => ({ id: r.id, day: r.day, hits: r.hits })) };
}

/** Days whose file's counts were written in the same batch are written too. */
export function markDaysWritten(store: SqlStorage, rows: DaySnapshot[], writtenIds: Set<string>) {
  for (const r of rows) {
    if (writtenIds.has(r.id)) store.exec("UPDATE days SET written = MAX(written, ?) WHERE id = ? AND day = ?", r.hits, r.id, r.day);
  }
}

/** Rows of days before yesterday are dropped once written, or once their file's counter row is gone. */
export function pruneDays(store: SqlStorage, now: number) {
  store.exec("DELETE FROM days WHERE day < ? AND (hits = written OR id NOT IN (SELECT id FROM counters))", dayOf(now) - 1);
}
