// /upload/multipart/*: init -> PUT parts (resumable: GET lists what arrived) -> complete (then finalize, as the
// direct flow) or abort. The part PUT streams its body and is exempt from the JSON body limit (app.ts).
import { defineRoute } from "../platform/http/route-errors";
import { UPLOAD_ENDED_ERRORS } from "./lifecycle";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { STARTS_UPLOAD, STREAMED_BODY } from "../platform/http/route-traits";
import { canContinueUpload, canStartUpload, startShard, uploaderOf } from "./access";
import { uploadAlbum } from "./album";
import { abortMultipart, completeMultipart, describeMultipart, initMultipart, receivePart } from "./multipart";
import {
  binaryBody,
  MultipartCompleteRequest,
  MultipartCompleteResponse,
  MultipartInitRequest,
  MultipartInitResponse,
  MultipartStatus,
  PartParam,
  PartResponse,
  UploadIdParam,
} from "./schemas";

export const multipartRoutes = apiRouter();
export const multipartMount = mountAt("/upload", multipartRoutes);
const tags = ["Uploads"];

multipartRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/multipart/init",
    operationId: "uploads.multipart.init",
    [STARTS_UPLOAD]: true,
    tags,
    summary: "Start a multipart upload",
    description:
      "Reserves the quota and opens an R2 multipart upload. PUT each part to its `url` with the same Bearer token; every part but " +
      "the last is exactly partSize bytes. When `sha256` is given the assembled file is verified against it at complete. " +
      "The file's metadata (title, description, alt, visibility, tags, albumId, expiresIn) is given here, as for presign.",
    security: [...bearer, {}],
    middleware: [canStartUpload()] as const,
    request: { body: jsonBody(MultipartInitRequest) },
    errors: ["too_many_parts", "private_requires_account", "quota_exceeded", "file_too_large", "unsupported_media_type", "owner_moving"],
    responses: { 201: json(MultipartInitResponse, "Multipart upload opened"), ...errors(400, 401, 402, 403, 404, 413, 415, 429, 503) },
  }),
  async (c) => {
    const { albumId, ...input } = c.req.valid("json");
    const uploader = uploaderOf(c.get("principal"));
    const init = { ...input, album: uploadAlbum(c.get("dbs"), albumId) };
    const result = await initMultipart(c.env, c.get("dbs").shard(startShard(c.env, uploader)), uploader, init);
    return c.json(result, 201);
  },
);

multipartRoutes.openapi(
  defineRoute({
    method: "put",
    path: "/multipart/{uploadId}/parts/{partNumber}",
    operationId: "uploads.multipart.putPart",
    [STREAMED_BODY]: true,
    tags,
    summary: "Upload one part",
    description: "Exact Content-Length required (411 without, 400 size_mismatch when wrong). Re-sending a part replaces it. Part 1 is checked for the mime's magic bytes.",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { params: PartParam, body: binaryBody("The part's bytes") },
    errors: [
      ...UPLOAD_ENDED_ERRORS, "invalid_part_number", "size_mismatch", "incomplete_body", "invalid_upload_token", "upload_not_found",
      "upload_state_changed", "not_multipart", "already_finalized", "already_uploaded", "length_required", "magic_mismatch",
    ],
    responses: { 200: json(PartResponse, "Part stored"), ...errors(400, 401, 403, 404, 409, 410, 411, 415) },
  }),
  async (c) => {
    const { uploadId, partNumber } = c.req.valid("param");
    const result = await receivePart(c.env, c.get("dbs").shardOf("upl", uploadId), uploaderOf(c.get("principal")), uploadId, Number(partNumber), c.req.raw);
    return c.json(result, 200);
  },
);

multipartRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/multipart/{uploadId}",
    operationId: "uploads.multipart.get",
    tags,
    summary: "Parts received so far (resume)",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { params: UploadIdParam },
    errors: ["invalid_upload_token", "upload_not_found", "upload_state_changed", "not_multipart", "already_finalized"],
    responses: { 200: json(MultipartStatus, "The upload and its parts"), ...errors(401, 403, 404, 409) },
  }),
  async (c) => {
    const { uploadId } = c.req.valid("param");
    return c.json(await describeMultipart(c.get("dbs").shardOf("upl", uploadId), uploaderOf(c.get("principal")), uploadId), 200);
  },
);

multipartRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/multipart/complete",
    operationId: "uploads.multipart.complete",
    tags,
    summary: "Complete a multipart upload",
    description:
      "Lists every part with the etag its PUT answered (400 invalid_part when one is wrong or missing). Then finalize as in the direct flow. " +
      "A repeated complete answers the same body.",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { body: jsonBody(MultipartCompleteRequest) },
    errors: [
      ...UPLOAD_ENDED_ERRORS, "upload_mismatch", "size_mismatch", "checksum_mismatch", "invalid_part", "invalid_upload_token",
      "blocked_content", "upload_not_found", "upload_state_changed", "not_multipart", "already_finalized", "upload_ended",
    ],
    responses: { 200: json(MultipartCompleteResponse, "Assembled and verified"), ...errors(400, 401, 403, 404, 409, 410) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    return c.json(await completeMultipart(c.env, c.get("dbs").shardOf("upl", input.uploadId), uploaderOf(c.get("principal")), input), 200);
  },
);

multipartRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/multipart/{uploadId}",
    operationId: "uploads.multipart.abort",
    tags,
    summary: "Abort a multipart upload",
    description: "Releases the reserved quota and removes every stored part. Aborting twice is fine; a finalized upload is 409 (delete the file instead).",
    security: bearer,
    middleware: [canContinueUpload()] as const,
    request: { params: UploadIdParam },
    errors: [...UPLOAD_ENDED_ERRORS, "invalid_upload_token", "upload_not_found", "upload_state_changed", "not_multipart", "already_finalized"],
    responses: { 200: json(MessageBody, "Aborted"), ...errors(401, 403, 404, 409, 410) },
  }),
  async (c) => {
    const { uploadId } = c.req.valid("param");
    return c.json(await abortMultipart(c.env, c.get("dbs").shardOf("upl", uploadId), uploaderOf(c.get("principal")), uploadId), 200);
  },
);
