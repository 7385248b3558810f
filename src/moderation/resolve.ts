// Resolving a report (POST /moderation/reports/:id/resolve): dismiss | remove_file | ban_file | ban_user. One directory
// batch claims it (pending -> resolved) with the directory's part (blocklist entry, user's ban, audit), each other
// statement conditional on "this very claim happened": of two moderators at once the loser changes nothing and
// answers 409. The claimer then applies the shard's part (resolve-effects.ts), retry-safe; the cron finishes it if the
// request stopped. runBatch (platform/data/db.ts) keeps each statement's `changes`: what this resolution did.
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { runBatch, type DirectoryAndShards, type DirectoryDb, type Statement } from "../platform/data/db";
import { blocklist, reports, users } from "../db/schema";
import type { AuthUser } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import { isId, newId } from "../platform/data/ids";
import { auditInsertIf } from "../platform/data/audit";
import { applyShardEffects } from "./resolve-effects";
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
  dbs: DirectoryAndShards,
  actor: AuthUser,
  reportId: string,
  action: ResolveActionName,
  note: string,
  now: number,
): Promise<{ report: ReportWithFile; effects: ResolveEffects }> {
  const db = dbs.directory;
  const target = await resolvable(env, dbs, actor, reportId, action);
  const plan = resolutionStatements(db, actor, reportId, action, note, now, target);
  const results = await runBatch(db, plan.statements);
  const changed = (i: number) => i >= 0 && results[i].meta.changes > 0;
  if (!changed(plan.claim)) {
    if (plan.blocklist) await runBatch(db, [unindexBlocklistEntryStatement(db, plan.blocklist.entryId, plan.blocklist.phash)]);
    throw new ApiError("report_already_resolved", "This report has already been resolved");
  }
  // A dismissal unhides unless another high-priority report of the file is open (one can only be: a report
  // filed after this one was claimed).
  const otherOpen =
    action === "dismiss" &&
    (await db.select({ id: reports.id }).from(reports).where(and(eq(reports.fileId, target.fileId), eq(reports.status, "pending"), eq(reports.priority, "high"))).get()) !== undefined;
  const resolved = { id: reportId, fileId: target.fileId, action, resolvedAt: new Date(now) };
  const shard = await applyShardEffects(env, dbs, resolved, { restore: !otherOpen, ownerId: target.ownerId, file: target.file, where: target.found.where });
  const effects: ResolveEffects = {
    ...shard,
    userBanned: changed(plan.banUser) ? target.ownerId : null,
    blocklistEntryId: plan.blocklist?.entryId ?? null,
  };
  const report = await findReport(env, dbs, reportId);
  if (!report) throw new ApiError("internal_error", "Report vanished while resolving");
  return { report, effects };
}

/** The report, pending, and what the action needs: its file, and for a ban, an owner the actor may ban. */
async function resolvable(env: Env, dbs: DirectoryAndShards, actor: AuthUser, reportId: string, action: ResolveActionName): Promise<Resolution> {
  const db = dbs.directory;
  const found = isId("rep", reportId) ? await findReport(env, dbs, reportId) : undefined;
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
  banUser: number;
  /** The blocklist entry this resolution adds, with its phash (its index rows are keyed by it). */
  blocklist: { entryId: string; phash: string } | null;
};

/**
 * The directory's transaction: the claim (pending -> resolved, only if still pending), then the directory's part
 * of the action, every statement of which holds only if this very claim happened, then the audit records.
 */
function resolutionStatements(db: DirectoryDb, actor: AuthUser, reportId: string, action: ResolveActionName, note: string, now: number, t: Resolution): Plan {
  const at = new Date(now);
  const { fileId, file, ownerId } = t;
  // True exactly when the claim below was made by this request (same actor, same instant, same action).
  const claimed: SQL = sql`EXISTS (SELECT 1 FROM reports WHERE id = ${reportId} AND status = 'resolved'
    AND resolved_by = ${actor.id} AND resolved_at = ${now} AND action = ${action})`;
  const statements: Statement[] = [];
  const slot = (s: Statement) => statements.push(s) - 1;
  const plan: Plan = { statements, claim: -1, banUser: -1, blocklist: null };

  plan.claim = slot(
    db
      .update(reports)
      .set({ status: "resolved", action, resolvedBy: actor.id, resolvedAt: at, note, updatedAt: at })
      .where(and(eq(reports.id, reportId), eq(reports.status, "pending"))),
  );
  if (action === "ban_file" || action === "ban_user") {
    const phash = file!.phash ?? file!.clientPhash;
    if (phash && isPhash(phash)) {
      plan.blocklist = { entryId: newId("blk"), phash };
      for (const s of blocklistStatements(db, plan.blocklist.entryId, phash, fileId, reportId, actor.id, now, claimed)) slot(s);
    }
    if (action === "ban_user") {
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
