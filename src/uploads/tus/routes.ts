// /upload/tus: the tus 1.0.0 server (extensions.md § 1). Headers in, headers out; errors keep the contract's body.
// Hono answers HEAD with the GET route (body dropped), so GET /{uploadId} serves both: tus's HEAD, and the
// JSON status outside tus.
import { z } from "@hono/zod-openapi";
import { defineRoute, refusing } from "../../platform/http/route-errors";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { PLAN_LIMITS } from "../../config";
import { TUS } from "../../config/uploads";
import { requirePermission } from "../../middleware/guards";
import type { AppEnv } from "../../platform/http/env";
import { ApiError } from "../../platform/errors/errors";
import { bearer, errors, json } from "../../platform/http/openapi";
import { apiRouter } from "../../platform/http/router";
import { mountAt } from "../../platform/http/mount";
import { READS_PRIMARY, STARTS_UPLOAD, STREAMED_BODY } from "../../platform/http/route-traits";
import { apiUrl } from "../../platform/http/urls";
import { pathOf } from "@imghost/client";
import { canStartUpload, startShard, uploadNotFound, uploaderOf } from "../access";
import { FinalizeResponse } from "../schemas";
import {
  OFFSET_OCTET_STREAM,
  TUS_CHECKSUM_ALGORITHMS,
  assertMetadataSize,
  TUS_EXTENSIONS,
  TUS_VERSION,
  assertTusResumable,
  httpDate,
  mediaType,
  parseChecksum,
  readSize,
} from "./protocol";
import { appendToTusUpload, createTusUpload, describeTusUpload, terminateTusUpload, type TusProgress } from "./service";
import type { Chunk } from "./chunk";

export const tusRoutes = apiRouter();
export const tusMount = mountAt("/upload/tus", tusRoutes);
const tags = ["Uploads (tus)"];
const UploadIdParam = z.object({ uploadId: z.string().min(1).max(64).openapi({ param: { name: "uploadId", in: "path" }, example: "upl_V1StGXR8_Z5jdHi6B-myT" }) });
const noContent = (description: string) => ({ description });

/**
 * Every answer names the protocol version, errors included (set before anything can throw: the error handler's
 * answer keeps headers set on the context); a 412 also lists the versions served. Nothing here is cached.
 */
tusRoutes.use(async (c, next) => {
  c.header("Tus-Resumable", TUS_VERSION);
  c.header("Tus-Version", TUS_VERSION);
  c.header("Cache-Control", "no-store");
  // GET is the JSON status, outside tus; OPTIONS is tus's discovery, which needs no version.
  if (c.req.method !== "OPTIONS" && c.req.method !== "GET") assertTusResumable(c.req.header("tus-resumable"));
  await next();
});

/** The creator only, checked per upload (anyone else: 404); an API key still needs `upload`. */
const needsUpload = requirePermission("upload");
const mayTouchUpload = () =>
  refusing(["unauthorized", "missing_permission"], createMiddleware<AppEnv>(async (c, next) => {
    const kind = c.get("principal").kind;
    return kind === "anonymous" || kind === "upload" ? next() : needsUpload(c, next);
  }));

/** The request's chunk: its body, Content-Length and Upload-Checksum. PATCH always needs the tus media type. */
function chunkOf(c: Context<AppEnv>, required: boolean): Chunk | null {
  const declared = c.req.header("content-length");
  const hasBody = c.req.raw.body !== null && declared !== "0";
  if (!required && !hasBody) return null;
  if (mediaType(c.req.header("content-type")) !== OFFSET_OCTET_STREAM) {
    throw new ApiError("offset_octet_stream_required", `Send chunks as Content-Type: ${OFFSET_OCTET_STREAM}`);
  }
  const declaredBytes = declared === undefined ? null : readSize("Content-Length", declared);
  return { body: hasBody ? c.req.raw.body : null, options: { declaredBytes, checksum: parseChecksum(c.req.header("upload-checksum")) } };
}

function progressHeaders(c: Context<AppEnv>, progress: TusProgress, expiresAt: Date) {
  c.header("Upload-Offset", String(progress.offset));
  c.header("Upload-Expires", httpDate(expiresAt.getTime()));
  if (progress.file) {
    c.header("Upload-File-Id", progress.file.fileId);
    c.header("Upload-File-Url", progress.file.url);
  }
}

tusRoutes.openapi(
  defineRoute({
    method: "options",
    path: "/",
    operationId: "uploads.tus.options",
    tags,
    summary: "What the tus server offers",
    description: "Tus-Version, Tus-Extension, Tus-Checksum-Algorithm, and Tus-Max-Size: the caller's plan limit.",
    security: [...bearer, {}],
    responses: { 204: noContent("The server's tus capabilities, in headers"), ...errors(401, 429) },
  }),
  (c) => {
    const p = c.get("principal");
    const plan = p.kind === "session" || p.kind === "key" ? p.user.plan : "anonymous";
    c.header("Tus-Version", TUS_VERSION);
    c.header("Tus-Extension", TUS_EXTENSIONS);
    c.header("Tus-Checksum-Algorithm", TUS_CHECKSUM_ALGORITHMS);
    c.header("Tus-Max-Size", String(PLAN_LIMITS[plan].maxFileBytes));
    return c.body(null, 204);
  },
);

tusRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/",
    operationId: "uploads.tus.create",
    [STARTS_UPLOAD]: true,
    [STREAMED_BODY]: true,
    tags,
    summary: "Create a tus upload",
    description:
      "Upload-Length (required; Upload-Defer-Length is refused), Upload-Metadata (at most 4096 bytes): `filename` (required), `filetype`, and the file's " +
      "metadata, set with the `upload` permission alone: `title`, `description`, `alt`, `visibility`, `tags` (comma list), `albumId` (one of " +
      "your albums, else 404 album_not_found), `expiresIn`. A bad value is 400 validation_error and creates nothing. Limits, quota and the upload rate limit are " +
      "those of presign. A body (Content-Type: application/offset+octet-stream) is the first chunk. Anonymous callers get " +
      "`Upload-Token` (their Bearer token for this upload) and `Upload-Delete-Token`.",
    security: [...bearer, {}],
    middleware: [canStartUpload()] as const,
    errors: [
      "incomplete_body", "private_requires_account", "invalid_tus_header", "deferred_length_unsupported", "quota_exceeded", "not_owner",
      "blocked_content", "upload_not_found", "album_not_found", "tus_version_unsupported", "file_too_large", "upload_length_exceeded",
      "unsupported_media_type", "magic_mismatch", "offset_octet_stream_required", "tus_checksum_mismatch", "owner_moving",
    ],
    responses: { 201: noContent("Created: Location, Upload-Offset, Upload-Expires"), ...errors(400, 401, 402, 403, 404, 412, 413, 415, 429, 460, 503) },
  }),
  async (c) => {
    const metadataHeader = c.req.header("upload-metadata");
    assertMetadataSize(metadataHeader, TUS.metadataMaxBytes);
    if (c.req.header("upload-defer-length") !== undefined) {
      throw new ApiError("deferred_length_unsupported", "Upload-Defer-Length is not supported: send Upload-Length");
    }
    const length = readSize("Upload-Length", c.req.header("upload-length"));
    if (length < 1) throw new ApiError("invalid_tus_header", "Upload-Length must be at least 1", { header: "Upload-Length" });
    const uploader = uploaderOf(c.get("principal"));
    const dbs = c.get("dbs").directoryAndShard(startShard(c.env, uploader));
    const albumDb = (albumId: string) => c.get("dbs").shardOf("alb", albumId);
    const created = await createTusUpload(c.env, c.executionCtx, dbs, uploader, { length, metadataHeader, chunk: chunkOf(c, false), albumDb });
    c.header("Location", apiUrl(c.env, pathOf("uploads.tus.append", { uploadId: created.uploadId })));
    progressHeaders(c, created, created.expiresAt);
    if (created.uploadToken) c.header("Upload-Token", created.uploadToken);
    if (created.deleteToken) c.header("Upload-Delete-Token", created.deleteToken);
    return c.body(null, 201);
  },
);

const TusStatus = z
  .object({
    uploadId: z.string(),
    offset: z.number().int(),
    length: z.number().int(),
    state: z.enum(["receiving", "complete", "failed"]),
    file: FinalizeResponse.nullable().openapi({ description: "POST /upload/finalize's body, once state is complete" }),
  })
  .openapi("TusUploadStatus");

tusRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{uploadId}",
    operationId: "uploads.tus.get",
    [READS_PRIMARY]: true,
    tags,
    summary: "Where a tus upload stands (JSON; HEAD gives tus's headers)",
    description: "HEAD answers Upload-Offset, Upload-Length, Upload-Metadata and Upload-Expires. Only the creator: anyone else gets 404.",
    security: [...bearer, {}],
    middleware: [mayTouchUpload()] as const,
    request: { params: UploadIdParam },
    errors: ["upload_not_found", "tus_version_unsupported"],
    responses: { 200: json(TusStatus, "The upload"), ...errors(401, 403, 404, 412) },
  }),
  async (c) => {
    const { uploadId } = c.req.valid("param");
    const dbs = { directory: c.get("dbs").directory(), shard: c.get("dbs").shardOf("upl", uploadId) };
    const status = await describeTusUpload(c.env, c.executionCtx, dbs, uploaderOf(c.get("principal")), uploadId);
    if (c.req.method === "HEAD") {
      // A failed upload takes no more bytes: to a tus client it is gone (GET still says why: state "failed").
      if (status.state === "failed") throw uploadNotFound();
      c.header("Upload-Offset", String(status.offset));
      c.header("Upload-Length", String(status.length));
      if (status.metadata) c.header("Upload-Metadata", status.metadata);
      c.header("Upload-Expires", httpDate(status.expiresAt.getTime()));
      return c.body(null, 200) as never;
    }
    const { uploadId: id, offset, length, state, file } = status;
    return c.json({ uploadId: id, offset, length, state, file: file as z.infer<typeof FinalizeResponse> | null }, 200);
  },
);

// HEAD runs the GET route above (Hono answers HEAD with GET's handler); it is described on its own for tus clients.
tusRoutes.openAPIRegistry.registerPath({
  method: "head",
  path: "/{uploadId}",
  operationId: "uploads.tus.head",
  [READS_PRIMARY]: true,
  tags,
  summary: "Where a tus upload stands (tus's HEAD)",
  description: "Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires and Cache-Control: no-store. Only the creator: anyone else gets 404.",
  security: [...bearer, {}],
  request: { params: UploadIdParam },
  responses: { 200: { description: "The offset to resume from, in headers" }, 404: { description: "No such upload, or not the caller's" } },
});

tusRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/{uploadId}",
    operationId: "uploads.tus.append",
    [STREAMED_BODY]: true,
    tags,
    summary: "Append a chunk",
    description:
      "Content-Type: application/offset+octet-stream, Upload-Offset equal to the server's (409 otherwise), optional " +
      "Upload-Checksum (`sha1|sha256 <base64>`; 460 on a mismatch, and none of the chunk is kept). The last chunk " +
      "finalizes the upload as POST /upload/finalize does and adds Upload-File-Id and Upload-File-Url.",
    security: [...bearer, {}],
    middleware: [mayTouchUpload()] as const,
    request: { params: UploadIdParam },
    errors: [
      "incomplete_body", "invalid_tus_header", "blocked_content", "upload_not_found", "offset_mismatch", "upload_state_changed",
      "tus_version_unsupported", "upload_length_exceeded", "magic_mismatch", "offset_octet_stream_required", "upload_busy",
      "tus_checksum_mismatch",
    ],
    responses: { 204: noContent("Appended: Upload-Offset"), ...errors(400, 401, 403, 404, 409, 412, 413, 415, 423, 460) },
  }),
  async (c) => {
    const { uploadId } = c.req.valid("param");
    const chunk = chunkOf(c, true)!;
    const offset = readSize("Upload-Offset", c.req.header("upload-offset"));
    const dbs = { directory: c.get("dbs").directory(), shard: c.get("dbs").shardOf("upl", uploadId) };
    const uploader = uploaderOf(c.get("principal"));
    const progress = await appendToTusUpload(c.env, c.executionCtx, dbs, uploader, uploadId, offset, chunk);
    progressHeaders(c, progress, progress.expiresAt);
    return c.body(null, 204);
  },
);

tusRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/{uploadId}",
    operationId: "uploads.tus.terminate",
    tags,
    summary: "Terminate a tus upload",
    description: "Aborts the parts and releases the reservation; the upload is 404 afterwards. A finalized upload is 409: delete the file.",
    security: [...bearer, {}],
    middleware: [mayTouchUpload()] as const,
    request: { params: UploadIdParam },
    errors: ["upload_not_found", "upload_state_changed", "already_finalized", "tus_version_unsupported"],
    responses: { 204: noContent("Terminated"), ...errors(401, 403, 404, 409, 412) },
  }),
  async (c) => {
    const { uploadId } = c.req.valid("param");
    await terminateTusUpload(c.env, c.get("dbs").shardOf("upl", uploadId), uploaderOf(c.get("principal")), uploadId);
    return c.body(null, 204);
  },
);
