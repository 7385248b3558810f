// /upload/*: the direct flow (presign -> PUT -> finalize) and the one-request uploads built on it (form, url).
// The multipart flow is multipart-routes.ts, tus is tus/routes.ts. The two byte-streaming routes are exempt from the JSON body limit (app.ts).
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { UPLOAD_ENDED_ERRORS } from "./lifecycle";
import type { AppEnv } from "../platform/http/env";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { STARTS_UPLOAD, STREAMED_BODY } from "../platform/http/route-traits";
import { apiUrl } from "../platform/http/urls";
import { pathOf } from "@imghost/client";
import { UPLOADS, URL_UPLOADS } from "../config/uploads";
import { canContinueUpload, canStartUpload, startShard, uploaderOf } from "./access";
import { startUpload } from "./start";
import { receiveDirectUpload } from "./direct";
import { finalizeUpload } from "./finalize";
import { uploadFromForm } from "./form";
import { uploadFromUrl } from "./from-url";
import { validationError } from "../platform/http/validation";
import { uploadAlbum } from "./album";
import {
  binaryBody,
  DirectUploadResponse,
  FileIdParam,
  FinalizeRequest,
  FinalizeResponse,
  FORM_TEXT_FIELDS,
  FormUploadFields,
  FormUploadResponse,
  PresignRequest,
  PresignResponse,
  UrlUploadRequest,
} from "./schemas";

export const uploadRoutes = apiRouter();
export const uploadMount = mountAt("/upload", uploadRoutes);
const tags = ["Uploads"];

uploadRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/presign",
    operationId: "uploads.presign",
    [STARTS_UPLOAD]: true,
    tags,
    summary: "Start a direct upload",
    description:
      "Anonymous callers, sessions and API keys with `upload`. Reserves the storage quota and creates the file record " +
      "(state created) with the metadata given here (title, description, alt, visibility, tags, albumId, expiresIn), which the file " +
      "carries from finalize on; `albumId` must name one of your albums (else 404 album_not_found). " +
      "Anonymous callers also get `uploadToken` (Bearer token for the PUT and finalize) and `deleteToken`. " +
      `Files above ${UPLOADS.maxDirectBytes} bytes must use multipart (413, details.code use_multipart).`,
    security: [...bearer, {}],
    middleware: [canStartUpload()] as const,
    request: { body: jsonBody(PresignRequest) },
    errors: ["private_requires_account", "quota_exceeded", "file_too_large", "use_multipart", "unsupported_media_type", "owner_moving"],
    responses: { 201: json(PresignResponse, "File record created"), ...errors(400, 401, 402, 403, 404, 413, 415, 429, 503) },
  }),
  async (c) => {
    const { albumId, ...input } = c.req.valid("json");
    const uploader = uploaderOf(c.get("principal"));
    const start = { ...input, album: uploadAlbum(c.get("dbs"), albumId) };
    const started = await startUpload(c.env, c.get("dbs").shard(startShard(c.env, uploader)), uploader, start, { kind: "direct" });
    return c.json(
      {
        uploadId: started.uploadId,
        uploadUrl: apiUrl(c.env, pathOf("uploads.putDirect", { fileId: started.fileId })),
        fileId: started.fileId,
        storeKey: started.storeKey,
        message: "File record created. PUT the file's bytes to uploadUrl, then call POST /upload/finalize.",
        ...(started.uploadToken ? { uploadToken: started.uploadToken, deleteToken: started.deleteToken } : {}),
      },
      201,
    );
  },
);

uploadRoutes.openapi(
  defineRoute({
    method: "put",
    path: "/direct/{fileId}",
    operationId: "uploads.putDirect",
    [STREAMED_BODY]: true,
    tags,
    summary: "Upload a file's bytes (direct flow)",
    description:
      "The raw body must be exactly the presigned `bytes` with the presigned `sha256` (400 size_mismatch / checksum_mismatch), " +
      "and start with the magic bytes of the declared mime (415 magic_mismatch). A failed check ends the upload and keeps nothing. " +
      "The response's ETag header is the `storeEtag` for finalize. A second PUT is 409.",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { params: FileIdParam, body: binaryBody("The file's bytes") },
    errors: [
      ...UPLOAD_ENDED_ERRORS, "size_mismatch", "checksum_mismatch", "incomplete_body", "invalid_upload_token", "upload_not_found",
      "upload_state_changed", "multipart_upload", "already_uploaded", "content_type_mismatch", "magic_mismatch",
    ],
    responses: { 200: json(DirectUploadResponse, "Stored and verified"), ...errors(400, 401, 403, 404, 409, 410, 415) },
  }),
  async (c) => {
    const { fileId } = c.req.valid("param");
    const result = await receiveDirectUpload(c.env, c.get("dbs").shardOf("file", fileId), uploaderOf(c.get("principal")), fileId, c.req.raw);
    c.header("ETag", result.etag);
    return c.json(result.body, 200);
  },
);

uploadRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/finalize",
    operationId: "uploads.finalize",
    tags,
    summary: "Finalize an upload",
    description:
      "After the PUT (or multipart complete). Commits the quota, reports exact duplicates among your files, and queues the " +
      "analysis (nsfwScore, phash, dimensions, thumbnail). Idempotent: a repeated call answers the same body. 409 not_uploaded before the bytes are in. 403 blocked_content when the phash hint matches the moderation blocklist (the file is withheld and reported).",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { body: jsonBody(FinalizeRequest) },
    errors: [
      ...UPLOAD_ENDED_ERRORS, "upload_mismatch", "size_mismatch", "checksum_mismatch", "invalid_upload_token", "blocked_content",
      "upload_not_found", "not_uploaded", "upload_state_changed",
    ],
    responses: { 200: json(FinalizeResponse, "Finalized"), ...errors(400, 401, 403, 404, 409, 410) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const dbs = { directory: c.get("dbs").directory(), shard: c.get("dbs").shardOf("upl", input.uploadId) };
    const body = await finalizeUpload(c.env, c.executionCtx, dbs, uploaderOf(c.get("principal")), input);
    return c.json(body as z.infer<typeof FinalizeResponse>, 200);
  },
);

uploadRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/form",
    operationId: "uploads.form",
    [STARTS_UPLOAD]: true,
    [STREAMED_BODY]: true,
    tags,
    summary: "Upload in one request (multipart/form-data)",
    description:
      "For tools that send one request, such as ShareX custom uploaders: `multipart/form-data` with the image in the field " +
      "`file` and optional text fields `title`, `description`, `alt`, `visibility`, `tags` (comma-separated), `albumId`, `expiresIn` " +
      "(checked before anything is stored: 400 validation_error, 404 album_not_found). Runs presign, PUT and finalize in " +
      "one go with the same checks and answers finalize's body (plus `deleteToken` for anonymous callers). The form is " +
      "read whole, so it is limited to the plan's file size; prefer the direct or multipart flow from your own code.",
    security: [...bearer, {}],
    middleware: [canStartUpload()] as const,
    errors: [
      "size_mismatch", "invalid_form", "missing_file", "private_requires_account", "quota_exceeded", "blocked_content", "upload_not_found",
      "length_required", "file_too_large", "unsupported_media_type", "owner_moving",
    ],
    responses: { 201: json(FormUploadResponse, "Uploaded and finalized"), ...errors(400, 401, 402, 403, 404, 411, 413, 415, 429, 503) },
  }),
  async (c) => {
    const uploader = uploaderOf(c.get("principal"));
    const body = await uploadFromForm(c.env, c.executionCtx, c.get("dbs").directoryAndShard(startShard(c.env, uploader)), uploader, c.req.raw, (form) => {
      const text: Record<string, string> = {};
      for (const key of FORM_TEXT_FIELDS) {
        const value = form.get(key);
        if (typeof value === "string" && value !== "") text[key] = value;
      }
      const parsed = FormUploadFields.safeParse(text);
      if (!parsed.success) throw validationError(parsed.error.issues);
      const { albumId, ...fields } = parsed.data;
      return { ...fields, album: uploadAlbum(c.get("dbs"), albumId) };
    });
    return c.json(body as z.infer<typeof FormUploadResponse>, 201);
  },
);

uploadRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/url",
    operationId: "uploads.fromUrl",
    [STARTS_UPLOAD]: true,
    tags,
    summary: "Upload from a URL",
    description:
      "The server fetches the image (http(s) on default ports, no internal hosts; at most 3 redirects, each checked; 15 s in all) " +
      "and runs presign, store and finalize with their checks, quota and rate limit. The bytes decide the type (415). Over the " +
      `plan's size, announced or sent, is 413 and keeps nothing; without a Content-Length also over ${URL_UPLOADS.maxBufferedBytes} bytes. ` +
      "422 url_fetch_failed: the remote answered non-2xx (details.status), redirected too often, broke off or timed out.",
    security: [...bearer, {}],
    middleware: [canStartUpload()] as const,
    request: { body: jsonBody(UrlUploadRequest) },
    errors: [
      "private_requires_account", "invalid_url", "quota_exceeded", "not_owner", "blocked_content", "upload_not_found", "album_not_found",
      "file_too_large", "unsupported_media_type", "url_fetch_failed", "owner_moving",
    ],
    responses: { 201: json(FormUploadResponse, "Fetched, stored and finalized"), ...errors(400, 401, 402, 403, 404, 413, 415, 422, 429, 503) },
  }),
  async (c) => {
    const { albumId, ...input } = c.req.valid("json");
    const uploader = uploaderOf(c.get("principal"));
    const album = uploadAlbum(c.get("dbs"), albumId);
    const body = await uploadFromUrl(c.env, c.executionCtx, c.get("dbs").directoryAndShard(startShard(c.env, uploader)), uploader, { ...input, album });
    return c.json(body as z.infer<typeof FormUploadResponse>, 201);
  },
);
