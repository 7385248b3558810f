// Resolving a report (POST /moderation/reports/:id/resolve): dismiss | remove_file | ban_file | ban_user.
//
// One D1 batch (one transaction) claims the report (pending -> resolved, only if still pending) and applies
// the action; every other statement of the batch carries the condition "this very claim happened", so two
// moderators resolving the same report at once cannot both act: the loser's statements change nothing and
// it answers 409. The batch runs through runBatch (platform/db.ts), whose results keep each statement's
// `changes`: what this resolution did.
import { and, eq, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { runBatch, type CrossDb, type DirectoryDb, type ShardDb, type Statement } from "../platform/db";
import { blocklist, files, reports, users } from "../db/schema";
import type { AuthUser } from "../platform/env";
import { ApiError } from "../platform/errors";
import { isId, newId } from "../platform/ids";
import { auditInsertIf } from "../platform/audit";
import { accessChanged } from "../serving/access-changed";
import { emitWebhookEvent } from "../webhooks/emit";
import type { FlagReason } from "../webhooks/events";
import { ownerStateStatement } from "../serving/owner-state";
import { detachFileFromAlbumsStatements } from "../files/album-membership";
import { indexBlocklistEntryStatements, unindexBlocklistEntryStatement } from "../analysis/blocklist";
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

/** What a resolution acts on, once it is known to be allowed (the report, its file, the owner to ban). */
type Resolution = { found: ReportWithFile; file: ReportWithFile["file"]; fileId: string; ownerId: string | null };

export async function resolveReport(
  env: Env,
  db: CrossDb,
  actor: AuthUser,
  reportId: string,
  action: ResolveActionName,
  note: string,
  now: number,
): Promise<{ report: ReportWithFile; effects: ResolveEffects }> {
  const target = await resolvable(db, actor, reportId, action);
  const plan = resolutionStatements(db, actor, reportId, action, note, now, target);
  const results = await runBatch(db, plan.statements);
  const changed = (i: number) => i >= 0 && results[i].meta.changes > 0;
  if (!changed(plan.claim)) {
    if (plan.blocklist) await runBatch(db, [unindexBlocklistEntryStatement(db, plan.blocklist.entryId, plan.blocklist.phash)]);
    throw new ApiError("report_already_resolved", "This report has already been resolved");
  }
  const effects: ResolveEffects = {
    fileRestored: changed(plan.restore),
    fileRemoved: changed(plan.remove),
    fileBanned: changed(plan.ban),
    userBanned: changed(plan.banUser) ? target.ownerId : null,
    blocklistEntryId: plan.blocklist?.entryId ?? null,
  };
  await afterResolution(env, db, db, target, effects, now);
  const report = await findReport(db, reportId);
  if (!report) throw new ApiError("internal_error", "Report vanished while resolving");
  return { report, effects };
}

/** The report, pending, and what the action needs: its file, and for a ban, an owner the actor may ban. */
async function resolvable(db: CrossDb, actor: AuthUser, reportId: string, action: ResolveActionName): Promise<Resolution> {
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
  return { found, file, fileId: found.report.fileId, ownerId };
}

/** The batch, and the position of each statement whose `changes` say what the resolution did (-1: none). */
type Plan = {
  statements: Statement[];
  claim: number;
  restore: number;
  remove: number;
  ban: number;
  banUser: number;
  /** The blocklist entry this resolution adds, with its phash (its index rows are keyed by it). */
  blocklist: { entryId: string; phash: string } | null;
};

/**
 * One transaction: the claim (pending -> resolved, only if still pending), then the action, every statement of
 * which holds only if this very claim happened, then the audit records.
 */
function resolutionStatements(db: CrossDb, actor: AuthUser, reportId: string, action: ResolveActionName, note: string, now: number, t: Resolution): Plan {
  const at = new Date(now);
  const { fileId, file, ownerId } = t;
  // True exactly when the claim below was made by this request (same actor, same instant, same action).
  const claimed: SQL = sql`EXISTS (SELECT 1 FROM reports WHERE id = ${reportId} AND status = 'resolved'
    AND resolved_by = ${actor.id} AND resolved_at = ${now} AND action = ${action})`;
  const statements: Statement[] = [];
  const slot = (s: Statement) => statements.push(s) - 1;
  const plan: Plan = { statements, claim: -1, restore: -1, remove: -1, ban: -1, banUser: -1, blocklist: null };

  plan.claim = slot(
    db
      .update(reports)
      .set({ status: "resolved", action, resolvedBy: actor.id, resolvedAt: at, note, updatedAt: at })
      .where(and(eq(reports.id, reportId), eq(reports.status, "pending"))),
  );
  if (action === "dismiss") {
    // Unhide, unless another high-priority report of the file is open (one can only be: a report filed
    // after this one was claimed). A dismissal also lifts a blocklist quarantine: the moderator looked.
    plan.restore = slot(
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
    plan.remove = slot(db.update(files).set({ deletedAt: at, updatedAt: at }).where(and(eq(files.id, fileId), isNull(files.deletedAt), claimed)));
  } else {
    plan.ban = slot(db.update(files).set({ bannedAt: at, updatedAt: at }).where(and(eq(files.id, fileId), isNull(files.bannedAt), claimed)));
    const phash = file!.phash ?? file!.clientPhash;
    if (phash && isPhash(phash)) {
      plan.blocklist = { entryId: newId("blk"), phash };
      for (const s of blocklistStatements(db, plan.blocklist.entryId, phash, fileId, reportId, actor.id, now, claimed)) slot(s);
    }
    if (action === "ban_user") {
      // The owner's shard first (what its files' reads decide from), then the directory; both keep a ban's first
      // time. One transaction today (database DB is both); across databases each write stands alone, retry-safe.
      slot(ownerStateStatement(db, ownerId!, { bannedAt: at }, { keepFirst: true, onlyIf: claimed }));
      plan.banUser = slot(db.update(users).set({ bannedAt: at, updatedAt: at }).where(and(eq(users.id, ownerId!), isNull(users.bannedAt), claimed)));
    }
  }
  const auditDetails = { fileId, ownerId: file?.userId ?? null, reason: t.found.report.reason, note, blocklistEntryId: plan.blocklist?.entryId ?? null };
  slot(auditInsertIf(db, { actorId: actor.id, action: `report.${action}`, targetType: "report", targetId: reportId, details: auditDetails, at }, claimed));
  if (action === "ban_user") {
    slot(auditInsertIf(db, { actorId: actor.id, action: "user.ban", targetType: "user", targetId: ownerId!, details: { reportId, fileId, note }, at }, claimed));
  }
  return plan;
}

/** The banned file's phash joins the blocklist (only if claimed) and its index (unconditionally; undone on a lost claim). */
function blocklistStatements(db: DirectoryDb, entryId: string, phash: string, fileId: string, reportId: string, actorId: string, now: number, claimed: SQL): Statement[] {
  // INSERT ... SELECT <values> FROM (SELECT 1) WHERE <claimed>, as auditInsertIf does.
  const entry = db.insert(blocklist).select(
    db
      .select({
        id: sql<string>`${entryId}`.as("id"),
        phash: sql<string>`${phash}`.as("phash"),
        sourceFileId: sql<string>`${fileId}`.as("source_file_id"),
        reportId: sql<string>`${reportId}`.as("report_id"),
        createdBy: sql<string>`${actorId}`.as("created_by"),
        createdAt: sql<number>`${now}`.as("created_at"),
      })
      .from(sql`(SELECT 1)`)
      .where(claimed),
  );
  // Unconditional (the analysis feature's statements): removed again if the claim fails; an index row without
  // its blocklist row is ignored by matchBlocklist meanwhile.
  return [entry, ...indexBlocklistEntryStatements(db, entryId, phash)];
}

/** After the transaction: byte links and principals forget what changed; a gone file leaves its albums. */
async function afterResolution(env: Env, db: ShardDb, directory: DirectoryDb, t: Resolution, effects: ResolveEffects, now: number): Promise<void> {
  if (effects.fileRestored) await accessChanged(env, { fileIds: [t.fileId] });
  if (effects.userBanned) await accessChanged(env, { userId: effects.userBanned });
  if (t.file && (effects.fileRemoved || effects.fileBanned)) {
    await accessChanged(env, { files: [t.file] });
    await emitWebhookEvent(env, directory, t.file.userId, "file.flagged", { fileId: t.fileId, reason: "removed" satisfies FlagReason });
    // Idempotent and outside the claim, as a delete does it.
    try {
      await runBatch(db, detachFileFromAlbumsStatements(db, t.fileId, now));
    } catch (err) {
      console.error(`moderation: could not detach ${t.fileId} from its albums`, err);
    }
  }
}
