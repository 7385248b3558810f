// The three answers of extensions.md § 10, shared by the API routes and the pages' charts.
import type { DirectoryDb, ShardDb } from "../platform/data/db";
import { thumbnailUrl } from "../platform/http/urls";
import { accountReferrers, accountViewRows, fileDayRows, fileReferrers, ownerDayRows, ownerToday, serviceDayRows, topFiles } from "./queries";
import { everyDay, type DayRange } from "./range";
import type { AccountStats, AdminStats, FileStats } from "./schemas";

export async function fileStats(db: ShardDb, fileId: string, r: DayRange): Promise<FileStats> {
  const [rows, referrers] = await Promise.all([fileDayRows(db, fileId, r), fileReferrers(db, fileId, r)]);
  const days = everyDay(r, rows, (date, row) => ({ date, views: row?.views ?? 0, downloads: row?.downloads ?? 0 }));
  const totals = days.reduce((t, d) => ({ views: t.views + d.views, downloads: t.downloads + d.downloads }), { views: 0, downloads: 0 });
  return { days, referrers, totals };
}

export async function accountStats(env: Env, db: ShardDb, userId: string, r: DayRange): Promise<AccountStats> {
  const [views, owned, today, top, referrers] = await Promise.all([
    accountViewRows(db, userId, r),
    ownerDayRows(db, userId, r),
    r.to === r.today ? ownerToday(db, userId, r.today) : undefined,
    topFiles(db, userId, r),
    accountReferrers(db, userId, r),
  ]);
  const byDay = new Map(owned.map((o) => [o.day, o]));
  const days = everyDay(r, views, (date, v, day) => {
    const o = day === r.today && today ? today : byDay.get(day);
    return { date, views: Number(v?.views ?? 0), downloads: Number(v?.downloads ?? 0), uploads: o?.uploads ?? 0, storageBytes: o?.storageBytes ?? 0 };
  });
  return { days, topFiles: top.map((f) => ({ ...f, thumbnailUrl: thumbnailUrl(env, f.id) })), referrers };
}

export async function adminStats(db: DirectoryDb, r: DayRange): Promise<AdminStats> {
  const rows = await serviceDayRows(db, r);
  const days = everyDay(r, rows, (date, d) => ({
    date,
    signups: d?.signups ?? 0,
    uploads: d?.uploads ?? 0,
    uploadBytes: d?.uploadBytes ?? 0,
    views: d?.views ?? 0,
    reports: d?.reports ?? 0,
    storageBytes: d?.storageBytes ?? 0,
  }));
  return { days };
}
