// The albums API: POST/GET /albums, GET/PATCH/DELETE /albums/:id, POST /albums/:id/files,
// DELETE /albums/:id/files/:fileId.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import type { AppEnv } from "../platform/http/env";
import { callerUser, optionalPermission, requirePermission } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { Pagination, PageQuery } from "../platform/http/pagination";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiError } from "../platform/errors/errors";
import { hashPassword } from "../platform/crypto/passwords";
import { viewerOf } from "../serving/access";
import { fileListItem } from "../files/resource";
import { countHit } from "../serving/view-counter";
import {
  AddFilesRequest,
  AlbumDetailSchema,
  AlbumFileParams,
  AlbumFilesAdded,
  AlbumFilesQuery,
  AlbumIdParam,
  AlbumList,
  AlbumSchema,
  AlbumUpdated,
  CreateAlbumRequest,
  PatchAlbumRequest,
} from "./schemas";
import { addFilesToAlbum, albumFilesPage, createAlbum, deleteAlbum, listAlbums, removeFileFromAlbum, updateAlbum, visibleCover } from "./queries";
import { albumNotFound, albumResource, checkAlbumPassword, isAlbumOwner, ownAlbum, visibleAlbum } from "./service";
import { emitAfterResponse } from "../webhooks/emit";

export const albumRoutes = apiRouter();
export const albumMount = mountAt("/albums", albumRoutes);
const tags = ["Albums"];

albumRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/",
    operationId: "albums.create",
    tags,
    summary: "Create an album",
    description: "fileIds: only your own live files are added (others are skipped silently). API keys need manage.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { body: jsonBody(CreateAlbumRequest) },
    errors: ["owner_moving"],
    responses: { 201: json(AlbumSchema, "Created"), ...errors(400, 401, 403, 429, 503) },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const user = callerUser(c.get("principal"));
    const album = await createAlbum(
      c.get("dbs").shard(user.shard),
      user.id,
      {
        title: body.title,
        description: body.description ?? "",
        visibility: body.visibility,
        tags: body.tags ?? [],
        passwordHash: body.password ? await hashPassword(body.password) : null,
        fileIds: body.fileIds ?? [],
      },
      Date.now(),
    );
    const created = albumResource(c.env, album);
    emitAfterResponse(c.executionCtx, c.env, c.get("dbs").directory(), user.id, "album.created", { album: created });
    return c.json(created, 201);
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/",
    operationId: "albums.list",
    tags,
    summary: "List your albums",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { query: PageQuery },
    responses: { 200: json(AlbumList, "One page of albums"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { limit, offset } = c.req.valid("query");
    const owner = callerUser(c.get("principal"));
    const { rows, total } = await listAlbums(c.get("dbs").shard(owner.shard), owner.id, limit, offset);
    return c.json({ albums: rows.map((a) => albumResource(c.env, a)), pagination: { total, limit, offset, hasMore: offset + rows.length < total } }, 200);
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{id}",
    operationId: "albums.get",
    tags,
    summary: "Get an album and its files",
    description:
      "Private albums are 404 to all but their owner. Password-protected albums need X-Album-Password (missing 401 album_password_required, " +
      "wrong 403 invalid_album_password, too many wrong attempts 429). `files` are list items in the order they were added, paged with limit/offset; " +
      "viewers other than the owner see only live, non-private files, and under safe mode no age-restricted ones. Counts a view.",
    security: [...bearer, {}],
    middleware: [optionalPermission("read")] as const,
    request: {
      params: AlbumIdParam,
      query: AlbumFilesQuery,
      headers: z.object({ "x-album-password": z.string().max(1024).optional() }),
    },
    errors: ["unauthorized", "album_password_required", "invalid_album_password", "album_not_found"],
    responses: { 200: json(AlbumDetailSchema, "The album"), ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const now = Date.now();
    const viewer = viewerOf(c.get("principal"));
    const id = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("alb", id);
    const { album } = await visibleAlbum(db, id, viewer);
    await checkAlbumPassword(c.env, album, viewer, c.get("principal").ip, c.req.header("x-album-password"));
    const { limit, offset } = c.req.valid("query");
    const sees = { owner: isAlbumOwner(album, viewer), adult: viewer.adult };
    const [{ rows, total }, cover] = await Promise.all([
      albumFilesPage(db, album.id, sees, limit, offset, now),
      album.coverFileId ? visibleCover(db, album, sees, now) : undefined,
    ]);
    countHit(c.env, c.executionCtx, "album_view", album.id);
    // Count and cover follow what this viewer may read, never the files hidden from them.
    const view = { fileCount: total, coverFileId: cover?.id === album.coverFileId ? album.coverFileId : null };
    return c.json(
      {
        ...albumResource(c.env, album, view),
        files: rows.map((r) => fileListItem(c.env, r)),
        pagination: { total, limit, offset, hasMore: offset + rows.length < total },
      },
      200,
    );
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/{id}",
    operationId: "albums.update",
    tags,
    summary: "Change an album",
    description: "coverImageId must be a file in the album (null clears it); password null removes the password. API keys need manage.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: AlbumIdParam, body: jsonBody(PatchAlbumRequest) },
    errors: ["cover_not_in_album", "not_owner", "album_not_found", "owner_moving"],
    responses: { 200: json(AlbumUpdated, "Updated"), ...errors(400, 401, 403, 404, 429, 503) },
  }),
  async (c) => {
    const albumId = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("alb", albumId);
    const album = await ownAlbum(db, albumId, viewerOf(c.get("principal")));
    const body = c.req.valid("json");
    const outcome = await updateAlbum(
      db,
      album.id,
      {
        title: body.title,
        description: body.description,
        visibility: body.visibility,
        tags: body.tags,
        passwordHash: body.password === undefined ? undefined : body.password === null ? null : await hashPassword(body.password),
        coverFileId: body.coverImageId,
      },
      Date.now(),
    );
    if (!outcome.ok) {
      if (outcome.reason === "cover_not_in_album") throw new ApiError("cover_not_in_album", "coverImageId must be a file in this album");
      throw albumNotFound();
    }
    const updated = albumResource(c.env, outcome.album);
    emitAfterResponse(c.executionCtx, c.env, c.get("dbs").directory(), album.userId, "album.updated", { album: updated });
    return c.json({ message: "Album updated", album: updated }, 200);
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{id}",
    operationId: "albums.delete",
    tags,
    summary: "Delete an album",
    description: "Deletes the album only; its files stay. API keys need manage.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: AlbumIdParam },
    errors: ["not_owner", "album_not_found", "owner_moving"],
    responses: { 200: json(MessageBody, "Deleted"), ...errors(401, 403, 404, 429, 503) },
  }),
  async (c) => {
    const albumId = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("alb", albumId);
    const album = await ownAlbum(db, albumId, viewerOf(c.get("principal")));
    if (!(await deleteAlbum(db, album.id))) throw albumNotFound();
    emitAfterResponse(c.executionCtx, c.env, c.get("dbs").directory(), album.userId, "album.deleted", { albumId: album.id });
    return c.json({ message: "Album deleted" }, 200);
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/{id}/files",
    operationId: "albums.addFiles",
    tags,
    summary: "Add files to an album",
    description:
      "Adds those of fileIds that are your own live files and not yet in the album. `requested` counts the distinct ids sent, `added` those newly added. API keys need manage.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: AlbumIdParam, body: jsonBody(AddFilesRequest) },
    errors: ["not_owner", "album_not_found", "owner_moving"],
    responses: {
      200: json(AlbumFilesAdded, "Added"),
      ...errors(400, 401, 403, 404, 429, 503),
    },
  }),
  async (c) => {
    const user = callerUser(c.get("principal"));
    const albumId = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("alb", albumId);
    const album = await ownAlbum(db, albumId, viewerOf(c.get("principal")));
    const ids = [...new Set(c.req.valid("json").fileIds)];
    const added = await addFilesToAlbum(db, album.id, user.id, ids, Date.now());
    return c.json({ message: `${added} of ${ids.length} files added to the album`, added, requested: ids.length }, 200);
  },
);

albumRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{id}/files/{fileId}",
    operationId: "albums.removeFile",
    tags,
    summary: "Remove a file from an album",
    description: "The file itself stays. If it was the cover, the album has no cover afterwards. API keys need manage.",
    security: bearer,
    middleware: [requirePermission("manage")] as const,
    request: { params: AlbumFileParams },
    errors: ["not_owner", "album_not_found", "file_not_in_album", "owner_moving"],
    responses: { 200: json(MessageBody, "Removed"), ...errors(401, 403, 404, 429, 503) },
  }),
  async (c) => {
    const { id, fileId } = c.req.valid("param");
    const db = c.get("dbs").shardOf("alb", id);
    const album = await ownAlbum(db, id, viewerOf(c.get("principal")));
    if (!(await removeFileFromAlbum(db, album.id, fileId, Date.now()))) {
      throw new ApiError("file_not_in_album", "That file is not in this album");
    }
    return c.json({ message: "File removed from the album" }, 200);
  },
);
