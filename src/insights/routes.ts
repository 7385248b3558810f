// The insights API (extensions.md § 10): a file's, the caller's account's and (admins) the service's days.
import { defineRoute } from "../platform/http/route-errors";
import { callerUser, optionalPermission, requirePermission, requireRole } from "../middleware/guards";
import { bearer, errors, json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiError } from "../platform/errors/errors";
import { FileIdParam } from "../files/schemas";
import { ownedFile } from "./queries";
import { dayRange } from "./range";
import { AccountStatsBody, AdminStatsBody, FileStatsBody, StatsQuery } from "./schemas";
import { accountStats, adminStats, fileStats } from "./stats";

export const insightsRoutes = apiRouter();
export const insightsMount = mountAt("/", insightsRoutes);
const range = "`from` and `to` are inclusive UTC dates within the last 90 days; by default the last 30 days, today included.";

insightsRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/files/{id}/stats",
    operationId: "files.stats",
    tags: ["Files"],
    summary: "A file's views and downloads per day, and its top referring hosts",
    description: `The owner's only: anyone else gets 404. An API key needs \`read\`. ${range} Today's entry is live (within a minute).`,
    security: [...bearer, {}],
    middleware: [optionalPermission("read")] as const,
    request: { params: FileIdParam, query: StatsQuery },
    errors: ["unauthorized", "file_not_found"],
    responses: { 200: json(FileStatsBody, "The file's days"), ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const p = c.get("principal");
    const id = c.req.valid("param").id;
    const notFound = () => new ApiError("file_not_found", "File not found");
    // A stranger, signed in or not, learns nothing: not even that the file exists.
    if (p.kind !== "session" && p.kind !== "key") throw notFound();
    const user = callerUser(p);
    const db = c.get("dbs").shard(user.shard);
    if (!(await ownedFile(db, id, user.id))) throw notFound();
    return c.json(await fileStats(db, id, dayRange(c.req.valid("query"), Date.now())), 200);
  },
);

insightsRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/account/stats",
    operationId: "account.stats",
    tags: ["Account"],
    summary: "The caller's views, downloads, uploads and storage per day, top files and top referring hosts",
    description: `An API key needs \`read\`. ${range} storageBytes is the storage used at the end of each day (today: now).`,
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { query: StatsQuery },
    errors: ["api_key_not_allowed"],
    responses: { 200: json(AccountStatsBody, "The account's days"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const user = callerUser(c.get("principal"));
    return c.json(await accountStats(c.env, c.get("dbs").shard(user.shard), user.id, dayRange(c.req.valid("query"), Date.now())), 200);
  },
);

insightsRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/admin/stats",
    operationId: "admin.stats",
    tags: ["Admin"],
    summary: "The service's signups, uploads, views, reports and storage per day (admins)",
    description: `Every shard summed by the cron (today's row is at most one cron period old). ${range}`,
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { query: StatsQuery },
    responses: { 200: json(AdminStatsBody, "The service's days"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => c.json(await adminStats(c.get("dbs").directory(), dayRange(c.req.valid("query"), Date.now())), 200),
);
