// GET /files/:id/download: the original bytes as an attachment, under the same visibility rules as GET /files/:id.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { optionalPermission } from "../middleware/guards";
import { bearer, errors } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiError } from "../platform/errors/errors";
import { FileIdParam } from "./schemas";
import { readableFile, viewerOf, FILE_LOOKUP_ERRORS } from "../serving/access";
import { countHit } from "../serving/view-counter";
import { privateByteHeaders, quoteEtag } from "../serving/answers";

export const downloadRoutes = apiRouter();
export const downloadMount = mountAt("/files", downloadRoutes);
const tags = ["Files"];

downloadRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/{id}/download",
    operationId: "files.download",
    tags,
    summary: "Download a file",
    description:
      "The original bytes with Content-Disposition: attachment (RFC 6266 filename plus filename*). Same visibility rules as GET /files/:id. Counts a download.",
    security: [...bearer, {}],
    middleware: [optionalPermission("read")] as const,
    request: { params: FileIdParam },
    errors: [...FILE_LOOKUP_ERRORS, "unauthorized", "content_restricted", "content_missing"],
    responses: {
      200: { description: "The file's bytes", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errors(401, 403, 404, 410, 429),
    },
  }),
  async (c) => {
    const now = Date.now();
    const viewer = viewerOf(c.get("principal"));
    const id = c.req.valid("param").id;
    const { file } = await readableFile(c.get("dbs").shardOf("file", id), id, viewer, now, { safeMode: true });
    const obj = await c.env.BUCKET.get(file.storeKey);
    if (!obj) throw new ApiError("content_missing", "File content not found");
    countHit(c.env, c.executionCtx, "file_download", file.id);
    return new Response(obj.body, {
      status: 200,
      headers: { ...privateByteHeaders(file, obj.size, "attachment"), ETag: quoteEtag(file.storeEtag ?? obj.etag) },
    });
  },
);
