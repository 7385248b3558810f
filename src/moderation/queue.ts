// The moderation queue: reports with the state of their file, high priority first, then oldest first.
import { and, asc, count, eq, type SQL } from "drizzle-orm";
import type { CrossDb } from "../platform/db";
import { files, owners, reports, type FileRow, type ReportRow } from "../db/schema";
import { goneReason } from "../serving/access";
import { apiUrl, cdnUrl, fileUrl } from "../platform/urls";
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
};

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
          contentUrl: apiUrl(env, `/moderation/reports/${report.id}/content`),
        }
      : null,
  };
}

export type ReportItemOut = ReturnType<typeof reportItem>;

/** A report (directory) with its file and the owner's state as the file's shard has it (owners), as reads see it. */
function selectWithFile(db: CrossDb) {
  return db
    .select({ report: reports, file: files, ownerBannedAt: owners.bannedAt, ownerDeletedAt: owners.deletedAt })
    .from(reports)
    .leftJoin(files, eq(files.id, reports.fileId))
    .leftJoin(owners, eq(owners.userId, files.userId));
}

export async function findReport(db: CrossDb, id: string): Promise<ReportWithFile | undefined> {
  return selectWithFile(db).where(eq(reports.id, id)).get();
}

export async function listQueue(db: CrossDb, q: QueueFilter): Promise<{ rows: ReportWithFile[]; total: number }> {
  const conditions: SQL[] = [];
  if (q.status !== "all") conditions.push(eq(reports.status, q.status));
  if (q.reason) conditions.push(eq(reports.reason, q.reason));
  if (q.priority) conditions.push(eq(reports.priority, q.priority));
  if (q.fileId) conditions.push(eq(reports.fileId, q.fileId));
  const where = conditions.length ? and(...conditions) : undefined;
  // Two queries, not one db.batch: drizzle maps a batched joined select by column name, and the joined
  // tables share names (id, created_at, ...), which shifts the columns.
  const [rows, [{ total }]] = await Promise.all([
    selectWithFile(db)
      .where(where)
      // 'high' sorts before 'normal', so ascending priority is "high first" and follows the
      // reports_queue index (status, priority, created_at).
      .orderBy(asc(reports.priority), asc(reports.createdAt), asc(reports.id))
      .limit(q.limit)
      .offset(q.offset),
    db.select({ total: count() }).from(reports).where(where),
  ]);
  return { rows, total };
}
