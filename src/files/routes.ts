// The files API: GET /files, GET|PATCH|DELETE /files/:id (the download is download-route.ts).
import { z } from "@hono/zod-openapi";
import { defineRoute, refusing } from "../platform/http/route-errors";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/http/env";
import { callerUser, optionalPermission, requirePermission } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { Pagination } from "../platform/http/pagination";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { sha256Hex, timingSafeEqualString } from "../platform/crypto/crypto";
import { FileIdParam, FileList, FileListItemSchema, FileSchema, FileUpdated, ListFilesQuery, PatchFileRequest } from "./schemas";
import { analysisLanded, assertReadable, goneApartFromReview, goneError, isOwner, loadFile, reviewReason, viewerOf, fileNotFound, FILE_LOOKUP_ERRORS } from "../serving/access";
import { ownFile, patchRefusal, underReview } from "./owner-changes";
import { fileCounts, listOwnFiles, softDeleteFile, updateFile, type ListQuery } from "./queries";
import { matchExpression, parseTerms } from "./text-match";
import { listByColour } from "./colour";
import { fileListItem, fileResource } from "./resource";
import { fileDuplicates } from "./duplicates";
import { countHit } from "../serving/view-counter";
import { accessChanged } from "../serving/access-changed";
import { cachedAccess, type CachedAccess } from "../serving/lookups";
import { BOOKMARK_HEADER, noteBookmark } from "../middleware/db";
import type { FileRow } from "../db/schema";
import type { ShardDb } from "../platform/data/db";
import { pointAt } from "../platform/data/moved-ids";
import { emitAfterResponse } from "../webhooks/emit";

export const fileRoutes = apiRouter();
export const fileMount = mountAt("/files", fileRoutes);
const tags = ["Files"];

/**
 * `rowFromDb`: the row was read from D1 by this request. Else (an access record) the owner's counts are read
 * beside the duplicates, in parallel: the record keeps the counts it was filled with for its whole life.
 */
async function fullResource(env: Env, db: ShardDb, file: FileRow, owner: boolean, now: number, rowFromDb = true) {
  // Duplicates are only ever among the caller's own files (decisions.md § Uploads).
  const [duplicates, counts] = await Promise.all([owner ? fileDuplicates(env, db, file, now) : [], owner && !rowFromDb ? fileCounts(db, file.id) : undefined]);
  // Counts only grow: a replica behind the primary the record was read from must not show fewer.
  const shown = counts
    ? { ...file, viewCount: Math.max(file.viewCount, counts.viewCount), downloadCount: Math.max(file.downloadCount, counts.downloadCount) }
    : file;
  return fileResource(env, shown, { duplicates, owner });
}

fileRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/",
    operationId: "files.list",
    tags,
    summary: "List your files",
    description:
      "The caller's live files (not deleted, expired or removed), newest first by default. Unlisted files are listed to their owner; " +
      "age-restricted files are left out unless excludeNsfw=false.",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { query: ListFilesQuery },
    responses: { 200: json(FileList, "One page of files"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const user = callerUser(c.get("principal"));
    const db = c.get("dbs").shard(user.shard);
    const match = q.q?.trim() ? matchExpression(user.id, parseTerms(q.q)) : undefined;
    const list: ListQuery = { limit: q.limit, offset: q.offset, sort: q.sort ?? "created", order: q.order, visibility: q.visibility, match, tag: q.tag, excludeNsfw: q.excludeNsfw === "true" || q.excludeNsfw === "1" };
    const { rows, total } = q.color ? await listByColour(db, user.id, list, q.color, Date.now()) : await listOwnFiles(db, user.id, list, Date.now());
    return c.json(
      {
        files: rows.map((r) => fileListItem(c.env, r)),
        pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total },
      },
      200,
    );
  },
);

fileRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{id}",
    operationId: "files.get",
    tags,
    summary: "Get a file",
    description:
      "Public and unlisted files need no credentials; private files are 404 to all but their owner. Deleted, expired and removed files are 410; " +
      "age-restricted files are 403 (content_restricted) unless the caller is the owner or signed in with ageConfirmed and safe mode off. Counts a view.",
    security: [...bearer, {}],
    middleware: [optionalPermission("read")] as const,
    request: { params: FileIdParam },
    errors: [...FILE_LOOKUP_ERRORS, "unauthorized", "content_restricted"],
    responses: { 200: json(FileSchema, "The file"), ...errors(401, 403, 404, 410, 429) },
  }),
  async (c) => {
    const now = Date.now();
    const viewer = viewerOf(c.get("principal"));
    const id = c.req.valid("param").id;
    // Readers are decided from the byte links' edge-cached access record (no D1 on a hit; counts as old as the
    // record). D1 instead for a signed-in caller asking read-your-writes (x-d1-bookmark), and for the owner until
    // the analysis lands: the job forgets the record only in its own data centre (docs/api-conventions.md).
    const db = c.get("dbs").shardOf("file", id);
    const fromDb = () => loadFile(db, id);
    const fresh = viewer.userId !== null && c.req.header(BOOKMARK_HEADER) !== undefined;
    const cached = fresh ? undefined : await cachedAccess(c.env, c.executionCtx, id, fromDb);
    pointAt(db, cached?.shard); // a moved owner's file: its duplicates are where the record found it
    noteBookmark(c, cached?.bookmark, db.$client.shard); // an answer from a record carries the bookmark of the record's read
    let loaded: CachedAccess | undefined = fresh ? await fromDb() : cached;
    if (!fresh && loaded && isOwner(loaded.file, viewer) && !analysisLanded(loaded.file)) loaded = await fromDb();
    assertReadable(loaded, viewer, now, { safeMode: true });
    const { file } = loaded;
    countHit(c.env, c.executionCtx, "file_view", file.id);
    // recordedAt: the row is (or was just read to fill) an access record, not this request's read of D1.
    const rowFromDb = loaded.recordedAt === undefined;
    return c.json(await fullResource(c.env, db, file, isOwner(file, viewer), now, rowFromDb), 200);
  },
);

fileRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/{id}",
    operationId: "files.update",
    tags,
    summary: "Change a file's metadata",
    description:
      "Only title, description, alt, visibility, hotlinkPolicy, hotlinkDomains, tags and expiresIn can be changed; any other field is refused (400). " +
      "API keys need the manage permission. A file hidden or quarantined for moderation review cannot be changed until the review ends (409 file_under_review); it can be deleted.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: FileIdParam, body: jsonBody(PatchFileRequest) },
    errors: [...FILE_LOOKUP_ERRORS, "not_owner", "file_under_review", "owner_moving"],
    responses: { 200: json(FileUpdated, "Updated"), ...errors(400, 401, 403, 404, 409, 410, 429, 503) },
  }),
  async (c) => {
    const now = Date.now();
    const id = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("file", id);
    const file = await ownFile(db, c.get("principal"), id, now);
    if (reviewReason(file)) throw underReview(); // refused, not recorded, until the review ends (owner-changes.ts)
    const body = c.req.valid("json");
    const updated = await updateFile(
      db,
      file.id,
      {
        title: body.title,
        description: body.description,
        alt: body.alt,
        visibility: body.visibility,
        hotlinkPolicy: body.hotlinkPolicy,
        hotlinkDomains: body.hotlinkDomains ? [...new Set(body.hotlinkDomains)] : undefined,
        tags: body.tags,
        expiresIn: body.expiresIn === null ? null : body.expiresIn === undefined ? undefined : Math.ceil(body.expiresIn),
      },
      now,
    );
    if (!updated) throw await patchRefusal(db, file.id, now); // stopped being live between the read and the write
    await accessChanged(c.env, { files: [updated] }); // visibility, hotlink policy and expiry decide byte links
    return c.json({ message: "File updated", file: await fullResource(c.env, db, updated, true, now) }, 200);
  },
);

/**
 * DELETE is the owner's (a session, or an API key with `manage`) or, for anonymous uploads, whoever holds the
 * delete token returned at presign (X-Delete-Token). The token path is checked in the handler.
 */
const ownerOrDeleteToken = () =>
  refusing(["unauthorized", "missing_permission"], createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.header("x-delete-token") !== undefined) return next();
    return requirePermission("manage")(c, next);
  }));

fileRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{id}",
    operationId: "files.delete",
    tags,
    summary: "Delete a file",
    description:
      "Soft delete: reads give 410 at once; the stored objects are purged after the retention window and the storage quota is released then. " +
      "The owner (API keys need manage) or, for anonymous uploads, the X-Delete-Token returned at presign. " +
      "A file hidden or quarantined for moderation review can be deleted too: it stays deleted whatever the review decides.",
    security: [...bearer, {}],
    middleware: [ownerOrDeleteToken()] as const,
    request: {
      params: FileIdParam,
      headers: z.object({ "x-delete-token": z.string().max(256).optional().openapi({ description: "An anonymous uploader's delete token" }) }),
    },
    errors: [...FILE_LOOKUP_ERRORS, "not_owner", "invalid_delete_token", "owner_moving"],
    responses: { 200: json(MessageBody, "Deleted"), ...errors(401, 403, 404, 410, 429, 503) },
  }),
  async (c) => {
    const now = Date.now();
    const id = c.req.valid("param").id;
    const token = c.req.header("x-delete-token");
    const db = c.get("dbs").shardOf("file", id);
    let file: FileRow;
    if (token !== undefined) {
      const loaded = await loadFile(db, id);
      if (!loaded || loaded.file.state !== "finalized") throw fileNotFound();
      // Hash then compare in constant time: the stored value is the token's SHA-256, never the token.
      const presented = await sha256Hex(token);
      if (!loaded.file.deleteTokenHash || !timingSafeEqualString(presented, loaded.file.deleteTokenHash)) {
        // Whoever lacks the token is a stranger: a private file answers exactly as an unknown id.
        if (loaded.file.visibility === "private") throw fileNotFound();
        throw new ApiError("invalid_delete_token", "The delete token does not match this file");
      }
      // Under review is no reason to refuse: the uploader's delete is recorded (owner-changes.ts).
      const reason = goneApartFromReview(loaded, now);
      if (reason) throw goneError(reason);
      file = loaded.file;
    } else {
      if (c.get("principal").kind === "anonymous") throw unauthorized();
      file = await ownFile(db, c.get("principal"), id, now);
    }
    if (!(await softDeleteFile(db, file.id, now))) throw goneError("deleted");
    await accessChanged(c.env, { files: [file] }); // before answering: the next view must see the delete
    emitAfterResponse(c.executionCtx, c.env, c.get("dbs").directory(), file.userId, "file.deleted", { fileId: file.id });
    return c.json({ message: "File deleted" }, 200);
  },
);
