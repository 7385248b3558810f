// Signed, expiring links to a file (extensions.md § 3): POST /files/:id/signed-url and
// POST /files/:id/signed-url/revoke. The owner, or an API key with `read`; anyone else gets 404 (a private
// file's existence is not told). Signing and checking: serving/signed-links.ts.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import type { Principal } from "../platform/http/env";
import { requirePermission } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import type { ShardDb } from "../platform/data/db";
import type { FileRow } from "../db/schema";
import { fileUrl } from "../platform/http/urls";
import { FileIdParam } from "./schemas";
import { SignedUrl, SignedUrlRequest } from "./signed-url-schemas";
import { ensureSigningSalt, rotateSigningSalt } from "./signing-salts";
import { ownerMoving } from "../platform/data/moved-ids";
import { fileNotFound, goneApartFromReview, goneError, isOwner, loadFile, viewerOf, FILE_LOOKUP_ERRORS } from "../serving/access";
import { accessChanged } from "../serving/access-changed";
import { newSigningSalt, signLink } from "../serving/signed-links";
import { config } from "../config/env";

export const signedUrlRoutes = apiRouter();
export const signedUrlMount = mountAt("/files", signedUrlRoutes);
const tags = ["Files"];

/** The caller's own live file; 404 for anyone else's, whatever its visibility. */
async function ownFileForLinks(db: ShardDb, principal: Principal, id: string, now: number): Promise<FileRow> {
  const loaded = await loadFile(db, id);
  if (!loaded || loaded.file.state !== "finalized" || !isOwner(loaded.file, viewerOf(principal))) throw fileNotFound();
  // Under review is no reason to refuse: serving refuses the link while the file is hidden (410).
  const gone = goneApartFromReview(loaded, now);
  if (gone) throw goneError(gone);
  // Making the first link or revoking writes the file's signing salt: it waits while the owner moves shards.
  if (loaded.ownerMoving) throw ownerMoving();
  return loaded.file;
}

signedUrlRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/{id}/signed-url",
    operationId: "files.createSignedUrl",
    tags,
    summary: "Make a signed, expiring link",
    description:
      "A link to the file's bytes (or a variant) that works for anyone holding it until expiresAt, whatever the file's visibility; " +
      "never for a deleted or moderation-hidden file. Changing any parameter of it gives 403 invalid_signature, using it after expiresAt " +
      "403 signed_url_expired. The owner, or an API key with read.",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { params: FileIdParam, body: jsonBody(SignedUrlRequest) },
    errors: [...FILE_LOOKUP_ERRORS, "owner_moving"],
    responses: { 200: json(SignedUrl, "The link"), ...errors(400, 401, 403, 404, 410, 429, 503) },
  }),
  async (c) => {
    const now = Date.now();
    const id = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("file", id);
    const file = await ownFileForLinks(db, c.get("principal"), id, now);
    const body = c.req.valid("json");
    let salt = file.signingSalt;
    if (!salt) {
      salt = (await ensureSigningSalt(db, file.id, newSigningSalt()))?.signingSalt ?? null;
      if (!salt) throw fileNotFound(); // the row went away between the two statements
      // Records cached so far hold no salt: forgotten, so the very next view of the link is checked against it.
      await accessChanged(c.env, { files: [file] });
    }
    const params = new URLSearchParams();
    if (body.w !== undefined) params.set("w", String(body.w));
    if (body.h !== undefined) params.set("h", String(body.h));
    if (body.fit !== undefined) params.set("fit", body.fit);
    if (body.format !== undefined) params.set("format", body.format);
    const exp = Math.floor(now / 1000 + body.expiresIn);
    const sig = await signLink(config(c.env).signedUrlSecret, salt, file.id, "original", params, exp);
    params.set("exp", String(exp));
    params.set("sig", sig);
    return c.json({ url: `${fileUrl(c.env, file.id)}?${params}`, expiresAt: new Date(exp * 1000).toISOString() }, 200);
  },
);

signedUrlRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/{id}/signed-url/revoke",
    operationId: "files.revokeSignedUrls",
    tags,
    summary: "Revoke the file's signed links",
    description: "Voids every signed link made for the file so far (a new salt keys the ones made after). The owner, or an API key with read.",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { params: FileIdParam },
    errors: [...FILE_LOOKUP_ERRORS, "owner_moving"],
    responses: { 200: json(MessageBody, "Revoked"), ...errors(401, 403, 404, 410, 429, 503) },
  }),
  async (c) => {
    const id = c.req.valid("param").id;
    const db = c.get("dbs").shardOf("file", id);
    const file = await ownFileForLinks(db, c.get("principal"), id, Date.now());
    if (!(await rotateSigningSalt(db, file.id, newSigningSalt()))) throw fileNotFound();
    await accessChanged(c.env, { files: [file] }); // before answering: the very next view of an old link is refused
    return c.json({ message: "Signed links revoked" }, 200);
  },
);
