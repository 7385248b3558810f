// The moderation API: POST /moderation/report (anyone), and for moderators and admins (session only)
// GET /moderation/queue, POST /moderation/reports/:id/resolve, GET /moderation/reports/:id/content.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import type { AppEnv } from "../platform/http/env";
import { requireRole, sessionPrincipal } from "../middleware/guards";
import { bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { Pagination } from "../platform/http/pagination";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { viewerOf, FILE_LOOKUP_ERRORS } from "../serving/access";
import { QueueQuery, ReportCreated, ReportIdParam, ReportItem, ReportList, ReportRequest, ResolveRequest, ResolveResponse } from "./schemas";
import { complianceMessage, fileReport } from "./reports";
import { listQueue, reportItem } from "./queue";
import { resolveReport } from "./resolve";
import { reportedContent } from "./content";

export const moderationRoutes = apiRouter();
export const moderationMount = mountAt("/moderation", moderationRoutes);
const tags = ["Moderation"];
const moderators = () => requireRole("moderator", "admin");

moderationRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/report",
    operationId: "moderation.report",
    tags,
    summary: "Report a file",
    description:
      "No credentials needed (a session or an API key is recorded as the reporter). Reports of one file aggregate into its open report " +
      "(reportCount grows, the same reportId is returned). csam and terrorism hide the file from everyone at once (410 on every address) " +
      "and notify the moderators. Unknown ids and other people's private files give 404 exactly as reading them does, so a report " +
      "never reveals that a private file exists; files already deleted or removed give 410. Rate limited like any call of the caller.",
    security: [...bearer, {}],
    request: { body: jsonBody(ReportRequest) },
    errors: [...FILE_LOOKUP_ERRORS, "unauthorized"],
    responses: { 201: json(ReportCreated, "Report received"), ...errors(400, 401, 404, 410, 429) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const principal = c.get("principal");
    const dbs = { directory: c.get("dbs").directory(), shard: c.get("dbs").shardOf("file", input.fileId), shards: c.get("dbs") };
    const filed = await fileReport(c.env, dbs, input, { viewer: viewerOf(principal), ip: principal.ip }, Date.now());
    return c.json(
      {
        message: filed.created ? "Report received; our moderators will review it" : "Report received and added to the open report of this file",
        reportId: filed.reportId,
        complianceMessage: complianceMessage(filed),
        status: "pending" as const,
      },
      201,
    );
  },
);

moderationRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/queue",
    operationId: "moderation.queue",
    tags,
    summary: "The moderation queue",
    description:
      "Moderators and admins, session only. High priority first, then oldest first. Filters: status (pending by default, resolved, all), " +
      "reason, priority, fileId. Each report carries the reported file's current state and a contentUrl for reviewing its bytes.",
    security: bearer,
    middleware: [moderators()] as const,
    request: { query: QueueQuery },
    responses: { 200: json(ReportList, "One page of reports"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const now = Date.now();
    const { rows, total } = await listQueue(c.env, c.get("dbs").directoryAndShards(), q);
    return c.json(
      {
        reports: rows.map((r) => reportItem(c.env, r, now)),
        pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total },
      },
      200,
    );
  },
);

moderationRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/reports/{id}/resolve",
    operationId: "moderation.resolve",
    tags,
    summary: "Resolve a report",
    description:
      "Moderators and admins, session only. dismiss: no action; a file hidden or quarantined under review is shown again. " +
      "remove_file: the file is soft-deleted (410; storage purged after the retention window). ban_file: the file is banned (410) " +
      "and its phash joins the blocklist that refuses similar uploads. ban_user: ban_file plus the owner's account is suspended " +
      "(their tokens and keys stop working, all their files read 410); banning a moderator or admin needs an admin. " +
      "Each action writes an audit record. A report can be resolved once: again gives 409.",
    security: bearer,
    middleware: [moderators()] as const,
    request: { params: ReportIdParam, body: jsonBody(ResolveRequest) },
    errors: ["report_not_found", "report_already_resolved", "file_missing", "no_owner_account", "cannot_ban_self"],
    responses: { 200: json(ResolveResponse, "Resolved"), ...errors(400, 401, 403, 404, 409, 429) },
  }),
  async (c) => {
    const { action, note } = c.req.valid("json");
    const actor = sessionPrincipal(c.get("principal")).user;
    const now = Date.now();
    const { report, effects } = await resolveReport(c.env, c.get("dbs").directoryAndShards(), actor, c.req.valid("param").id, action, note, now);
    return c.json({ message: `Report resolved: ${action}`, report: reportItem(c.env, report, now), effects }, 200);
  },
);

moderationRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/reports/{id}/content",
    operationId: "moderation.reportContent",
    tags,
    summary: "Review a reported file's bytes",
    description:
      "Moderators and admins, session only: the original bytes whatever the file's state (hidden, quarantined, banned), never cached. Audited.",
    security: bearer,
    middleware: [moderators()] as const,
    request: { params: ReportIdParam },
    errors: ["report_not_found", "content_missing"],
    responses: {
      200: { description: "The file's bytes", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errors(401, 403, 404, 429),
    },
  }),
  async (c) => {
    const actor = sessionPrincipal(c.get("principal")).user;
    return (await reportedContent(c.env, c.get("dbs").directoryAndShards(), actor, c.req.valid("param").id, Date.now()));
  },
);
