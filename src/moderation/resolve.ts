// Resolving a report (POST /moderation/reports/:id/resolve): dismiss | remove_file | ban_file | ban_user.
//
// One D1 batch (one transaction) claims the report (pending -> resolved, only if still pending) and applies
// the action; every other statement of the batch carries the condition "this very claim happened", so two
// moderators resolving the same report at once cannot both act: the loser's statements change nothing and
// it answers 409. The batch runs through runBatch (platform/db.ts), whose results keep each statement's
// `changes`: what this resolution did.
import { and, eq, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { runBatch, type Db, type Statement } from "../platform/db";
import { blocklist, files, reports, users } from "../db/schema";
import type { AuthUser } from "../platform/env";
import { ApiError } from "../platform/errors";
import { isId, newId } from "../platform/ids";
import { auditInsertIf } from "../platform/audit";
import { accessChanged } from "../serving/access-changed";
import { detachFileFromAlbumsStatements } from "../files/album-membership";
import { BLOCKLIST_OWNER, indexStatements, unindexStatement } from "../analysis/duplicates";
import { isPhash } from "../analysis/phash";
import { findReport, type ReportWithFile } from "./queue";
import type { ResolveActionName } from "./schemas";

export type ResolveEffects = {
  /** dismiss: the file was hidden or quarantined and is visible again. */
  fileRestored: boolean;
  /** remove_file: the file is soft-deleted (410, purged after the retention window). */
  fileRemoved: boolean;
  /** ban_file / ban_user: the file is banned (410). */
  fileBanned: boolean;
  /** ban_user: the banned account's id. */
  userBanned: string | null;
  /** ban_file / ban_user: the blocklist entry holding the file's phash (null when the file has no phash yet). */
  blocklistEntryId: string | null;
};

export const reportNotFound = () => new ApiError("report_not_found", "Report not found");

export async function resolveReport(
  env: Env,
  db: Db,
  actor: AuthUser,
  reportId: string,
  action: ResolveActionName,
  note: string,
  now: number,
): Promise<{ report: ReportWithFile; effects: ResolveEffects }> {
  const found = isId("rep", reportId) ? await findReport(db, reportId) : undefined;
  if (!found) throw reportNotFound();
  if (found.report.status !== "pending") throw new ApiError("report_already_resolved", "This report has already been resolved");
  const file = found.file;
  if (action !== "dismiss" && !file) throw new ApiError("file_missing", "The reported file no longer exists");

  let ownerId: string | null = null;
  if (action === "ban_user") {
    ownerId = file!.userId;
    if (!ownerId) throw new ApiError("no_owner_account", "The file was uploaded anonymously: there is no account to ban");
    if (ownerId === actor.id) throw new ApiError("cannot_ban_self", "You cannot ban your own account");
    const owner = await db.select({ role: users.role }).from(users).where(eq(users.id, ownerId)).get();
    if (owner && owner.role !== "user" && actor.role !== "admin") {
      throw new ApiError("insufficient_role", "Only an admin can ban a moderator or an admin");
    }
  }

  const at = new Date(now);
  const fileId = found.report.fileId;
  // True exactly when the claim below was made by this request (same actor, same instant, same action).
  const claimed: SQL = sql`EXISTS (SELECT 1 FROM reports WHERE id = ${reportId} AND status = 'resolved'
    AND resolved_by = ${actor.id} AND resolved_at = ${now} AND action = ${action})`;

  const statements: Statement[] = [];
  const slot = (s: Statement) => statements.push(s) - 1;

  const claim = slot(
    db
      .update(reports)
      .set({ status: "resolved", action, resolvedBy: actor.id, resolvedAt: at, note, updatedAt: at })
      .where(and(eq(reports.id, reportId), eq(reports.status, "pending"))),
  );

  let restore = -1;
  let remove = -1;
  let ban = -1;
  let banUser = -1;
  let blocklistEntryId: string | null = null;

  if (action === "dismiss") {
    // Unhide, unless another high-priority report of the file is open (one can only be: a report filed
    // after this one was claimed). A dismissal also lifts a blocklist quarantine: the moderator looked.
    restore = slot(
      db
        .update(files)
        .set({ hiddenAt: null, quarantinedAt: null, updatedAt: at })
        .where(
          and(
            eq(files.id, fileId),
            or(isNotNull(files.hiddenAt), isNotNull(files.quarantinedAt)),
            sql`NOT EXISTS (SELECT 1 FROM reports WHERE file_id = ${fileId} AND status = 'pending' AND priority = 'high')`,
            claimed,
          ),
        ),
    );
  } else if (action === "remove_file") {
    remove = slot(db.update(files).set({ deletedAt: at, updatedAt: at }).where(and(eq(files.id, fileId), isNull(files.deletedAt), claimed)));
  } else {
    ban = slot(db.update(files).set({ bannedAt: at, updatedAt: at }).where(and(eq(files.id, fileId), isNull(files.bannedAt), claimed)));
    const phash = file!.phash ?? file!.clientPhash;
    if (phash && isPhash(phash)) {
      blocklistEntryId = newId("blk");
      // INSERT ... SELECT <values> FROM (SELECT 1) WHERE <claimed>, as auditInsertIf does.
      slot(
        db.insert(blocklist).select(
          db
            .select({
              id: sql<string>`${blocklistEntryId}`.as("id"),
              phash: sql<string>`${phash}`.as("phash"),
              sourceFileId: sql<string>`${fileId}`.as("source_file_id"),
              reportId: sql<string>`${reportId}`.as("report_id"),
              createdBy: sql<string>`${actor.id}`.as("created_by"),
              createdAt: sql<number>`${now}`.as("created_at"),
            })
            .from(sql`(SELECT 1)`)
            .where(claimed),
        ),
      );
      // Unconditional (the analysis feature's statements): removed again below if the claim fails; an
      // index row without its blocklist row is ignored by matchBlocklist meanwhile.
      for (const s of indexStatements(db, BLOCKLIST_OWNER, blocklistEntryId, phash)) slot(s);
    }
    if (action === "ban_user") {
      banUser = slot(db.update(users).set({ bannedAt: at, updatedAt: at }).where(and(eq(users.id, ownerId!), isNull(users.bannedAt), claimed)));
    }
  }

  const auditDetails = { fileId, ownerId: file?.userId ?? null, reason: found.report.reason, note, blocklistEntryId };
  slot(auditInsertIf(db, { actorId: actor.id, action: `report.${action}`, targetType: "report", targetId: reportId, details: auditDetails, at }, claimed));
  if (action === "ban_user") {
    slot(auditInsertIf(db, { actorId: actor.id, action: "user.ban", targetType: "user", targetId: ownerId!, details: { reportId, fileId, note }, at }, claimed));
  }

  const results = await runBatch(db, statements);
  const changed = (i: number) => i >= 0 && results[i].meta.changes > 0;
  if (!changed(claim)) {
    if (blocklistEntryId) await runBatch(db, [unindexStatement(db, blocklistEntryId)]);
    throw new ApiError("report_already_resolved", "This report has already been resolved");
  }

  const effects: ResolveEffects = {
    fileRestored: changed(restore),
    fileRemoved: changed(remove),
    fileBanned: changed(ban),
    userBanned: changed(banUser) ? ownerId : null,
    blocklistEntryId,
  };
  // Byte links and principals decide from edge-cached records: drop what this resolution changed.
  if (effects.fileRestored) await accessChanged(env, { fileIds: [fileId] });
  if (effects.userBanned) await accessChanged(env, { userId: effects.userBanned });
  if (file && (effects.fileRemoved || effects.fileBanned)) {
    await accessChanged(env, { files: [file] });
    // Follow-ups that are idempotent and outside the claim: a gone file leaves its albums, as a delete does.
    try {
      await runBatch(db, detachFileFromAlbumsStatements(db, fileId, now));
    } catch (err) {
      console.error(`moderation: could not detach ${fileId} from its albums`, err);
    }
  }
  const report = await findReport(db, reportId);
  if (!report) throw new ApiError("internal_error", "Report vanished while resolving");
  return { report, effects };
}
