// Request and response schemas of the moderation API (OpenAPI-described).
import { z } from "@hono/zod-openapi";
import { REPORT_REASONS } from "../db/schema";
import { MODERATION } from "../config";
import { PageQuery, Pagination } from "../platform/http/pagination";

export const Reason = z.enum(REPORT_REASONS).openapi({ description: "csam and terrorism are high priority: the file is hidden at once" });
export const Priority = z.enum(["high", "normal"]);
export const ReportStatus = z.enum(["pending", "resolved"]);
export const ResolveAction = z.enum(["dismiss", "remove_file", "ban_file", "ban_user"]);
export type ResolveActionName = z.infer<typeof ResolveAction>;

// eslint-disable-next-line no-control-regex
const NO_CONTROL_EXCEPT_NEWLINES = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
const FreeText = z
  .string()
  .max(MODERATION.detailsMaxLength)
  .regex(NO_CONTROL_EXCEPT_NEWLINES, "Control characters other than line breaks are not allowed");

export const ReportRequest = z
  .object({
    fileId: z.string().min(1).max(64).openapi({ example: "file_V1StGXR8_Z5jdHi6B-myT" }),
    reason: Reason,
    details: FreeText.default("").openapi({ description: `What is wrong with the file (at most ${MODERATION.detailsMaxLength} characters)` }),
    email: z
      .email()
      .max(MODERATION.emailMaxLength)
      .optional()
      .openapi({ description: "Reporter contact, optional; only moderators see it" }),
  })
  .strict()
  .openapi("ReportRequest");

export const ReportCreated = z
  .object({
    message: z.string(),
    reportId: z.string().openapi({ example: "rep_V1StGXR8_Z5jdHi6B-myT" }),
    complianceMessage: z.string(),
    status: z.literal("pending"),
  })
  .openapi("ReportCreated");

export const QueueQuery = PageQuery.extend({
  status: z.enum(["pending", "resolved", "all"]).default("pending"),
  reason: Reason.optional(),
  priority: Priority.optional(),
  fileId: z.string().max(64).optional(),
});

export const ReportedFile = z
  .object({
    id: z.string(),
    ownerId: z.string().nullable(),
    title: z.string(),
    mime: z.string(),
    bytes: z.number().int(),
    visibility: z.string(),
    url: z.string(),
    cdnUrl: z.string(),
    /** What the public sees now: live, or why it reads 410. */
    state: z.enum(["live", "deleted", "expired", "banned", "hidden", "quarantined", "owner_unavailable", "purged"]),
    phash: z.string().nullable(),
    /** Moderators' view of the bytes, whatever the file's state (session-only). */
    contentUrl: z.string(),
  })
  .openapi("ReportedFile");

export const ReportItem = z
  .object({
    reportId: z.string(),
    fileId: z.string(),
    reason: Reason,
    details: z.string(),
    email: z.string().nullable(),
    reporterUserId: z.string().nullable(),
    priority: Priority,
    status: ReportStatus,
    reportCount: z.number().int(),
    action: ResolveAction.nullable(),
    note: z.string().nullable(),
    resolvedBy: z.string().nullable(),
    resolvedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** Null when the file row no longer exists. */
    file: ReportedFile.nullable(),
  })
  .openapi("Report");

export const ResolveRequest = z
  .object({
    action: ResolveAction,
    note: z.string().max(MODERATION.noteMaxLength).regex(NO_CONTROL_EXCEPT_NEWLINES, "Control characters other than line breaks are not allowed").default(""),
  })
  .strict()
  .openapi("ResolveReportRequest");

export const ResolveResponse = z
  .object({
    message: z.string(),
    report: ReportItem,
    /** What the action changed. */
    effects: z.object({
      fileRestored: z.boolean(),
      fileRemoved: z.boolean(),
      fileBanned: z.boolean(),
      userBanned: z.string().nullable(),
      blocklistEntryId: z.string().nullable(),
    }),
  })
  .openapi("ResolveReportResponse");

export const ReportIdParam = z.object({ id: z.string().max(64).openapi({ example: "rep_V1StGXR8_Z5jdHi6B-myT" }) });

/** The answer of GET /moderation/queue (routes.ts), named for the pages too. */
export const ReportList = z.object({ reports: z.array(ReportItem), pagination: Pagination });
