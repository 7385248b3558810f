// The moderation queue: reports with the state of their file, high priority first, then oldest first.
import { and, asc, count, eq, inArray, type SQL } from "drizzle-orm";
import type { DirectoryAndShards } from "../platform/data/db";
import { locateRows } from "../platform/data/moved-ids";
import type { OwnerShards } from "../platform/data/moved-ids";
import { files, owners, reports, type FileRow, type ReportRow } from "../db/schema";
import { goneReason } from "../serving/access";
import { apiUrl, cdnUrl, fileUrl } from "../platform/http/urls";
import { pathOf } from "@imghost/client";
import type { ReportReason } from "./reports";

export type QueueFilter = {
  status: "pending" | "resolved" | "all";
  reason?: ReportReason;
  priority?: "high" | "normal";
  fileId?: string;
  limit: number;
  offset: number;
};

export type ReportWithFile = {
  report: ReportRow;
  file: FileRow | null;
  ownerBannedAt: Date | null;
  ownerDeletedAt: Date | null;
  /** Where the file was found (null when it was not). */
  where: FileShards | null;
};

/** Where a reported file lives now, and where its owner is being moved to. */
export type FileShards = OwnerShards;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function reportItem(env: Env, r: ReportWithFile, now: number) {
  const { report, file } = r;
  return {
    reportId: report.id,
    fileId: report.fileId,
    reason: report.reason,
    details: report.details,
    email: report.email,
    reporterUserId: report.reporterUserId,
    priority: report.priority,
    status: report.status,
    reportCount: report.reportCount,
    action: report.action,
    note: report.note,
    resolvedBy: report.resolvedBy,
    resolvedAt: iso(report.resolvedAt),
    createdAt: report.createdAt.toISOString(),
    updatedAt: report.updatedAt.toISOString(),
    file: file
      ? {
          id: file.id,
          ownerId: file.userId,
          title: file.title,
          mime: file.mime,
          bytes: file.bytes,
          visibility: file.visibility,
          url: fileUrl(env, file.id),
          cdnUrl: cdnUrl(env, file.storeKey),
          state: goneReason({ file, ownerGoneAt: r.ownerBannedAt ?? r.ownerDeletedAt }, now) ?? ("live" as const),
          phash: file.phash ?? file.clientPhash ?? null,
          contentUrl: apiUrl(env, pathOf("moderation.reportContent", { id: report.id })),
        }
      : null,
  };
}

export type ReportItemOut = ReturnType<typeof reportItem>;


type FoundFile = Omit<ReportWithFile, "report"> & { where: FileShards | null };

/**
 * The reports' files with their owners' state as each file's shard has it (owners), found where they live now
 * (locateRows: the id's shard, moved_files, the old-id fallback): one query per shard, concurrently.
 */
export async function filesOf(env: Env, dbs: DirectoryAndShards, fileIds: string[]): Promise<Map<string, FoundFile>> {
  const found = await locateRows(env, (n) => dbs.shard(n), "file", fileIds, (db, ids) =>
    db
      .select({ id: files.id, file: files, ownerBannedAt: owners.bannedAt, ownerDeletedAt: owners.deletedAt, ownerMovedTo: owners.movedTo })
      .from(files)
      .leftJoin(owners, eq(owners.userId, files.userId))
      .where(inArray(files.id, ids)),
  );
  return new Map(
    [...found].map(([id, { shard, row }]) => [
      id,
      { file: row.file, ownerBannedAt: row.ownerBannedAt, ownerDeletedAt: row.ownerDeletedAt, where: { shard, movedTo: row.ownerMovedTo } },
    ]),
  );
}

const NOT_FOUND: FoundFile = { file: null, ownerBannedAt: null, ownerDeletedAt: null, where: null };

async function withFiles(env: Env, dbs: DirectoryAndShards, rows: ReportRow[]): Promise<ReportWithFile[]> {
  const byId = await filesOf(env, dbs, rows.map((r) => r.fileId));
  return rows.map((report) => ({ report, ...(byId.get(report.fileId) ?? NOT_FOUND) }));
}

export async function findReport(env: Env, dbs: DirectoryAndShards, id: string): Promise<ReportWithFile | undefined> {
  const report = await dbs.directory.select().from(reports).where(eq(reports.id, id)).get();
  return report && (await withFiles(env, dbs, [report]))[0];
}

/** A page of the queue from the directory, then its files from their shards (a page has at most 100). */
export async function listQueue(env: Env, dbs: DirectoryAndShards, q: QueueFilter): Promise<{ rows: ReportWithFile[]; total: number }> {
  const conditions: SQL[] = [];
  if (q.status !== "all") conditions.push(eq(reports.status, q.status));
  if (q.reason) conditions.push(eq(reports.reason, q.reason));
  if (q.priority) conditions.push(eq(reports.priority, q.priority));
  if (q.fileId) conditions.push(eq(reports.fileId, q.fileId));
  const where = conditions.length ? and(...conditions) : undefined;
  const db = dbs.directory;
  const [page, [{ total }]] = await Promise.all([
    db
      .select()
      .from(reports)
      .where(where)
      // 'high' sorts before 'normal', so ascending priority is "high first" and follows the
      // reports_queue index (status, priority, created_at).
      .orderBy(asc(reports.priority), asc(reports.createdAt), asc(reports.id))
      .limit(q.limit)
      .offset(q.offset),
    db.select({ total: count() }).from(reports).where(where),
  ]);
  return { rows: await withFiles(env, dbs, page), total };
}
