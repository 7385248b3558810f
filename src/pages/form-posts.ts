// Every POST to the pages goes through here first: a small body limit (413), and a form that cannot be read
// (multipart without a boundary, a broken encoding) is a 400, never a 500 from deep inside a handler.
// The parsed form is left in Hono's body cache, so handlers' `c.req.parseBody()` / `c.req.formData()` reuse it.
import { createMiddleware } from "hono/factory";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../platform/http/env";
import { REQUEST_LIMITS } from "../config";

const FORM_TYPES = new Set(["multipart/form-data", "application/x-www-form-urlencoded"]);

/** Paths whose forms carry images (the no-JavaScript upload): the Workers body cap instead of the small one. */
const UPLOAD_FORMS = new Set(["/app/upload"]);

export const pageFormPosts = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== "POST") return next();
    const maxSize = UPLOAD_FORMS.has(c.req.path) ? REQUEST_LIMITS.pageUploadFormBytes : REQUEST_LIMITS.pageFormBytes;
    return bodyLimit({ maxSize, onError: (c) => c.text("This form is too large", 413) })(c, async () => {
      const type = c.req.header("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
      if (FORM_TYPES.has(type)) {
        try {
          await c.req.formData();
        } catch {
          c.res = c.text("This form could not be read: send it as application/x-www-form-urlencoded or multipart/form-data", 400);
          return;
        }
      }
      await next();
    });
  });
