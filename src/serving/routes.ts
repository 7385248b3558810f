// Byte serving, mounted on the app itself (not under the API router): no JSON body limit, no API authentication or
// rate limit on the hot path. dispatch() maps {image_url} and {cdn_url} onto /i and /cdn: `/i/<id>`, `/i/<id>/thumb`
// and `/cdn/uploads/<date>/<id>/<filename>`, each with the variant parameters (docs/files-and-serving.md).
import { Hono } from "hono";
import type { AppEnv } from "../platform/http/env";
import { serveBytes } from "./byte-path";

// Hono answers HEAD with the GET route (and drops the body); serveBytes sees the HEAD method and skips R2.
export const imageRoutes = new Hono<AppEnv>();

imageRoutes.get("/:fileId", (c) => serveBytes(c, { fileId: c.req.param("fileId"), variant: "original", link: "short" }));
imageRoutes.get("/:fileId/thumb", (c) => serveBytes(c, { fileId: c.req.param("fileId"), variant: "thumb", link: "short" }));

export const cdnRoutes = new Hono<AppEnv>();

cdnRoutes.get("/uploads/:date/:fileId/:filename", (c) => {
  const { date, fileId, filename } = c.req.param();
  return serveBytes(c, { fileId, variant: "original", link: "cdn", storeKeyPath: `uploads/${date}/${fileId}/${filename}` });
});
