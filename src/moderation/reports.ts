// Filing a report (POST /moderation/report): who may report which file, aggregation into the file's one
// open report, and the automatic actions of high-priority reasons (decisions.md § Moderation).
import { and, eq, isNull, sql } from "drizzle-orm";
import { runBatch, type DirectoryAndShard, type ShardDb } from "../platform/data/db";
import { writeShards } from "../platform/data/moved-ids";
import { files, reports, type REPORT_REASONS } from "../db/schema";
import { MODERATION } from "../config";
import { ApiError } from "../platform/errors/errors";
import { newId } from "../platform/data/ids";
import { sha256Hex } from "../platform/crypto/crypto";
import { assertReadable, goneReason, loadFile, type LoadedFile, type Viewer } from "../serving/access";
import { accessChanged } from "../serving/access-changed";
import { emitWebhookEvent } from "../webhooks/emit";
import type { FlagReason } from "../webhooks/events";
import { escalate } from "./escalation";
import { config } from "../config/env";

export type ReportReason = (typeof REPORT_REASONS)[number];

export type ReportInput = { fileId: string; reason: ReportReason; details: string; email?: string };

/** Who filed it: the signed-in user (session or API key) if any, and the client IP (stored only hashed). */
export type Reporter = { viewer: Viewer; ip: string };

export type FiledReport = {
  reportId: string;
  priority: "high" | "normal";
  /** False when the report was aggregated into the file's already open report. */
  created: boolean;
  /** The file was hidden by this report (it was visible before). */
  hidden: boolean;
  /** Moderators were notified by this report. */
  escalated: boolean;
};

export function isHighPriority(reason: ReportReason): boolean {
  return (MODERATION.highPriorityReasons as readonly string[]).includes(reason);
}

/** Which files can be reported, answered without revealing more than a read would: unknown, unfinished and others'
 * private files get GET /files/:id's 404 (a report never confirms a private file exists); files gone for good
 * (deleted, expired, banned, purged, owner banned) the read's 410. Files under review (hidden by a report,
 * quarantined by the blocklist) stay reportable, so further reports aggregate into the open one. */
export function assertReportable(loaded: LoadedFile | undefined, viewer: Viewer, now: number): asserts loaded is LoadedFile {
  try {
    assertReadable(loaded, viewer, now, { safeMode: false });
  } catch (err) {
    const reason = loaded && err instanceof ApiError && err.status === 410 ? goneReason(loaded, now) : null;
    if (reason === "hidden" || reason === "quarantined") return;
    throw err;
  }
}

/** A keyed hash: lets moderators see that reports came from one address without storing the address. */
export function reporterIpHash(env: Env, ip: string): Promise<string> {
  return sha256Hex(`report-ip:${config(env).jwt.secret}:${ip}`);
}

/** The directory (reports), the file's routed handle (it follows a moved id), and every shard (fileShards). */
export type ReportDbs = DirectoryAndShard & { shards: { shard(n: number): ShardDb } };

/**
 * `dbs`: the directory (reports), the file's shard and the others. The report is filed first (escalate an open normal
 * one, then insert-or-aggregate, one directory transaction), then a high-priority one hides the file on its shard: a
 * stop between leaves a visible reported file the retry hides, never a hidden file nobody is asked to review.
 */
export async function fileReport(env: Env, dbs: ReportDbs, input: ReportInput, reporter: Reporter, now: number): Promise<FiledReport> {
  const db = dbs.directory;
  const loaded = await loadFile(dbs.shard, input.fileId);
  assertReportable(loaded, reporter.viewer, now);
  const file = loaded.file;
  const high = isHighPriority(input.reason);
  const newReportId = newId("rep");
  const at = new Date(now);
  const ipHash = await reporterIpHash(env, reporter.ip);
  // What a later report adds to the open one: its reason and words, so moderators see every reporter's case.
  const appended = input.details ? `[${input.reason}] ${input.details}` : "";
  const cap = MODERATION.aggregatedDetailsMaxLength;

  // The partial unique index reports_open_per_file makes "one open report per file" hold under concurrent reports.
  // The hide goes where the file was found and, while its owner moves, where it is moving to (writeShards).
  const hideOn = writeShards(dbs.shards, { shard: dbs.shard.$client.shard, movedTo: loaded.ownerMovedTo });
  const hide = (shard: ShardDb) => shard.update(files).set({ hiddenAt: at, updatedAt: at }).where(and(eq(files.id, file.id), isNull(files.hiddenAt)));
  const raise = db
    .update(reports)
    .set({ priority: "high", reason: input.reason, updatedAt: at })
    .where(and(eq(reports.fileId, file.id), eq(reports.status, "pending"), eq(reports.priority, "normal")));
  const upsert = db
    .insert(reports)
    .values({
      id: newReportId,
      fileId: file.id,
      reason: input.reason,
      details: input.details,
      email: input.email ?? null,
      reporterUserId: reporter.viewer.userId,
      reporterIpHash: ipHash,
      priority: high ? "high" : "normal",
      status: "pending",
      reportCount: 1,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoUpdate({
      target: reports.fileId,
      targetWhere: sql`status = 'pending'`,
      set: {
        reportCount: sql`${reports.reportCount} + 1`,
        details: sql`CASE
          WHEN ${appended} = '' OR length(${reports.details}) >= ${cap} THEN ${reports.details}
          WHEN ${reports.details} = '' THEN substr(${appended}, 1, ${cap})
          ELSE substr(${reports.details} || char(10) || ${appended}, 1, ${cap}) END`,
        updatedAt: at,
      },
    })
    .returning({ id: reports.id, priority: reports.priority });

  let hidden = false;
  let raised = false;
  let row: { id: string; priority: "high" | "normal" } | undefined;
  if (high) {
    // runBatch, not db.batch: the hide and the raise are known to apply by D1's `changes`, which drizzle drops.
    const [rose, upserted] = await runBatch<{ id: string; priority: "high" | "normal" }>(db, [raise, upsert]);
    raised = rose.meta.changes === 1;
    row = upserted.results[0];
    const [own, ...moving] = hideOn;
    hidden = (await hide(own).run()).meta.changes === 1;
    for (const other of moving) await hide(other).run();
  } else {
    [row] = await upsert;
  }
  if (!row) throw new Error("report upsert returned no row");
  const created = row.id === newReportId;

  if (high) {
    // Before answering: the cached bytes carry the access record that would still let them through.
    await accessChanged(env, { files: [file] });
  }
  if (hidden) await emitWebhookEvent(env, db, file.userId, "file.flagged", { fileId: file.id, reason: "hidden" satisfies FlagReason });
  // Escalate once per report: when it is created high, turns high, or hides the file again.
  const escalated = high && (created || raised || hidden);
  if (escalated) {
    await escalate(env, db, { reportId: row.id, file, reason: input.reason, fileHidden: hidden, now });
  }
  return { reportId: row.id, priority: row.priority, created, hidden, escalated };
}

export function complianceMessage(report: FiledReport): string {
  if (report.priority === "high") {
    return (
      "This report was escalated to our moderators for urgent review and the file is no longer shown to anyone while it is reviewed. " +
      "If someone is in immediate danger, contact your local law enforcement. Material depicting child sexual abuse can also be " +
      "reported to NCMEC (report.cybertip.org) or the IWF (report.iwf.org.uk)."
    );
  }
  return (
    "Our moderators review reports in order of priority and act under our terms of service and applicable law. " +
    "If you gave an e-mail address, we may contact you about this report. Copyright owners: include the work and your contact details."
  );
}
